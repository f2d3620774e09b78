// Which question the panel shows. Every pending request is
// kept; one panel at a time. Foreground questions open by themselves (unless the person hid or closed
// them); continued ones open only when asked for. Pure data: the controller holds the state.
import type { Question } from '../question/types';
import type { Intent, PendingQuestions, Transcript, WaitInfo } from '../types';

export interface Asked {
  callId: string;
  /** A plain question, or a plan review (shown as the plan with Approve and Request changes). */
  intent: Intent;
  questions: Question[];
  /** foreground: the call waits for the answer now; continued: the agent went on (late path). */
  kind: 'foreground' | 'continued';
  /** Timed foreground wait (countdown + take-over); null for blocking and continued questions. */
  wait: WaitInfo | null;
  /** A late reply already waits for admission. */
  replyQueued: string | null;
}

export interface Queue {
  /** The panel's question; `collapsed` = hidden by the person (its timed take-over is released). */
  open: { callId: string; collapsed: boolean } | null;
  /** Calls the person hid or closed: they never open by themselves again. */
  dismissed: readonly string[];
}

export const emptyQueue: Queue = { open: null, dismissed: [] };

export const noPending: PendingQuestions = { foreground: [], continued: [] };

/** Everything pending, foreground first (in the order asked), then continued. */
export function askedList(p: PendingQuestions): Asked[] {
  return [
    ...p.foreground.map(
      (q): Asked => ({
        callId: q.call_id,
        intent: q.intent,
        questions: q.questions,
        kind: 'foreground',
        wait: q.wait,
        replyQueued: null,
      }),
    ),
    ...p.continued
      .filter((q) => !p.foreground.some((f) => f.call_id === q.call_id))
      .map(
        (q): Asked => ({
          callId: q.call_id,
          intent: q.intent,
          questions: q.questions,
          kind: 'continued',
          wait: null,
          replyQueued: q.reply_queued,
        }),
      ),
  ];
}

export function findAsked(p: PendingQuestions, callId: string): Asked | undefined {
  return askedList(p).find((a) => a.callId === callId);
}

/**
 * Answerable from here: not settled, and no late reply of it already on its way. The transcript's
 * record says so first: it is the session's own fold, kept current by the deltas of every recorded
 * event, while the pending list is read again only after the fact (so, right after a late answer was
 * admitted, the list still has the question). Without a record (not shown yet) the list decides.
 */
function answerable(a: Asked, transcript: Transcript | null): boolean {
  const record = transcript?.questions.find((r) => r.call_id === a.callId);
  if (!record) return a.replyQueued === null;
  return record.state !== 'settled' && record.reply_queued === null;
}

/**
 * The host says a question resolved when the pending list no longer has it AND the transcript no longer
 * shows it open or continued. The second check covers the moment between a timed foreground wait ending
 * and its `pending` tool result being recorded, when the question is briefly in neither list.
 */
export function isResolved(callId: string, pending: PendingQuestions, transcript: Transcript | null): boolean {
  if (findAsked(pending, callId)) return false;
  const record = transcript?.questions.find((r) => r.call_id === callId);
  return !record || record.state === 'settled';
}

/** After a new read: keep the open panel while its question is pending, else open the next foreground one. */
export function reconcile(q: Queue, pending: PendingQuestions, transcript: Transcript | null): Queue {
  const listed = askedList(pending);
  let open = q.open;
  if (open && isResolved(open.callId, pending, transcript)) open = null;
  if (open) return open === q.open ? q : { ...q, open };
  const next = listed.find((a) => a.kind === 'foreground' && !q.dismissed.includes(a.callId));
  return { ...q, open: next ? { callId: next.callId, collapsed: false } : null };
}

/** The person asked for a question (tool row "Answer", the waiting strip, a notification). */
export function openCall(q: Queue, callId: string): Queue {
  return { open: { callId, collapsed: false }, dismissed: q.dismissed.filter((c) => c !== callId) };
}

/** "Hide": collapse without answering; the question stays held (and its countdown runs). */
export function hide(q: Queue): Queue {
  if (!q.open) return q;
  return { open: { ...q.open, collapsed: true }, dismissed: addOnce(q.dismissed, q.open.callId) };
}

/** "Close": the panel goes away (for a foreground question the controller cancels it too). */
export function close(q: Queue): Queue {
  if (!q.open) return q;
  return { open: null, dismissed: addOnce(q.dismissed, q.open.callId) };
}

function addOnce(list: readonly string[], id: string): readonly string[] {
  return list.includes(id) ? list : [...list, id];
}

/** Whether the panel takes over the composer area now. */
export function panelShown(q: Queue): boolean {
  return q.open !== null && !q.open.collapsed;
}

/** The questions the "N questions are waiting for your answer" strip counts: answerable, not on screen. */
export function waiting(q: Queue, pending: PendingQuestions, transcript: Transcript | null): Asked[] {
  return askedList(pending).filter(
    (a) => answerable(a, transcript) && !(panelShown(q) && q.open?.callId === a.callId),
  );
}

/** What the strip's "Answer" opens: the hidden panel first, then the first waiting question. */
export function nextToAnswer(q: Queue, pending: PendingQuestions, transcript: Transcript | null): string | null {
  const list = waiting(q, pending, transcript);
  if (q.open?.collapsed && list.some((a) => a.callId === q.open?.callId)) return q.open.callId;
  return list[0]?.callId ?? null;
}
