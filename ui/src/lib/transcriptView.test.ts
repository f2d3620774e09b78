import { describe, expect, it } from 'vitest';
import { answerLines, argumentSummary, canAnswer, outcomeText, questionStatus, turnKey, turnStartsOpen, turnSummary } from './transcriptView';
import type { QuestionRecord, Turn, TranscriptItem } from './types';
import type { Question } from './question/types';

const questions: Question[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'Postgres' }] },
  { id: 'extras', question: 'Extras?', options: [{ label: 'Docs' }, { label: 'CI' }], multi_select: true },
  { id: 'name', question: 'Name?' },
  { id: 'notes', question: 'Anything else?' },
];

const record = (over: Partial<QuestionRecord>): QuestionRecord => ({
  call_id: 'c1',
  state: 'open',
  timed: true,
  questions,
  answers: null,
  answered_late: false,
  reply_queued: null,
  ...over,
});

describe('questionStatus', () => {
  it('reads the projection before the row result: a late answer beats a pending result', () => {
    const s = questionStatus(record({ state: 'settled', answered_late: true }), { status: 'pending', content: 'PENDING' });
    expect(s).toEqual({ label: 'Answered late', tone: 'done' });
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

describe('canAnswer', () => {
  it('offers Answer for open and continued questions without a queued reply', () => {
    expect(canAnswer(record({ state: 'open' }))).toBe(true);
    expect(canAnswer(record({ state: 'continued' }))).toBe(true);
    expect(canAnswer(record({ state: 'continued', reply_queued: 'm1' }))).toBe(false);
    expect(canAnswer(record({ state: 'settled' }))).toBe(false);
    expect(canAnswer(null)).toBe(false);
  });
});

describe('turns', () => {
  const turn = (items: TranscriptItem[]): Turn => ({ turn_id: 't', started_at: '', ended: null, items });
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
  });

  it('keys a turn by its id, or by its position when it has none', () => {
    expect(turnKey(turn([user]), 3)).toBe('t');
    expect(turnKey({ ...turn([user]), turn_id: null }, 3)).toBe('t3');
  });

  it('summarises a turn by what the person said', () => {
    expect(turnSummary(turn([user]))).toBe('plan the move');
    expect(turnSummary(turn([user]), 5)).toBe('plan…');
    expect(turnSummary(turn([]))).toBe('The agent continued');
  });
});
