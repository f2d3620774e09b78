// Every command of docs/desktop-ipc.md, typed. Nothing here throws: failures come back as
// `{ ok: false, error }` so a component can show them.
import { Channel, invoke } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import { toHarkError, type HarkError } from './errors';
import type { AnswerBatch } from './question/types';
import type {
  AgentEvent,
  Commands,
  AgentSetupDone,
  AgentsView,
  AppInfo,
  FirstRunRecord,
  FirstRunView,
  Focus,
  InboxEntry,
  McpEntry,
  McpView,
  PairingView,
  PhoneForm,
  PhoneView,
  RemoteHostsView,
  SessionQuestions,
  SessionSummary,
  SessionView,
  Settings,
  SettingsView,
  SetupAction,
  SetupAgent,
  Started,
  SubmitResult,
  AttachResult,
  Transcript,
} from './types';

export type { AppInfo } from './types';

export type Result<T> = { ok: true; value: T } | { ok: false; error: HarkError };

type Args<C extends keyof Commands> = Commands[C]['args'];
type Returns<C extends keyof Commands> = Commands[C]['returns'];

/**
 * Calls a shell command and never throws: failures come back as structured errors for the UI. The
 * command's name, arguments and result are typed by `Commands`, generated from the shell's signatures;
 * a command without arguments takes none.
 */
export async function call<C extends keyof Commands>(
  command: C,
  ...args: keyof Args<C> extends never ? [] : [Args<C>]
): Promise<Result<Returns<C>>> {
  try {
    return { ok: true, value: await invoke<Returns<C>>(command, args[0]) };
  } catch (reason) {
    return { ok: false, error: toHarkError(reason) };
  }
}

/**
 * This page load's number (from app_info). The shell lets go of what an earlier load held, and refuses
 * its late calls with PAGE_RELOADED; null until app_info answered (the shell then takes the current one).
 */
let page: number | null = null;

/**
 * The app's facts, and the session the launch named opened for this page (`initial_view`, its newest
 * `turns` turns), streaming to `onEvent`.
 */
export async function appInfo(onEvent: (event: AgentEvent) => void, turns: number | null = null): Promise<Result<AppInfo>> {
  let channel: Channel<AgentEvent>;
  try {
    channel = new Channel<AgentEvent>(onEvent);
  } catch (reason) {
    return { ok: false, error: toHarkError(reason) };
  }
  const r = await call('app_info', { turns, channel });
  if (r.ok) page = r.value.page;
  return r;
}

export const getSettings = (): Promise<Result<SettingsView>> => call('get_settings');

/** `apiKey`: null leaves the stored key alone, "" deletes it, anything else is stored in the keyring. */
export const saveSettings = (settings: Settings, apiKey: string | null): Promise<Result<SettingsView>> =>
  call('save_settings', { settings, apiKey });

export const listSessions = (): Promise<Result<SessionSummary[]>> => call('list_sessions');

/** The native folder picker; null when the person cancelled. */
export const chooseWorkspace = (): Promise<Result<string | null>> => call('choose_workspace');

export const startSession = (text: string, workspace: string | null): Promise<Result<Started>> =>
  call('start_session', { text, workspace });

/**
 * Opens a session's live view: the shell streams its agent's events to `onEvent` until
 * `closeSessionView` (or until another channel replaces this one).
 */
export async function openSession(
  sessionId: string,
  onEvent: (event: AgentEvent) => void,
  turns: number | null = null,
): Promise<Result<SessionView>> {
  let channel: Channel<AgentEvent>;
  try {
    channel = new Channel<AgentEvent>(onEvent);
  } catch (reason) {
    return { ok: false, error: toHarkError(reason) };
  }
  return call('open_session', { sessionId, turns, page, channel });
}

export const closeSessionView = (sessionId: string): Promise<Result<void>> =>
  call('close_session_view', { sessionId });

/** The session's transcript; with `turns`, only the newest turns (`earlier_turns` counts the rest). */
export const sessionTranscript = (sessionId: string, turns: number | null = null): Promise<Result<Transcript>> =>
  call('session_transcript', { sessionId, turns });

export const sendMessage = (sessionId: string, text: string): Promise<Result<void>> =>
  call('send_message', { sessionId, text });

/** Whether a turn was running. */
export const abort = (sessionId: string): Promise<Result<boolean>> => call('abort', { sessionId });

export const retry = (sessionId: string): Promise<Result<void>> => call('retry', { sessionId });

/** Every waiting question of every session, grouped by asker, oldest first (the core's order). */
export const inbox = (): Promise<Result<InboxEntry[]>> => call('inbox');

/** The session's waiting questions as the host lists them, with the revision that orders the read. */
export const sessionQuestions = (sessionId: string): Promise<Result<SessionQuestions>> =>
  call('session_questions', { sessionId });

export const attachQuestion = (sessionId: string, callId: string): Promise<Result<AttachResult>> =>
  call('attach_question', { sessionId, callId, page });

export const releaseQuestion = (sessionId: string, callId: string, takeoverId: number): Promise<Result<void>> =>
  call('release_question', { sessionId, callId, takeoverId });

/**
 * Sends the panel's answers by the path the panel is on: `foreground` answers the waiting call (refused
 * with NOT_PENDING once the wait ended, so the draft can be resubmitted), `late` answers a continued one.
 */
export const submitAnswers = (
  sessionId: string,
  callId: string,
  answers: AnswerBatch,
  path: 'foreground' | 'late' | null = null,
): Promise<Result<SubmitResult>> => call('submit_answers', { sessionId, callId, answers, path });

export const cancelQuestion = (sessionId: string, callId: string): Promise<Result<void>> =>
  call('cancel_question', { sessionId, callId });
/** The MCP servers of the data directory's mcp.json, each with how it last started. */
export const mcpServers = (): Promise<Result<McpView>> => call('mcp_servers');

/** Replaces mcp.json's servers (secret header values go to the OS keyring; "" keeps the stored one). */
export const saveMcpServers = (servers: McpEntry[]): Promise<Result<McpView>> =>
  call('save_mcp_servers', { servers });

/** Claude Code's and Codex's files Hark edits, and whether each is set up; reads them, writes nothing. */
export const agentSetups = (): Promise<Result<AgentsView>> => call('agent_setups');

/**
 * `hark setup <agent> [--undo] [--approvals | --no-approvals]`: each file's outcome, the next step, and the section
 * as it is now. `approvals` turns the hooks that send the agent's permission prompts to Hark on or off; absent, they
 * stay as they are.
 */
export const setupAgent = (
  agent: SetupAgent,
  action: SetupAction,
  approvals?: boolean,
): Promise<Result<AgentSetupDone>> => call('setup_agent', { agent, action, approvals: approvals ?? null });

/** The first run: what was skipped or dismissed, and which agents this machine has. Writes nothing. */
export const firstRun = (): Promise<Result<FirstRunView>> => call('first_run');

/** Keeps the first run's skipped steps and whether it was dismissed. */
export const saveFirstRun = (record: FirstRunRecord): Promise<Result<FirstRunRecord>> => call('save_first_run', { record });

/** Settings → Phone: phone.json, where the bot token comes from (never the token), who is paired, the link. */
export const phoneSettings = (): Promise<Result<PhoneView>> => call('phone_settings');

/** Saves the phone form; `token` null keeps the stored one, "" removes it, else it goes to the OS keyring. */
export const savePhoneSettings = (form: PhoneForm, token: string | null): Promise<Result<PhoneView>> =>
  call('save_phone_settings', { form, token });

/** A one-time code and the `/start CODE` line to send to the bot; the running relay pairs whoever sends it. */
export const pairPhone = (): Promise<Result<PairingView>> => call('pair_phone');

/** Forgets the paired person and any pairing under way. */
export const unpairPhone = (): Promise<Result<PhoneView>> => call('unpair_phone');

/** Settings → Remote hosts: the hosts whose agents ask here over SSH, each with its tunnel's state. */
export const remoteHosts = (): Promise<Result<RemoteHostsView>> => call('remote_hosts');

/** `hark remote add HOST`: BAD_HOST for a name ssh would read as anything but a host. */
export const addRemoteHost = (host: string): Promise<Result<RemoteHostsView>> => call('add_remote_host', { host });

/** `hark remote remove HOST`: its tunnel closes. */
export const removeRemoteHost = (host: string): Promise<Result<RemoteHostsView>> => call('remove_remote_host', { host });

export const declineQuestion = (sessionId: string, callId: string): Promise<Result<void>> =>
  call('decline_question', { sessionId, callId });

export const expireQuestion = (sessionId: string, callId: string): Promise<Result<void>> =>
  call('expire_question', { sessionId, callId });

export const openLink = (url: string): Promise<Result<void>> => call('open_link', { url });

/** Subscribes to a window event; resolves to an unsubscribe function (a no-op if listening failed). */
async function subscribe<T>(event: string, handler: (payload: T) => void): Promise<() => void> {
  try {
    const unlisten = await listen<T>(event, (e) => handler(e.payload));
    return () => void unlisten();
  } catch {
    return () => {};
  }
}

/** A notification, the tray or a second launch asked to show a session (and maybe a question). */
export const onFocusRequest = (handler: (payload: Focus) => void): Promise<() => void> =>
  subscribe<Focus>('hark://focus', handler);

/** The tray or a notification asked to show the inbox. */
export const onInboxRequest = (handler: () => void): Promise<() => void> =>
  subscribe<unknown>('hark://inbox', () => handler());

/** A second launch's options could not be carried out in this running app. */
export const onLaunchError = (handler: (error: HarkError) => void): Promise<() => void> =>
  subscribe<HarkError>('hark://launch-error', handler);

/** A session's list entry changed (new session, badge counts). */
export const onSessionsChanged = (handler: () => void): Promise<() => void> =>
  subscribe<unknown>('hark://sessions-changed', () => handler());
