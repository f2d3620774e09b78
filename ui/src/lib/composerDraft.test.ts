import { describe, expect, it } from 'vitest';
import { loadComposerDraft, saveComposerDraft } from './composerDraft';

function memory(): Storage {
  const m = new Map<string, string>();
  return {
    get length() { return m.size; },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, v),
  };
}

describe('composer draft', () => {
  it('is read back by the next page, and an emptied composer leaves nothing behind', () => {
    const storage = memory();
    expect(loadComposerDraft(storage)).toBe('');
    saveComposerDraft('half a thought', storage);
    expect(loadComposerDraft(storage)).toBe('half a thought');
    saveComposerDraft('', storage);
    expect(storage.length).toBe(0);
  });

  it('survives storage that throws', () => {
    const broken = { ...memory(), getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('full'); } };
    expect(loadComposerDraft(broken as Storage)).toBe('');
    expect(() => saveComposerDraft('x', broken as Storage)).not.toThrow();
  });
});
