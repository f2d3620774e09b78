import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import type { AgentEvent } from './lib/types';
import { catalogue } from './lib/chat/fakes';

// The shell, faked at the IPC boundary: every command the window calls goes through `invoke`.
const h = vi.hoisted(() => ({
  handlers: {} as Record<string, (args: Record<string, unknown>) => unknown>,
  calls: [] as Array<[string, Record<string, unknown> | undefined]>,
  channels: [] as Array<(e: unknown) => void>,
  listeners: {} as Record<string, (e: { payload: unknown }) => void>,
}));

vi.mock('@tauri-apps/api/core', () => ({
  invoke: vi.fn(async (cmd: string, args?: Record<string, unknown>) => {
    h.calls.push([cmd, args]);
    const handler = h.handlers[cmd];
    if (!handler) throw { name: 'IpcError', code: 'UNKNOWN_COMMAND', message: `no ${cmd}` };
    return handler(args ?? {});
  }),
  Channel: class {
    constructor(onmessage: (e: unknown) => void) {
      h.channels.push(onmessage);
    }
  },
}));
vi.mock('@tauri-apps/api/event', () => ({
  listen: vi.fn(async (event: string, handler: (e: { payload: unknown }) => void) => {
    h.listeners[event] = handler;
    return () => {};
  }),
}));

const { default: App } = await import('./App.svelte');

/** Clicks the sidebar row of session s1 once the list has loaded. */
async function openSessionRow(container: HTMLElement): Promise<void> {
  const row = await waitFor(() => {
    const el = container.querySelector('button[data-session-id="s1"]');
    if (!el) throw new Error('no row yet');
    return el;
  });
  await fireEvent.click(row);
}

const settingsView = (isDemo: boolean) => ({
  settings: {
    provider: isDemo ? 'demo' : 'deepseek', base_url: '', model: '', demo_script: 'batch', question_mode: 'timed',
    timeout_secs: 120, notifications: true, do_not_disturb: false, run_in_background: true, start_at_login: false,
  },
  api_key_set: false,
  key_source: { kind: 'none' },
  keyring: { available: true, message: null },
  warning: null,
  overrides: [],
  active_model: { provider: isDemo ? 'demo' : 'openai', label: isDemo ? 'Demo' : 'DeepSeek', is_demo: isDemo },
  catalogue: catalogue(),
});
const question = { id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'Postgres' }] };
const emptyTranscript = { title: 'x', workspace: null, model: null, turns: [], questions: [], seq: 0 };
let questionsNow: unknown = { revision: 0, questions: [] };
/** The host's list of s1's waiting questions: one foreground question, timed when `wait` is given. */
const foreground = (wait: unknown = null) => ({
  revision: 1,
  questions: [{ session_id: 's1', call_id: 'c1', intent: { kind: 'question' }, questions: [question], phase: 'foreground', wait, answerable: true, asked_at: null }],
});

beforeEach(() => {
  h.calls.length = 0;
  h.channels.length = 0;
  questionsNow = { revision: 0, questions: [] };
  localStorage.clear();
  h.handlers = {
    app_info: () => ({ name: 'Hark', version: '0.1.0', data_dir: '/tmp/hark', initial_session: null, page: 7 }),
    list_sessions: () => [
      { id: 's1', title: 'Pick a database', updated_at: new Date().toISOString(), open_questions: 1, continued_questions: 0 },
    ],
    get_settings: () => settingsView(true),
    open_session: (a) => ({
      session_id: a.sessionId, transcript: emptyTranscript, questions: questionsNow, busy: false, model_label: 'Demo',
    }),
    close_session_view: () => null,
    session_transcript: () => emptyTranscript,
    session_questions: () => questionsNow,
    start_session: () => ({ session_id: 's-new' }),
    choose_workspace: () => '/work/project',
    cancel_question: () => null,
    submit_answers: () => ({ path: 'foreground' }),
  };
});
afterEach(() => vi.clearAllMocks());

describe('App', () => {
  it('shows the demo banner, whose button opens Settings', async () => {
    render(App);
    const banner = await screen.findByTestId('demo-banner');
    expect(banner.textContent).toContain("You're using the Demo model — scripted replies, no AI.");
    await fireEvent.click(screen.getByRole('button', { name: 'Connect a model' }));
    expect(await screen.findByRole('dialog', { name: 'Settings' })).toBeTruthy();
  });

  it('Settings lists the MCP servers from mcp_servers, and their Save sends them to save_mcp_servers', async () => {
    const entry = { name: 'fs', disabled: false, trusted: false, disabled_tools: [] as string[], transport: { kind: 'stdio', command: 'npx', args: ['server-fs'], env: [] } };
    const mcp = { path: '/tmp/hark/mcp.json', servers: [{ entry, status: { state: 'not_started' }, tools: [] }], error: null, tool_limit: 128 };
    h.handlers.mcp_servers = () => mcp;
    h.handlers.save_mcp_servers = (a) => ({ ...mcp, servers: (a.servers as Array<typeof entry>).map((e) => ({ entry: e, status: { state: 'not_started' }, tools: [] })) });
    render(App);
    await screen.findByTestId('demo-banner');
    await fireEvent.click(screen.getByRole('button', { name: 'Connect a model' }));
    await fireEvent.click(await screen.findByRole('button', { name: 'MCP servers' }));
    const row = await screen.findByTestId('mcp-server');
    expect(row.textContent).toContain('npx server-fs');
    expect(screen.getByTestId('mcp-path').textContent).toBe('Edit mcp.json by hand: /tmp/hark/mcp.json');
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Enabled' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved. New sessions use these servers.');
    expect(h.calls.filter(([cmd]) => cmd === 'save_mcp_servers')).toEqual([['save_mcp_servers', { servers: [{ ...entry, disabled: true }] }]]);
    expect(h.calls.some(([cmd]) => cmd === 'save_settings')).toBe(false);
  });

  it('Settings shows the agents from agent_setups, and Set up sends the agent and action to setup_agent', async () => {
    const agents = (setup: string) => ({
      program: '/opt/hark/hark',
      program_error: null,
      agents: [
        { agent: 'claude-code', label: 'Claude Code', set_up: setup === 'already_set_up', error: null, hook_trust: null, hook_trust_text: null, approvals: null, approvals_note: '',
          files: [{ path: '/home/me/.claude/settings.json', entries: 'PreToolUse hook on AskUserQuestion', setup }] },
      ],
    });
    h.handlers.agent_setups = () => agents('added');
    h.handlers.setup_agent = (a) => ({
      agent: a.agent, action: a.action, hint: null, view: agents('already_set_up'),
      files: [{ path: '/home/me/.claude/settings.json', entries: 'PreToolUse hook on AskUserQuestion', outcome: 'added' }],
    });
    render(App);
    await screen.findByTestId('demo-banner');
    await fireEvent.click(screen.getByRole('button', { name: 'Connect a model' }));
    expect((await screen.findByRole('button', { name: 'Model' })).getAttribute('aria-current')).toBe('page');
    await fireEvent.click(screen.getByRole('button', { name: 'Agents' }));
    const row = await screen.findByTestId('agent');
    expect(row.textContent).toContain('Not set up');
    await fireEvent.click(screen.getByRole('button', { name: 'Set up' }));
    await screen.findByText('/home/me/.claude/settings.json: added (PreToolUse hook on AskUserQuestion)');
    expect(h.calls.filter(([cmd]) => cmd === 'setup_agent')).toEqual([['setup_agent', { agent: 'claude-code', action: 'setup', approvals: null }]]);
    expect(h.calls.some(([cmd]) => cmd === 'save_settings')).toBe(false);
  });

  it('a new chat picks a workspace and its first Send starts and opens the session', async () => {
    render(App);
    await screen.findByTestId('demo-banner');
    await fireEvent.click(screen.getByTestId('new-chat'));
    expect(screen.getByText(/Workspace:/).textContent).toContain('none');
    await fireEvent.click(screen.getByRole('button', { name: 'Choose folder…' }));
    await waitFor(() => expect(screen.getByText('/work/project')).toBeTruthy());
    const box = screen.getByTestId('composer-input');
    await fireEvent.input(box, { target: { value: 'set up the repo' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    await waitFor(() => expect(h.calls.some(([c]) => c === 'open_session')).toBe(true));
    expect(h.calls.find(([c]) => c === 'start_session')?.[1]).toEqual({ text: 'set up the repo', workspace: '/work/project' });
  });

  it('a foreground question takes over the composer; Close cancels the call and gives the composer back', async () => {
    questionsNow = foreground();
    await openSessionRow(render(App).container);
    const panel = await screen.findByRole('region', { name: 'Question' });
    expect(screen.queryByTestId('composer-input')).toBeNull();
    expect(screen.getByRole('radio', { name: 'SQLite' })).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(h.calls.some(([c, a]) => c === 'cancel_question' && a?.callId === 'c1')).toBe(true));
    expect(panel.isConnected).toBe(false);
    expect(screen.getByTestId('composer-input')).toBeTruthy();
  });

  it("an outside agent's session names it where it asks and offers no composer", async () => {
    questionsNow = foreground();
    const clientTranscript = { ...emptyTranscript, client: 'Claude Code' };
    h.handlers.open_session = (a) => ({
      session_id: a.sessionId, transcript: clientTranscript, questions: questionsNow, busy: true, model_label: '',
    });
    h.handlers.session_transcript = () => clientTranscript;
    await openSessionRow(render(App).container);
    await screen.findByRole('region', { name: 'Question' });
    expect(screen.getByTestId('asker').textContent).toBe('Claude Code is asking');
    await fireEvent.click(screen.getByRole('button', { name: 'Hide' }));
    const note = await screen.findByTestId('client-note');
    expect(note.textContent).toContain('talk to Claude Code where it runs');
    expect(screen.queryByTestId('composer-input')).toBeNull();
  });

  it('tells the shell which page load opens views and takes over questions', async () => {
    const wait = { call_id: 'c1', timed: true, timeout_ms: 60_000 };
    questionsNow = foreground(wait);
    h.handlers.attach_question = () => ({ takeover_id: 1, remaining_ms: 60_000 });
    h.handlers.release_question = () => null;
    await openSessionRow(render(App).container);
    await waitFor(() => expect(h.calls.some(([c]) => c === 'attach_question')).toBe(true));
    expect(h.calls.find(([c]) => c === 'open_session')?.[1]).toMatchObject({ sessionId: 's1', page: 7 });
    expect(h.calls.find(([c]) => c === 'attach_question')?.[1]).toEqual({ sessionId: 's1', callId: 'c1', page: 7 });
  });

  it('streams text from the channel into the live bubble', async () => {
    await openSessionRow(render(App).container);
    // The first channel is app_info's (no session was launched); the second streams s1.
    await waitFor(() => expect(h.channels.length).toBe(2));
    const push = h.channels[1] as (e: AgentEvent) => void;
    push({ type: 'turn_started', session_id: 's1', turn_id: 't' });
    push({ type: 'text_delta', session_id: 's1', text: 'Working on it' });
    expect((await screen.findByTestId('streaming-text')).textContent).toBe('Working on it');
    expect(screen.getByRole('button', { name: 'Stop' })).toBeTruthy();
  });

  it('a launch with --session shows it from app_info alone, with what its stream sent before the answer', async () => {
    const at = new Date().toISOString();
    const opened = {
      ...emptyTranscript,
      seq: 3,
      turns: [{ turn_id: 't1', started_at: at, ended: null, items: [{ kind: 'user_message', seq: 3, at, message_id: 'm1', text: 'port the ledger' }] }],
    };
    h.handlers.app_info = (a) => {
      // Recorded after the shell took its read, delivered before its answer.
      const early = h.channels[0] as (e: AgentEvent) => void;
      early({
        type: 'transcript', session_id: 's1', seq: 4,
        deltas: [{ kind: 'item_added', turn: 0, item: 1, value: { kind: 'assistant_message', seq: 4, at, text: 'Reading the ledger crate first.', reasoning: null, tool_calls: [] } }],
      });
      expect(a.turns).toBe(10);
      return {
        name: 'Hark', version: '0.1.0', data_dir: '/tmp/hark', initial_session: 's1', page: 7,
        initial_view: { session_id: 's1', transcript: opened, questions: questionsNow, busy: true, model_label: 'Demo' },
      };
    };
    render(App);
    expect((await screen.findAllByText('port the ledger')).length).toBeGreaterThan(0);
    expect(await screen.findByText('Reading the ledger crate first.')).toBeTruthy();
    expect(h.calls.some(([c]) => c === 'open_session')).toBe(false);
    // The same channel goes on streaming the session.
    (h.channels[0] as (e: AgentEvent) => void)({ type: 'text_delta', session_id: 's1', text: 'Still reading' });
    expect((await screen.findByTestId('streaming-text')).textContent).toBe('Still reading');
  });

  it('a launched session app_info could not open is opened the usual way', async () => {
    h.handlers.app_info = () => ({
      name: 'Hark', version: '0.1.0', data_dir: '/tmp/hark', initial_session: 's1', initial_view: null, page: 7,
    });
    render(App);
    await waitFor(() => expect(h.calls.find(([c]) => c === 'open_session')?.[1]).toMatchObject({ sessionId: 's1', page: 7 }));
  });

  it('hark://focus opens that session and its question', async () => {
    questionsNow = {
      revision: 1,
      questions: [{ session_id: 's1', call_id: 'c9', intent: { kind: 'question' }, questions: [question], phase: 'continued', reply_queued: null, answerable: true, asked_at: null }],
    };
    render(App);
    await waitFor(() => expect(h.listeners['hark://focus']).toBeTruthy());
    h.listeners['hark://focus']?.({ payload: { session_id: 's1', call_id: 'c9' } });
    expect(await screen.findByRole('region', { name: 'Question' })).toBeTruthy();
    expect(screen.getByText('The agent went on — answer any time')).toBeTruthy();
  });
});
