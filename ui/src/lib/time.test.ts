import { describe, expect, it } from 'vitest';
import { relativeTime } from './time';

const now = new Date('2026-11-29T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('relativeTime', () => {
  it.each([
    [10_000, 'just now'],
    [5 * 60_000, '5 min ago'],
    [3 * 3_600_000, '3 h ago'],
    [26 * 3_600_000, 'yesterday'],
    [3 * 86_400_000, '3 days ago'],
  ])('%i ms ago reads %s', (ms, want) => {
    expect(relativeTime(ago(ms), now)).toBe(want);
  });
  it('falls back to a date after a week', () => {
    expect(relativeTime(ago(30 * 86_400_000), now)).toMatch(/Oct|30/);
  });
});
