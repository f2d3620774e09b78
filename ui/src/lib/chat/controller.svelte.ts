// The chat window's state and what each action does over IPC. Components read the fields and call the
// methods; the rules live in the pure modules next to this file (stream, deltas, missed, questionQueue,
// takeover, refresher) and in ../question. The API is injected so tests can drive the whole flow with
// fakes.
//
// The transcript is read whole only on open, on "Show earlier turns", after the person acted, and when
// the `transcript` events cannot be applied to it; otherwise those events keep it up to date. Question
// and turn events re-read only the pending questions.
import * as realApi from '../api';
import type { Result } from '../api';
import type { HarkError } from '../errors';
import { draftKey } from '../question/draft';
import {
  type SubmitState,
  acceptedVia,
  becameContinued,
  initialSubmit,
  rejected,
  replyDiscarded,
  submit as startSubmit,
} from '../question/submission';
import type { AnswerBatch } from '../question/types';
import type {
  AgentEvent,
  AppInfo,
  Focus,
  PendingQuestions,
  SessionSummary,
  SessionView,
  Settings,
  SettingsView,
  Transcript,
  TranscriptEvent,
} from '../types';
import { REREAD, applyTranscriptEvent, catchUp } from './deltas';
import { MissedEvents } from './missed';
import * as queueOps from './questionQueue';
import { type Asked, type Queue, emptyQueue, findAsked, isResolved, noPending } from './questionQueue';
import { Refresher, type Timers, realTimers } from './refresher';
import { type Live, idle, onEvent, onTranscript } from './stream';
import { type Handshake, TakeoverKeeper } from './takeover';

export type ChatApi = Pick<
  typeof realApi,
  | 'appInfo'
  | 'listSessions'
  | 'getSettings'
  | 'saveSettings'
  | 'chooseWorkspace'
  | 'startSession'
  | 'openSession'
  | 'closeSessionView'
  | 'sessionTranscript'
  | 'sendMessage'
  | 'abort'
  | 'retry'
  | 'pendingQuestions'
  | 'attachQuestion'
  | 'releaseQuestion'
  | 'submitAnswers'
  | 'cancelQuestion'
  | 'declineQuestion'
  | 'expireQuestion'
  | 'openLink'
>;

/** The part of `Storage` drafts need. */
export type DraftStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

export interface ChatOptions {
  api?: ChatApi;
  storage?: DraftStore | null;
  timers?: Timers;
  refreshDelayMs?: number;
}

/** What a re-read covers: everything, or only the pending questions. */
type Want = 'all' | 'questions';

const mergeWants = (a: Want, b: Want): Want => (a === 'all' || b === 'all' ? 'all' : 'questions');

interface Read {
  /** null when only the questions were read. */
  transcript: Result<Transcript> | null;
  /** Transcript events that arrived while the transcript was read. */
  missed: TranscriptEvent[];
  pending: Result<PendingQuestions>;
}

function localStore(): DraftStore | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** The streaming bubble shows new text at most this often. */
export const TEXT_FRAME_MS = 50;

/** Turns shown when a session opens, and added by each "Show earlier turns": a handful, because the
 * window holds every shown turn in memory and a busy turn can hold hundreds of items. */
export const TURN_PAGE = 10;

export class Chat {
  sessions: SessionSummary[] = $state.raw([]);
  /** The session shown; null = a new chat not started yet. */
  activeId: string | null = $state(null);
  transcript: Transcript | null = $state.raw(null);
  pending: PendingQuestions = $state.raw(noPending);
  live: Live = $state.raw(idle);
  modelLabel = $state('');
  queue: Queue = $state.raw(emptyQueue);
  submits: Record<string, SubmitState> = $state.raw({});
  handshake: Handshake | null = $state.raw(null);
  /** Calls whose panel countdown ran out here (the host was told; no take-over for them any more). */
  expired: readonly string[] = $state.raw([]);
  /** The folder a new chat will work in. */
  workspace: string | null = $state(null);
  /** The last failure of an action, for the banner. */
  error: HarkError | null = $state.raw(null);
  settings: SettingsView | null = $state.raw(null);
  /** Opening a session or starting one. */
  loading = $state(false);
  visible = $state(true);
  /** How many of the newest turns of the active session are shown. */
  turnLimit = $state(TURN_PAGE);

  private readonly api: ChatApi;
  private readonly storage: DraftStore | null;
  private readonly refresher: Refresher<Read, Want>;
  private readonly takeover: TakeoverKeeper;
  private readonly timers: Timers;
  /**
   * Text deltas of the shown session not shown yet: a model streaming fast re-renders the bubble once
   * per frame, not per token. Leaving the session drops them.
   */
  private unshownText = '';
  private textTimer: unknown = null;
  private readonly missed = new MissedEvents();

  constructor(opts: ChatOptions = {}) {
    this.api = opts.api ?? realApi;
    this.timers = opts.timers ?? realTimers;
    this.storage = opts.storage === undefined ? localStore() : opts.storage;
    this.refresher = new Refresher<Read, Want>({
      load: (id, want) => this.read(id, want),
      apply: (id, data) => this.applyRead(id, data),
      merge: mergeWants,
      current: () => this.activeId,
      delayMs: opts.refreshDelayMs ?? 80,
      timers: opts.timers ?? realTimers,
    });
    this.takeover = new TakeoverKeeper(
      {
        attach: (s, c) => this.api.attachQuestion(s, c),
        release: (s, c, t) => this.api.releaseQuestion(s, c, t),
      },
      (h) => (this.handshake = h),
    );
  }

  // ------------------------------------------------------------------ derived views

  /** The question the panel holds (shown or hidden), if it is still pending. */
  get openAsked(): Asked | undefined {
    const open = this.queue.open;
    return open ? findAsked(this.pending, open.callId) : undefined;
  }

  /** The panel takes over the composer. */
  get panelShown(): boolean {
    return queueOps.panelShown(this.queue) && this.openAsked !== undefined;
  }

  get waitingCount(): number {
    return queueOps.waiting(this.queue, this.pending, this.transcript).length;
  }

  submitState(callId: string): SubmitState {
    return this.submits[callId] ?? initialSubmit;
  }

  storedDraft(callId: string): string | null {
    if (!this.activeId || !this.storage) return null;
    try {
      return this.storage.getItem(draftKey(this.activeId, callId));
    } catch {
      return null;
    }
  }

  // ------------------------------------------------------------------ sessions

  async refreshSessions(): Promise<void> {
    const r = await this.api.listSessions();
    if (r.ok) this.sessions = r.value;
  }

  async loadSettings(): Promise<void> {
    const r = await this.api.getSettings();
    if (r.ok) this.settings = r.value;
    else this.error = r.error;
  }

  /** Saves; returns the refusal to show in the dialog, or null. */
  async saveSettings(settings: Settings, apiKey: string | null): Promise<HarkError | null> {
    const r = await this.api.saveSettings(settings, apiKey);
    if (!r.ok) return r.error;
    this.settings = r.value;
    return null;
  }

  private leave(): void {
    const old = this.activeId;
    this.dropUnshownText();
    this.refresher.cancel();
    this.takeover.want(null);
    if (old) void this.api.closeSessionView(old);
    this.activeId = null;
    this.transcript = null;
    this.pending = noPending;
    this.live = idle;
    this.modelLabel = '';
    this.queue = emptyQueue;
    this.submits = {};
    this.expired = [];
    this.error = null;
    this.loading = false;
  }

  /** Shows a stored session and streams its live agent. */
  async select(id: string): Promise<void> {
    if (id === this.activeId) return;
    this.enter(id);
    this.loading = true;
    const { value: r, missed } = await this.missed.during(() =>
      this.api.openSession(id, (e) => this.onStream(id, e), this.turnLimit),
    );
    if (this.activeId !== id) {
      // The person moved on while the session opened: stop streaming it to this window.
      if (r.ok) void this.api.closeSessionView(id);
      return;
    }
    this.loading = false;
    if (!r.ok) {
      this.error = r.error;
      return;
    }
    this.showView(id, r.value, missed);
  }

  /**
   * Start-up: the app's facts, and the session the launch named already opened in the same round
   * trip. Events its stream delivers before the answer lands are held, then applied as a session
   * open applies the events that arrive while it runs.
   */
  async start(): Promise<Result<AppInfo>> {
    let shown: string | null = null;
    const early: AgentEvent[] = [];
    const r = await this.api.appInfo((e) => (shown === null ? early.push(e) : this.onStream(shown, e)), TURN_PAGE);
    if (!r.ok) return r;
    const view = r.value.initial_view;
    // The person may have picked a session already; theirs wins.
    if (view && this.activeId === null) {
      const id = view.session_id;
      this.enter(id);
      shown = id;
      const { missed } = await this.missed.during(async () => {
        for (const e of early) this.onStream(id, e);
      });
      if (this.activeId === id) this.showView(id, view, missed);
    } else if (view && this.activeId !== view.session_id) {
      void this.api.closeSessionView(view.session_id);
    } else if (r.value.initial_session && this.activeId === null) {
      await this.select(r.value.initial_session);
    }
    // A window built for a question (a notification's click, the tray's entry) opens on it.
    const first = r.value.initial_session;
    if (first && this.activeId === first) {
      if (r.value.initial_call) this.openQuestion(r.value.initial_call);
      if (r.value.initial_notice) this.error = r.value.initial_notice;
    }
    return r;
  }

  /** Leaves the shown session for `id`, from its newest page. */
  private enter(id: string): void {
    this.leave();
    this.activeId = id;
    this.turnLimit = TURN_PAGE;
  }

  private showView(id: string, v: SessionView, missed: readonly TranscriptEvent[]): void {
    this.live = { ...idle, busy: v.busy };
    this.showRead(id, v.transcript, missed);
    this.pending = v.questions;
    this.modelLabel = v.model_label;
    this.reconcileQuestions();
  }

  /** An empty conversation; the first Send starts the session. */
  newChat(): void {
    this.leave();
    this.workspace = null;
  }

  async chooseWorkspace(): Promise<void> {
    const r = await this.api.chooseWorkspace();
    if (!r.ok) this.error = r.error;
    else if (r.value !== null) this.workspace = r.value;
  }

  async send(text: string): Promise<boolean> {
    const message = text.trim();
    if (!message) return false;
    this.error = null;
    if (this.activeId === null) {
      this.loading = true;
      const r = await this.api.startSession(message, this.workspace);
      this.loading = false;
      if (!r.ok) {
        this.error = r.error;
        return false;
      }
      void this.refreshSessions();
      await this.select(r.value.session_id);
      return true;
    }
    const id = this.activeId;
    const r = await this.api.sendMessage(id, message);
    if (!r.ok) {
      if (this.activeId === id) this.error = r.error;
      return false;
    }
    this.refresher.schedule(id, 'all');
    return true;
  }

  async stop(): Promise<void> {
    if (!this.activeId) return;
    const r = await this.api.abort(this.activeId);
    if (!r.ok) this.error = r.error;
  }

  async retry(): Promise<void> {
    if (!this.activeId) return;
    this.error = null;
    const r = await this.api.retry(this.activeId);
    if (!r.ok) this.error = r.error;
  }

  async openLink(url: string): Promise<void> {
    const r = await this.api.openLink(url);
    if (!r.ok) this.error = r.error;
  }

  /** `hark://focus`: show that session and, if given, that question. */
  async focus(p: Focus): Promise<void> {
    await this.select(p.session_id);
    if (p.call_id && this.activeId === p.session_id) this.openQuestion(p.call_id);
    if (p.notice) this.error = p.notice;
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    this.syncTakeover();
  }

  // ------------------------------------------------------------------ stream

  private onStream(sessionId: string, e: AgentEvent): void {
    if (sessionId !== this.activeId) return;
    if (e.type === 'text_delta' && e.session_id === sessionId) {
      this.unshownText += e.text;
      this.textTimer ??= this.timers.setTimeout(() => this.showUnshownText(), TEXT_FRAME_MS);
      return;
    }
    // Anything else may depend on how much text there is (an assistant message was recorded).
    this.showUnshownText();
    if (e.type === 'transcript') {
      if (e.session_id === sessionId) this.onTranscriptEvent(sessionId, e);
      return;
    }
    const effect = onEvent(this.live, e, sessionId);
    // A read may have overtaken the stream: the transcript shown can already have what this recorded.
    this.live = this.transcript ? onTranscript(effect.live, this.transcript.seq) : effect.live;
    if (e.type === 'question' && e.event.type === 'reply_released') {
      const callId = e.event.call_id;
      this.setSubmit(callId, replyDiscarded(this.submitState(callId)));
    }
    if (effect.refreshQuestions) this.refresher.schedule(sessionId, 'questions');
    if (effect.refreshSessions) void this.refreshSessions();
  }

  private onTranscriptEvent(sessionId: string, e: TranscriptEvent): void {
    this.missed.note(e);
    // While the session opens there is nothing to apply it to: the opened view catches up with it.
    if (!this.transcript) return;
    const next = applyTranscriptEvent(this.transcript, e);
    if (next === REREAD) {
      this.refresher.schedule(sessionId, 'all');
      return;
    }
    const questionsChanged = next.questions !== this.transcript.questions;
    this.showTranscript(next);
    // A question may have been resolved by this event after the pending list was last read.
    if (questionsChanged) this.reconcileQuestions();
  }

  private showTranscript(t: Transcript): void {
    this.transcript = t;
    this.live = onTranscript(this.live, t.seq);
  }

  /** Shows a transcript read, brought up to date with the events that arrived while it was read. */
  private showRead(sessionId: string, read: Transcript, missed: readonly TranscriptEvent[]): void {
    const caughtUp = catchUp(read, missed);
    if (caughtUp !== REREAD) {
      this.showTranscript(caughtUp);
      return;
    }
    // The read is a consistent picture of an earlier moment; the next one includes what it missed.
    this.showTranscript(read);
    this.refresher.schedule(sessionId, 'all');
  }

  private showUnshownText(): void {
    const [text, session] = [this.unshownText, this.activeId];
    this.dropUnshownText();
    if (text === '' || session === null) return;
    this.live = onEvent(this.live, { type: 'text_delta', session_id: session, text }, session).live;
  }

  private dropUnshownText(): void {
    if (this.textTimer !== null) this.timers.clearTimeout(this.textTimer);
    this.textTimer = null;
    this.unshownText = '';
  }

  private async read(id: string, want: Want): Promise<Read> {
    const pending = this.api.pendingQuestions(id);
    if (want === 'questions') return { transcript: null, missed: [], pending: await pending };
    const [transcript, pendingRead] = await Promise.all([
      this.missed.during(() => this.api.sessionTranscript(id, this.turnLimit)),
      pending,
    ]);
    return { transcript: transcript.value, missed: transcript.missed, pending: pendingRead };
  }

  private applyRead(id: string, data: Read): void {
    if (data.transcript?.ok) this.showRead(id, data.transcript.value, data.missed);
    if (data.pending.ok) this.pending = data.pending.value;
    const transcriptOk = data.transcript === null || data.transcript.ok;
    if (transcriptOk && data.pending.ok) this.reconcileQuestions();
  }

  /** Shows another page of older turns of the active session. */
  showEarlier(): Promise<boolean> {
    this.turnLimit += TURN_PAGE;
    return this.refreshNow();
  }

  /** Re-reads now (after the person acted), dropping the result if they left the session meanwhile. */
  refreshNow(): Promise<boolean> {
    return this.activeId ? this.refresher.now(this.activeId, 'all') : Promise.resolve(false);
  }

  // ------------------------------------------------------------------ questions

  private setSubmit(callId: string, state: SubmitState): void {
    if (this.submits[callId] === state) return;
    this.submits = { ...this.submits, [callId]: state };
  }

  /** After every read: resolved questions end (panel, draft, submit state); the queue picks the panel. */
  private reconcileQuestions(): void {
    const sessionId = this.activeId;
    if (!sessionId) return;
    this.queue = queueOps.reconcile(this.queue, this.pending, this.transcript);
    const submits: Record<string, SubmitState> = {};
    for (const [callId, state] of Object.entries(this.submits)) {
      if (isResolved(callId, this.pending, this.transcript)) continue;
      const asked = findAsked(this.pending, callId);
      submits[callId] = asked?.kind === 'continued' ? becameContinued(state) : state;
    }
    this.submits = submits;
    this.expired = this.expired.filter((c) => findAsked(this.pending, c)?.kind === 'foreground');
    this.clearResolvedDrafts(sessionId);
    this.syncTakeover();
  }

  private clearResolvedDrafts(sessionId: string): void {
    const store = this.storage;
    if (!store) return;
    const prefix = draftKey(sessionId, '');
    try {
      const keys: string[] = [];
      for (let i = 0; i < store.length; i++) {
        const k = store.key(i);
        if (k?.startsWith(prefix)) keys.push(k);
      }
      for (const k of keys) {
        const callId = decodeURIComponent(k.slice(prefix.length));
        if (isResolved(callId, this.pending, this.transcript)) store.removeItem(k);
      }
    } catch {
      // Storage unavailable: drafts simply do not persist.
    }
  }

  /**
   * Holds the take-over of the timed foreground question while the panel shows it: hiding the panel,
   * hiding the window or switching sessions gives the question back to its host deadline.
   */
  private syncTakeover(): void {
    const asked = this.openAsked;
    const wanted =
      this.activeId !== null &&
      this.visible &&
      !this.queue.open?.collapsed &&
      asked !== undefined &&
      asked.kind === 'foreground' &&
      asked.wait !== null &&
      !this.expired.includes(asked.callId);
    this.takeover.want(wanted && asked && this.activeId ? { sessionId: this.activeId, callId: asked.callId } : null);
  }

  openQuestion(callId: string): void {
    this.queue = queueOps.openCall(this.queue, callId);
    this.syncTakeover();
  }

  /** The strip's "Answer". */
  answerNext(): void {
    const next = queueOps.nextToAnswer(this.queue, this.pending, this.transcript);
    if (next) this.openQuestion(next);
  }

  hideQuestion(): void {
    this.queue = queueOps.hide(this.queue);
    this.syncTakeover();
  }

  /** Close: a foreground question is cancelled (the person declines); a continued one just closes. */
  async closeQuestion(): Promise<void> {
    await this.endQuestion('cancel');
  }

  /** Decline: an MCP server's form ends as declined (the server may go on without it). */
  async declineQuestion(): Promise<void> {
    await this.endQuestion('decline');
  }

  private async endQuestion(how: 'cancel' | 'decline'): Promise<void> {
    const sessionId = this.activeId;
    const asked = this.openAsked;
    this.queue = queueOps.close(this.queue);
    this.syncTakeover();
    if (!sessionId || !asked || asked.kind !== 'foreground') return;
    const end = how === 'decline' ? this.api.declineQuestion : this.api.cancelQuestion;
    const r = await end(sessionId, asked.callId);
    if (this.activeId !== sessionId) return;
    if (!r.ok && r.error.code !== 'NOT_PENDING') this.error = r.error;
    this.refresher.schedule(sessionId, 'all');
  }

  saveDraft(callId: string, json: string): void {
    if (!this.activeId || !this.storage) return;
    try {
      this.storage.setItem(draftKey(this.activeId, callId), json);
    } catch {
      // Full or unavailable storage: the draft lives on in the panel only.
    }
  }

  async submitAnswers(callId: string, batch: AnswerBatch): Promise<void> {
    const sessionId = this.activeId;
    if (!sessionId) return;
    const before = this.submitState(callId);
    const next = startSubmit(before, findAsked(this.pending, callId)?.kind === 'continued');
    if (next === before) return;
    this.setSubmit(callId, next);
    const path = next.kind === 'submitting' ? next.path : null;
    const r = await this.api.submitAnswers(sessionId, callId, batch, path);
    if (this.activeId !== sessionId) return;
    if (r.ok) {
      this.setSubmit(callId, acceptedVia(this.submitState(callId), r.value.path));
      // A late reply is in the session inbox: the panel goes; the tool row says it is on its way.
      if (r.value.path === 'late' && this.queue.open?.callId === callId) this.queue = queueOps.close(this.queue);
    } else {
      if (r.error.code === 'NOT_PENDING') {
        const p = await this.api.pendingQuestions(sessionId);
        if (this.activeId !== sessionId) return;
        if (p.ok) this.pending = p.value;
      }
      const continued = findAsked(this.pending, callId)?.kind === 'continued';
      this.setSubmit(callId, rejected(this.submitState(callId), r.error, continued));
    }
    this.refresher.schedule(sessionId, 'all');
  }

  /** The panel's own countdown ran out: the host records the question as continued. */
  async expireQuestion(callId: string): Promise<void> {
    const sessionId = this.activeId;
    if (!sessionId) return;
    await this.api.expireQuestion(sessionId, callId);
    if (this.activeId !== sessionId) return;
    this.expired = [...this.expired, callId];
    this.syncTakeover();
    this.refresher.schedule(sessionId, 'all');
  }

  /** Which take-over is held (tests, diagnostics). */
  heldTakeover() {
    return this.takeover.holding();
  }

  dispose(): void {
    this.leave();
  }
}
