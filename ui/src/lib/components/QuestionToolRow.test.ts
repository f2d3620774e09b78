import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import QuestionToolRow from './QuestionToolRow.svelte';
import type { QuestionRecord, TranscriptItem } from '../types';
import type { Question } from '../question/types';

const questions: Question[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'Postgres' }], multi_select: false },
  { id: 'name', question: 'Name?', multi_select: false },
];
const record = (over: Partial<QuestionRecord>): QuestionRecord => ({
  call_id: 'c1', state: 'open', intent: { kind: 'question' }, parent_call_id: null, timed: true, questions, answers: null, answered_late: false, reply_queued: null, returned: false, asker: null, since: null, withdrawn: null, asked_at: null, ...over,
});
type ToolCall = Extract<TranscriptItem, { kind: 'tool_call' }>;
const row = (over: Partial<ToolCall>): ToolCall => ({
  kind: 'tool_call', seq: 3, at: '', call_id: 'c1', name: 'ask_user_question', arguments: { questions },
  result: null, question: record({}), queued_answers: null, ...over,
});
const answers = { answers: [{ id: 'db', selected: ['SQLite'] }, { id: 'name', selected: [] }] };

describe('QuestionToolRow', () => {
  it('an open question the host lists as answerable offers Answer, which opens the panel on this call', async () => {
    const onAnswer = vi.fn();
    const { container } = render(QuestionToolRow, { item: row({}), onAnswer, answerable: true });
    const el = screen.getByTestId('question-row');
    expect(el.getAttribute('data-call-id')).toBe('c1');
    expect(screen.getByTestId('question-status').textContent).toBe('Waiting for your answer');
    await fireEvent.click(screen.getByRole('button', { name: 'Answer' }));
    expect(onAnswer).toHaveBeenCalledWith('c1');
    expect(container.querySelector('[data-testid="answers-record"]')).toBeNull();
  });

  it('a late answer shows as "Answered late" with its record although the row result says pending', () => {
    render(QuestionToolRow, {
      item: row({
        result: { seq: 4, at: '', outcome: { status: 'pending', content: 'The user has not answered yet' } },
        question: record({ state: 'settled', answers, answered_late: true }),
      }),
      onAnswer: () => {},
      answerable: false,
    });
    expect(screen.getByTestId('question-status').textContent).toBe('Answered late');
    const rec = screen.getByTestId('answers-record');
    expect(rec.textContent).toContain('Which database?');
    expect(rec.textContent).toContain('SQLite');
    expect(rec.textContent).toContain('Skipped');
    expect(screen.queryByRole('button', { name: 'Answer' })).toBeNull();
  });

  it('a queued late reply shows as on its way with the queued answers and no Answer button', () => {
    render(QuestionToolRow, {
      item: row({ question: record({ state: 'continued', reply_queued: 'm1' }), queued_answers: answers }),
      onAnswer: () => {},
      answerable: false,
    });
    expect(screen.getByTestId('question-status').textContent).toBe('Answer sent — waiting for the agent to pick it up');
    expect(screen.getByTestId('answers-record').textContent).toContain('SQLite');
    expect(screen.queryByRole('button', { name: 'Answer' })).toBeNull();
  });

  it('a continued question can be answered any time; a cancelled one (no record) says so from its error', () => {
    const { unmount } = render(QuestionToolRow, { item: row({ question: record({ state: 'continued' }) }), onAnswer: () => {}, answerable: true });
    expect(screen.getByTestId('question-status').textContent).toBe('Continued — answer any time');
    expect(screen.getByRole('button', { name: 'Answer' })).toBeTruthy();
    unmount();
    render(QuestionToolRow, {
      item: row({
        question: null,
        result: { seq: 4, at: '', outcome: { status: 'error', error: { name: 'U', code: 'ASK_CANCELLED', message: 'x' } } },
      }),
      onAnswer: () => {},
      answerable: false,
    });
    expect(screen.getByTestId('question-status').textContent).toBe('Cancelled');
    expect(screen.getByText('Which database?')).toBeTruthy(); // from the call's own arguments
  });
});
