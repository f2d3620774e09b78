import { afterEach, describe, expect, it } from 'vitest';
import { guardPage } from './pageGuard';

let remove: (() => void) | null = null;
afterEach(() => {
  remove?.();
  remove = null;
  document.body.innerHTML = '';
});

const fire = (target: EventTarget, event: Event) => {
  target.dispatchEvent(event);
  return event.defaultPrevented;
};
const menu = () => new MouseEvent('contextmenu', { bubbles: true, cancelable: true });
const key = (init: KeyboardEventInit) => new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });

describe('guardPage', () => {
  it('turns off the page context menu but keeps it in text fields', () => {
    document.body.innerHTML = '<main><p id="p">text</p><textarea id="t"></textarea><input id="i" /></main>';
    expect(fire(document.getElementById('p')!, menu())).toBe(false);
    remove = guardPage(window);
    expect(fire(document.getElementById('p')!, menu())).toBe(true);
    expect(fire(document.getElementById('t')!, menu())).toBe(false);
    expect(fire(document.getElementById('i')!, menu())).toBe(false);
  });

  it('swallows the reload keys and nothing else', () => {
    document.body.innerHTML = '<textarea id="t"></textarea>';
    const t = document.getElementById('t')!;
    remove = guardPage(window);
    expect(fire(t, key({ key: 'F5' }))).toBe(true);
    expect(fire(t, key({ key: 'r', ctrlKey: true }))).toBe(true);
    expect(fire(t, key({ key: 'R', ctrlKey: true, shiftKey: true }))).toBe(true);
    expect(fire(t, key({ key: 'r', metaKey: true }))).toBe(true);
    expect(fire(t, key({ key: 'r' }))).toBe(false);
    expect(fire(t, key({ key: 'c', ctrlKey: true }))).toBe(false);
    expect(fire(t, key({ key: 'Enter' }))).toBe(false);
  });

  it('comes off again', () => {
    document.body.innerHTML = '<p id="p">text</p>';
    guardPage(window)();
    expect(fire(document.getElementById('p')!, menu())).toBe(false);
  });
});
