import type { HarkError } from './errors';
import type { AnswerBatch, Question } from './question/types';

/** A row of the sessions sidebar, as the shell lists it. */
export interface SessionSummary {
  id: string;
  title: string;
  updated_at: string;
  open_questions: number;
  continued_questions: number;
}


export type ToolOutcome =
  | { status: 'ok'; content: string }
  | { status: 'pending'; content: string }
  | { status: 'error'; error: HarkError }
  | { status: 'TOOL_OUTCOME_UNKNOWN' };

/** A tool call's recorded result. */
export interface ToolResult {
  seq: number;
  at: string;
  outcome: ToolOutcome;
}

export interface QuestionRecord {
  call_id: string;
  state: 'open' | 'continued' | 'settled';
  timed: boolean;
  questions: Question[];
  answers: AnswerBatch | null;
  answered_late: boolean;
  reply_queued: string | null;
}

export type TranscriptItem =
  | { kind: 'user_message'; seq: number; at: string; message_id: string; text: string }
  | {
      kind: 'late_answer';
      seq: number;
      at: string;
      message_id: string;
      call_id: string;
      questions: Question[];
      answers: AnswerBatch | null;
      raw_text: string | null;
    }
  | { kind: 'assistant_message'; seq: number; at: string; text: string; reasoning: string | null; tool_calls: string[] }
  | {
      kind: 'tool_call';
      seq: number;
      at: string;
      call_id: string;
      name: string;
      arguments: unknown;
      result: ToolResult | null;
      question: QuestionRecord | null;
      queued_answers: AnswerBatch | null;
    }
  | { kind: 'orphan_result'; seq: number; at: string; call_id: string; outcome: ToolOutcome }
  | { kind: 'model_error'; seq: number; at: string; error: HarkError }
  /** Older turns were replaced for the model (by its own summary, or left out when `summary` is null). */
  | { kind: 'history_compacted'; seq: number; at: string; through_seq: number; summary: string | null };

export interface TurnEnd {
  reason: TurnEndReason;
  seq: number;
  at: string;
}

/** The kind of model a session names (DeepSeek, OpenAI and Ollama are all `openai`); `other` is one a newer Hark recorded. */
export type ModelKind = 'demo' | 'openai' | 'other';

/** Why a turn ended; `other` is a reason a newer Hark recorded. */
export type TurnEndReason = 'completed' | 'aborted' | 'error' | 'step_limit' | 'interrupted' | 'other';

export interface Turn {
  turn_id: string | null;
  started_at: string;
  ended: TurnEnd | null;
  items: TranscriptItem[];
}

export interface Transcript {
  title: string | null;
  workspace: string | null;
  model: { provider: ModelKind; base_url: string | null; model: string | null; script: string | null } | null;
  turns: Turn[];
  /** Older turns the shell left out (a long session is shown from its end). */
  earlier_turns?: number;
  questions: QuestionRecord[];
  /** Accepted input the agent has not read yet (typed messages, late answers), in the order given. */
  queued?: TranscriptItem[];
  /** The seq of the newest session event this transcript includes (0 for none). */
  seq: number;
}

/**
 * One change to a transcript. `turn` is a turn's index in the whole session (0 = its first turn); in
 * a transcript that leaves older turns out, that turn is at `turn - earlier_turns`.
 */
export type TranscriptDelta =
  /** A turn began (its `items` are empty). */
  | { kind: 'turn_opened'; turn: number; value: Turn }
  | { kind: 'turn_closed'; turn: number; ended: TurnEnd }
  /** An item was appended: `item` is always the turn's length before it. */
  | { kind: 'item_added'; turn: number; item: number; value: TranscriptItem }
  /** The tool call at (turn, item) got its result. */
  | { kind: 'result'; turn: number; item: number; result: ToolResult }
  /**
   * A call's question state or the late answer waiting for it changed, possibly in a turn long ago: the
   * `tool_call` item with this `call_id` gets both fields, and `question` (when set) replaces that
   * call's record in `questions`, or is added to them.
   */
  | { kind: 'call'; call_id: string; question: QuestionRecord | null; queued_answers: AnswerBatch | null }
  /** The messages waiting for the agent changed: the new `queued`. */
  | { kind: 'queued'; queued: TranscriptItem[] };

/**
 * Sent for every event recorded in the session, right after its `event_appended`: exactly one per seq,
 * in seq order, so the window can keep its transcript up to date without re-reading it.
 */
export interface TranscriptEvent {
  type: 'transcript';
  session_id: string;
  seq: number;
  /** May be empty (the event changes nothing shown). */
  deltas: TranscriptDelta[];
}

// ---- desktop IPC (docs/desktop-ipc.md) ----

export type Provider = 'demo' | 'deepseek' | 'openai' | 'ollama';
export type QuestionMode = 'legacy' | 'timed';

export interface Settings {
  provider: Provider;
  /** Ignored for demo. */
  base_url: string;
  /** Ignored for demo. */
  model: string;
  /** One of `Catalogue.demo_scripts`. */
  demo_script: string;
  question_mode: QuestionMode;
  /** Default timeout of timed questions, within `Catalogue.timeout_secs`. */
  timeout_secs: number;
  notifications: boolean;
  do_not_disturb: boolean;
  keep_running_in_tray: boolean;
}

/** A provider as the shell offers it: its name in the dialog and the defaults it fills in. */
export interface ProviderPreset {
  id: Provider;
  /** e.g. "DeepSeek", "Ollama (local)". */
  label: string;
  /** The default base URL ("" for the demo). */
  base_url: string;
  /** The default model ("" for the demo). */
  model: string;
  uses_key: boolean;
  /** Whether base URL and model apply (not for the demo). */
  uses_endpoint: boolean;
}

/** What the settings may be set to, as the shell knows it; the window keeps no copy of its own. */
export interface Catalogue {
  /** In the order the dialog lists them. */
  providers: ProviderPreset[];
  /** The demo scripts the shell ships, in order. */
  demo_scripts: string[];
  /** Bounds of the default timeout, both included. */
  timeout_secs: { min: number; max: number };
}

export type KeySource = { kind: 'keyring' } | { kind: 'env'; variable: string } | { kind: 'none' };

export interface SettingsView {
  settings: Settings;
  /** Never the key itself. */
  api_key_set: boolean;
  /** Where the key new sessions use comes from (never the key). */
  key_source: KeySource;
  keyring: { available: boolean; message: string | null };
  /** e.g. SETTINGS_CORRUPT (the bad file was kept aside). */
  warning: HarkError | null;
  /** Launch options that override settings for this run, e.g. ["--provider demo"]. */
  overrides: string[];
  /** What a new session uses. */
  active_model: { provider: ModelKind; label: string; is_demo: boolean };
  catalogue: Catalogue;
}

export interface AppInfo {
  name: string;
  version: string;
  data_dir: string;
  /** The session a launch option (--session / --prompt) opened. */
  initial_session?: string | null;
  /** That session opened for this page, when app_info was asked with a stream. */
  initial_view?: SessionView | null;
  /** Why the launch options could not be carried out (e.g. --session names no session). */
  launch_error?: HarkError | null;
  /** This page load's number: the shell lets go of what earlier loads of the page held. */
  page: number;
}

export interface WaitInfo {
  call_id: string;
  timed: true;
  timeout_ms: number;
}

export interface ForegroundQuestion {
  session_id: string;
  call_id: string;
  questions: Question[];
  /** null = blocking, no countdown. */
  wait: WaitInfo | null;
}

export interface ContinuedQuestion {
  session_id: string;
  call_id: string;
  questions: Question[];
  reply_queued: string | null;
}

export interface PendingQuestions {
  /** Waiting for an answer now, in the order asked. */
  foreground: ForegroundQuestion[];
  /** The agent went on; answerable through the late path. */
  continued: ContinuedQuestion[];
}

export interface SessionView {
  session_id: string;
  transcript: Transcript;
  questions: PendingQuestions;
  busy: boolean;
  model_label: string;
}

export interface Takeover {
  takeover_id: number;
  /** null = indefinite wait. */
  remaining_ms: number | null;
}

export interface SubmitResult {
  path: 'foreground' | 'late';
}

/** A stored session event as the shell streams it; only `type` and `seq` are read here. */
export interface StoredEvent {
  session_id: string;
  seq: number;
  at: string;
  type: string;
  [field: string]: unknown;
}

export type QuestionEvent =
  | { type: 'requested'; request: { session_id: string; call_id: string; questions: Question[]; wait: WaitInfo | null } }
  | { type: 'resolved'; session_id: string; call_id: string; outcome: string }
  | { type: 'reply_queued'; session_id: string; call_id: string; message_id: string }
  | { type: 'reply_released'; session_id: string; call_id: string; message_id: string };

export type AgentEvent =
  | { type: 'turn_started'; session_id: string; turn_id: string }
  | { type: 'text_delta'; session_id: string; text: string }
  | { type: 'reasoning_delta'; session_id: string; text: string }
  | { type: 'event_appended'; event: StoredEvent }
  | { type: 'question'; event: QuestionEvent }
  | { type: 'turn_ended'; session_id: string; turn_id: string; reason: TurnEndReason }
  | { type: 'error'; session_id: string; error: unknown }
  | TranscriptEvent;

/** `hark://focus`: show that session and, when call_id is set, open the panel on that question. */
export interface FocusPayload {
  session_id: string;
  call_id: string | null;
  /** Why the shell asks (e.g. an answer from a notification that was not taken). */
  notice?: HarkError | null;
}
