import { describe, expect, it } from 'vitest';
import {
  answerLines,
  argumentSummary,
  approvalText,
  needsPerson,
  outcomeText,
  questionStatus,
  revealMore,
  shownItems,
  TURN_ITEMS_SHOWN,
  turnKey,
  turnStartsOpen,
  turnSummary,
} from './transcriptView';
import type { QuestionRecord, Turn, TranscriptItem } from './types';
import type { Question } from './question/types';

const questions: Question[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'Postgres' }], multi_select: false },
  { id: 'extras', question: 'Extras?', options: [{ label: 'Docs' }, { label: 'CI' }], multi_select: true },
  { id: 'name', question: 'Name?', multi_select: false },
  { id: 'notes', question: 'Anything else?', multi_select: false },
];

const record = (over: Partial<QuestionRecord>): QuestionRecord => ({
  call_id: 'c1',
  intent: { kind: 'question' },
  parent_call_id: null,
  state: 'open',
  timed: true,
  questions,
  answers: null,
  answered_late: false,
  reply_queued: null,
  returned: false,
  asker: null,
  since: null,
  withdrawn: null,
  asked_at: null,
  ...over,
});

describe('questionStatus', () => {
  it('reads the projection before the row result: a late answer beats a pending result', () => {
    const s = questionStatus(record({ state: 'settled', answered_late: true }), { status: 'pending', content: 'PENDING' });
    expect(s).toEqual({ label: 'Answered late', tone: 'done' });
  });
  it('says the agent withdrew a question, with its reason', () => {
    const withdrawn = record({ state: 'settled', withdrawn: 'found it in the README' });
    expect(questionStatus(withdrawn, { status: 'pending', content: '{}' })).toEqual({
      label: 'Withdrawn by the agent: found it in the README',
      tone: 'muted',
    });
  });
  it('says a continued question can still be answered, and when a reply is queued', () => {
    expect(questionStatus(record({ state: 'continued' }), null).label).toMatch(/answer any time/);
    expect(questionStatus(record({ state: 'continued', reply_queued: 'm1' }), null).label).toBe(
      'Answer sent — waiting for the agent to pick it up',
    );
    expect(questionStatus(record({ state: 'open' }), null).label).toBe('Waiting for your answer');
  });
  it('names a cancelled call calmly and other failures by code', () => {
    const cancelled = { status: 'error' as const, error: { name: 'UserInteractionError', code: 'ASK_CANCELLED', message: 'closed' } };
    expect(questionStatus(null, cancelled)).toEqual({ label: 'Cancelled', tone: 'muted' });
    const timedOut = { status: 'error' as const, error: { name: 'UserInteractionError', code: 'ASK_TIMED_OUT', message: 'x' } };
    expect(questionStatus(null, timedOut)).toEqual({ label: 'Timed out', tone: 'muted' });
    const failed = { status: 'error' as const, error: { name: 'UserInteractionError', code: 'NO_PROVIDER', message: 'x' } };
    expect(questionStatus(null, failed)).toEqual({ label: 'Failed: NO_PROVIDER', tone: 'error' });
  });
  it('says a script question cut off by a stopped run can no longer be answered', () => {
    const interrupted = questionStatus(null, { status: 'TOOL_OUTCOME_UNKNOWN' });
    expect(interrupted).toEqual({ label: 'Interrupted — can no longer be answered', tone: 'muted' });
  });
});

describe('answerLines', () => {
  it('renders labels, several labels, typed text and skips', () => {
    const lines = answerLines(questions, {
      answers: [
        { id: 'db', selected: ['SQLite'] },
        { id: 'extras', selected: ['Docs', 'CI'] },
        { id: 'name', selected: [], custom: 'hark-demo' },
        { id: 'notes', selected: [] },
      ],
    });
    expect(lines.map((l) => l.answer)).toEqual(['SQLite', 'Docs, CI', '“hark-demo”', 'Skipped']);
    expect(lines[3]?.skipped).toBe(true);
  });
  it('is empty without answers', () => {
    expect(answerLines(questions, null)).toEqual([]);
  });
});

describe('argumentSummary and outcomeText', () => {
  it('flattens and truncates arguments', () => {
    const s = argumentSummary({ path: 'a'.repeat(300) }, 40);
    expect(s).toHaveLength(40);
    expect(s.endsWith('…')).toBe(true);
    expect(argumentSummary('{\n "path": "."\n}')).toBe('{ "path": "." }');
  });
  it('explains an unknown outcome instead of showing a code', () => {
    expect(outcomeText({ status: 'TOOL_OUTCOME_UNKNOWN' })).toMatch(/outcome is unknown/);
    expect(outcomeText(null)).toBe('running…');
  });
});

describe('turns', () => {
  const turn = (items: TranscriptItem[]): Turn => ({ turn_id: 't', run_id: null, started_at: '', ended: null, items });
  const user: TranscriptItem = { kind: 'user_message', seq: 1, at: '', message_id: 'm', text: '  plan   the\nmove ' };
  const ask = (state: QuestionRecord['state']): TranscriptItem => ({
    kind: 'tool_call', seq: 2, at: '', call_id: 'c1', name: 'ask_user_question', arguments: {}, result: null,
    question: record({ state }), queued_answers: null,
  });

  it('the latest turn starts open; an older one only when it holds a waiting question or an error', () => {
    expect(turnStartsOpen(turn([user]), true)).toBe(true);
    expect(turnStartsOpen(turn([user]), false)).toBe(false);
    expect(turnStartsOpen(turn([user, ask('continued')]), false)).toBe(true);
    expect(turnStartsOpen(turn([user, ask('settled')]), false)).toBe(false);
    const error: TranscriptItem = { kind: 'model_error', seq: 3, at: '', error: { name: 'E', code: 'C', message: 'm' } };
    expect(turnStartsOpen(turn([user, error]), false)).toBe(true);
    const mcp: TranscriptItem = {
      kind: 'mcp_unavailable', seq: 4, at: '', server: 'fs', error: { name: 'McpError', code: 'MCP_START_FAILED', message: 'm' },
    };
    expect(turnStartsOpen(turn([user, mcp]), false)).toBe(true);
  });

  it('keys a turn by its id, or by its position when it has none', () => {
    expect(turnKey(turn([user]), 3)).toBe('t');
    expect(turnKey({ ...turn([user]), turn_id: null }, 3)).toBe('t3');
  });

  it('summarises a turn by what the person said', () => {
    expect(turnSummary(turn([user]))).toBe('plan the move');
    expect(turnSummary(turn([user]), 5)).toBe('plan…');
    expect(turnSummary(turn([]))).toBe('The agent continued');
    expect(turnSummary(turn([]), 80, 'Claude Code')).toBe('Claude Code asked');
  });
});

describe('shownItems and revealMore', () => {
  // Seqs go up by 10 so that a boundary between two items is also tested.
  const step = (i: number): TranscriptItem => ({ kind: 'assistant_message', seq: i * 10, at: '', text: `s${i}`, reasoning: null, tool_calls: [] });
  const ask = (i: number, state: QuestionRecord['state'], name = 'ask_user_question'): TranscriptItem => ({
    kind: 'tool_call', seq: i * 10, at: '', call_id: `c${i}`, name, arguments: {}, result: null,
    question: record({ call_id: `c${i}`, state }), queued_answers: null,
  });
  const error = (i: number): TranscriptItem => ({ kind: 'model_error', seq: i * 10, at: '', error: { name: 'E', code: 'C', message: 'm' } });
  /** `n` items, with some positions replaced. */
  const items = (n: number, at: Record<number, TranscriptItem> = {}) => Array.from({ length: n }, (_, i) => at[i] ?? step(i));
  const seqs = (list: readonly TranscriptItem[]) => list.map((item) => item.seq / 10);
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

  it('keeps the message that opened the turn, and puts the gap after it', () => {
    const opening: TranscriptItem = { kind: 'user_message', seq: 0, at: '', message_id: 'm', text: 'go' };
    const shown = shownItems(items(100, { 0: opening }), null);
    expect(seqs(shown.items)).toEqual([0, ...range(60, 100)]);
    expect(shown.lead).toBe(1);
    expect(shown.hidden).toBe(59);
    const late: TranscriptItem = {
      kind: 'late_answer', seq: 0, at: '', message_id: 'l', call_id: 'c', questions: [], answers: null, raw_text: 'x',
    };
    expect(seqs(shownItems(items(100, { 0: late }), null).items)[0]).toBe(0);
    // Only the opening one: a message the person typed later in a long turn goes behind the button.
    const later: TranscriptItem = { kind: 'user_message', seq: 50, at: '', message_id: 'm2', text: 'more' };
    const withLater = shownItems(items(100, { 5: later }), null);
    expect(seqs(withLater.items)).toEqual(range(60, 100));
    expect(withLater.lead).toBe(0);
  });

  it('has a window of 40 items', () => {
    expect(TURN_ITEMS_SHOWN).toBe(40);
  });

  it('shows a turn of fewer items than the limit whole, as the same list', () => {
    const list = items(3);
    expect(shownItems(list, null)).toEqual({ items: list, hidden: 0, lead: 0 });
    expect(shownItems(list, null).items).toBe(list);
    expect(shownItems([], null)).toEqual({ items: [], hidden: 0, lead: 0 });
  });

  it('shows a turn of exactly the limit whole', () => {
    const shown = shownItems(items(40), null);
    expect(seqs(shown.items)).toEqual(range(0, 40));
    expect(shown.hidden).toBe(0);
  });

  it('shows the newest 40 of a longer turn, in order, and counts the rest', () => {
    const shown41 = shownItems(items(41), null);
    expect(seqs(shown41.items)).toEqual(range(1, 41));
    expect(shown41.hidden).toBe(1);
    const shown = shownItems(items(300), null);
    expect(seqs(shown.items)).toEqual(range(260, 300));
    expect(shown.hidden).toBe(260);
  });

  it('keeps an old open or continued question in its place, and hides a settled one', () => {
    const list = items(100, { 3: ask(3, 'open'), 7: ask(7, 'continued'), 9: ask(9, 'settled') });
    const shown = shownItems(list, null);
    expect(seqs(shown.items)).toEqual([3, 7, ...range(60, 100)]);
    expect(shown.items[0]).toBe(list[3]);
    expect(shown.hidden).toBe(58);
  });

  it('keeps an old model error in its place', () => {
    const shown = shownItems(items(100, { 50: error(50), 0: error(0) }), null);
    expect(seqs(shown.items)).toEqual([0, 50, ...range(60, 100)]);
    expect(shown.hidden).toBe(58);
  });

  it('counts a waiting question among the newest 40 once, as one of them', () => {
    const shown = shownItems(items(100, { 80: ask(80, 'open') }), null);
    expect(seqs(shown.items)).toEqual(range(60, 100));
    expect(shown.hidden).toBe(60);
  });

  it('says what needs the person: waiting questions and model errors only', () => {
    expect(needsPerson(ask(1, 'open'))).toBe(true);
    expect(needsPerson(ask(1, 'continued'))).toBe(true);
    expect(needsPerson(ask(1, 'settled'))).toBe(false);
    expect(needsPerson(ask(1, 'open', 'list_files'))).toBe(false);
    expect(needsPerson(error(1))).toBe(true);
    expect(needsPerson(step(1))).toBe(false);
    expect(needsPerson({ kind: 'late_answer', seq: 1, at: '', message_id: 'm', call_id: 'c', questions: [], answers: null, raw_text: '' })).toBe(false);
  });

  it('reveals 100 more each time, then what remains, then nothing more', () => {
    const list = items(300);
    const first = revealMore(list, null);
    expect(first).toBe(160 * 10);
    expect(shownItems(list, first)).toEqual({ items: list.slice(160), hidden: 160, lead: 0 });
    const second = revealMore(list, first);
    expect(shownItems(list, second).hidden).toBe(60);
    const third = revealMore(list, second);
    expect(third).toBe(0);
    expect(shownItems(list, third)).toEqual({ items: list, hidden: 0, lead: 0 });
    expect(revealMore(list, third)).toBe(0);
  });

  it('does not count the always-shown items among the 100 it reveals', () => {
    const list = items(300, { 200: ask(200, 'open'), 180: error(180) });
    const before = shownItems(list, null);
    expect(before.hidden).toBe(258);
    const after = shownItems(list, revealMore(list, null));
    expect(after.hidden).toBe(158);
    expect(seqs(after.items)).toEqual(range(158, 300));
  });

  it('lets the window slide over new items until the person reveals, then keeps what they revealed', () => {
    const list = items(300);
    expect(seqs(shownItems(items(302), null).items)).toEqual(range(262, 302));
    const from = revealMore(list, null);
    const grown = shownItems(items(305), from);
    expect(seqs(grown.items)).toEqual(range(160, 305));
    expect(grown.hidden).toBe(160);
  });

  it('reads a revealed seq between two items as the next one, and one past the end as nothing revealed', () => {
    expect(seqs(shownItems(items(100), 455).items)).toEqual(range(46, 100));
    expect(shownItems(items(100), 455).hidden).toBe(46);
    expect(shownItems(items(100), 99_999).hidden).toBe(60);
  });
});

describe('approvalText', () => {
  it('reads a recorded permission request as words, never as JSON', () => {
    const args = { agent: 'Claude Code', tool: 'Bash', summary: 'run `npm test`', detail: '$ npm test', always: null };
    expect(approvalText(args)).toEqual({ title: 'Claude Code asked to run `npm test`', detail: '$ npm test' });
    expect(approvalText('not an object')).toEqual({ title: 'The agent asked to use a tool', detail: '' });
  });
});
