import { describe, expect, it } from 'vitest';
import { idle, onEvent, onTranscript } from './stream';
import type { AgentEvent, StoredEvent } from '../types';

const stored = (type: string, session_id = 's1', seq = 1): StoredEvent => ({ session_id, seq, at: '', type });

describe('stream', () => {
  it('turns drive busy; deltas build the streaming bubble', () => {
    let live = onEvent(idle, { type: 'turn_started', session_id: 's1', turn_id: 't' }, 's1').live;
    expect(live.busy).toBe(true);
    live = onEvent(live, { type: 'text_delta', session_id: 's1', text: 'Hel' }, 's1').live;
    live = onEvent(live, { type: 'text_delta', session_id: 's1', text: 'lo' }, 's1').live;
    expect(live.streaming).toBe('Hello');
    const ended = onEvent(live, { type: 'turn_ended', session_id: 's1', turn_id: 't', reason: 'completed' }, 's1');
    expect(ended).toMatchObject({ refreshQuestions: true, refreshSessions: true });
    expect(ended.live.busy).toBe(false);
  });

  it('asks for the sessions list on questions (which bring the questions along), for nothing on appended events', () => {
    expect(onEvent(idle, { type: 'event_appended', event: stored('tool/call') }, 's1')).toMatchObject({ refreshQuestions: false, refreshSessions: false });
    const q: AgentEvent = {
      type: 'question',
      event: { type: 'resolved', session_id: 's1', call_id: 'c', outcome: 'answered' },
      questions: { revision: 1, questions: [] },
    };
    expect(onEvent(idle, q, 's1')).toMatchObject({ refreshQuestions: false, refreshSessions: true });
    expect(onEvent(idle, { type: 'text_delta', session_id: 's1', text: 'x' }, 's1').refreshQuestions).toBe(false);
    const t: AgentEvent = { type: 'transcript', session_id: 's1', seq: 1, deltas: [] };
    expect(onEvent(idle, t, 's1')).toEqual({ live: idle, refreshQuestions: false, refreshSessions: false });
  });

  it('ignores events of another session', () => {
    const e = onEvent(idle, { type: 'text_delta', session_id: 's2', text: 'x' }, 's1');
    expect(e).toEqual({ live: idle, refreshQuestions: false, refreshSessions: false });
    const other = onEvent({ ...idle, streaming: 'x' }, { type: 'event_appended', event: stored('assistant/message', 's2') }, 's1');
    expect(other.live.recorded).toBe(0);
  });

  it('drops streamed text only once the transcript shown includes the event that recorded it', () => {
    let live = { ...idle, busy: true, streaming: 'Hello' };
    live = onEvent(live, { type: 'event_appended', event: stored('assistant/message', 's1', 7) }, 's1').live;
    expect(live).toMatchObject({ recorded: 5, recordedSeq: 7 });
    live = onEvent(live, { type: 'text_delta', session_id: 's1', text: ' next' }, 's1').live;
    // A transcript from before the message does not have it yet.
    expect(onTranscript(live, 6)).toBe(live);
    live = onTranscript(live, 7);
    expect(live).toMatchObject({ streaming: ' next', recorded: 0 });
    // Nothing more is recorded: later transcripts leave the bubble alone.
    expect(onTranscript(live, 8)).toBe(live);
  });

  it('text still streaming when the turn is recorded as ended goes with the transcript that ends it', () => {
    let live = { ...idle, busy: true, streaming: 'cut off' };
    live = onEvent(live, { type: 'event_appended', event: stored('turn/ended', 's1', 4) }, 's1').live;
    expect(live).toMatchObject({ recorded: 7, recordedSeq: 4 });
    live = onEvent(live, { type: 'turn_ended', session_id: 's1', turn_id: 't', reason: 'aborted' }, 's1').live;
    expect(live).toMatchObject({ busy: false, streaming: 'cut off' });
    expect(onTranscript(live, 4).streaming).toBe('');
  });

  it('an error event is kept for the banner', () => {
    const e = onEvent(idle, { type: 'error', session_id: 's1', error: { name: 'StoreError', code: 'STORE', message: 'disk full' } }, 's1');
    expect(e.live.error).toEqual({ name: 'StoreError', code: 'STORE', message: 'disk full' });
  });
});
