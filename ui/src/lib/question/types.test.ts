import { describe, expect, it } from 'vitest';
import { isFreeForm, isMultiSelect, isRecommended, optionsOf, shownLabel } from './types';
import { db, extras, name } from './fixtures';

describe('question helpers', () => {
  it('absent, null or empty options make a free-form question', () => {
    expect(isFreeForm(name)).toBe(true);
    expect(isFreeForm({ ...name, options: [] })).toBe(true);
    expect(optionsOf(JSON.parse('{"id":"a","question":"q","options":null}'))).toEqual([]);
    expect(isFreeForm(db)).toBe(false);
  });
  it('multi_select counts only when true and there are options', () => {
    expect(isMultiSelect(extras)).toBe(true);
    expect(isMultiSelect(db)).toBe(false);
    expect(isMultiSelect({ ...name, multi_select: true })).toBe(false);
  });
});

describe('recommendation mark', () => {
  const opt = (label: string) => ({ label });
  it('is "(Recommended)" at the end of a label, in any case, shown as a badge instead', () => {
    expect(isRecommended(opt('Postgres (Recommended)'))).toBe(true);
    expect(shownLabel(opt('Postgres (recommended) '))).toBe('Postgres');
    expect(isRecommended(opt('Postgres'))).toBe(false);
    expect(isRecommended(opt('(Recommended) Postgres'))).toBe(false);
    expect(shownLabel(opt('Postgres'))).toBe('Postgres');
  });
  it('a label that is only the mark is shown as written', () => {
    expect(isRecommended(opt('(Recommended)'))).toBe(false);
    expect(shownLabel(opt('(Recommended)'))).toBe('(Recommended)');
  });
});
