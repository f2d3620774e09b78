import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import FirstRunPanel from './FirstRunPanel.svelte';
import { FirstRun, type FirstRunApi } from '../chat/firstRunState.svelte';
import { catalogue } from '../chat/fakes';
import type { AgentsView, FirstRunRecord, PhoneView, SettingsView } from '../types';

const ok = <T,>(value: T) => ({ ok: true as const, value });
const agents = (codexSetUp: boolean): AgentsView => ({
  program: '/opt/hark/hark',
  program_error: null,
  agents: [
    { agent: 'claude-code', label: 'Claude Code', files: [], set_up: false, error: null, hook_trust: null, hook_trust_text: null, approvals: null, approvals_note: '' },
    { agent: 'codex', label: 'Codex', files: [], set_up: codexSetUp, error: null, hook_trust: null, hook_trust_text: null, approvals: null, approvals_note: '' },
  ],
});
const phone = { paired: null, pairing: null } as unknown as PhoneView;
const settings = {
  settings: { provider: 'demo', start_at_login: false },
  catalogue: catalogue(),
} as unknown as SettingsView;

function setup() {
  const io = {
    firstRun: vi.fn(async () =>
      ok({
        record: { dismissed: false, skipped: [] } as FirstRunRecord,
        record_error: null,
        agents: [
          { agent: 'claude-code' as const, label: 'Claude Code', folder: null, command: null },
          { agent: 'codex' as const, label: 'Codex', folder: '/home/me/.codex', command: '/usr/bin/codex' },
        ],
      }),
    ),
    saveFirstRun: vi.fn(async (record: FirstRunRecord) => ok(record)),
    agentSetups: vi.fn(async () => ok(agents(false))),
    setupAgent: vi.fn(async () =>
      ok({
        agent: 'codex' as const,
        action: 'setup' as const,
        files: [{ path: '/home/me/.codex/config.toml', entries: 'MCP server hark', outcome: 'added' as const }],
        hint: 'type /hooks in Codex and trust it',
        view: agents(true),
      }),
    ),
    phoneSettings: vi.fn(async () => ok(phone)),
  } satisfies FirstRunApi;
  const firstRun = new FirstRun(() => settings, io);
  const props = { firstRun, onOpenSettings: vi.fn(), onStartAtLogin: vi.fn(async () => null), onClose: vi.fn() };
  render(FirstRunPanel, props);
  return { io, firstRun, props };
}

const step = (name: string) => screen.getAllByTestId('first-run-step').find((el) => el.dataset.step === name)!;

describe('FirstRunPanel', () => {
  it('an unreadable record is said, and the first run is offered with what this machine has', async () => {
    const { io, firstRun } = setup();
    const error = { name: 'FirstRunError', code: 'FIRST_RUN_READ', message: 'Could not read /data/first-run.json: expected value' };
    io.firstRun.mockResolvedValueOnce(ok({ ...(await io.firstRun()).value, record_error: error }) as never);
    await firstRun.load();
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Could not read /data/first-run.json: expected value FIRST_RUN_READ'));
    expect(firstRun.offered).toBe(true);
    expect(within(step('codex')).getByTestId('first-run-state').textContent).toContain('Found: /home/me/.codex');
  });

  it('lists what this machine has; Set up runs hark setup and says the next step; a skip is kept', async () => {
    const { io, firstRun, props } = setup();
    await firstRun.load();
    await waitFor(() => expect(within(step('codex')).getByTestId('first-run-state').textContent).toBe('Found: /home/me/.codex, /usr/bin/codex · not set up yet'));
    expect(within(step('claude_code')).getByTestId('first-run-state').textContent).toBe('Not found on this machine');
    expect(within(step('claude_code')).queryByRole('button')).toBeNull();
    expect(step('codex').textContent).toContain('Codex runs a new hook only after you trust it');

    await fireEvent.click(within(step('codex')).getByRole('button', { name: 'Set up Codex' }));
    expect(io.setupAgent).toHaveBeenCalledWith('codex', 'setup');
    await waitFor(() => expect(within(step('codex')).getByTestId('first-run-state').textContent).toBe('Set up'));
    expect(within(step('codex')).getByTestId('first-run-hint').textContent).toBe('type /hooks in Codex and trust it');

    await fireEvent.click(within(step('phone')).getByRole('button', { name: 'Pair a phone…' }));
    expect(props.onOpenSettings).toHaveBeenCalledWith('phone');
    await fireEvent.click(within(step('model')).getByRole('button', { name: 'Skip' }));
    expect(io.saveFirstRun).toHaveBeenLastCalledWith({ dismissed: false, skipped: ['model'] });
    await waitFor(() => expect(within(step('model')).getByTestId('first-run-state').textContent).toBe('Skipped'));
    expect(firstRun.offered).toBe(true);

    await fireEvent.click(screen.getByRole('button', { name: "Don't show this again" }));
    expect(io.saveFirstRun).toHaveBeenLastCalledWith({ dismissed: true, skipped: ['model'] });
    await waitFor(() => expect(props.onClose).toHaveBeenCalled());
    expect(firstRun.offered).toBe(false);
  });
});
