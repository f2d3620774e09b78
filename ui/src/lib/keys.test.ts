import { describe, expect, it } from 'vitest';
import { isSubmitEnter } from './keys';

const enter = { key: 'Enter', shiftKey: false, isComposing: false };

describe('isSubmitEnter', () => {
  it('submits on a plain Enter', () => {
    expect(isSubmitEnter(enter)).toBe(true);
  });
  it('keeps Shift+Enter for a newline', () => {
    expect(isSubmitEnter({ ...enter, shiftKey: true })).toBe(false);
  });
  it('never submits while an IME composition is active', () => {
    expect(isSubmitEnter({ ...enter, isComposing: true })).toBe(false);
  });
  it('treats WebKit keyCode 229 as composing even when isComposing is false', () => {
    expect(isSubmitEnter({ ...enter, keyCode: 229 })).toBe(false);
  });
  it('ignores other keys', () => {
    expect(isSubmitEnter({ ...enter, key: 'a' })).toBe(false);
  });
});
