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
    expect(loadComposerDraft('/d', storage)).toBe('');
    saveComposerDraft('/d', 'half a thought', storage);
    expect(loadComposerDraft('/d', storage)).toBe('half a thought');
    saveComposerDraft('/d', '', storage);
    expect(storage.length).toBe(0);
  });

  it('belongs to one data directory', () => {
    const storage = memory();
    saveComposerDraft('/work', 'for work', storage);
    expect(loadComposerDraft('/home', storage)).toBe('');
  });

  it('survives storage that throws', () => {
    const broken = { ...memory(), getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('full'); } };
    expect(loadComposerDraft('/d', broken as Storage)).toBe('');
    expect(() => saveComposerDraft('/d', 'x', broken as Storage)).not.toThrow();
  });
});
