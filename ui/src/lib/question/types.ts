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

/**
 * The model marks the option it recommends by ending its label with "(Recommended)" (the tool's
 * description asks it to; `RECOMMENDED_MARK` in the shell's question module). The panel shows the mark
 * as a badge and never selects the option for the person; the label the model gets back stays whole.
 */
const RECOMMENDED = /\s*\(recommended\)\s*$/i;

export function isRecommended(option: QuestionOption): boolean {
  return RECOMMENDED.test(option.label) && option.label.replace(RECOMMENDED, '') !== '';
}

/** The label as shown: without the recommendation mark, which the badge stands for. */
export function shownLabel(option: QuestionOption): string {
  return isRecommended(option) ? option.label.replace(RECOMMENDED, '') : option.label;
}
