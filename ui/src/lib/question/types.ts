// TS mirrors of the question protocol (src-tauri/core/src/question/types.rs). Field names
// are snake_case exactly as they cross IPC.

/** One choice. `label` is both what the user sees and the value the model gets back. */
export interface QuestionOption {
  label: string;
  description?: string;
}

/** One question of a call. No options (or an empty list) makes it free-form. */
export interface Question {
  id: string;
  question: string;
  header?: string;
  options?: QuestionOption[];
  multi_select?: boolean;
}

/**
 * The user's answer to one question. `selected` holds option labels; when `custom` is present
 * `selected` is empty. `{ id, selected: [] }` without `custom` is an explicit skip.
 */
export interface Answer {
  id: string;
  selected: string[];
  custom?: string;
}

/** One answer per question of the call. */
export interface AnswerBatch {
  answers: Answer[];
}

/** The options of a question, `[]` when it is free-form (absent or null on the wire). */
export function optionsOf(q: Question): QuestionOption[] {
  return Array.isArray(q.options) ? q.options : [];
}

export function isFreeForm(q: Question): boolean {
  return optionsOf(q).length === 0;
}

export function isMultiSelect(q: Question): boolean {
  return q.multi_select === true && !isFreeForm(q);
}
