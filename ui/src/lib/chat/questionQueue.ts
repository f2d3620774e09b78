// Which question the panel shows. The host lists the session's waiting questions (`QuestionView`):
// which are listed, in what order, whether each waits in the foreground or was continued, whether it
// takes an answer now and whether a late reply of it is on its way. Nothing here decides any of
// that again; this module keeps only the person's own choices: which question the panel holds,
// whether they hid it, and which ones they hid or closed. Pure data: the controller holds the state.
import type { QuestionView, SessionQuestions } from '../types';

export interface Queue {
  /** The panel's question; `collapsed` = hidden by the person (its timed take-over is released). */
  open: { callId: string; collapsed: boolean } | null;
  /** Calls the person hid or closed: they never open by themselves again. */
  dismissed: readonly string[];
}

export const emptyQueue: Queue = { open: null, dismissed: [] };

/** Nothing read yet: any list the host sends replaces it. */
export const noQuestions: SessionQuestions = { revision: -1, questions: [] };

/**
 * The list to show of the one shown and one just received: the newer by the host's revision. A read
 * can land after a list the stream sent later, and must not bring back what that list no longer has.
 */
export function newer(shown: SessionQuestions, received: SessionQuestions): SessionQuestions {
  return received.revision >= shown.revision ? received : shown;
}

export function find(views: readonly QuestionView[], callId: string): QuestionView | undefined {
  return views.find((v) => v.call_id === callId);
}

/**
 * After a new list: keep the panel's question while the host lists it, else open the first answerable
 * foreground question the person did not hide or close (continued ones open only when asked for).
 */
export function reconcile(q: Queue, views: readonly QuestionView[]): Queue {
  let open = q.open;
  if (open && !find(views, open.callId)) open = null;
  if (open) return open === q.open ? q : { ...q, open };
  const next = views.find((v) => v.phase === 'foreground' && v.answerable && !q.dismissed.includes(v.call_id));
  return { ...q, open: next ? { callId: next.call_id, collapsed: false } : null };
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
export function waiting(q: Queue, views: readonly QuestionView[]): QuestionView[] {
  return views.filter((v) => v.answerable && !(panelShown(q) && q.open?.callId === v.call_id));
}

/** What the strip's "Answer" opens: the hidden panel first, then the first waiting question. */
export function nextToAnswer(q: Queue, views: readonly QuestionView[]): string | null {
  const list = waiting(q, views);
  if (q.open?.collapsed && list.some((v) => v.call_id === q.open?.callId)) return q.open.callId;
  return list[0]?.call_id ?? null;
}
