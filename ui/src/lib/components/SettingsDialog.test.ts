import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import SettingsDialog from './SettingsDialog.svelte';
import { catalogue } from '../chat/fakes';
import type {
  AgentSetupDone,
  AgentsView,
  McpEntry,
  McpView,
  PhoneForm,
  PhoneView,
  Provider,
  RemoteHostsView,
  Settings,
  SettingsView,
} from '../types';

const settings: Settings = {
  provider: 'demo', base_url: '', model: '', demo_script: 'batch', question_mode: 'legacy', timeout_secs: 120, stop_turn_on_timeout: false, plan_first: false, ptc: false,
  notifications: true, do_not_disturb: false, run_in_background: true, start_at_login: false,
};
const view = (over: Partial<SettingsView> = {}): SettingsView => ({
  settings, api_key_set: false, key_source: { kind: 'none' }, keyring: { available: true, message: null }, warning: null, overrides: [],
  active_model: { provider: 'demo', label: 'Demo', is_demo: true }, catalogue: catalogue(), ...over,
});
const optionsOf = (name: string) =>
  Array.from((screen.getByRole('combobox', { name }) as HTMLSelectElement).options).map((o) => [o.value, o.textContent]);

/** Shows a section of the page, as a click in its list on the left does. */
const show = async (label: string) =>
  fireEvent.click(within(screen.getByRole('navigation', { name: 'Settings sections' })).getByRole('button', { name: new RegExp(`^${label}`) }));

describe('SettingsDialog', () => {
  it('what happens on a timeout is one choice of three, saved as the schema and whether the turn stops', async () => {
    const onSave = vi.fn(async () => null);
    render(SettingsDialog, { view: view(), onSave, onClose: vi.fn(), initialSection: 'questions' });
    const wait = screen.getByRole('radio', { name: /Wait for my answer/ }) as HTMLInputElement;
    expect(wait.checked).toBe(true);
    await fireEvent.click(screen.getByRole('radio', { name: /Stop after a timeout/ }));
    expect(wait.checked).toBe(false);
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenCalledWith({ ...settings, question_mode: 'timed', stop_turn_on_timeout: true }, null);
  });

  it("each section's Save sends its own fields and keeps the dialog open; the others stay as typed", async () => {
    const onSave = vi.fn(async () => null);
    const onClose = vi.fn();
    render(SettingsDialog, { view: view(), onSave, onClose, initialSection: 'model' });
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBeTruthy();
    await fireEvent.change(screen.getByRole('combobox', { name: 'Provider' }), { target: { value: 'deepseek' } });
    expect((screen.getByRole('textbox', { name: 'Base URL' }) as HTMLInputElement).value).toBe('https://api.deepseek.com');
    await fireEvent.input(screen.getByLabelText('API key'), { target: { value: 'sk-123' } });
    await show('Questions');
    await fireEvent.click(screen.getByRole('radio', { name: /Keep working after a timeout/ }));
    await fireEvent.click(screen.getByRole('checkbox', { name: /Plan first/ }));
    await show('General');
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Do not disturb' }));
    const nav = screen.getByRole('navigation', { name: 'Settings sections' });
    const marked = () => Array.from(nav.querySelectorAll('[aria-label="(unsaved changes)"]')).map((d) => d.parentElement?.dataset.section);
    expect(marked()).toEqual(['general', 'model', 'questions']);

    await show('Model');
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenLastCalledWith({ ...settings, provider: 'deepseek', base_url: 'https://api.deepseek.com', model: 'deepseek-chat' }, 'sk-123');
    await show('Questions');
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenLastCalledWith({ ...settings, question_mode: 'timed', plan_first: true }, null);
    await waitFor(() => expect(within(screen.getByRole('group', { name: 'Questions' })).getByText('Saved.')).toBeTruthy());
    expect(onClose).not.toHaveBeenCalled();
    // The view did not change (the fake shell keeps it), so the saved sections count as changed
    // again; General was never saved and is still as typed.
    await show('General');
    expect((screen.getByRole('checkbox', { name: 'Do not disturb' }) as HTMLInputElement).checked).toBe(true);
  });

  it("Revert puts back one section; closing with unsaved changes asks first and loses nothing until told", async () => {
    const onClose = vi.fn();
    render(SettingsDialog, { view: view(), onSave: vi.fn(async () => null), onClose, initialSection: 'startup' });
    const login = screen.getByRole('checkbox', { name: /Start at login/ }) as HTMLInputElement;
    await fireEvent.click(login);
    await show('General');
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Notifications' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Revert' }));
    expect((screen.getByRole('checkbox', { name: 'Notifications' }) as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByTestId('unsaved-on-close').textContent).toBe('Not saved: Startup.');
    await fireEvent.click(screen.getByRole('button', { name: 'Keep editing' }));
    await show('Startup');
    expect(login.checked).toBe(true);
    await fireEvent.keyDown(login, { key: 'Escape' });
    expect(onClose).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByRole('button', { name: 'Discard and close' }));
    expect(onClose).toHaveBeenCalled();
  });

  it('lists its sections on the left, in order, only those it was given', () => {
    render(SettingsDialog, { view: view(), onSave: vi.fn(async () => null), onClose: () => {} });
    const nav = screen.getByRole('navigation', { name: 'Settings sections' });
    expect(within(nav).getAllByRole('button').map((b) => b.textContent)).toEqual(['General', 'Model', 'Questions', 'Startup']);
    expect(within(nav).getByRole('button', { name: 'General' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('group', { name: 'General' })).toBeTruthy();
    expect(screen.queryByRole('group', { name: 'Model' })).toBeNull();
  });

  it('never shows a stored key; Remove sends an empty key', async () => {
    const onSave = vi.fn(async () => null);
    render(SettingsDialog, {
      view: view({ api_key_set: true, settings: { ...settings, provider: 'openai', base_url: 'https://x/v1', model: 'm' } }),
      onSave,
      onClose: () => {},
      initialSection: 'model',
    });
    const key = screen.getByLabelText('API key') as HTMLInputElement;
    expect(key.type).toBe('password');
    expect(key.value).toBe('');
    expect(key.placeholder).toBe('•••• stored in the system keyring');
    await fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenCalledWith(expect.objectContaining({ provider: 'openai' }), '');
  });

  it('disables the key field when the keyring is unavailable, and shows warnings, overrides and save errors', async () => {
    const onSave = vi.fn(async () => ({ name: 'SettingsError', code: 'KEYRING', message: 'Could not store the key' }));
    render(SettingsDialog, {
      view: view({
        settings: { ...settings, provider: 'deepseek', base_url: 'https://api.deepseek.com', model: 'deepseek-chat' },
        keyring: { available: false, message: 'No Secret Service on this system' },
        warning: { name: 'SettingsError', code: 'SETTINGS_CORRUPT', message: 'The settings file was unreadable; defaults are in use.' },
        overrides: ['--provider demo', '--timed'],
        active_model: { provider: 'demo', label: 'Demo', is_demo: true },
      }),
      onSave,
      onClose: () => {},
      initialSection: 'model',
    });
    expect((screen.getByLabelText('API key') as HTMLInputElement).disabled).toBe(true);
    expect(screen.getByText('No Secret Service on this system')).toBeTruthy();
    expect(screen.getByText(/SETTINGS_CORRUPT/)).toBeTruthy();
    expect(screen.getByTestId('model-override').textContent).toBe(
      'This run: Demo, set by launch options (--provider demo); saved: DeepSeek at https://api.deepseek.com, deepseek-chat.',
    );
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Could not store the key');
  });

  it('names the question modes for what they do, without jargon', () => {
    render(SettingsDialog, { view: view(), onSave: vi.fn(async () => null), onClose: () => {}, initialSection: 'questions' });
    const wait = screen.getByRole('radio', { name: /^Wait for my answer/ }) as HTMLInputElement;
    const keepGoing = screen.getByRole('radio', { name: /^Keep working after a timeout/ }) as HTMLInputElement;
    expect([wait.value, keepGoing.value]).toEqual(['wait', 'keep_working']);
    expect(wait.checked).toBe(true);
    expect(document.body.textContent).not.toMatch(/legacy|timed —/i);
  });

  it('says where the key in use comes from, never the key', () => {
    const deepseek = { ...settings, provider: 'deepseek' as const, base_url: 'https://api.deepseek.com', model: 'deepseek-chat' };
    const shown = (source: SettingsView['key_source']) => {
      const { unmount } = render(SettingsDialog, {
        view: view({ settings: deepseek, key_source: source }),
        onSave: vi.fn(async () => null),
        onClose: () => {},
        initialSection: 'model',
      });
      const text = screen.getByTestId('key-source').textContent;
      unmount();
      return text;
    };
    expect(shown({ kind: 'env', variable: 'DEEPSEEK_API_KEY' })).toBe('Key in use: from DEEPSEEK_API_KEY');
    expect(shown({ kind: 'keyring' })).toBe('Key in use: the system keyring');
    expect(shown({ kind: 'none' })).toBe('Key in use: none');
  });

  it('refuses a bad timeout before calling the shell', async () => {
    const onSave = vi.fn(async () => null);
    render(SettingsDialog, { view: view(), onSave, onClose: () => {}, initialSection: 'questions' });
    await fireEvent.input(screen.getByRole('spinbutton', { name: /Default timeout/ }), { target: { value: '0' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toMatch(/from 1 to 604800/);
  });

  it('lists exactly the catalogue’s providers and demo scripts, in its order', () => {
    render(SettingsDialog, { view: view(), onSave: vi.fn(async () => null), onClose: () => {}, initialSection: 'model' });
    expect(optionsOf('Provider')).toEqual([
      ['deepseek', 'DeepSeek'],
      ['openai', 'OpenAI-compatible'],
      ['ollama', 'Ollama (local)'],
      ['demo', 'Demo (scripted, no AI)'],
    ]);
    expect(optionsOf('Demo script').map(([v]) => v)).toEqual(['batch', 'timed', 'blocking', 'untrusted', 'hello']);
  });

  it('a catalogue with an extra script shows it, and it can be saved', async () => {
    const onSave = vi.fn(async () => null);
    const cat = catalogue();
    render(SettingsDialog, {
      view: view({ catalogue: { ...cat, demo_scripts: [...cat.demo_scripts, 'tour'] } }),
      onSave,
      onClose: () => {},
      initialSection: 'model',
    });
    expect(optionsOf('Demo script').map(([v]) => v)).toEqual(['batch', 'timed', 'blocking', 'untrusted', 'hello', 'tour']);
    await fireEvent.change(screen.getByRole('combobox', { name: 'Demo script' }), { target: { value: 'tour' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenCalledWith({ ...settings, demo_script: 'tour' }, null);
  });

  it('the timeout input and its check take their bounds from the catalogue', async () => {
    const onSave = vi.fn(async () => null);
    render(SettingsDialog, {
      view: view({ catalogue: catalogue({ timeout_secs: { min: 10, max: 3600 } }) }),
      onSave,
      onClose: () => {},
      initialSection: 'questions',
    });
    const timeout = screen.getByRole('spinbutton', { name: /Default timeout/ }) as HTMLInputElement;
    expect([timeout.min, timeout.max]).toEqual(['10', '3600']);
    await fireEvent.input(timeout, { target: { value: '3601' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toMatch(/from 10 to 3600/);
  });

  it('a provider the catalogue does not know is shown by its id with key and endpoint fields, and refused on save', async () => {
    const onSave = vi.fn(async () => null);
    const s = { ...settings, provider: 'mistral' as Provider, base_url: 'https://api.mistral.ai/v1', model: 'm' };
    render(SettingsDialog, { view: view({ settings: s }), onSave, onClose: () => {}, initialSection: 'model' });
    const select = screen.getByRole('combobox', { name: 'Provider' }) as HTMLSelectElement;
    expect(select.value).toBe('mistral');
    expect(select.selectedOptions[0]?.textContent).toBe('mistral');
    expect(select.selectedOptions[0]?.disabled).toBe(true);
    expect((screen.getByRole('textbox', { name: 'Base URL' }) as HTMLInputElement).value).toBe('https://api.mistral.ai/v1');
    expect(screen.getByLabelText('API key')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toBe('Choose a provider.');
    // Choosing a listed provider fills its defaults and the unknown one leaves the list.
    await fireEvent.change(select, { target: { value: 'deepseek' } });
    expect((screen.getByRole('textbox', { name: 'Base URL' }) as HTMLInputElement).value).toBe('https://api.deepseek.com');
    expect(optionsOf('Provider').map(([v]) => v)).toEqual(['deepseek', 'openai', 'ollama', 'demo']);
  });

  it('without loadMcp and saveMcp there is no MCP servers section', () => {
    render(SettingsDialog, { view: view(), onSave: vi.fn(async () => null), onClose: () => {} });
    expect(screen.queryByRole('group', { name: 'MCP servers' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^MCP servers/ })).toBeNull();
    expect(screen.queryByRole('group', { name: 'Agents' })).toBeNull();
  });

  it('the Agents section sets an agent up at once, outside the settings form', async () => {
    const file = { path: '/home/me/.codex/config.toml', entries: 'MCP server hark, PreToolUse hook on request_user_input' };
    const agents = (setUp: boolean): AgentsView => ({
      program: '/opt/hark/hark',
      program_error: null,
      agents: [{ agent: 'codex', label: 'Codex', files: [{ ...file, setup: setUp ? 'already_set_up' : 'added' }], set_up: setUp, error: null, hook_trust: null, hook_trust_text: null, approvals: null, approvals_note: '' }],
    });
    const loadAgents = vi.fn(async () => ({ ok: true as const, value: agents(false) }));
    const done: AgentSetupDone = { agent: 'codex', action: 'setup', files: [{ ...file, outcome: 'added' }], hint: 'type /hooks in Codex', view: agents(true) };
    const setupAgent = vi.fn(async () => ({ ok: true as const, value: done }));
    const onSave = vi.fn(async () => null);
    const onClose = vi.fn();
    render(SettingsDialog, { view: view(), onSave, onClose, loadAgents, setupAgent, initialSection: 'agents' });
    expect(within(screen.getByRole('group', { name: 'Agents' })).queryByRole('button', { name: 'Save' })).toBeNull();
    const section = screen.getByRole('group', { name: 'Agents' });
    await waitFor(() => expect(within(section).getByTestId('agent-state').textContent).toBe('Not set up'));
    for (const el of section.querySelectorAll('button')) {
      expect(el.getAttribute('type')).toBe('button');
      expect((el as HTMLButtonElement).form).toBeNull();
    }
    await fireEvent.click(within(section).getByRole('button', { name: 'Set up' }));
    expect(setupAgent).toHaveBeenCalledWith('codex', 'setup');
    await waitFor(() => expect(within(section).getByTestId('agent-state').textContent).toBe('Set up'));
    expect(within(section).getByTestId('agent-hint').textContent).toBe('type /hooks in Codex');
    expect(onSave).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('the Remote hosts section adds on its own: its Add is not the settings form\'s Save', async () => {
    const none: RemoteHostsView = { hosts: [] };
    const remote = {
      load: vi.fn(async () => ({ ok: true as const, value: none })),
      add: vi.fn(async (host: string) => ({ ok: true as const, value: { hosts: [{ host, tunnel: null, hark: null }] } })),
      remove: vi.fn(async () => ({ ok: true as const, value: none })),
    };
    const onSave = vi.fn(async () => null);
    const onClose = vi.fn();
    render(SettingsDialog, { view: view(), onSave, onClose, remote, initialSection: 'remote' });
    const section = screen.getByRole('group', { name: 'Remote hosts' });
    const field = (await within(section).findByLabelText('Host, as ssh names it')) as HTMLInputElement;
    expect(field.form?.id ?? '').not.toMatch(/^settings-/);
    await fireEvent.input(field, { target: { value: 'devbox' } });
    await fireEvent.submit(field.form!);
    expect(remote.add).toHaveBeenCalledWith('devbox');
    await waitFor(() => expect(within(section).getByTestId('remote-host-state').textContent).toBe('Not connected'));
    expect(onSave).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('the Phone section saves with its own Save, outside the settings form, and is marked while unsaved', async () => {
    const phoneView: PhoneView = {
      api_url: 'https://api.telegram.org', delay_secs: 60, only_that_it_waits: false, paired: null, pairing: null,
      token: { kind: 'none' }, link: { state: 'no_token' }, error: null,
    };
    const phone = {
      load: vi.fn(async () => ({ ok: true as const, value: phoneView })),
      save: vi.fn(async (form: PhoneForm) => ({ ok: true as const, value: { ...phoneView, ...form } })),
      pair: vi.fn(async () => ({ ok: false as const, error: { name: 'PhoneError', code: 'NO_TOKEN', message: 'no token' } })),
      unpair: vi.fn(async () => ({ ok: true as const, value: phoneView })),
    };
    const onSave = vi.fn(async () => null);
    render(SettingsDialog, { view: view(), onSave, onClose: vi.fn(), phone, initialSection: 'phone' });
    const section = screen.getByRole('group', { name: 'Phone' });
    await waitFor(() => within(section).getByLabelText('Bot token'));
    for (const el of section.querySelectorAll('input, button')) expect((el as HTMLInputElement).form).toBeNull();
    await fireEvent.click(within(section).getByLabelText(/Send only that a question waits/));
    const phoneLink = () => within(screen.getByRole('navigation', { name: 'Settings sections' })).getByRole('button', { name: /^Phone/ });
    expect(phoneLink().textContent).toBe('Phone●');
    expect(within(section).getByTestId('unsaved')).toBeTruthy();
    await fireEvent.click(within(section).getByRole('button', { name: 'Save' }));
    expect(phone.save).toHaveBeenCalledWith({ api_url: 'https://api.telegram.org', delay_secs: 60, only_that_it_waits: true }, null);
    await waitFor(() => expect(phoneLink().textContent).toBe('Phone'));
    expect(onSave).not.toHaveBeenCalled();
  });

  it('the MCP servers section saves on its own, outside the settings form', async () => {
    const fs: McpEntry = { name: 'fs', disabled: false, trusted: false, disabled_tools: [], transport: { kind: 'stdio', command: 'npx', args: ['server-fs'], env: [] } };
    const mcp: McpView = { path: '/data/mcp.json', servers: [{ entry: fs, status: { state: 'running', tools: 1 }, tools: [] }], error: null, tool_limit: 128 };
    const onSave = vi.fn(async () => null);
    const onClose = vi.fn();
    const loadMcp = vi.fn(async () => ({ ok: true as const, value: mcp }));
    const saveMcp = vi.fn(async (servers: McpEntry[]) => ({
      ok: true as const,
      value: { ...mcp, servers: servers.map((entry) => ({ entry, status: { state: 'not_started' as const }, tools: [] })) },
    }));
    render(SettingsDialog, { view: view(), onSave, onClose, loadMcp, saveMcp, initialSection: 'mcp' });
    const section = screen.getByRole('group', { name: 'MCP servers' });
    const row = await waitFor(() => within(section).getByTestId('mcp-server'));
    expect(within(row).getByTestId('mcp-status').textContent?.trim()).toBe('Running · 1 tool');

    await fireEvent.click(within(section).getByRole('button', { name: 'Add server' }));
    await fireEvent.input(within(section).getByRole('textbox', { name: 'Server name' }), { target: { value: 'time' } });
    await fireEvent.input(within(section).getByRole('textbox', { name: 'Command' }), { target: { value: 'uvx' } });
    // Nothing in the section belongs to the settings form, so Enter there cannot submit it.
    for (const el of section.querySelectorAll('input, select, textarea, button')) {
      expect((el as HTMLInputElement).form).toBeNull();
    }
    for (const el of section.querySelectorAll('button')) expect(el.getAttribute('type')).toBe('button');
    await fireEvent.keyDown(within(section).getByRole('textbox', { name: 'Command' }), { key: 'Escape' });
    expect(onClose).not.toHaveBeenCalled();
    expect(within(section).queryByRole('textbox', { name: 'Command' })).toBeNull();

    await fireEvent.click(within(section).getByRole('button', { name: 'Add server' }));
    await fireEvent.input(within(section).getByRole('textbox', { name: 'Server name' }), { target: { value: 'time' } });
    await fireEvent.input(within(section).getByRole('textbox', { name: 'Command' }), { target: { value: 'uvx' } });
    await fireEvent.click(within(section).getByRole('button', { name: 'Done' }));
    expect(within(section).getByTestId('unsaved')).toBeTruthy();
    await fireEvent.click(within(section).getByRole('button', { name: 'Save' }));
    expect(saveMcp).toHaveBeenCalledWith([fs, { name: 'time', disabled: false, trusted: false, disabled_tools: [], transport: { kind: 'stdio', command: 'uvx', args: [], env: [] } }]);
    await waitFor(() => expect(within(section).getByText('Saved. New sessions use these servers.')).toBeTruthy());
    expect(within(section).queryByTestId('unsaved')).toBeNull();
    expect(onSave).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();

    // General's Save saves the settings, and only them.
    await show('General');
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenCalledWith(settings, null);
    expect(saveMcp).toHaveBeenCalledTimes(1);
  });
});
