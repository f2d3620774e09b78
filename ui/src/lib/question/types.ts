// The question protocol's types come from the shell's Rust types (`bindings.ts`); these helpers read them.

import type { Question, QuestionOption } from '../bindings';

export type { Answer, AnswerBatch, Question, QuestionOption } from '../bindings';

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
