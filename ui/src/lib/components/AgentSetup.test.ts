import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import AgentSetup from './AgentSetup.svelte';
import type { Result } from '../api';
import type { AgentSetupDone, AgentsView, AgentView, SetupAction, SetupAgent, SetupOutcome } from '../types';

const SETTINGS = '/home/me/.claude/settings.json';
const STATE = '/home/me/.claude.json';
const CONFIG = '/home/me/.codex/config.toml';
const CLAUDE_NOTE = "Claude Code's permission prompts also wait in Hark, for up to 5 minutes.";
const CODEX_NOTE = "Codex's permission prompts wait in Hark first, for up to a minute: meanwhile Codex's own prompt is locked.";

const claude = (settings: SetupOutcome | null, state: SetupOutcome | null, setUp: boolean | null): AgentView => ({
  agent: 'claude-code',
  label: 'Claude Code',
  files: [
    { path: SETTINGS, entries: 'PreToolUse hook on AskUserQuestion', setup: settings },
    { path: STATE, entries: 'MCP server hark', setup: state },
  ],
  set_up: setUp,
  error: null,
  hook_trust: null,
  hook_trust_text: null,
  approvals: setUp === null ? null : false,
  approvals_note: CLAUDE_NOTE,
});
const codex = (config: SetupOutcome | null, setUp: boolean | null, trust: AgentView['hook_trust'] = null): AgentView => ({
  agent: 'codex',
  label: 'Codex',
  files: [{ path: CONFIG, entries: 'MCP server hark, PreToolUse hook on request_user_input', setup: config }],
  set_up: setUp,
  error: null,
  hook_trust: trust,
  hook_trust_text: trust === 'untrusted' ? "Codex does not run Hark's hook yet: type /hooks in Codex" : null,
  approvals: setUp === null ? null : false,
  approvals_note: CODEX_NOTE,
});
const agentsView = (agents: AgentView[], over: Partial<AgentsView> = {}): AgentsView => ({
  program: '/opt/hark/hark',
  program_error: null,
  agents,
  ...over,
});

const ok = <T,>(value: T): Result<T> => ({ ok: true, value });

function setup(
  view: AgentsView,
  run: (agent: SetupAgent, action: SetupAction, approvals?: boolean) => Promise<Result<AgentSetupDone>>,
) {
  const load = vi.fn(async () => ok(view));
  const runMock = vi.fn(run);
  render(AgentSetup, { load, run: runMock });
  return { load, run: runMock };
}

const row = (agent: SetupAgent): HTMLElement => {
  const found = screen.queryAllByTestId('agent').find((r) => r.dataset.agent === agent);
  if (!found) throw new Error(`no row ${agent}`);
  return found;
};
const texts = (els: HTMLElement[]) => els.map((e) => e.textContent?.replace(/\s+/g, ' ').trim());

describe('AgentSetup', () => {
  it('lists each agent with whether Hark is set up there and the files it touches', async () => {
    const { load, run } = setup(agentsView([claude('already_set_up', 'added', false), codex('already_set_up', true)]), async () => {
      throw new Error('nothing runs on opening');
    });
    await waitFor(() => expect(screen.queryAllByTestId('agent')).toHaveLength(2));
    expect(load).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('group', { name: 'Agents' })).toBeTruthy();
    expect(screen.getByTestId('agents-program').textContent).toBe('Their entries run /opt/hark/hark');
    expect(texts(screen.getAllByTestId('agent-name'))).toEqual(['Claude Code', 'Codex']);
    expect(within(row('claude-code')).getByTestId('agent-state').textContent).toBe('Partly set up');
    expect(within(row('codex')).getByTestId('agent-state').textContent).toBe('Set up');
    expect(texts(within(row('claude-code')).getAllByTestId('agent-file'))).toEqual([
      `${SETTINGS} PreToolUse hook on AskUserQuestion · set up`,
      `${STATE} MCP server hark · not set up`,
    ]);
    expect(texts(within(row('codex')).getAllByTestId('agent-file'))).toEqual([
      `${CONFIG} MCP server hark, PreToolUse hook on request_user_input · set up`,
    ]);
    for (const agent of ['claude-code', 'codex'] as const) {
      for (const name of ['Set up', 'Remove']) {
        const button = within(row(agent)).getByRole('button', { name }) as HTMLButtonElement;
        expect(button.type).toBe('button');
        expect(button.disabled).toBe(false);
      }
    }
    // Set up stands out where it would change something.
    expect(within(row('claude-code')).getByRole('button', { name: 'Set up' }).classList.contains('primary')).toBe(true);
    expect(within(row('codex')).getByRole('button', { name: 'Set up' }).classList.contains('primary')).toBe(false);
    expect(screen.queryByTestId('agent-outcome')).toBeNull();
    expect(run).not.toHaveBeenCalled();
  });

  it('says whether Codex runs Hark’s hook, as Codex tells it, and nothing where that is unknown', async () => {
    setup(agentsView([claude('already_set_up', 'already_set_up', true), codex('already_set_up', true, 'untrusted')]), async () => {
      throw new Error('nothing runs on opening');
    });
    await waitFor(() => expect(screen.queryAllByTestId('agent')).toHaveLength(2));
    const trust = within(row('codex')).getByTestId('agent-hook-trust');
    expect(trust.dataset.trust).toBe('untrusted');
    expect(trust.textContent).toContain('type /hooks in Codex');
    expect(within(row('claude-code')).queryByTestId('agent-hook-trust')).toBeNull();
  });

  it('Set up runs hark setup for that agent and shows each file’s outcome and Codex’s trust hint', async () => {
    let finish: (r: Result<AgentSetupDone>) => void = () => {};
    const { run } = setup(agentsView([claude('added', 'added', false), codex('added', false)]), () => new Promise((resolve) => (finish = resolve)));
    await waitFor(() => expect(screen.queryAllByTestId('agent')).toHaveLength(2));
    expect(within(row('codex')).getByTestId('agent-state').textContent).toBe('Not set up');

    await fireEvent.click(within(row('codex')).getByRole('button', { name: 'Set up' }));
    expect(run).toHaveBeenCalledWith('codex', 'setup');
    // One run at a time: every button waits for it.
    expect(within(row('codex')).getByRole('button', { name: 'Setting up…' })).toBeTruthy();
    for (const button of screen.getAllByRole('button')) expect((button as HTMLButtonElement).disabled).toBe(true);

    const hint = "Codex runs a new or changed hook only after you review and trust it: type /hooks in Codex and trust Hark's hook.";
    finish(
      ok({
        agent: 'codex',
        action: 'setup',
        files: [{ path: CONFIG, entries: 'MCP server hark, PreToolUse hook on request_user_input', outcome: 'added' }],
        hint,
        view: agentsView([claude('added', 'added', false), codex('already_set_up', true)]),
      }),
    );
    await waitFor(() => expect(within(row('codex')).getByTestId('agent-state').textContent).toBe('Set up'));
    expect(texts(within(row('codex')).getAllByTestId('agent-outcome-line'))).toEqual([
      `${CONFIG}: added (MCP server hark, PreToolUse hook on request_user_input)`,
    ]);
    expect(within(row('codex')).getByTestId('agent-hint').textContent).toBe(hint);
    expect(within(row('codex')).getByRole('status').textContent).toContain('After Set up:');
    expect(within(row('claude-code')).queryByTestId('agent-outcome')).toBeNull();
    expect((within(row('codex')).getByRole('button', { name: 'Set up' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('the permission-prompts switch says what it changes and sends approvals on or off with Set up', async () => {
    const on = (agent: AgentView): AgentView => ({ ...agent, approvals: true });
    let finish: (r: Result<AgentSetupDone>) => void = () => {};
    const { run } = setup(agentsView([claude('already_set_up', 'already_set_up', true), codex('already_set_up', true)]), () => new Promise((resolve) => (finish = resolve)));
    await waitFor(() => expect(screen.queryAllByTestId('agent')).toHaveLength(2));
    const toggle = () => within(row('codex')).getByRole('switch', { name: "Ask Codex's permission prompts in Hark too" }) as HTMLInputElement;
    expect(toggle().checked).toBe(false);
    expect(within(row('codex')).getByTestId('agent-approvals-note').textContent).toBe(CODEX_NOTE);
    expect(within(row('claude-code')).getByTestId('agent-approvals-note').textContent).toBe(CLAUDE_NOTE);
    expect(toggle().getAttribute('aria-describedby')).toBe(within(row('codex')).getByTestId('agent-approvals-note').id);

    await fireEvent.click(toggle());
    expect(run).toHaveBeenCalledWith('codex', 'setup', true);
    // While it runs the switch shows what was asked and nothing else can start.
    expect(toggle().checked).toBe(true);
    expect(toggle().disabled).toBe(true);
    expect((within(row('codex')).getByRole('button', { name: 'Set up' }) as HTMLButtonElement).disabled).toBe(true);
    finish(
      ok({
        agent: 'codex',
        action: 'setup',
        files: [{ path: CONFIG, entries: 'MCP server hark, PreToolUse hook on request_user_input', outcome: 'updated' }],
        hint: null,
        view: agentsView([claude('already_set_up', 'already_set_up', true), on(codex('already_set_up', true))]),
      }),
    );
    await waitFor(() => expect(toggle().disabled).toBe(false));
    expect(toggle().checked).toBe(true);
    expect(within(row('codex')).getByRole('status').textContent).toContain('After turning permission prompts on:');

    // Off again; a refusal leaves the switch as the files are.
    await fireEvent.click(toggle());
    expect(run).toHaveBeenLastCalledWith('codex', 'setup', false);
    finish({ ok: false, error: { name: 'SetupError', code: 'SETUP_WRONG_TYPE', message: 'hooks is not a table' } });
    await waitFor(() => expect(within(row('codex')).getByTestId('agent-error').textContent).toContain('SETUP_WRONG_TYPE'));
    expect(toggle().checked).toBe(true);
  });

  it('no switch where the files could not be read', async () => {
    setup(agentsView([claude(null, null, null), codex('already_set_up', true)]), async () => {
      throw new Error('nothing runs on opening');
    });
    await waitFor(() => expect(screen.queryAllByTestId('agent')).toHaveLength(2));
    expect(within(row('claude-code')).queryByRole('switch')).toBeNull();
    expect(within(row('codex')).getByRole('switch')).toBeTruthy();
  });

  it('Remove undoes it and says per file what was removed', async () => {
    const { run } = setup(agentsView([claude('already_set_up', 'already_set_up', true), codex('added', false)]), async () =>
      ok({
        agent: 'claude-code',
        action: 'undo',
        files: [
          { path: SETTINGS, entries: 'PreToolUse hook on AskUserQuestion', outcome: 'removed' },
          { path: STATE, entries: 'MCP server hark', outcome: 'nothing_to_remove' },
        ],
        hint: null,
        view: agentsView([claude('added', 'added', false), codex('added', false)]),
      }),
    );
    await waitFor(() => expect(within(row('claude-code')).getByTestId('agent-state').textContent).toBe('Set up'));
    await fireEvent.click(within(row('claude-code')).getByRole('button', { name: 'Remove' }));
    expect(run).toHaveBeenCalledWith('claude-code', 'undo');
    await waitFor(() => expect(within(row('claude-code')).getByTestId('agent-state').textContent).toBe('Not set up'));
    expect(texts(within(row('claude-code')).getAllByTestId('agent-outcome-line'))).toEqual([
      `${SETTINGS}: removed (PreToolUse hook on AskUserQuestion)`,
      `${STATE}: nothing to remove (MCP server hark)`,
    ]);
    expect(within(row('claude-code')).queryByTestId('agent-hint')).toBeNull();
    expect(within(row('claude-code')).getByRole('status').textContent).toContain('After Remove:');
  });

  it('a refused setup shows its message and code in the agent’s row, and the last outcome goes', async () => {
    const refusal = {
      name: 'SetupError',
      code: 'SETUP_INVALID_JSON',
      message: `${SETTINGS}: it is not valid JSON: EOF. Nothing was changed; fix the file (or move it away) and run this again.`,
    };
    const run = vi
      .fn<(agent: SetupAgent, action: SetupAction) => Promise<Result<AgentSetupDone>>>()
      .mockResolvedValueOnce(
        ok({
          agent: 'claude-code',
          action: 'undo',
          files: [{ path: SETTINGS, entries: 'PreToolUse hook on AskUserQuestion', outcome: 'nothing_to_remove' }],
          hint: null,
          view: agentsView([claude('added', 'added', false), codex('added', false)]),
        }),
      )
      .mockResolvedValueOnce({ ok: false, error: refusal });
    setup(agentsView([claude('added', 'added', false), codex('added', false)]), run);
    await waitFor(() => expect(screen.queryAllByTestId('agent')).toHaveLength(2));
    await fireEvent.click(within(row('claude-code')).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(within(row('claude-code')).queryByTestId('agent-outcome')).toBeTruthy());
    await fireEvent.click(within(row('claude-code')).getByRole('button', { name: 'Set up' }));
    const alert = await within(row('claude-code')).findByRole('alert');
    expect(alert.textContent).toContain('it is not valid JSON: EOF');
    expect(within(alert).getByText('SETUP_INVALID_JSON')).toBeTruthy();
    expect(within(row('claude-code')).queryByTestId('agent-outcome')).toBeNull();
    expect(within(row('codex')).queryByRole('alert')).toBeNull();
    expect((within(row('claude-code')).getByRole('button', { name: 'Set up' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('without a hark command nothing can be set up, and the coded reason is shown', async () => {
    const missing = {
      name: 'SetupError',
      code: 'SETUP_NO_HARK',
      message: 'the hark command is not installed beside Hark (in /opt/hark) nor on the PATH, and the agent’s entries would run it',
    };
    setup(agentsView([claude(null, null, null), codex(null, null)], { program: null, program_error: missing }), async () => {
      throw new Error('not reachable');
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('not installed beside Hark');
    expect(alert.textContent).toContain('SETUP_NO_HARK');
    expect(screen.queryByTestId('agents-program')).toBeNull();
    expect(within(row('codex')).getByTestId('agent-state').textContent).toBe('Not known');
    expect(texts(within(row('codex')).getAllByTestId('agent-file'))).toEqual([
      `${CONFIG} MCP server hark, PreToolUse hook on request_user_input`,
    ]);
    for (const button of screen.getAllByRole('button')) expect((button as HTMLButtonElement).disabled).toBe(true);
  });

  it('a file it cannot read is named in its row; a load that fails offers Try again', async () => {
    const load = vi
      .fn<() => Promise<Result<AgentsView>>>()
      .mockResolvedValueOnce({ ok: false, error: { name: 'IpcError', code: 'IPC_ERROR', message: 'no shell' } })
      .mockResolvedValueOnce(
        ok(
          agentsView([
            claude('added', 'added', false),
            { ...codex(null, null), error: { name: 'SetupError', code: 'SETUP_INVALID_TOML', message: `${CONFIG}: it is not valid TOML` } },
          ]),
        ),
      );
    render(AgentSetup, { load, run: vi.fn() });
    const failed = await screen.findByRole('alert');
    expect(failed.textContent).toContain('no shell');
    expect(failed.textContent).toContain('IPC_ERROR');
    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.queryAllByTestId('agent')).toHaveLength(2));
    expect(within(row('codex')).getByTestId('agent-state').textContent).toBe('Could not be read');
    const alert = within(row('codex')).getByRole('alert');
    expect(alert.textContent).toContain('it is not valid TOML');
    expect(alert.textContent).toContain('SETUP_INVALID_TOML');
    expect(within(row('claude-code')).queryByRole('alert')).toBeNull();
  });
});
