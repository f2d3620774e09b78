// A plan review's answers. The review's one question comes from the shell (its id, and its one option
// that approves), so nothing here names them: approving picks that option, feedback is the typed text.
import type { AnswerBatch, Question } from './types';
import { optionsOf } from './types';

/** The batch that approves the plan the review's `question` asks about. */
export function approveBatch(question: Question): AnswerBatch | null {
  const approve = optionsOf(question)[0];
  if (!approve) return null;
  return { answers: [{ id: question.id, selected: [approve.label] }] };
}

/** The batch that asks for changes: the person's words, which the agent reads as feedback. */
export function feedbackBatch(question: Question, feedback: string): AnswerBatch | null {
  const text = feedback.trim();
  if (text === '') return null;
  return { answers: [{ id: question.id, selected: [], custom: text }] };
}

/** What a recorded review decided, in words: "Approved", or the change request with its feedback. */
export function verdictText(question: Question | undefined, batch: AnswerBatch): string {
  const answer = batch.answers.find((a) => a.id === question?.id);
  if (question && answer && answer.selected.length === 1 && answer.selected[0] === approveLabel(question) && !answer.custom) {
    return 'Approved';
  }
  return answer?.custom ? `Changes requested: “${answer.custom}”` : 'Changes requested';
}

/** The label of the approving option, as the button shows it. */
export function approveLabel(question: Question): string {
  return optionsOf(question)[0]?.label ?? 'Approve';
}

/** A stored feedback draft (what `saveDraft` kept), or '' when there is none or it is unreadable. */
export function storedFeedback(json: string | null): string {
  if (!json) return '';
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === 'object' && value !== null && 'feedback' in value && typeof value.feedback === 'string') {
      return value.feedback;
    }
  } catch {
    // A draft of another shape (or none): start empty.
  }
  return '';
}

export function feedbackDraft(feedback: string): string {
  return JSON.stringify({ feedback });
}
