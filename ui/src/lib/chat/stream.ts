// What the live stream of the shown session does to the view: busy state, the streaming assistant
// bubble, and which re-reads it asks for. Pure: the controller applies the result.
import { toHarkError, type HarkError } from '../errors';
import type { AgentEvent } from '../types';

export interface Live {
  busy: boolean;
  /** Assistant text streamed in the current turn that the transcript does not show yet. */
  streaming: string;
  /**
   * How much of `streaming` is already recorded (an assistant message was appended): the next transcript
   * read drops that much, so the bubble never shows text twice nor flickers empty before the read lands.
   */
  recorded: number;
  /** An `error` event (e.g. the store failed). */
  error: HarkError | null;
}

export const idle: Live = { busy: false, streaming: '', recorded: 0, error: null };

export interface Effect {
  live: Live;
  /** Re-read the transcript and the pending questions (debounced). */
  refresh: boolean;
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
  const same = (l: Live, refresh = false, refreshSessions = false): Effect => ({ live: l, refresh, refreshSessions });
  if (eventSession(e) !== sessionId) return same(live);
  switch (e.type) {
    case 'turn_started':
      return same({ ...live, busy: true, error: null });
    case 'text_delta':
      return same({ ...live, streaming: live.streaming + e.text });
    case 'reasoning_delta':
      return same(live);
    case 'event_appended':
      if (e.event.type === 'assistant/message') return same({ ...live, recorded: live.streaming.length }, true);
      return same(live, true);
    case 'question':
      return same(live, true, true);
    case 'turn_ended':
      return same({ ...live, busy: false, recorded: live.streaming.length }, true, true);
    case 'error':
      return same({ ...live, error: toHarkError(e.error) });
  }
}

/**
 * A transcript read landed. `recordedAtRead` is `live.recorded` when that read started: only text
 * recorded before the read can be in it, so only that much is dropped from the bubble.
 */
export function onTranscript(live: Live, recordedAtRead: number): Live {
  const drop = Math.min(recordedAtRead, live.recorded);
  if (drop <= 0) return live;
  return { ...live, streaming: live.streaming.slice(drop), recorded: live.recorded - drop };
}
