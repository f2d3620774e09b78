import { describe, expect, it, vi } from 'vitest';
import { Chat, TEXT_FRAME_MS, TURN_PAGE, type ChatApi, type DraftStore } from './controller.svelte';
import {
  ManualTimers,
  assistantItem,
  cont,
  deferred,
  fg,
  flush,
  listed,
  transcript,
  transcriptEvent,
  turn,
  userItem,
} from './fakes';
import { draftKey } from '../question/draft';
import type { AgentEvent, QuestionEvent, QuestionView, SessionQuestions, Transcript } from '../types';

const ok = <T>(value: T) => ({ ok: true as const, value });
const fail = (code: string) => ({ ok: false as const, error: { name: 'UserInteractionError', code, message: `${code}!` } });

function memoryStore(): DraftStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
    key: (i) => [...map.keys()][i] ?? null,
    get length() {
      return map.size;
    },
  };
}

function setup(initial: { questions?: QuestionView[]; transcript?: Transcript } = {}) {
  const state = { questions: listed(initial.questions ?? [], 1), transcript: initial.transcript ?? transcript() };
  /** The host's list changes: what it sends or returns from now on, under a newer revision. */
  const list = (views: QuestionView[]): SessionQuestions =>
    (state.questions = listed(views, state.questions.revision + 1));
  /** A question event of session s1, with the host's list as it stands. */
  const question = (event: QuestionEvent): AgentEvent => ({ type: 'question', event, questions: state.questions });
  const streams = new Map<string, (e: AgentEvent) => void>();
  let takeoverId = 0;
  const api = {
    listSessions: vi.fn(async () => ok([])),
    getSettings: vi.fn(),
    saveSettings: vi.fn(),
    chooseWorkspace: vi.fn(async () => ok('/home/me/project')),
    startSession: vi.fn(async () => ok({ session_id: 'new1' })),
    openSession: vi.fn(async (id: string, onEvent: (e: AgentEvent) => void) => {
      streams.set(id, onEvent);
      return ok({ session_id: id, transcript: state.transcript, questions: state.questions, busy: false, model_label: 'Demo' });
    }),
    closeSessionView: vi.fn(async () => ok(undefined)),
    sessionTranscript: vi.fn(async () => ok(state.transcript)),
    sendMessage: vi.fn(async () => ok(undefined)),
    abort: vi.fn(async () => ok(true)),
    retry: vi.fn(async () => ok(undefined)),
    sessionQuestions: vi.fn(async () => ok(state.questions)),
    attachQuestion: vi.fn(async () => ok({ takeover_id: ++takeoverId, remaining_ms: 30_000 })),
    releaseQuestion: vi.fn(async () => ok(undefined)),
    submitAnswers: vi.fn(async () => ok({ path: 'foreground' as 'foreground' | 'late' })),
    cancelQuestion: vi.fn(async () => ok(undefined)),
    declineQuestion: vi.fn(async () => ok(undefined)),
    expireQuestion: vi.fn(async () => ok(undefined)),
    openLink: vi.fn(async () => ok(undefined)),
  };
  const timers = new ManualTimers();
  const storage = memoryStore();
  const chat = new Chat({ api: api as unknown as ChatApi, storage, timers, refreshDelayMs: 80 });
  const emit = (id: string, e: AgentEvent) => streams.get(id)?.(e);
  /** Lets a debounced re-read run and land. */
  const settle = async () => {
    timers.advance(100);
    await flush();
    await flush();
  };
  return { chat, api, state, emit, settle, storage, timers, list, question };
}

const batch = { answers: [{ id: 'db', selected: ['SQLite'] }] };

describe('Chat: sessions and stream', () => {
  it('opens a session and streams text; appended and question events read nothing, a turn end the questions once', async () => {
    const { chat, api, emit, settle, question } = setup();
    await chat.select('s1');
    expect(api.openSession).toHaveBeenCalledWith('s1', expect.any(Function), TURN_PAGE);
    emit('s1', { type: 'turn_started', session_id: 's1', turn_id: 't1' });
    emit('s1', { type: 'text_delta', session_id: 's1', text: 'Hi' });
    for (let i = 0; i < 5; i++) emit('s1', { type: 'event_appended', event: { session_id: 's1', seq: i, at: '', type: 'tool/call' } });
    expect(chat.live).toMatchObject({ busy: true, streaming: 'Hi' });
    await settle();
    expect(api.sessionQuestions).not.toHaveBeenCalled();
    for (let i = 0; i < 3; i++) {
      emit('s1', question({ type: 'resolved', session_id: 's1', call_id: `c${i}`, outcome: 'answered' }));
    }
    await settle();
    expect(api.sessionQuestions).not.toHaveBeenCalled();
    emit('s1', { type: 'turn_ended', session_id: 's1', turn_id: 't1', reason: 'completed' });
    await settle();
    expect(api.sessionQuestions).toHaveBeenCalledTimes(1);
    expect(api.sessionTranscript).not.toHaveBeenCalled();
    expect(chat.live.busy).toBe(false);
  });

  it('a fast stream re-renders the bubble once per frame, and nothing is lost or reordered', async () => {
    const { chat, emit, timers } = setup();
    await chat.select('s1');
    emit('s1', { type: 'turn_started', session_id: 's1', turn_id: 't1' });
    for (let i = 0; i < 1000; i++) emit('s1', { type: 'text_delta', session_id: 's1', text: `${i} ` });
    expect(chat.live.streaming).toBe('');
    timers.advance(TEXT_FRAME_MS);
    const all = Array.from({ length: 1000 }, (_, i) => `${i} `).join('');
    expect(chat.live.streaming).toBe(all);
    // An assistant message recorded right after text counts that text as recorded, at once.
    emit('s1', { type: 'text_delta', session_id: 's1', text: 'tail' });
    emit('s1', { type: 'event_appended', event: { session_id: 's1', seq: 9, at: '', type: 'assistant/message' } });
    expect(chat.live).toMatchObject({ streaming: all + 'tail', recorded: all.length + 4 });
    // Leaving drops what was not shown; nothing arrives late in another session.
    emit('s1', { type: 'text_delta', session_id: 's1', text: 'late' });
    await chat.select('s2');
    timers.advance(TEXT_FRAME_MS);
    expect(chat.live.streaming).toBe('');
  });

  it('shows a long session from its end and pages back on request', async () => {
    const { chat, api } = setup();
    await chat.select('s1');
    await chat.showEarlier();
    expect(api.sessionTranscript).toHaveBeenLastCalledWith('s1', 2 * TURN_PAGE);
    await chat.select('s2');
    expect(chat.turnLimit).toBe(TURN_PAGE);
    expect(api.openSession).toHaveBeenLastCalledWith('s2', expect.any(Function), TURN_PAGE);
  });

  it('switching sessions closes the old view and drops its late reads and events', async () => {
    const { chat, api, emit, state } = setup();
    await chat.select('s1');
    const slow = deferred<{ ok: true; value: Transcript }>();
    api.sessionTranscript.mockImplementationOnce(() => slow.promise);
    const read = chat.refreshNow();
    await chat.select('s2');
    expect(api.closeSessionView).toHaveBeenCalledWith('s1');
    slow.resolve(ok({ ...state.transcript, title: 'stale' }));
    expect(await read).toBe(false);
    expect(chat.transcript?.title).toBe('t');
    emit('s1', { type: 'text_delta', session_id: 's1', text: 'old' });
    expect(chat.live.streaming).toBe('');
  });

  it('the first Send of a new chat starts a session in the chosen workspace, then opens it', async () => {
    const { chat, api } = setup();
    chat.newChat();
    await chat.chooseWorkspace();
    expect(await chat.send('  build it ')).toBe(true);
    expect(api.startSession).toHaveBeenCalledWith('build it', '/home/me/project');
    expect(chat.activeId).toBe('new1');
    await chat.send('more');
    expect(api.sendMessage).toHaveBeenCalledWith('new1', 'more');
  });

  it('Stop aborts and Retry retries the shown session', async () => {
    const { chat, api } = setup();
    await chat.select('s1');
    await chat.stop();
    await chat.retry();
    expect(api.abort).toHaveBeenCalledWith('s1');
    expect(api.retry).toHaveBeenCalledWith('s1');
  });
});

describe('Chat: transcript events', () => {
  it('keep the shown transcript up to date without reading it', async () => {
    const { chat, api, emit, settle } = setup();
    await chat.select('s1');
    const opened = chat.transcript;
    emit('s1', transcriptEvent(1, { kind: 'turn_opened', turn: 0, value: turn('t1') }));
    emit('s1', transcriptEvent(2, { kind: 'item_added', turn: 0, item: 0, value: userItem(2, 'hello') }));
    emit('s1', { ...transcriptEvent(3, { kind: 'turn_opened', turn: 1, value: turn('other') }), session_id: 's2' });
    await settle();
    expect(chat.transcript).not.toBe(opened);
    expect(chat.transcript?.seq).toBe(2);
    expect(chat.transcript?.turns.map((t) => t.items.map((i) => i.seq))).toEqual([[2]]);
    expect(api.sessionTranscript).not.toHaveBeenCalled();
    expect(api.sessionQuestions).not.toHaveBeenCalled();
  });

  it('an event the stream skipped makes one full re-read, which later events continue', async () => {
    const { chat, api, emit, settle, state } = setup();
    await chat.select('s1');
    state.transcript = { ...transcript(), turns: [turn('t1', [userItem(2)])], seq: 3 };
    emit('s1', transcriptEvent(2, { kind: 'turn_opened', turn: 0, value: turn('t1') }));
    emit('s1', transcriptEvent(3, { kind: 'item_added', turn: 0, item: 0, value: userItem(2) }));
    await settle();
    expect(api.sessionTranscript).toHaveBeenCalledTimes(1);
    expect(api.sessionQuestions).toHaveBeenCalledTimes(1);
    expect(chat.transcript).toEqual(state.transcript);
    emit('s1', transcriptEvent(4, { kind: 'item_added', turn: 0, item: 1, value: assistantItem(4) }));
    await settle();
    expect(chat.transcript?.turns[0]?.items.length).toBe(2);
    expect(api.sessionTranscript).toHaveBeenCalledTimes(1);
  });

  it('the bubble drops the recorded text as soon as the transcript shows the message', async () => {
    const { chat, emit, timers } = setup({ transcript: { ...transcript(), turns: [turn('t1', [userItem(5)])], seq: 5 } });
    await chat.select('s1');
    emit('s1', { type: 'turn_started', session_id: 's1', turn_id: 't1' });
    emit('s1', { type: 'text_delta', session_id: 's1', text: 'Hello' });
    emit('s1', { type: 'event_appended', event: { session_id: 's1', seq: 6, at: '', type: 'assistant/message' } });
    // Recorded, but not shown by the transcript yet: the bubble keeps it, so it never goes missing.
    expect(chat.live).toMatchObject({ streaming: 'Hello', recorded: 5 });
    emit('s1', transcriptEvent(6, { kind: 'item_added', turn: 0, item: 1, value: assistantItem(6, 'Hello') }));
    expect(chat.live).toMatchObject({ streaming: '', recorded: 0 });
    expect(chat.transcript?.turns[0]?.items.at(-1)).toMatchObject({ kind: 'assistant_message', text: 'Hello' });
    emit('s1', { type: 'text_delta', session_id: 's1', text: ' again' });
    timers.advance(TEXT_FRAME_MS);
    expect(chat.live.streaming).toBe(' again');
  });

  it('a message the shown transcript already has leaves the bubble when the stream reports it', async () => {
    const read = { ...transcript(), turns: [turn('t1', [userItem(5), assistantItem(6, 'Hello')])], seq: 6 };
    const { chat, emit } = setup({ transcript: read });
    await chat.select('s1');
    // The stream lags behind the read: its text and the message it recorded arrive afterwards.
    emit('s1', { type: 'text_delta', session_id: 's1', text: 'Hello' });
    emit('s1', { type: 'event_appended', event: { session_id: 's1', seq: 6, at: '', type: 'assistant/message' } });
    expect(chat.live).toMatchObject({ streaming: '', recorded: 0 });
    emit('s1', transcriptEvent(6, { kind: 'item_added', turn: 0, item: 1, value: assistantItem(6, 'Hello') }));
    expect(chat.transcript).toBe(read);
  });

  it('events that arrive while the session opens are applied to the opened view', async () => {
    const { chat, api } = setup();
    const view = { ...transcript(), turns: [turn('t1')], seq: 1 };
    api.openSession.mockImplementationOnce(async (id: string, onEvent: (e: AgentEvent) => void) => {
      // The shell streams from the moment the channel is open, possibly before the view is sent.
      onEvent(transcriptEvent(1, { kind: 'turn_opened', turn: 0, value: turn('t1') }));
      onEvent(transcriptEvent(2, { kind: 'item_added', turn: 0, item: 0, value: userItem(2) }));
      return ok({ session_id: id, transcript: view, questions: listed(), busy: true, model_label: 'Demo' });
    });
    await chat.select('s1');
    expect(chat.transcript?.seq).toBe(2);
    expect(chat.transcript?.turns.map((t) => t.items.length)).toEqual([1]);
    expect(api.sessionTranscript).not.toHaveBeenCalled();
  });

  it('events that arrive while the transcript is read are applied to what the read returns', async () => {
    const { chat, api, emit, settle } = setup();
    await chat.select('s1');
    const slow = deferred<{ ok: true; value: Transcript }>();
    api.sessionTranscript.mockImplementationOnce(() => slow.promise);
    const read = chat.refreshNow();
    emit('s1', transcriptEvent(1, { kind: 'turn_opened', turn: 0, value: turn('t1') }));
    expect(chat.transcript?.turns.length).toBe(1);
    // The read was taken before that event.
    slow.resolve(ok({ ...transcript(), title: 'read' }));
    expect(await read).toBe(true);
    expect(chat.transcript).toMatchObject({ title: 'read', seq: 1 });
    expect(chat.transcript?.turns.map((t) => t.turn_id)).toEqual(['t1']);
    await settle();
    expect(api.sessionTranscript).toHaveBeenCalledTimes(1);
  });

  it('a question event brings the list: the panel and the draft of a question the host no longer lists go at once', async () => {
    const { chat, api, emit, list, question, storage } = setup({ questions: [fg('a')] });
    await chat.select('s1');
    chat.saveDraft('a', '{"v":1}');
    expect(chat.queue.open?.callId).toBe('a');
    list([]);
    emit('s1', question({ type: 'resolved', session_id: 's1', call_id: 'a', outcome: 'answered' }));
    expect(chat.queue.open).toBeNull();
    expect(storage.map.has(draftKey('s1', 'a'))).toBe(false);
    expect(api.sessionQuestions).not.toHaveBeenCalled();
    expect(api.sessionTranscript).not.toHaveBeenCalled();
  });

  it('a read that lands after a newer question event does not bring back what the event no longer lists', async () => {
    const { chat, api, emit, list, question, state } = setup({ questions: [fg('a')] });
    await chat.select('s1');
    const slow = deferred<{ ok: true; value: SessionQuestions }>();
    api.sessionQuestions.mockImplementationOnce(() => slow.promise);
    const read = chat.refreshNow();
    const before = state.questions;
    list([cont('a')]);
    emit('s1', question({ type: 'resolved', session_id: 's1', call_id: 'a', outcome: 'timed_out' }));
    expect(chat.openAsked?.phase).toBe('continued');
    slow.resolve(ok(before));
    await read;
    expect(chat.openAsked?.phase).toBe('continued');
    expect(chat.questions).toBe(state.questions);
  });
});

describe('Chat: questions', () => {
  it('opens a foreground question, and a timed one holds a take-over while the window is visible', async () => {
    const { chat, api } = setup({ questions: [fg('a', true)] });
    await chat.select('s1');
    await flush();
    expect(chat.queue.open?.callId).toBe('a');
    expect(api.attachQuestion).toHaveBeenCalledWith('s1', 'a');
    expect(chat.handshake).toMatchObject({ callId: 'a', remainingMs: 30_000 });
    chat.setVisible(false);
    await flush();
    expect(api.releaseQuestion).toHaveBeenCalledWith('s1', 'a', 1);
    chat.setVisible(true);
    await flush();
    expect(api.attachQuestion).toHaveBeenCalledTimes(2);
    // Hiding the panel gives the question back to its host deadline; showing it takes it again.
    chat.hideQuestion();
    await flush();
    expect(api.releaseQuestion).toHaveBeenLastCalledWith('s1', 'a', 2);
    chat.openQuestion('a');
    await flush();
    expect(api.attachQuestion).toHaveBeenCalledTimes(3);
    await chat.select('s2');
    await flush();
    expect(api.releaseQuestion).toHaveBeenLastCalledWith('s1', 'a', 3);
  });

  it('a blocking question takes no take-over', async () => {
    const { chat, api } = setup({ questions: [fg('a')] });
    await chat.select('s1');
    await flush();
    expect(chat.panelShown).toBe(true);
    expect(api.attachQuestion).not.toHaveBeenCalled();
  });

  it('a foreground submit stays busy until the host no longer lists the question; then the draft is cleared', async () => {
    const { chat, api, settle, storage, list } = setup({ questions: [fg('a', true)] });
    await chat.select('s1');
    await flush();
    chat.saveDraft('a', '{"v":1}');
    await chat.submitAnswers('a', batch);
    expect(api.submitAnswers).toHaveBeenCalledWith('s1', 'a', batch, 'foreground');
    expect(chat.submitState('a')).toEqual({ kind: 'submitting', path: 'foreground' });
    expect(chat.panelShown).toBe(true); // never on local submit alone
    expect(storage.map.has(draftKey('s1', 'a'))).toBe(true);
    list([]);
    await settle();
    expect(chat.panelShown).toBe(false);
    expect(storage.map.has(draftKey('s1', 'a'))).toBe(false);
    expect(chat.heldTakeover()).toBeNull();
  });

  it('NOT_PENDING while the question became continued offers Resubmit with the draft kept', async () => {
    const { chat, api, storage, list } = setup({ questions: [fg('a', true)] });
    await chat.select('s1');
    chat.saveDraft('a', '{"v":1}');
    api.submitAnswers.mockResolvedValueOnce(fail('NOT_PENDING') as never);
    list([cont('a')]);
    await chat.submitAnswers('a', batch);
    expect(chat.submitState('a')).toEqual({ kind: 'resubmit' });
    expect(storage.map.has(draftKey('s1', 'a'))).toBe(true);
    expect(chat.panelShown).toBe(true);
  });

  it('BAD_ANSWER comes back inline and editable', async () => {
    const { chat, api } = setup({ questions: [fg('a')] });
    await chat.select('s1');
    api.submitAnswers.mockResolvedValueOnce(fail('BAD_ANSWER') as never);
    await chat.submitAnswers('a', batch);
    expect(chat.submitState('a')).toMatchObject({ kind: 'editing', error: { code: 'BAD_ANSWER' } });
  });

  it('a late answer is queued and the panel goes; a released reply can be answered again', async () => {
    const { chat, api, emit, question, list } = setup({ questions: [cont('c')] });
    await chat.select('s1');
    expect(chat.panelShown).toBe(false); // continued questions never open by themselves
    expect(chat.waitingCount).toBe(1);
    expect(chat.answerable('c')).toBe(true);
    chat.answerNext();
    expect(chat.panelShown).toBe(true);
    api.submitAnswers.mockResolvedValueOnce(ok({ path: 'late' as const }));
    await chat.submitAnswers('c', batch);
    expect(chat.submitState('c')).toEqual({ kind: 'queued' });
    expect(chat.panelShown).toBe(false);
    list([cont('c', 'm')]);
    emit('s1', question({ type: 'reply_queued', session_id: 's1', call_id: 'c', message_id: 'm' }));
    expect(chat.answerable('c')).toBe(false); // the host says so: the row offers no second answer
    expect(chat.waitingCount).toBe(0);
    list([cont('c')]);
    emit('s1', question({ type: 'reply_released', session_id: 's1', call_id: 'c', message_id: 'm' }));
    expect(chat.submitState('c')).toEqual({ kind: 'resubmit' });
    expect(chat.answerable('c')).toBe(true);
  });

  it('Close cancels a foreground question but only closes a continued one; Hide cancels nothing', async () => {
    const { chat, api } = setup({ questions: [fg('a'), cont('c')] });
    await chat.select('s1');
    chat.hideQuestion();
    expect(chat.panelShown).toBe(false);
    expect(chat.queue.open).toEqual({ callId: 'a', collapsed: true });
    chat.openQuestion('a');
    await chat.closeQuestion();
    expect(api.cancelQuestion).toHaveBeenCalledWith('s1', 'a');
    chat.openQuestion('c');
    await chat.closeQuestion();
    expect(api.cancelQuestion).toHaveBeenCalledTimes(1);
    expect(chat.queue.open).toBeNull();
  });

  it('Decline declines the open form and cancels nothing', async () => {
    const { chat, api } = setup({ questions: [fg('a')] });
    await chat.select('s1');
    chat.openQuestion('a');
    await chat.declineQuestion();
    expect(api.declineQuestion).toHaveBeenCalledWith('s1', 'a');
    expect(api.cancelQuestion).not.toHaveBeenCalled();
    expect(chat.queue.open).toBeNull();
  });

  it('the panel countdown running out tells the host and gives the take-over back', async () => {
    const { chat, api } = setup({ questions: [fg('a', true)] });
    await chat.select('s1');
    await flush();
    await chat.expireQuestion('a');
    await flush();
    expect(api.expireQuestion).toHaveBeenCalledWith('s1', 'a');
    expect(api.releaseQuestion).toHaveBeenCalledWith('s1', 'a', 1);
    expect(chat.heldTakeover()).toBeNull();
  });

  it('hark://focus selects the session and opens the panel on that call', async () => {
    const { chat } = setup({ questions: [fg('a'), cont('c')] });
    await chat.focus({ session_id: 's9', call_id: 'c', notice: null });
    expect(chat.activeId).toBe('s9');
    expect(chat.queue.open).toEqual({ callId: 'c', collapsed: false });
  });

  it('a focus request with a notice opens the question and shows why', async () => {
    const { chat } = setup({ questions: [cont('c')] });
    const notice = { name: 'UserInteractionError', code: 'REPLY_QUEUED', message: 'Your answer from the notification was not taken: a reply is queued' };
    await chat.focus({ session_id: 's9', call_id: 'c', notice });
    expect(chat.queue.open).toEqual({ callId: 'c', collapsed: false });
    expect(chat.error).toEqual(notice);
  });
});
