import { describe, expect, it } from 'vitest';
import { idle, onEvent, onTranscript } from './stream';
import type { AgentEvent, StoredEvent } from '../types';

const stored = (type: string, session_id = 's1'): StoredEvent => ({ session_id, seq: 1, at: '', type });

describe('stream', () => {
  it('turns drive busy; deltas build the streaming bubble', () => {
    let live = onEvent(idle, { type: 'turn_started', session_id: 's1', turn_id: 't' }, 's1').live;
    expect(live.busy).toBe(true);
    live = onEvent(live, { type: 'text_delta', session_id: 's1', text: 'Hel' }, 's1').live;
    live = onEvent(live, { type: 'text_delta', session_id: 's1', text: 'lo' }, 's1').live;
    expect(live.streaming).toBe('Hello');
    const ended = onEvent(live, { type: 'turn_ended', session_id: 's1', turn_id: 't', reason: 'done' }, 's1');
    expect(ended).toMatchObject({ refresh: true, refreshSessions: true });
    expect(ended.live.busy).toBe(false);
  });

  it('asks for re-reads on appended events and questions, and the sessions list on questions', () => {
    expect(onEvent(idle, { type: 'event_appended', event: stored('tool/call') }, 's1')).toMatchObject({ refresh: true, refreshSessions: false });
    const q: AgentEvent = { type: 'question', event: { type: 'resolved', session_id: 's1', call_id: 'c', outcome: 'answered' } };
    expect(onEvent(idle, q, 's1')).toMatchObject({ refresh: true, refreshSessions: true });
    expect(onEvent(idle, { type: 'text_delta', session_id: 's1', text: 'x' }, 's1').refresh).toBe(false);
  });

  it('ignores events of another session', () => {
    const e = onEvent(idle, { type: 'text_delta', session_id: 's2', text: 'x' }, 's1');
    expect(e).toEqual({ live: idle, refresh: false, refreshSessions: false });
    expect(onEvent(idle, { type: 'event_appended', event: stored('tool/call', 's2') }, 's1').refresh).toBe(false);
  });

  it('drops streamed text only once a read that started after it was recorded lands', () => {
    let live = { ...idle, busy: true, streaming: 'Hello' };
    live = onEvent(live, { type: 'event_appended', event: stored('assistant/message') }, 's1').live;
    expect(live.recorded).toBe(5);
    live = onEvent(live, { type: 'text_delta', session_id: 's1', text: ' next' }, 's1').live;
    // A read that began before the message was recorded does not hide it.
    expect(onTranscript(live, 0).streaming).toBe('Hello next');
    live = onTranscript(live, 5);
    expect(live).toMatchObject({ streaming: ' next', recorded: 0 });
  });

  it('an error event is kept for the banner', () => {
    const e = onEvent(idle, { type: 'error', session_id: 's1', error: { name: 'StoreError', code: 'STORE', message: 'disk full' } }, 's1');
    expect(e.live.error).toEqual({ name: 'StoreError', code: 'STORE', message: 'disk full' });
  });
});
