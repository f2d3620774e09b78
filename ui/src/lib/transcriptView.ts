import type { AnswerBatch, Question } from './question/types';
import type { QuestionRecord, ToolOutcome, TranscriptItem, Turn } from './types';

export type Tone = 'waiting' | 'done' | 'muted' | 'error';

export interface Status {
  label: string;
  tone: Tone;
}

/** What a question's tool row says about it. The question record (the core's projection) wins over
 * the row's own result, so a late answer shows even though the result itself says pending. */
export function questionStatus(record: QuestionRecord | null, outcome: ToolOutcome | null): Status {
  if (record) {
    switch (record.state) {
      case 'open':
        return { label: 'Waiting for your answer', tone: 'waiting' };
      case 'continued':
        return record.reply_queued
          ? { label: 'Answer sent — waiting for the agent to pick it up', tone: 'waiting' }
          : { label: 'Continued — answer any time', tone: 'waiting' };
      case 'settled':
        if (record.withdrawn !== null) return { label: `Withdrawn by the agent: ${record.withdrawn}`, tone: 'muted' };
        return record.answered_late ? { label: 'Answered late', tone: 'done' } : { label: 'Answered', tone: 'done' };
    }
  }
  if (outcome?.status === 'error') {
    switch (outcome.error.code) {
      case 'ASK_CANCELLED':
        return { label: 'Cancelled', tone: 'muted' };
      case 'ASK_TIMED_OUT':
        return { label: 'Timed out', tone: 'muted' };
      case 'ASK_ABORTED':
        return { label: 'Stopped with the turn', tone: 'muted' };
      default:
        return { label: `Failed: ${outcome.error.code}`, tone: 'error' };
    }
  }
  // Only a script's question reaches here unknown: Hark stopped before its result was recorded, and
  // nothing would read a late answer to it.
  if (outcome?.status === 'TOOL_OUTCOME_UNKNOWN') {
    return { label: 'Interrupted — can no longer be answered', tone: 'muted' };
  }
  return { label: 'No answer recorded', tone: 'muted' };
}

/**
 * Whether a turn starts expanded. The latest always does; an older one only when it holds something the
 * person may need: a question still waiting, a late answer, or a model error.
 */
export function turnStartsOpen(turn: Turn, isLast: boolean): boolean {
  if (isLast) return true;
  return turn.items.some((item) => item.kind === 'late_answer' || needsPerson(item));
}

/** The tools that ask the person (a question, a plan review): their rows show the question's state. */
const ASKING_TOOLS: readonly string[] = ['ask_user_question', 'submit_plan'];

export function isQuestionCall(item: Extract<TranscriptItem, { kind: 'tool_call' }>): boolean {
  return ASKING_TOOLS.includes(item.name);
}

/** The name an outside agent's permission request is recorded under in its session's log. */
export const APPROVAL_TOOL = 'permission_request';

/** A recorded permission request as a person reads it (what the agent asked to do, and the command,
 * diff or URL), never its JSON. */
export function approvalText(args: unknown): { title: string; detail: string } {
  const field = (key: string): string => {
    if (typeof args !== 'object' || args === null) return '';
    const value = (args as Record<string, unknown>)[key];
    return typeof value === 'string' ? value : '';
  };
  const what = field('summary') || `use ${field('tool') || 'a tool'}`;
  return { title: `${field('agent') || 'The agent'} asked to ${what}`, detail: field('detail') };
}

/** An item the person has to act on or know about: a question still waiting for them, a model error, or an MCP server that would not start. */
export function needsPerson(item: TranscriptItem): boolean {
  return (
    item.kind === 'model_error' ||
    item.kind === 'mcp_unavailable' ||
    (item.kind === 'tool_call' && isQuestionCall(item) && (item.question?.state === 'open' || item.question?.state === 'continued'))
  );
}

/** How many of a turn's newest items it renders before the person asks for more. */
export const TURN_ITEMS_SHOWN = 40;
/** How many more earlier items each "Show earlier items" reveals. */
export const TURN_ITEMS_REVEALED = 100;

// An agent's turn can run for hundreds of steps, and building all of them (most of them Markdown) is
// what made a long session slow to open. So a turn shows its newest items, and older ones on request.
// What the person revealed is remembered as the seq of the oldest revealed item, not as a count: items
// only ever join the end of a turn, in seq order, so new ones push the unrevealed window forward while
// everything from that seq on stays shown.

/** Where the shown run of a turn starts: its newest `TURN_ITEMS_SHOWN`, or earlier if revealed. */
function windowStart(items: readonly TranscriptItem[], revealedFrom: number | null): number {
  const newest = Math.max(0, items.length - TURN_ITEMS_SHOWN);
  if (revealedFrom === null) return newest;
  const at = items.findIndex((item) => item.seq >= revealedFrom);
  return at < 0 ? newest : Math.min(at, newest);
}

/**
 * Shown however long the turn: what needs the person, and the message that opened the turn (what
 * they asked, or their late answer), which the turn's heading names.
 */
function alwaysShown(item: TranscriptItem, index: number): boolean {
  return needsPerson(item) || (index === 0 && (item.kind === 'user_message' || item.kind === 'late_answer'));
}

/**
 * The items of a turn to render, in transcript order, and how many are left out: the newest
 * `TURN_ITEMS_SHOWN`, everything from the seq `revealedFrom` on (null: nothing revealed), and any older
 * item that is always shown. `lead` is how many shown items come before the first left-out one:
 * where "Show earlier items" goes.
 */
export function shownItems(
  items: readonly TranscriptItem[],
  revealedFrom: number | null,
): { items: readonly TranscriptItem[]; hidden: number; lead: number } {
  const start = windowStart(items, revealedFrom);
  if (start === 0) return { items, hidden: 0, lead: 0 };
  const older = items.slice(0, start);
  const firstHidden = older.findIndex((item, i) => !alwaysShown(item, i));
  const shown = older.filter((item, i) => alwaysShown(item, i));
  const lead = firstHidden < 0 ? shown.length : firstHidden;
  return { items: shown.concat(items.slice(start)), hidden: start - shown.length, lead };
}

/**
 * The new `revealedFrom` once the person asks for more: it takes in the next `TURN_ITEMS_REVEALED`
 * hidden items before the shown run (items that are always shown do not count), or all that remain.
 */
export function revealMore(items: readonly TranscriptItem[], revealedFrom: number | null): number | null {
  let start = windowStart(items, revealedFrom);
  let revealed = 0;
  while (start > 0 && revealed < TURN_ITEMS_REVEALED) {
    start -= 1;
    if (!alwaysShown(items[start]!, start)) revealed += 1;
  }
  return items[start]?.seq ?? revealedFrom;
}

/** The identity of a turn in the transcript list: its id, or its position for a turn recorded without one. */
export function turnKey(turn: Turn, index: number): string {
  return turn.turn_id ?? `t${index}`;
}

/** A turn's one-line heading: what the person said, shortened; an outside agent's turn holds only its questions. */
export function turnSummary(turn: Turn, max = 80, agent: string | null = null): string {
  for (const item of turn.items) {
    if (item.kind === 'user_message') return shorten(item.text, max);
    if (item.kind === 'late_answer') return 'Your late answer';
  }
  return agent ? `${shorten(agent, max)} asked` : 'The agent continued';
}

function shorten(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export interface AnswerLine {
  id: string;
  question: string;
  answer: string;
  skipped: boolean;
}

/** One readable line per question of a batch: labels joined, typed text quoted, skips named. */
export function answerLines(questions: Question[], batch: AnswerBatch | null): AnswerLine[] {
  if (!batch) return [];
  return questions.map((q) => {
    const a = batch.answers.find((x) => x.id === q.id);
    if (a?.custom != null && a.custom !== '') {
      return { id: q.id, question: q.question, answer: `“${a.custom}”`, skipped: false };
    }
    if (a && a.selected.length > 0) {
      return { id: q.id, question: q.question, answer: a.selected.join(', '), skipped: false };
    }
    return { id: q.id, question: q.question, answer: 'Skipped', skipped: true };
  });
}

/** A one-line summary of a tool call's arguments for its row, never longer than `max` characters. */
export function argumentSummary(args: unknown, max = 120): string {
  let text: string;
  if (typeof args === 'string') text = args;
  else {
    try {
      text = JSON.stringify(args) ?? '';
    } catch {
      text = String(args);
    }
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The text of a tool result for a collapsed row. */
export function outcomeText(outcome: ToolOutcome | null): string {
  if (!outcome) return 'running…';
  switch (outcome.status) {
    case 'ok':
    case 'pending':
      return outcome.content;
    case 'error':
      return `${outcome.error.code}: ${outcome.error.message}`;
    case 'TOOL_OUTCOME_UNKNOWN':
      return 'Hark stopped before this call finished; its outcome is unknown.';
  }
}
