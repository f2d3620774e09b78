import { describe, expect, it } from 'vitest';
import type { InboxEntry } from '../types';
import { groups, keyOf, move, reselect, standing } from './selection';

const entry = (asker: string, call: string, over: Partial<InboxEntry> = {}): InboxEntry =>
  ({
    asker,
    own_agent: asker === 'Hark',
    session_title: `${asker}'s session`,
    session_id: `s-${asker}`,
    call_id: call,
    intent: { kind: 'question' },
    questions: [],
    answerable: true,
    asked_at: null,
    phase: 'continued',
    reply_queued: null,
    ...over,
  }) as InboxEntry;

describe('inbox selection', () => {
  const a = entry('Hark', 'a');
  const b = entry('Hark', 'b');
  const c = entry('Codex', 'c');
  const list = [a, b, c];

  it('keeps the selected entry while it is listed, and moves to the one in its place when it leaves', () => {
    expect(reselect(list, list, keyOf(b))).toBe(keyOf(b));
    const answered = [a, c];
    expect(reselect(list, answered, keyOf(b))).toBe(keyOf(c));
    expect(reselect(answered, [a], keyOf(c))).toBe(keyOf(a)); // the last one answered: the one before
    expect(reselect(list, [], keyOf(a))).toBeNull();
    expect(reselect([], list, null)).toBe(keyOf(a));
  });

  it('passes over an entry whose answer is already on its way', () => {
    const queued = entry('Hark', 'b', { answerable: false, reply_queued: 'm1' });
    expect(reselect(list, [a, queued, c].slice(1), keyOf(a))).toBe(keyOf(c));
  });

  it('j/k move one place and stop at the ends', () => {
    expect(move(list, keyOf(a), 1)).toBe(keyOf(b));
    expect(move(list, keyOf(c), 1)).toBe(keyOf(c));
    expect(move(list, keyOf(a), -1)).toBe(keyOf(a));
    expect(move(list, null, 1)).toBe(keyOf(a));
  });

  it('groups follow the list order, one per asker', () => {
    expect(groups(list).map((g) => [g.asker, g.entries.length])).toEqual([['Hark', 2], ['Codex', 1]]);
  });

  it('says whether a question waits now or continued', () => {
    expect(standing(entry('Hark', 'x', { phase: 'foreground', wait: null } as Partial<InboxEntry>))).toBe('Waiting now');
    expect(standing(entry('Hark', 'x'))).toMatch(/answer any time/);
    expect(standing(entry('Hark', 'x', { reply_queued: 'm' }))).toMatch(/Answer sent/);
  });
});
