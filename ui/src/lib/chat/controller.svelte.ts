// The chat window's state and what each action does over IPC. Components read the fields and call the
// methods; the rules live in the pure modules next to this file (stream, deltas, missed, questionQueue,
// takeover, refresher) and in ../question. The API is injected so tests can drive the whole flow with
// fakes.
//
// The transcript is read whole only on open, on "Show earlier turns", after the person acted, and when
// the `transcript` events cannot be applied to it; otherwise those events keep it up to date. Question
// events carry the session's waiting questions as the host lists them; a turn's end re-reads them.
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
  QuestionView,
  SessionQuestions,
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
import { type Queue, emptyQueue, find, newer, noQuestions } from './questionQueue';
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
  | 'sessionQuestions'
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

/** What a re-read covers: everything, or only the waiting questions. */
type Want = 'all' | 'questions';

const mergeWants = (a: Want, b: Want): Want => (a === 'all' || b === 'all' ? 'all' : 'questions');

interface Read {
  /** null when only the questions were read. */
  transcript: Result<Transcript> | null;
  /** Transcript events that arrived while the transcript was read. */
  missed: TranscriptEvent[];
  questions: Result<SessionQuestions>;
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
  /** The session's waiting questions as the host last listed them. */
  questions: SessionQuestions = $state.raw(noQuestions);
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

  /** The question the panel holds (shown or hidden), while the host lists it. */
  get openAsked(): QuestionView | undefined {
    const open = this.queue.open;
    return open ? find(this.questions.questions, open.callId) : undefined;
  }

  /** The panel takes over the composer. */
  get panelShown(): boolean {
    return queueOps.panelShown(this.queue) && this.openAsked !== undefined;
  }

  get waitingCount(): number {
    return queueOps.waiting(this.queue, this.questions.questions).length;
  }

  /** Whether the host lists the call as taking an answer now (a tool row's "Answer"). */
  answerable(callId: string): boolean {
    return find(this.questions.questions, callId)?.answerable === true;
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
    this.questions = noQuestions;
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
    this.modelLabel = v.model_label;
    this.showQuestions(v.questions);
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
    if (e.type === 'question') this.showQuestions(e.questions);
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
    this.showTranscript(next);
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
    const questions = this.api.sessionQuestions(id);
    if (want === 'questions') return { transcript: null, missed: [], questions: await questions };
    const [transcript, questionsRead] = await Promise.all([
      this.missed.during(() => this.api.sessionTranscript(id, this.turnLimit)),
      questions,
    ]);
    return { transcript: transcript.value, missed: transcript.missed, questions: questionsRead };
  }

  private applyRead(id: string, data: Read): void {
    if (data.transcript?.ok) this.showRead(id, data.transcript.value, data.missed);
    if (data.questions.ok) this.showQuestions(data.questions.value);
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

  /**
   * A list of the session's waiting questions from the host (the opened view, a question event, a
   * read): shown unless a newer one already is, then every question the host no longer lists ends
   * here (panel, draft, submit state) and the queue picks the panel.
   */
  private showQuestions(received: SessionQuestions): void {
    const sessionId = this.activeId;
    if (!sessionId) return;
    const shown = newer(this.questions, received);
    if (shown === this.questions) return;
    this.questions = shown;
    const views = shown.questions;
    this.queue = queueOps.reconcile(this.queue, views);
    const submits: Record<string, SubmitState> = {};
    for (const [callId, state] of Object.entries(this.submits)) {
      const view = find(views, callId);
      if (!view) continue;
      submits[callId] = view.phase === 'continued' ? becameContinued(state) : state;
    }
    this.submits = submits;
    this.expired = this.expired.filter((c) => find(views, c)?.phase === 'foreground');
    this.clearResolvedDrafts(sessionId, views);
    this.syncTakeover();
  }

  /** Drafts of the session's questions the host no longer lists: answered, settled or gone. */
  private clearResolvedDrafts(sessionId: string, views: readonly QuestionView[]): void {
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
        if (!find(views, callId)) store.removeItem(k);
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
      asked.phase === 'foreground' &&
      asked.wait !== null &&
      !this.expired.includes(asked.call_id);
    this.takeover.want(wanted && asked && this.activeId ? { sessionId: this.activeId, callId: asked.call_id } : null);
  }

  openQuestion(callId: string): void {
    this.queue = queueOps.openCall(this.queue, callId);
    this.syncTakeover();
  }

  /** The strip's "Answer". */
  answerNext(): void {
    const next = queueOps.nextToAnswer(this.queue, this.questions.questions);
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
    if (!sessionId || !asked || asked.phase !== 'foreground') return;
    const end = how === 'decline' ? this.api.declineQuestion : this.api.cancelQuestion;
    const r = await end(sessionId, asked.call_id);
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
    const next = startSubmit(before, this.phaseOf(callId) === 'continued');
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
        const read = await this.api.sessionQuestions(sessionId);
        if (this.activeId !== sessionId) return;
        if (read.ok) this.showQuestions(read.value);
      }
      const continued = this.phaseOf(callId) === 'continued';
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

  /** Where the host says the question stands, while it lists it. */
  private phaseOf(callId: string): QuestionView['phase'] | undefined {
    return find(this.questions.questions, callId)?.phase;
  }

  /** Which take-over is held (tests, diagnostics). */
  heldTakeover() {
    return this.takeover.holding();
  }

  dispose(): void {
    this.leave();
  }
}
