// What the live stream of the shown session does to the view: busy state, the streaming assistant
// bubble, and which re-reads it asks for (the transcript itself follows the `transcript` events, see
// deltas.ts). Pure: the controller applies the result.
import { toHarkError, type HarkError } from '../errors';
import type { AgentEvent } from '../types';

export interface Live {
  busy: boolean;
  /** Assistant text streamed in the current turn that the transcript does not show yet. */
  streaming: string;
  /**
   * How much of `streaming` is already recorded, by the event `recordedSeq`: once the transcript shown
   * includes that event the bubble drops that much, so text is never shown twice nor missing meanwhile.
   */
  recorded: number;
  recordedSeq: number;
  /** An `error` event (e.g. the store failed). */
  error: HarkError | null;
}

export const idle: Live = { busy: false, streaming: '', recorded: 0, recordedSeq: 0, error: null };

export interface Effect {
  live: Live;
  /** Re-read the waiting questions (debounced). A question event brings them along instead. */
  refreshQuestions: boolean;
  /** Re-read the sessions list. */
  refreshSessions: boolean;
}

/** The session an event is about. */
export function eventSession(e: AgentEvent): string {
  switch (e.type) {
    case 'event_appended':
      return e.event.session_id;
    case 'question':
      return e.event.type === 'requested' ? e.event.request.session_id : e.event.session_id;
    default:
      return e.session_id;
  }
}

export function onEvent(live: Live, e: AgentEvent, sessionId: string): Effect {
  const same = (l: Live, refreshQuestions = false, refreshSessions = false): Effect => ({ live: l, refreshQuestions, refreshSessions });
  if (eventSession(e) !== sessionId) return same(live);
  switch (e.type) {
    case 'turn_started':
      return same({ ...live, busy: true, error: null });
    case 'text_delta':
      return same({ ...live, streaming: live.streaming + e.text });
    case 'reasoning_delta':
      return same(live);
    case 'event_appended':
      // An assistant message records the text streamed so far. A turn records all its text before it
      // ends, so whatever still streams then is never going to be in the transcript: it goes too.
      if (e.event.type === 'assistant/message' || e.event.type === 'turn/ended') {
        return same({ ...live, recorded: live.streaming.length, recordedSeq: e.event.seq });
      }
      return same(live);
    case 'question':
      return same(live, false, true);
    case 'turn_ended':
      return same({ ...live, busy: false }, true, true);
    case 'error':
      return same({ ...live, error: toHarkError(e.error) });
    case 'transcript':
      return same(live);
  }
}

/** The transcript shown now includes the session's events up to `seq`. */
export function onTranscript(live: Live, seq: number): Live {
  if (live.recorded === 0 || seq < live.recordedSeq) return live;
  return { ...live, streaming: live.streaming.slice(live.recorded), recorded: 0 };
}
