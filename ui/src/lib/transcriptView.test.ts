import { describe, expect, it } from 'vitest';
import { answerLines, argumentSummary, outcomeText, questionStatus } from './transcriptView';
import type { QuestionRecord } from './types';
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
    expect(questionStatus(record({ state: 'continued', reply_queued: 'm1' }), null).label).toMatch(/on its way/);
  });
  it('names a cancelled call calmly and other failures by code', () => {
    const cancelled = { status: 'error' as const, error: { name: 'UserInteractionError', code: 'ASK_CANCELLED', message: 'closed' } };
    expect(questionStatus(null, cancelled).tone).toBe('muted');
    const aborted = { status: 'error' as const, error: { name: 'UserInteractionError', code: 'ASK_ABORTED', message: 'x' } };
    expect(questionStatus(null, aborted)).toEqual({ label: 'Failed: ASK_ABORTED', tone: 'error' });
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
