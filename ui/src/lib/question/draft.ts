// The answer draft of one request (every question of one call), as immutable data. Every operation
// returns a new draft; nothing here touches the DOM or storage, the panel does (see draftKey).

import { type Answer, type AnswerBatch, type Question, isMultiSelect, optionsOf } from './types';

/** What the user has put into one item so far. */
export interface ItemDraft {
  /** Chosen option labels, in the order they were chosen. */
  selected: string[];
  /** The "Other" text, untrimmed as typed. Non-blank text overrides `selected` (they are exclusive). */
  custom: string;
  /** Skipped on purpose. Wins over whatever the item holds, which is kept so an un-skip restores it. */
  skipped: boolean;
}

export interface Draft {
  readonly questions: readonly Question[];
  /** One per question, same order. */
  readonly items: readonly ItemDraft[];
  /** The item shown (one question at a time). */
  readonly index: number;
  /** The countdown was frozen (first edit or "Take your time"); persisted with the draft. */
  readonly frozen: boolean;
}

const emptyItem = (): ItemDraft => ({ selected: [], custom: '', skipped: false });

export function newDraft(questions: readonly Question[]): Draft {
  return { questions, items: questions.map(emptyItem), index: 0, frozen: false };
}

function itemAt(d: Draft, i: number): ItemDraft {
  return d.items[i] ?? emptyItem();
}

/** The question currently shown, if the request has any. */
export function currentQuestion(d: Draft): Question | undefined {
  return d.questions[d.index];
}

export function currentItem(d: Draft): ItemDraft {
  return itemAt(d, d.index);
}

/** Has an answer: a chosen option or non-blank "Other" text. A skipped item is not answered. */
export function isAnswered(item: ItemDraft): boolean {
  return !item.skipped && (item.custom.trim() !== '' || item.selected.length > 0);
}

/** Answered or explicitly skipped: nothing more is needed for this item. */
export function isSettled(item: ItemDraft): boolean {
  return item.skipped || isAnswered(item);
}

/** Every item answered or explicitly skipped (and the request is not empty). */
export function isComplete(d: Draft): boolean {
  return d.questions.length > 0 && d.questions.every((_, i) => isSettled(itemAt(d, i)));
}

/** How many items are settled, for a "2 of 3" hint. */
export function settledCount(d: Draft): number {
  return d.questions.filter((_, i) => isSettled(itemAt(d, i))).length;
}

function withItem(d: Draft, item: ItemDraft): Draft {
  const items = d.items.slice();
  items[d.index] = item;
  return { ...d, items };
}

/** The next unsettled item after the current one (wrapping), or the current index if none is left. */
function nextUnsettled(d: Draft): number {
  const n = d.questions.length;
  for (let step = 1; step < n; step++) {
    const i = (d.index + step) % n;
    if (!isSettled(itemAt(d, i))) return i;
  }
  return d.index;
}

/**
 * Picks an option of the current question. Single-select: the label becomes the selection and the
 * panel advances to the next unsettled item. Multi-select: the label is toggled, no advance. Either
 * way "Other" text and a skip on this item are cleared (the protocol keeps them exclusive). Unknown
 * labels and free-form questions leave the draft unchanged.
 */
export function choose(d: Draft, label: string): Draft {
  const q = currentQuestion(d);
  if (!q || !optionsOf(q).some((o) => o.label === label)) return d;
  const item = currentItem(d);
  if (isMultiSelect(q)) {
    const selected = item.selected.includes(label)
      ? item.selected.filter((l) => l !== label)
      : [...item.selected, label];
    return withItem(d, { selected, custom: '', skipped: false });
  }
  const next = withItem(d, { selected: [label], custom: '', skipped: false });
  return { ...next, index: nextUnsettled(next) };
}

/**
 * Sets the "Other" text of the current item. Non-blank text clears the selection and any skip
 * (custom overrides); blank text leaves them alone and counts as no answer.
 */
export function setCustom(d: Draft, text: string): Draft {
  if (!currentQuestion(d)) return d;
  const item = currentItem(d);
  if (text.trim() === '') return withItem(d, { ...item, custom: text });
  return withItem(d, { selected: [], custom: text, skipped: false });
}

/** Marks only the current item skipped (other items untouched) and advances to the next unsettled one. */
export function skip(d: Draft): Draft {
  if (!currentQuestion(d)) return d;
  const next = withItem(d, { ...currentItem(d), skipped: true });
  return { ...next, index: nextUnsettled(next) };
}

/** Takes back a skip on the current item; whatever it held before comes back. */
export function unskip(d: Draft): Draft {
  if (!currentQuestion(d)) return d;
  return withItem(d, { ...currentItem(d), skipped: false });
}

/** Shows item `i` (clamped to the request). */
export function goTo(d: Draft, i: number): Draft {
  const last = Math.max(0, d.questions.length - 1);
  const index = Number.isFinite(i) ? Math.min(last, Math.max(0, Math.trunc(i))) : d.index;
  return index === d.index ? d : { ...d, index };
}

/** Records that the countdown froze, so it stays frozen after a reload. */
export function markFrozen(d: Draft): Draft {
  return d.frozen ? d : { ...d, frozen: true };
}

function answerFor(q: Question, item: ItemDraft): Answer | null {
  if (item.skipped) return { id: q.id, selected: [] };
  const custom = item.custom.trim();
  if (custom !== '') return { id: q.id, selected: [], custom };
  if (item.selected.length === 0) return null;
  // Option order, not click order: stable for the model and for tests.
  const selected = optionsOf(q)
    .map((o) => o.label)
    .filter((l) => item.selected.includes(l));
  return { id: q.id, selected: isMultiSelect(q) ? selected : selected.slice(0, 1) };
}

/**
 * The batch the host expects: one answer per question, in question order. Skipped ⇒ `{id, selected: []}`;
 * "Other" ⇒ `{id, selected: [], custom}` with the text trimmed. `null` while any item is unsettled: an
 * unanswered item is never sent as a skip.
 */
export function toBatch(d: Draft): AnswerBatch | null {
  if (d.questions.length === 0) return null;
  const answers: Answer[] = [];
  for (const [i, q] of d.questions.entries()) {
    const a = answerFor(q, itemAt(d, i));
    if (!a) return null;
    answers.push(a);
  }
  return { answers };
}

// ---- persistence ----

/** The storage key of a call's draft. Components are encoded so no id can collide with another pair. */
export function draftKey(sessionId: string, callId: string): string {
  return `hark.question-draft.v1:${encodeURIComponent(sessionId)}:${encodeURIComponent(callId)}`;
}

interface StoredDraft {
  v: 1;
  index: number;
  frozen: boolean;
  /** Keyed by question id, so the stored shape does not depend on question order. */
  items: Record<string, ItemDraft>;
}

export function serialize(d: Draft): string {
  const items: Record<string, ItemDraft> = {};
  d.questions.forEach((q, i) => {
    const it = itemAt(d, i);
    items[q.id] = { selected: [...it.selected], custom: it.custom, skipped: it.skipped };
  });
  const stored: StoredDraft = { v: 1, index: d.index, frozen: d.frozen, items };
  return JSON.stringify(stored);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keeps what still fits the question: known labels only, at most one on single-select, no duplicates. */
function restoreItem(q: Question, raw: unknown): ItemDraft {
  if (!isRecord(raw)) return emptyItem();
  const labels = new Set(optionsOf(q).map((o) => o.label));
  const selected: string[] = [];
  if (Array.isArray(raw.selected)) {
    for (const l of raw.selected) {
      if (typeof l === 'string' && labels.has(l) && !selected.includes(l)) selected.push(l);
    }
  }
  return {
    selected: isMultiSelect(q) ? selected : selected.slice(0, 1),
    custom: typeof raw.custom === 'string' ? raw.custom : '',
    skipped: raw.skipped === true,
  };
}

/**
 * Restores a stored draft against the questions as they are now. Never throws: missing, corrupt or
 * foreign JSON gives a fresh draft; labels that no longer exist and ids of other questions are dropped.
 */
export function deserialize(questions: readonly Question[], json: string | null | undefined): Draft {
  const fresh = newDraft(questions);
  if (typeof json !== 'string') return fresh;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return fresh;
  }
  if (!isRecord(parsed) || parsed.v !== 1 || !isRecord(parsed.items)) return fresh;
  const stored = parsed.items;
  const items = questions.map((q) =>
    Object.prototype.hasOwnProperty.call(stored, q.id) ? restoreItem(q, stored[q.id]) : emptyItem(),
  );
  const index = typeof parsed.index === 'number' ? parsed.index : 0;
  return goTo({ questions, items, index: 0, frozen: parsed.frozen === true }, index);
}
