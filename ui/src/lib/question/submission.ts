// What happens to the panel after Submit.
// The draft is kept in every state but `done`: only the host's resolved frame ends the panel, never a
// local submit or a transport error on its own.

// A path is foreground (the open tool call's wait) or late (`answer(session, call_id, …)` for a
// continued question).
import type { AnswerPath } from '../bindings';
import { type HarkError, toHarkError } from '../errors';

export type SubmitState =
  /** Editable. `error` is the last refusal to show (BAD_ANSWER and friends). */
  | { kind: 'editing'; error?: HarkError }
  | { kind: 'submitting'; path: AnswerPath }
  /**
   * The foreground wait ended while submitting (the question is continued now): the kept draft can be
   * sent again through the late-answer path.
   */
  | { kind: 'resubmit'; error?: HarkError }
  /** A late reply was accepted into the session inbox and waits for admission. */
  | { kind: 'queued' }
  /** The host said the question resolved. */
  | { kind: 'done' };

export const initialSubmit: SubmitState = { kind: 'editing' };

/** Whether the controls take input (draft editable, Submit enabled when complete). */
export function canEdit(s: SubmitState): boolean {
  return s.kind === 'editing' || s.kind === 'resubmit';
}

export function isBusy(s: SubmitState): boolean {
  return s.kind === 'submitting' || s.kind === 'queued';
}

/**
 * Submit pressed. `continued` says whether the question is continued now (projection). A resubmit
 * always goes the late path. Ignored unless the panel is editable.
 */
export function submit(s: SubmitState, continued: boolean): SubmitState {
  if (!canEdit(s)) return s;
  const path: AnswerPath = s.kind === 'resubmit' || continued ? 'late' : 'foreground';
  return { kind: 'submitting', path };
}

/**
 * The submit call returned without error. A late reply is queued (not settled yet); a foreground answer
 * stays busy until the host's resolved frame (the host may still drop it if it lost the race).
 */
export function accepted(s: SubmitState): SubmitState {
  if (s.kind !== 'submitting') return s;
  return s.path === 'late' ? { kind: 'queued' } : s;
}

/**
 * The submit call failed. `continued`: the question is continued now.
 * - NOT_PENDING on the foreground path while continued → `resubmit` (the wait ended under us).
 * - NOT_PENDING otherwise → stay busy with the draft kept; the resolved frame (someone else answered)
 *   or `becameContinued` decides, never this error alone.
 * - anything else (BAD_ANSWER, REPLY_QUEUED, transport) → editable again with the message shown.
 */
export function rejected(s: SubmitState, reason: unknown, continued: boolean): SubmitState {
  if (s.kind !== 'submitting') return s;
  const error = toHarkError(reason);
  if (error.code === 'NOT_PENDING') {
    if (s.path === 'foreground' && continued) return { kind: 'resubmit' };
    return s;
  }
  return s.path === 'late' ? { kind: 'resubmit', error } : { kind: 'editing', error };
}

/** The projection says the question is continued now (its foreground wait ended). */
export function becameContinued(s: SubmitState): SubmitState {
  if (s.kind === 'submitting' && s.path === 'foreground') return { kind: 'resubmit' };
  return s;
}

/** A queued late reply was discarded (or its turn ended unadmitted): the user may answer again. */
export function replyDiscarded(s: SubmitState): SubmitState {
  return s.kind === 'queued' ? { kind: 'resubmit' } : s;
}

/** The host's resolved frame: the question is settled, whoever answered it. */
export function resolved(_s: SubmitState): SubmitState {
  return { kind: 'done' };
}

/** Dismisses a shown error (e.g. after the user edits). */
export function clearError(s: SubmitState): SubmitState {
  if ((s.kind === 'editing' || s.kind === 'resubmit') && s.error) return { kind: s.kind };
  return s;
}

/**
 * The submit call returned the host's path. `late`: the reply is queued in the session inbox (the
 * question settles when it is admitted). `foreground`: the waiting call got it; busy until the host's
 * resolved frame (the panel never ends on a local submit alone).
 */
export function acceptedVia(s: SubmitState, path: AnswerPath): SubmitState {
  if (s.kind !== 'submitting') return s;
  return path === 'late' ? { kind: 'queued' } : { kind: 'submitting', path: 'foreground' };
}

/** How a refusal reads in the panel. */
export function errorText(error: HarkError): string {
  if (error.code === 'REPLY_QUEUED') return 'An answer is already on its way';
  return error.message;
}
