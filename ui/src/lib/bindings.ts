// Generated from the Rust types by `make bindings` (src-tauri/app/bindings.rs): do not edit.
// 64-bit integers (seqs, milliseconds, counts) are plain numbers: none comes near 2^53.
import type { Channel } from '@tauri-apps/api/core';

export type ActiveModel = { provider: ModelKind, label: string, is_demo: boolean, };

export type AgentEvent = { "type": "turn_started", session_id: string, turn_id: string, } | { "type": "text_delta", session_id: string, text: string, } | { "type": "reasoning_delta", session_id: string, text: string, } | { "type": "event_appended", event: StoredEvent, } | { "type": "transcript", session_id: string, seq: number, deltas: Array<TranscriptDelta>, } | { "type": "question", event: QuestionEvent, questions: SessionQuestions, } | { "type": "turn_ended", session_id: string, turn_id: string, reason: TurnEndReason, } | { "type": "error", session_id: string, error: BoundaryError, };

export type AgentFile = { path: string, 
/**
 * Hark's entries in this file, for a person.
 */
entries: string, 
/**
 * What Set up would do to it: `already_set_up`, `added` (Hark's entries are not there) or
 * `updated` (they are, but differ: another `hark`, an older entry); null when it could not be told.
 */
setup: SetupOutcome | null, };

/**
 * One file after Set up or Remove, as `hark setup` prints it.
 */
export type AgentFileOutcome = { path: string, entries: string, outcome: SetupOutcome, };

export type AgentSetupDone = { agent: SetupAgent, action: SetupAction, files: Array<AgentFileOutcome>, 
/**
 * What the person does next for the agent to use the entries (Codex: trust the hook in `/hooks`).
 */
hint: string | null, 
/**
 * The section as it is now.
 */
view: AgentsView, };

export type AgentView = { agent: SetupAgent, 
/**
 * The agent's name for a person ("Claude Code").
 */
label: string, 
/**
 * The agent's files Hark edits, where the agent reads them; empty when they cannot be located.
 */
files: Array<AgentFile>, 
/**
 * Every file holds Hark's entries as Set up would write them; null when that could not be told
 * (no `hark` command, or `error`).
 */
set_up: boolean | null, 
/**
 * Why the files could not be located or read (a file that is not valid JSON or TOML, no home).
 */
error: BoundaryError | null, 
/**
 * Codex only, once set up: whether Codex runs Hark's hook, as Codex says (it runs a new or
 * changed hook only once the person trusts it); null when that could not be told (no `codex` on
 * the PATH).
 */
hook_trust: HookTrust | null, 
/**
 * What the person reads of `hook_trust`.
 */
hook_trust_text: string | null, 
/**
 * Whether the agent's permission requests come to Hark as approvals (`hark setup --approvals`):
 * every file holds those hooks too; null when that could not be told.
 */
approvals: boolean | null, 
/**
 * What sending them to Hark changes (how long the agent's request waits here, and what its own
 * prompt does meanwhile), for the switch that turns them on.
 */
approvals_note: string, };

export type AgentsView = { 
/**
 * The `hark` command the entries run, by its absolute path; null when there is none.
 */
program: string | null, 
/**
 * Why there is no `hark` command to register (`SETUP_NO_HARK`): Set up and Remove would fail.
 */
program_error: BoundaryError | null, agents: Array<AgentView>, };

/**
 * The user's answer to one question. `selected` holds option labels; `custom` is free text and, when
 * present, `selected` is empty. `{id, selected: []}` without `custom` is an explicit skip.
 */
export type Answer = { id: string, selected: Array<string>, custom?: string | null, };

/**
 * One answer per question of the call, in any order.
 */
export type AnswerBatch = { answers: Array<Answer>, };

/**
 * Which way an answer goes: to the waiting call, or late to a continued question.
 */
export type AnswerPath = "foreground" | "late";

export type AppInfo = { name: string, version: string, data_dir: string, 
/**
 * The session the launch options opened, to show first.
 */
initial_session: string | null, 
/**
 * That session opened for this page (as `open_session` would, streaming to the call's channel):
 * a launch with `--session` shows it after one round trip instead of two.
 */
initial_view: SessionView | null, 
/**
 * Why the launch options could not be carried out (e.g. `--session` names no session).
 */
launch_error: BoundaryError | null, 
/**
 * A question of the initial session to open (a notification or the tray built this window for it).
 */
initial_call: string | null, 
/**
 * Why the window was opened on it (an answer from a notification that was not taken).
 */
initial_notice: BoundaryError | null, 
/**
 * Open on the inbox (the tray or a notification built this window for it).
 */
initial_inbox: boolean, 
/**
 * This page load's number, passed back with `open_session` and `attach_question`.
 */
page: number, };

export type AttachResult = { takeover_id: number, remaining_ms: number | null, };

/**
 * `{name, code, message}`: what the window, the CLI, the model and the log see of an error. It reads
 * leniently, so a stored error that lacks a field (an old or hand-edited row) still decodes.
 */
export type BoundaryError = { name: string, code: string, message: string, };

export type Bounds = { min: number, max: number, };

/**
 * Who asks: the agent instance making the tool call. The service only lets the live root agent of
 * the session ask (see [`super::UserQuestionService::set_live_root`]).
 */
export type Caller = { session_id: string, agent_instance_id: string, 
/**
 * The owning agent instance when the caller is a sub-agent.
 */
parent: string | null, };

export type Catalogue = { 
/**
 * In the order a front door lists them.
 */
providers: Array<ProviderPreset>, demo_scripts: Array<string>, timeout_secs: Bounds, };

export type EntryTransport = { "kind": "stdio", command: string, args: Array<string>, env: Array<[string, string]>, } | { "kind": "http", url: string, headers: Array<HeaderEntry>, };

/**
 * What one field holds. Options (choices, multi-select, yes/no) allow no text of the person's own.
 */
export type FieldKind = { "type": "choice", values: Array<string>, } | { "type": "multi", values: Array<string>, min_items?: number, max_items?: number, } | { "type": "boolean" } | { "type": "text", min_length?: number, max_length?: number, format?: string, } | { "type": "number", integer: boolean, minimum?: number, maximum?: number, };

/**
 * What the person decided on the first run.
 */
export type FirstRunRecord = { 
/**
 * "Don't show this again": the first run is no longer offered, whatever is left.
 */
dismissed: boolean, 
/**
 * The steps the person chose to leave out, each once, in the first run's order.
 */
skipped: Array<FirstRunStep>, };

/**
 * One thing the first run offers to connect, in the order it lists them.
 */
export type FirstRunStep = "claude_code" | "codex" | "phone" | "startup" | "model";

export type FirstRunView = { 
/**
 * What the person skipped, and whether they asked not to be shown the first run again; the
 * empty record when `first-run.json` cannot be read.
 */
record: FirstRunRecord, 
/**
 * Why `first-run.json` could not be read (`FIRST_RUN_READ`): the first run is offered as new.
 */
record_error: BoundaryError | null, 
/**
 * Claude Code and Codex as this machine has them (their folders, their commands on the `PATH`).
 */
agents: Array<FoundAgent>, };

export type Focus = { session_id: string, call_id: string | null, 
/**
 * Why the window is asked to show this (an answer from a notification that was not taken).
 */
notice: BoundaryError | null, };

/**
 * One field of a form: the question with the same `id` shows it.
 */
export type FormField = { id: string, kind: FieldKind, 
/**
 * A skip is refused unless the field has a default.
 */
required: boolean, 
/**
 * What a skip answers, already typed for the asker.
 */
default?: unknown, };

/**
 * How a form ended, as the session records it: the person's answers, or their no.
 */
export type FormOutcome = { "action": "accept", answers: AnswerBatch, } | { "action": "decline" } | { "action": "cancel" };

/**
 * An agent as this machine has it: its folder and its command, each when there is one.
 */
export type FoundAgent = { agent: SetupAgent, label: string, 
/**
 * The agent's own folder (`~/.claude`, `~/.codex`, or where its variable points), when it exists.
 */
folder: string | null, 
/**
 * The agent's command on the `PATH` (`claude`, `codex`), by its absolute path.
 */
command: string | null, };

/**
 * A remote host's `hark` next to this one, for Settings and `hark remote list`.
 */
export type HarkThere = { "hark": "this" } | { "hark": "missing" } | { "hark": "other", version: string, };

/**
 * One header of an HTTP server. For a secret, `value` is what to store (empty: keep the stored
 * one) and reads back empty: a secret never leaves the keyring for the window.
 */
export type HeaderEntry = { name: string, value: string, secret: boolean, };

/**
 * What Codex says of a hook's trust.
 */
export type HookTrust = "trusted" | "untrusted" | "modified" | "managed";

/**
 * One waiting question as the inbox lists it.
 */
export type InboxEntry = { 
/**
 * Who asks: "Hark" for its own agent, else the outside agent's name (made plain).
 */
asker: string, 
/**
 * Whether Hark's own agent asks (an outside agent may call itself anything, "Hark" too).
 */
own_agent: boolean, session_title: string, session_id: string, call_id: string, intent: Intent, questions: Array<Question>, 
/**
 * Whether an answer is taken now: always in the foreground; a continued question until a late
 * reply of it is queued (the first reply wins, and nobody is asked twice).
 */
answerable: boolean, 
/**
 * When it was asked, as the log recorded its call.
 */
asked_at: string | null, } & ({ "phase": "foreground", wait: WaitInfo | null, } | { "phase": "continued", reply_queued: string | null, });

/**
 * What a question is for. Serialized as `{"kind": "question"}`, `{"kind": "plan_review", "plan"}` or
 * `{"kind": "form", "server", "message", "fields"}`.
 */
export type Intent = { "kind": "question" } | { "kind": "plan_review", plan: string, } | { "kind": "form", server: string, message: string, url?: string, fields: Array<FormField>, } | { "kind": "approval", agent: string, tool: string, summary: string, detail: string, always?: string, };

/**
 * One foreground question as a provider receives it.
 */
export type InteractionRequest = { session_id: string, 
/**
 * Key for `submit_foreground`, `cancel`, `attach` (with the session id).
 */
call_id: string, caller: Caller, 
/**
 * What the question is for; a surface shows a plan review as the plan with Approve and
 * Request changes.
 */
intent: Intent, questions: Array<Question>, 
/**
 * `None` for blocking questions: closing the panel should cancel those, while a timed question
 * closed unanswered stays answerable.
 */
wait: WaitInfo | null, };

/**
 * Where the key used for a server comes from, as Settings shows it.
 */
export type KeySource = { "kind": "keyring" } | { "kind": "env", variable: string, } | { "kind": "none" };

export type KeyringStatus = { available: boolean, message: string | null, };

export type Link = { "state": "no_token" } | { "state": "misconfigured", reason: string, } | { "state": "connecting" } | { "state": "online" } | { "state": "offline", reason: string, } | { "state": "token_rejected", reason: string, } | { "state": "blocked", reason: string, } | { "state": "in_use_elsewhere", reason: string, };

/**
 * One server as Settings shows and edits it.
 */
export type McpEntry = { name: string, disabled: boolean, 
/**
 * Its read-only tools may run before a plan is approved (see `ServerSpec::trusted`).
 */
trusted: boolean, 
/**
 * Its tools the person turned off (the server's names), sorted; see `ServerSpec::disabled_tools`.
 */
disabled_tools: Array<string>, transport: EntryTransport, };

export type McpServerView = { entry: McpEntry, status: ServerStatus, 
/**
 * The tools the server listed when a session last started it, by name; empty until then.
 */
tools: Array<McpToolView>, };

export type McpToolView = { 
/**
 * As the server lists it (untrusted text).
 */
name: string, offer: ToolOffer, };

export type McpView = { 
/**
 * The file, so the person can edit it by hand too.
 */
path: string, servers: Array<McpServerView>, 
/**
 * The file cannot be read (shown instead of the list; saving replaces the servers).
 */
error: BoundaryError | null, 
/**
 * The most tools a model is offered in one request, Hark's own included.
 */
tool_limit: number, };

/**
 * Which kind of model a session names: the scripted demo, or any OpenAI-compatible server
 * (DeepSeek, OpenAI, Ollama... differ only in base URL and model). `parse` is what `--provider`
 * accepts; an `Other` session is not runnable here.
 */
export type ModelKind = "demo" | "openai" | "other";

/**
 * Which model a session was created with. Never carries a key.
 */
export type ModelRef = { provider: ModelKind, base_url: string | null, model: string | null, script: string | null, };

/**
 * How a question left the foreground (or, for `AnsweredLate`, the continued state).
 */
export type Outcome = "answered" | "cancelled" | "aborted" | "timed_out" | "answered_late" | "withdrawn" | "failed";

/**
 * The one person the relay talks to, in the one private chat they paired from. Ids are the
 * messenger's, kept as text so another messenger's ids fit.
 */
export type PairedUser = { user_id: string, chat_id: string, 
/**
 * How the messenger names them (for Settings and `hark phone status`).
 */
name: string, };

export type PairingView = { code: string, 
/**
 * What the person sends to the bot: `/start <code>`.
 */
line: string, expires_at: string, };

/**
 * What the form saves; who is paired is changed only by pairing and unpairing.
 */
export type PhoneForm = { api_url: string, delay_secs: number, only_that_it_waits: boolean, };

export type PhoneView = { 
/**
 * The Bot API server (`https://`, or `http://` to this machine only).
 */
api_url: string, 
/**
 * How long a question waits in Hark before it goes to the phone; 0 = at once.
 */
delay_secs: number, 
/**
 * The phone is told only that a question waits, never its text.
 */
only_that_it_waits: boolean, 
/**
 * The one Telegram user questions go to; null until someone paired.
 */
paired: PairedUser | null, 
/**
 * A pairing under way: the line to send to the bot, until it is sent or runs out.
 */
pairing: PairingView | null, 
/**
 * Where the relay's bot token comes from: the keyring, `HARK_TELEGRAM_TOKEN`, or none.
 */
token: KeySource, 
/**
 * How the running relay's link stands (offline, token refused, bot blocked, ...).
 */
link: Link, 
/**
 * `phone.json` cannot be read: shown instead of its values (saving writes it afresh).
 */
error: BoundaryError | null, };

/**
 * Where the model comes from. DeepSeek, OpenAI-compatible and Ollama are all the `openai` provider
 * of hark-core with different defaults; the choice is kept so the form shows what was picked.
 */
export type Provider = "demo" | "deepseek" | "openai" | "ollama";

export type ProviderPreset = { 
/**
 * As settings files and launch options name it.
 */
id: string, label: string, 
/**
 * The default endpoint and model ("" for the demo, which has neither).
 */
base_url: string, model: string, 
/**
 * Whether it takes an API key (kept in the OS keyring).
 */
uses_key: boolean, 
/**
 * Whether a base URL and a model apply.
 */
uses_endpoint: boolean, };

/**
 * One question of a batch. No options (or an empty list) makes it free-form; a question with options
 * still accepts a free-text "Other" answer.
 *
 * The field docs are what the model reads in the tool's schema (see [`super::tool_definition`]).
 */
export type Question = { 
/**
 * Short id, unique in this call, echoed with the answer (e.g. "db").
 */
id: string, 
/**
 * The question, one clear sentence.
 */
question: string, 
/**
 * Optional short tag shown above the question (e.g. "Database").
 */
header?: string | null, options?: Array<QuestionOption>, 
/**
 * true lets the user pick several options.
 */
multi_select: boolean, };

export type QuestionEvent = { "type": "requested", request: InteractionRequest, } | { "type": "resolved", session_id: string, call_id: string, outcome: Outcome, } | { "type": "reply_queued", session_id: string, call_id: string, message_id: string, } | { "type": "reply_released", session_id: string, call_id: string, message_id: string, };

/**
 * One choice. `label` is both what the user sees and the value the model gets back.
 *
 * The field docs are what the model reads in the tool's schema (see [`super::tool_definition`]).
 */
export type QuestionOption = { 
/**
 * Shown to the user and returned to you when chosen. Unique within the question.
 */
label: string, 
/**
 * Optional one-line explanation of the choice.
 */
description?: string | null, };

export type QuestionRecord = { call_id: string, state: QuestionState, 
/**
 * A plan review (a `submit_plan` call) or a plain question.
 */
intent: Intent, 
/**
 * The `run_code` call whose script asked, for a question a script asked.
 */
parent_call_id: string | null, 
/**
 * Asked under the timed schema (decided by the `request/header` in force at the call), even when
 * the model chose `timeout: -1`.
 */
timed: boolean, questions: Array<Question>, answers: AnswerBatch | null, answered_late: boolean, 
/**
 * The inbox message id of a late reply that waits for admission.
 */
reply_queued: string | null, 
/**
 * In a client session: the late answer was returned to the outside agent.
 */
returned: boolean, 
/**
 * In a client session: the run of the outside agent that asked (`None`: one that did not say).
 */
asker: string | null, 
/**
 * When its foreground wait ended unanswered, as its pending result says (`None` for results
 * recorded before pending results said so).
 */
since: string | null, 
/**
 * The agent withdrew it, for this reason: it ended unanswered.
 */
withdrawn: string | null, 
/**
 * When it was asked (its call recorded); `None` when folded from events without their times.
 */
asked_at: string | null, };

export type QuestionState = "open" | "continued" | "settled";

/**
 * One waiting question as a surface shows it.
 */
export type QuestionView = { session_id: string, call_id: string, intent: Intent, questions: Array<Question>, 
/**
 * Whether an answer is taken now: always in the foreground; a continued question until a late
 * reply of it is queued (the first reply wins, and nobody is asked twice).
 */
answerable: boolean, 
/**
 * When it was asked, as the log recorded its call.
 */
asked_at: string | null, } & ({ "phase": "foreground", wait: WaitInfo | null, } | { "phase": "continued", reply_queued: string | null, });

/**
 * One remote host and its tunnel.
 */
export type RemoteHostView = { 
/**
 * As the person's `ssh` names it (an alias of their ssh config, `user@host`, ...).
 */
host: string, 
/**
 * How its tunnel stands; null while no running Hark keeps one (none yet, or none runs here).
 */
tunnel: TunnelState | null, 
/**
 * Which `hark` it had when last looked at (by its tunnel, or `hark remote add`); null: not yet.
 */
hark: HarkThere | null, };

export type RemoteHostsView = { 
/**
 * In the order they were added.
 */
hosts: Array<RemoteHostView>, };

export type ServerStatus = { "state": "not_started" } | { "state": "running", tools: number, } | { "state": "failed", error: BoundaryError, };

/**
 * A session's waiting questions at one moment, as a surface that is sent them again and again
 * receives them. `revision` orders the lists: of two, the one with the higher revision was read
 * after the other's last change, so a surface keeps the list with the highest it has seen (a list
 * read earlier but delivered later must not bring back what a newer one no longer has).
 */
export type SessionQuestions = { revision: number, questions: Array<QuestionView>, };

/**
 * A row of the sessions list, read from the summary kept by every append (no replay).
 */
export type SessionSummary = { id: string, title: string, created_at: string, updated_at: string, open_questions: number, continued_questions: number, event_count: number, };

export type SessionView = { session_id: string, transcript: Transcript, questions: SessionQuestions, busy: boolean, model_label: string, };

/**
 * Fields missing from the file (an older version wrote it) take their defaults, and fields this
 * version does not know are ignored, so upgrading or downgrading never resets anyone's settings.
 */
export type Settings = { provider: Provider, base_url: string, model: string, demo_script: string, question_mode: ToolMode, timeout_secs: number, 
/**
 * With timed questions: the turn stops when a question's wait runs out (the question stays
 * open, and its answer starts the next turn) instead of the agent working on.
 */
stop_turn_on_timeout: boolean, 
/**
 * New sessions work plan first: the agent submits a plan for review before it may change the
 * workspace. A session keeps the way it started.
 */
plan_first: boolean, 
/**
 * New sessions use programmatic tool calls: the agent writes scripts (`run_code`) that call the
 * tools, instead of calling them one by one.
 */
ptc: boolean, notifications: boolean, do_not_disturb: boolean, 
/**
 * Closing the window leaves Hark in the tray (its window gone, its agents and questions kept)
 * once the person has used it: a session exists, or a question waits. Before that, closing quits,
 * so a first look leaves nothing running. Read from files of versions that kept Hark in the tray
 * only while questions waited, so someone who turned that off keeps it off.
 */
run_in_background: boolean, 
/**
 * Hark starts hidden in the tray when the person logs in (an XDG autostart entry on Linux, a
 * login item on macOS, the Run key on Windows). The entry is the truth: it is read back from the OS.
 */
start_at_login: boolean, };

export type SettingsView = { settings: Settings, api_key_set: boolean, 
/**
 * Where the key new sessions would use comes from: the keyring, a vendor's variable, or none.
 */
key_source: KeySource, keyring: KeyringStatus, warning: BoundaryError | null, overrides: Array<string>, active_model: ActiveModel, 
/**
 * What the form offers: providers with their defaults, demo scripts, the timeout's bounds.
 */
catalogue: Catalogue, };

/**
 * Add Hark's entries, or take them away.
 */
export type SetupAction = "setup" | "undo";

/**
 * The agents Hark can register with. Across IPC by their command-line names (`claude-code`).
 */
export type SetupAgent = "claude-code" | "codex";

/**
 * What happened to one file.
 */
export type SetupOutcome = "added" | "updated" | "already_set_up" | "removed" | "nothing_to_remove";

/**
 * A new session's id.
 */
export type Started = { session_id: string, };

/**
 * A stored session event as the shell streams it: its envelope and `type`; the body's fields
 * follow the log's format.
 */
export type StoredEvent = { session_id: string, seq: number, at: string, type: string, [field: string]: unknown };

export type SubmitResult = { path: AnswerPath, };

/**
 * Which schema the tool is offered with. A setting, never the model's choice.
 */
export type ToolMode = "legacy" | "timed";

/**
 * What becomes of one MCP tool.
 */
export type ToolOffer = "offered" | "disabled" | "left_out";

export type ToolOutcome = { "status": "ok", content: string, 
/**
 * A question's or a plan review's answers as the person gave them: what its record is
 * settled with, so nothing reads them back out of `content`, which is written for the
 * model. Absent for other tools, and in logs of builds before it was kept.
 */
answers?: AnswerBatch, } | { "status": "pending", content: string, 
/**
 * When the wait ended, as the tool said in `content`; absent in logs of builds before it
 * was kept.
 */
since?: string, } | { "status": "error", error: BoundaryError, } | { "status": "TOOL_OUTCOME_UNKNOWN" };

export type ToolResultView = { seq: number, at: string, outcome: ToolOutcome, };

export type Transcript = { title: string | null, workspace: string | null, model: ModelRef | null, 
/**
 * The outside agent whose questions this session holds (a `hark mcp` client), if it is one.
 */
client: string | null, 
/**
 * The front door that started the session, when another than the one the person works in.
 */
started_by: string | null, turns: Array<Turn>, 
/**
 * Older turns left out by [`Transcript::keep_last_turns`]; 0 when `turns` is the whole session.
 */
earlier_turns: number, 
/**
 * The question projection of the same events, for badges and the question panel. Always the
 * whole session's, also when older turns are left out.
 */
questions: Array<QuestionRecord>, 
/**
 * Messages accepted for the agent and not admitted yet, in the order they were queued: a
 * `user_message` the person typed, or a `late_answer` (also shown on its call's row as
 * `queued_answers`). `seq`/`at` are those of the `inbox/queued` event. Once admitted, a message
 * leaves this list and appears in its turn under the same `message_id`.
 */
queued: Array<TranscriptItem>, 
/**
 * The `seq` of the last event this transcript includes (0 when unknown): a window applies only
 * the [`TranscriptDelta`]s of later events to it.
 */
seq: number, };

/**
 * One change to a shown transcript, so a window that shows a session follows it without reading
 * it again. Turn indexes count from the session's first turn, whatever page the window holds.
 */
export type TranscriptDelta = { "kind": "turn_opened", turn: number, value: Turn, } | { "kind": "turn_closed", turn: number, ended: TurnEnd, } | { "kind": "item_added", turn: number, item: number, value: TranscriptItem, } | { "kind": "result", turn: number, item: number, result: ToolResultView, } | { "kind": "call", call_id: string, question: QuestionRecord | null, queued_answers: AnswerBatch | null, } | { "kind": "queued", queued: Array<TranscriptItem>, };

export type TranscriptItem = { "kind": "user_message", seq: number, at: string, message_id: string, text: string, } | { "kind": "late_answer", seq: number, at: string, message_id: string, call_id: string, questions: Array<Question>, answers: AnswerBatch | null, raw_text: string | null, } | { "kind": "assistant_message", seq: number, at: string, text: string, reasoning: string | null, tool_calls: Array<string>, } | { "kind": "tool_call", seq: number, at: string, call_id: string, name: string, 
/**
 * As the model wrote them: any JSON.
 */
arguments: unknown, 
/**
 * The `run_code` call whose script made this call, for a call a script made.
 */
parent_call_id?: string, result: ToolResultView | null, 
/**
 * For `ask_user_question` and `submit_plan` calls still in the question projection: its final state, including
 * a late answer that settled it after its own result said pending. (Boxed because most calls
 * have none, and the item stays small.)
 */
question: QuestionRecord | null, 
/**
 * The answers of a late reply waiting in the inbox for admission.
 */
queued_answers: AnswerBatch | null, } | { "kind": "orphan_result", seq: number, at: string, call_id: string, outcome: ToolOutcome, } | { "kind": "model_error", seq: number, at: string, error: BoundaryError, } | { "kind": "mcp_unavailable", seq: number, at: string, server: string, error: BoundaryError, } | { "kind": "mcp_form", seq: number, at: string, server: string, message: string, questions: Array<Question>, outcome: FormOutcome, } | { "kind": "history_compacted", seq: number, at: string, through_seq: number, summary: string | null, };

/**
 * How one tunnel stands.
 */
export type TunnelState = { "state": "connecting" } | { "state": "connected" } | { "state": "reconnecting", reason: string, } | { "state": "refused", reason: string, };

/**
 * Items between a `turn/started` and its `turn/ended`. Items recorded outside any turn are grouped
 * in a turn whose `turn_id` is `None`.
 */
export type Turn = { turn_id: string | null, run_id: string | null, started_at: string, ended: TurnEnd | null, items: Array<TranscriptItem>, };

export type TurnEnd = { reason: TurnEndReason, seq: number, at: string, };

/**
 * Why a turn ended, as `turn/ended` stores it and the stream reports it.
 */
export type TurnEndReason = "completed" | "aborted" | "error" | "step_limit" | "interrupted" | "question_timed_out" | "other";

/**
 * Present on requests that run a host deadline. A client that shows such a question should
 * [`attach`](super::UserQuestionService::attach) to pause that deadline while the person looks at it.
 */
export type WaitInfo = { call_id: string, 
/**
 * Always true today; mirrors the wire shape `{call_id, timed: true}` the clients key on.
 */
timed: boolean, 
/**
 * The full foreground budget, for a client that draws progress; the live figure comes from attach.
 */
timeout_ms: number, };

/** Every window command (src-tauri/app/commands.rs): its arguments, named as `invoke` sends them, and its result. */
export interface Commands {
  app_info: { args: { turns: number | null; channel: Channel<AgentEvent> }; returns: AppInfo };
  list_sessions: { args: {}; returns: Array<SessionSummary> };
  session_transcript: { args: { sessionId: string; turns: number | null }; returns: Transcript };
  get_settings: { args: {}; returns: SettingsView };
  save_settings: { args: { settings: Settings; apiKey: string | null }; returns: SettingsView };
  mcp_servers: { args: {}; returns: McpView };
  save_mcp_servers: { args: { servers: Array<McpEntry> }; returns: McpView };
  first_run: { args: {}; returns: FirstRunView };
  save_first_run: { args: { record: FirstRunRecord }; returns: FirstRunRecord };
  agent_setups: { args: {}; returns: AgentsView };
  setup_agent: { args: { agent: SetupAgent; action: SetupAction; approvals: boolean | null }; returns: AgentSetupDone };
  choose_workspace: { args: {}; returns: string | null };
  start_session: { args: { text: string; workspace: string | null }; returns: Started };
  open_session: { args: { sessionId: string; turns: number | null; page: number | null; channel: Channel<AgentEvent> }; returns: SessionView };
  close_session_view: { args: { sessionId: string }; returns: void };
  send_message: { args: { sessionId: string; text: string }; returns: void };
  abort: { args: { sessionId: string }; returns: boolean };
  retry: { args: { sessionId: string }; returns: void };
  session_questions: { args: { sessionId: string }; returns: SessionQuestions };
  inbox: { args: {}; returns: Array<InboxEntry> };
  attach_question: { args: { sessionId: string; callId: string; page: number | null }; returns: AttachResult };
  release_question: { args: { sessionId: string; callId: string; takeoverId: number }; returns: void };
  submit_answers: { args: { sessionId: string; callId: string; answers: AnswerBatch; path: AnswerPath | null }; returns: SubmitResult };
  cancel_question: { args: { sessionId: string; callId: string }; returns: void };
  decline_question: { args: { sessionId: string; callId: string }; returns: void };
  expire_question: { args: { sessionId: string; callId: string }; returns: void };
  open_link: { args: { url: string }; returns: void };
  phone_settings: { args: {}; returns: PhoneView };
  save_phone_settings: { args: { form: PhoneForm; token: string | null }; returns: PhoneView };
  pair_phone: { args: {}; returns: PairingView };
  unpair_phone: { args: {}; returns: PhoneView };
  remote_hosts: { args: {}; returns: RemoteHostsView };
  add_remote_host: { args: { host: string }; returns: RemoteHostsView };
  remove_remote_host: { args: { host: string }; returns: RemoteHostsView };
}
