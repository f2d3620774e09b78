import { describe, expect, it } from 'vitest';
import {
  choose,
  currentItem,
  currentQuestion,
  deserialize,
  draftKey,
  goTo,
  isComplete,
  markFrozen,
  newDraft,
  serialize,
  setCustom,
  settledCount,
  skip,
  toBatch,
  unskip,
} from './draft';
import { db, extras, name, three } from './fixtures';

describe('choose', () => {
  it('single-select sets the selection and advances to the next unanswered item', () => {
    const d = choose(newDraft(three), 'Postgres');
    expect(d.items[0]?.selected).toEqual(['Postgres']);
    expect(d.index).toBe(1);
  });
  it('single-select replaces an earlier choice', () => {
    let d = choose(newDraft(three), 'SQLite');
    d = choose(goTo(d, 0), 'Postgres');
    expect(d.items[0]?.selected).toEqual(['Postgres']);
  });
  it('advances past already settled items, wrapping to earlier ones', () => {
    let d = goTo(newDraft(three), 1);
    d = choose(d, 'Auth');
    d = goTo(d, 0);
    d = choose(d, 'SQLite');
    expect(d.index).toBe(2);
    d = setCustom(d, 'x');
    d = goTo(d, 1);
    d = choose(d, 'Auth'); // multi toggles off; item 1 open again, no advance
    expect(d.index).toBe(1);
  });
  it('stays on the last item when nothing is left to answer', () => {
    const d = choose(newDraft([db]), 'SQLite');
    expect(d.index).toBe(0);
    expect(isComplete(d)).toBe(true);
  });
  it('multi-select toggles and does not advance', () => {
    let d = goTo(newDraft(three), 1);
    d = choose(d, 'Cache');
    d = choose(d, 'Auth');
    expect(d.index).toBe(1);
    expect(d.items[1]?.selected).toEqual(['Cache', 'Auth']);
    d = choose(d, 'Cache');
    expect(d.items[1]?.selected).toEqual(['Auth']);
  });
  it('ignores unknown labels and free-form questions', () => {
    const d = newDraft(three);
    expect(choose(d, 'MySQL')).toBe(d);
    const free = goTo(d, 2);
    expect(choose(free, 'SQLite')).toBe(free);
  });
  it('clears Other text and a skip on the item', () => {
    let d = setCustom(newDraft(three), 'DuckDB');
    d = choose(d, 'SQLite');
    expect(d.items[0]).toEqual({ selected: ['SQLite'], custom: '', skipped: false });
    d = skip(goTo(d, 1));
    d = choose(goTo(d, 1), 'Queue');
    expect(d.items[1]?.skipped).toBe(false);
  });
});

describe('setCustom', () => {
  it('Other text clears the selection (custom overrides)', () => {
    let d = goTo(newDraft(three), 1);
    d = choose(choose(d, 'Auth'), 'Cache');
    d = setCustom(d, 'Search');
    expect(d.items[1]).toEqual({ selected: [], custom: 'Search', skipped: false });
    expect(d.index).toBe(1);
  });
  it('blank text keeps the selection and does not count as an answer', () => {
    let d = choose(newDraft([extras]), 'Auth');
    d = setCustom(d, '   ');
    expect(d.items[0]?.selected).toEqual(['Auth']);
    expect(isComplete(setCustom(newDraft([name]), '  '))).toBe(false);
  });
  it('non-blank text takes back a skip', () => {
    let d = skip(newDraft([name]));
    d = setCustom(d, 'hark');
    expect(d.items[0]?.skipped).toBe(false);
  });
});

describe('skip', () => {
  it('marks only the current item and keeps earlier drafts', () => {
    let d = choose(newDraft(three), 'SQLite');
    d = choose(d, 'Auth');
    d = skip(d);
    expect(d.items[0]?.selected).toEqual(['SQLite']);
    expect(d.items[1]).toEqual({ selected: ['Auth'], custom: '', skipped: true });
    expect(d.items[2]?.skipped).toBe(false);
    expect(d.index).toBe(2);
  });
  it('unskip restores what the item held', () => {
    let d = goTo(choose(goTo(newDraft(three), 1), 'Queue'), 1);
    d = unskip(goTo(skip(d), 1));
    expect(d.items[1]).toEqual({ selected: ['Queue'], custom: '', skipped: false });
  });
});

describe('goTo and progress', () => {
  it('clamps the index', () => {
    const d = newDraft(three);
    expect(goTo(d, 9).index).toBe(2);
    expect(goTo(d, -3).index).toBe(0);
    expect(goTo(d, Number.NaN).index).toBe(0);
    expect(currentQuestion(goTo(d, 1))?.id).toBe('extras');
  });
  it('isComplete needs every item answered or skipped', () => {
    let d = newDraft(three);
    expect(isComplete(d)).toBe(false);
    d = choose(d, 'SQLite');
    d = skip(d);
    expect(settledCount(d)).toBe(2);
    expect(isComplete(d)).toBe(false);
    d = setCustom(d, 'hark');
    expect(isComplete(d)).toBe(true);
  });
  it('an empty request is never complete', () => {
    const d = newDraft([]);
    expect(isComplete(d)).toBe(false);
    expect(toBatch(d)).toBeNull();
    expect(skip(d)).toBe(d);
    expect(setCustom(d, 'x')).toBe(d);
    expect(currentItem(d)).toEqual({ selected: [], custom: '', skipped: false });
  });
});

describe('toBatch', () => {
  it('is null while any item is unanswered (never a fabricated skip)', () => {
    expect(toBatch(choose(newDraft(three), 'SQLite'))).toBeNull();
  });
  it('builds the protocol shape in question order', () => {
    let d = choose(newDraft(three), 'SQLite');
    d = skip(d);
    d = setCustom(d, '  hark-demo  ');
    expect(toBatch(d)).toEqual({
      answers: [
        { id: 'db', selected: ['SQLite'] },
        { id: 'extras', selected: [] },
        { id: 'name', selected: [], custom: 'hark-demo' },
      ],
    });
  });
  it('an explicit skip has no custom key, even if text was typed before', () => {
    const d = skip(setCustom(newDraft([name]), 'draft'));
    const batch = toBatch(d);
    expect(batch).toEqual({ answers: [{ id: 'name', selected: [] }] });
    expect(batch?.answers[0]).not.toHaveProperty('custom');
  });
  it('multi-select labels come out in option order', () => {
    let d = choose(newDraft([extras]), 'Queue');
    d = choose(d, 'Auth');
    expect(toBatch(d)?.answers[0]).toEqual({ id: 'extras', selected: ['Auth', 'Queue'] });
  });
  it('custom on an option question gives an empty selection', () => {
    const d = setCustom(choose(newDraft([db]), 'SQLite'), 'DuckDB');
    expect(toBatch(d)).toEqual({ answers: [{ id: 'db', selected: [], custom: 'DuckDB' }] });
  });
});

describe('persistence', () => {
  it('draftKey is per session and call and cannot be confused by separators', () => {
    expect(draftKey('s1', 'c1')).not.toBe(draftKey('s1', 'c2'));
    expect(draftKey('a:b', 'c')).not.toBe(draftKey('a', 'b:c'));
    expect(draftKey('s', 'c')).toMatch(/^hark\.question-draft\.v1:/);
  });
  it('round-trips items, index and the frozen flag', () => {
    let d = choose(newDraft(three), 'Postgres');
    d = choose(d, 'Cache');
    d = markFrozen(setCustom(goTo(d, 2), 'hark'));
    d = goTo(d, 1);
    const back = deserialize(three, serialize(d));
    expect(back.items).toEqual(d.items);
    expect(back.index).toBe(1);
    expect(back.frozen).toBe(true);
    expect(toBatch(back)).toEqual(toBatch(d));
  });
  it('markFrozen is idempotent', () => {
    const d = markFrozen(newDraft(three));
    expect(markFrozen(d)).toBe(d);
  });
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['not JSON', '{oops'],
    ['a number', '42'],
    ['an array', '[]'],
    ['JSON null', 'null'],
    ['a wrong version', JSON.stringify({ v: 2, index: 1, frozen: true, items: {} })],
    ['items not an object', JSON.stringify({ v: 1, index: 1, items: 'x' })],
  ])('gives a fresh draft for %s', (_, input) => {
    const d = deserialize(three, input);
    expect(d).toEqual(newDraft(three));
  });
  it('drops labels that no longer exist and odd item shapes', () => {
    const stored = JSON.stringify({
      v: 1,
      index: 7,
      frozen: 'yes',
      items: {
        db: { selected: ['MySQL', 'Postgres', 'SQLite'], custom: 3, skipped: 'true' },
        extras: { selected: ['Auth', 'Auth', 5, 'Gone'] },
        name: 'garbage',
        other: { selected: ['x'] },
      },
    });
    const d = deserialize(three, stored);
    expect(d.items).toEqual([
      { selected: ['Postgres'], custom: '', skipped: false },
      { selected: ['Auth'], custom: '', skipped: false },
      { selected: [], custom: '', skipped: false },
    ]);
    expect(d.index).toBe(2);
    expect(d.frozen).toBe(false);
  });
  it('ignores inherited keys (a question id like toString)', () => {
    const d = deserialize([{ id: 'toString', question: 'q', multi_select: false }], JSON.stringify({ v: 1, index: 0, items: {} }));
    expect(d.items).toEqual([{ selected: [], custom: '', skipped: false }]);
  });
});
