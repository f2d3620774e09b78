import { describe, expect, it } from 'vitest';
import { isFreeForm, isMultiSelect, optionsOf } from './types';
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
