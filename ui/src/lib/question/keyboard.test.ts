import { describe, expect, it } from 'vitest';
import { type PanelKeyEvent, type PanelKeyState, panelKeyAction } from './keyboard';
import { db, extras, name } from './fixtures';

const key = (k: string, more: Partial<PanelKeyEvent> = {}): PanelKeyEvent => ({
  key: k,
  shiftKey: false,
  isComposing: false,
  ...more,
});
const single: PanelKeyState = { question: db, highlight: -1, complete: false };
const multi: PanelKeyState = { question: extras, highlight: -1, complete: false };

describe('digits', () => {
  it('choose the n-th option on single-select', () => {
    expect(panelKeyAction(key('1'), single)).toEqual({ kind: 'choose', label: 'SQLite' });
    expect(panelKeyAction(key('2'), single)).toEqual({ kind: 'choose', label: 'Postgres' });
  });
  it('toggle the n-th option on multi-select', () => {
    expect(panelKeyAction(key('3'), multi)).toEqual({ kind: 'toggle', label: 'Queue' });
  });
  it('do nothing past the last option, for 0, with modifiers, or while typing Other text', () => {
    expect(panelKeyAction(key('3'), single)).toEqual({ kind: 'none' });
    expect(panelKeyAction(key('0'), single)).toEqual({ kind: 'none' });
    expect(panelKeyAction(key('1', { ctrlKey: true }), single)).toEqual({ kind: 'none' });
    expect(panelKeyAction(key('1', { metaKey: true }), single)).toEqual({ kind: 'none' });
    expect(panelKeyAction(key('1', { altKey: true }), single)).toEqual({ kind: 'none' });
    expect(panelKeyAction(key('1', { shiftKey: true }), single)).toEqual({ kind: 'none' });
    expect(panelKeyAction(key('1', { inTextField: true }), single)).toEqual({ kind: 'none' });
  });
  it('do nothing on a free-form question or an empty request', () => {
    expect(panelKeyAction(key('1'), { ...single, question: name })).toEqual({ kind: 'none' });
    expect(panelKeyAction(key('ArrowDown'), { ...single, question: undefined })).toEqual({ kind: 'none' });
  });
});

describe('arrows', () => {
  it('ArrowDown moves down and wraps; from no highlight it starts at the top', () => {
    expect(panelKeyAction(key('ArrowDown'), multi)).toEqual({ kind: 'highlight', index: 0 });
    expect(panelKeyAction(key('ArrowDown'), { ...multi, highlight: 1 })).toEqual({ kind: 'highlight', index: 2 });
    expect(panelKeyAction(key('ArrowDown'), { ...multi, highlight: 2 })).toEqual({ kind: 'highlight', index: 0 });
  });
  it('ArrowUp moves up and wraps; from no highlight it starts at the bottom', () => {
    expect(panelKeyAction(key('ArrowUp'), multi)).toEqual({ kind: 'highlight', index: 2 });
    expect(panelKeyAction(key('ArrowUp'), { ...multi, highlight: 2 })).toEqual({ kind: 'highlight', index: 1 });
    expect(panelKeyAction(key('ArrowUp'), { ...multi, highlight: 0 })).toEqual({ kind: 'highlight', index: 2 });
  });
  it('a stale highlight past the end is pulled back in', () => {
    expect(panelKeyAction(key('ArrowDown'), { ...single, highlight: 5 })).toEqual({ kind: 'highlight', index: 0 });
    expect(panelKeyAction(key('ArrowUp'), { ...single, highlight: 5 })).toEqual({ kind: 'highlight', index: 1 });
  });
  it('belong to the text while typing Other text', () => {
    expect(panelKeyAction(key('ArrowDown', { inTextField: true }), multi)).toEqual({ kind: 'none' });
  });
});

describe('Space', () => {
  it('toggles the highlighted option on multi-select', () => {
    expect(panelKeyAction(key(' '), { ...multi, highlight: 1 })).toEqual({ kind: 'toggle', label: 'Cache' });
  });
  it('does nothing without a highlight, on single-select, or in a text field', () => {
    expect(panelKeyAction(key(' '), multi)).toEqual({ kind: 'none' });
    expect(panelKeyAction(key(' '), { ...single, highlight: 0 })).toEqual({ kind: 'none' });
    expect(panelKeyAction(key(' ', { inTextField: true }), { ...multi, highlight: 0 })).toEqual({ kind: 'none' });
  });
});

describe('Enter', () => {
  it('submits only when every item is answered or skipped', () => {
    expect(panelKeyAction(key('Enter'), { ...single, complete: true })).toEqual({ kind: 'submit' });
    expect(panelKeyAction(key('Enter'), single)).toEqual({ kind: 'incomplete' });
  });
  it('submits from the Other text field too', () => {
    expect(panelKeyAction(key('Enter', { inTextField: true }), { ...single, complete: true })).toEqual({
      kind: 'submit',
    });
  });
  it('never submits during an IME composition', () => {
    const done = { ...single, complete: true };
    expect(panelKeyAction(key('Enter', { isComposing: true }), done)).toEqual({ kind: 'none' });
    expect(panelKeyAction(key('Enter', { keyCode: 229 }), done)).toEqual({ kind: 'none' });
  });
  it('Shift/Ctrl/Meta/Alt+Enter do not submit', () => {
    const done = { ...single, complete: true };
    for (const m of ['shiftKey', 'ctrlKey', 'metaKey', 'altKey'] as const) {
      expect(panelKeyAction(key('Enter', { [m]: true }), done)).toEqual({ kind: 'none' });
    }
  });
});

describe('Escape and Tab', () => {
  it('Escape closes (cancels the whole call)', () => {
    expect(panelKeyAction(key('Escape'), single)).toEqual({ kind: 'close' });
    expect(panelKeyAction(key('Escape', { inTextField: true }), single)).toEqual({ kind: 'close' });
  });
  it('Escape during an IME composition only cancels the composition', () => {
    expect(panelKeyAction(key('Escape', { isComposing: true }), single)).toEqual({ kind: 'none' });
  });
  it('Tab is left to the browser', () => {
    expect(panelKeyAction(key('Tab'), { ...multi, highlight: 0, complete: true })).toEqual({ kind: 'none' });
    expect(panelKeyAction(key('Tab', { shiftKey: true }), multi)).toEqual({ kind: 'none' });
  });
});
