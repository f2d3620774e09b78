import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import McpServers from './McpServers.svelte';
import type { Result } from '../api';
import type { McpEntry, McpView } from '../types';

const fs: McpEntry = {
  name: 'fs',
  disabled: false, trusted: false, disabled_tools: [],
  transport: { kind: 'stdio', command: 'npx', args: ['-y', 'server-fs', '/notes'], env: [['NODE_ENV', 'production']] },
};
const notion: McpEntry = {
  name: 'notion',
  disabled: true, trusted: false, disabled_tools: [],
  transport: {
    kind: 'http',
    url: 'https://mcp.notion.com/mcp',
    headers: [{ name: 'Authorization', value: '', secret: true }],
  },
};
const broken: McpEntry = { name: 'broken', disabled: false, trusted: false, disabled_tools: [], transport: { kind: 'stdio', command: 'nope', args: [], env: [] } };
const refusal = { name: 'McpError', code: 'MCP_CONFIG_INVALID', message: 'the server name "a b" must be 1 to 32 letters' };

const mcpView = (over: Partial<McpView> = {}): McpView => ({
  path: '/home/me/.local/share/hark/mcp.json',
  servers: [
    { entry: fs, status: { state: 'running', tools: 3 }, tools: [] },
    { entry: notion, status: { state: 'not_started' }, tools: [] },
    { entry: broken, status: { state: 'failed', error: { name: 'McpError', code: 'MCP_START_FAILED', message: 'nope: not found' } }, tools: [] },
  ],
  error: null,
  tool_limit: 128,
  ...over,
});

const ok = <T,>(value: T): Result<T> => ({ ok: true, value });

function setup(opts: { view?: McpView; save?: (servers: McpEntry[]) => Promise<Result<McpView>> } = {}) {
  const load = vi.fn(async () => ok(opts.view ?? mcpView()));
  const save = vi.fn(opts.save ?? (async (servers: McpEntry[]) => ok(mcpView({ servers: servers.map((entry) => ({ entry, status: { state: 'not_started' as const }, tools: [] })) }))));
  render(McpServers, { load, save });
  return { load, save };
}

const rows = () => screen.queryAllByTestId('mcp-server');
const row = (name: string): HTMLElement => {
  const found = rows().find((r) => within(r).getByTestId('mcp-name').textContent === name);
  if (!found) throw new Error(`no row ${name}`);
  return found;
};
const input = (name: string) => screen.getByRole('textbox', { name }) as HTMLInputElement;
const type = (el: Element, value: string) => fireEvent.input(el, { target: { value } });

describe('McpServers', () => {
  it('loads the servers and shows each with its summary, status and Enabled state', async () => {
    const { load } = setup();
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(load).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('group', { name: 'MCP servers' })).toBeTruthy();
    expect(screen.getByTestId('mcp-path').textContent).toBe('Edit mcp.json by hand: /home/me/.local/share/hark/mcp.json');
    expect(rows().map((r) => within(r).getByTestId('mcp-name').textContent)).toEqual(['fs', 'notion', 'broken']);
    expect(within(row('fs')).getByTestId('mcp-summary').textContent).toBe('npx -y server-fs /notes');
    expect(within(row('notion')).getByTestId('mcp-summary').textContent).toBe('https://mcp.notion.com/mcp');
    expect(within(row('fs')).getByTestId('mcp-status').textContent?.trim()).toBe('Running · 3 tools');
    expect(within(row('notion')).getByTestId('mcp-status').textContent?.trim()).toBe("Not started yet (starts with a session's first turn)");
    const failed = within(row('broken')).getByTestId('mcp-status');
    expect(failed.textContent?.trim()).toBe('nope: not found (MCP_START_FAILED)');
    expect(failed.classList.contains('failed')).toBe(true);
    expect(within(row('fs')).getByTestId('mcp-status').classList.contains('failed')).toBe(false);
    expect((within(row('fs')).getByRole('checkbox', { name: 'Enabled' }) as HTMLInputElement).checked).toBe(true);
    expect((within(row('notion')).getByRole('checkbox', { name: 'Enabled' }) as HTMLInputElement).checked).toBe(false);
    for (const r of rows()) {
      expect(within(r).getByRole('button', { name: 'Edit' }).getAttribute('type')).toBe('button');
      expect(within(r).getByRole('button', { name: 'Remove' }).getAttribute('type')).toBe('button');
    }
    expect(screen.getByText('Sessions opened after saving use these servers; sessions already running keep theirs.')).toBeTruthy();
  });

  it('shows an unreadable file’s error above the (empty) list', async () => {
    setup({
      view: mcpView({ servers: [], error: { name: 'McpError', code: 'MCP_CONFIG_INVALID', message: 'not a valid mcp.json: expected value' } }),
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('not a valid mcp.json: expected value');
    expect(alert.textContent).toContain('MCP_CONFIG_INVALID');
    expect(rows()).toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Save' })).toBeTruthy();
  });

  it('a load that fails says why and offers no Save (it would empty the file); Try again reloads', async () => {
    const load = vi
      .fn<() => Promise<Result<McpView>>>()
      .mockResolvedValueOnce({ ok: false, error: { name: 'IpcError', code: 'IPC_ERROR', message: 'no shell' } })
      .mockResolvedValueOnce(ok(mcpView()));
    const save = vi.fn(async () => ok(mcpView()));
    render(McpServers, { load, save });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('no shell');
    expect(alert.textContent).toContain('IPC_ERROR');
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add server' })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(save).not.toHaveBeenCalled();
  });

  it('adds a stdio server: arguments one per line, environment as KEY=value; Save sends every row and shows the result', async () => {
    let finish: (r: Result<McpView>) => void = () => {};
    const saved = mcpView({
      servers: [
        { entry: fs, status: { state: 'running', tools: 3 }, tools: [] },
        { entry: { ...notion, name: 'notion' }, status: { state: 'not_started' }, tools: [] },
        { entry: broken, status: { state: 'not_started' }, tools: [] },
        {
          entry: { name: 'git', disabled: false, trusted: false, disabled_tools: [], transport: { kind: 'stdio', command: 'uvx', args: ['mcp-server-git'], env: [] } },
          status: { state: 'not_started' },
          tools: [],
        },
      ],
    });
    const { save } = setup({ save: () => new Promise((resolve) => (finish = resolve)) });
    await waitFor(() => expect(rows()).toHaveLength(3));
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    expect(document.activeElement).toBe(input('Server name'));
    await type(input('Server name'), 'git');
    expect((screen.getByRole('combobox', { name: 'Type' }) as HTMLSelectElement).value).toBe('stdio');
    await type(input('Command'), 'uvx');
    await type(input('Arguments'), 'mcp-server-git\n--repository\n\n/work/repo\n');
    await type(input('Environment'), 'GIT_AUTHOR=me\nURL=https://x/?a=b');
    await fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('textbox', { name: 'Server name' })).toBeNull();
    expect(within(row('git')).getByTestId('mcp-summary').textContent).toBe('uvx mcp-server-git --repository /work/repo');
    expect(within(row('git')).getByTestId('mcp-status').textContent?.trim()).toBe('Not saved yet');
    expect(save).not.toHaveBeenCalled();

    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).toHaveBeenCalledWith([
      fs,
      notion,
      broken,
      {
        name: 'git',
        disabled: false, trusted: false, disabled_tools: [],
        transport: {
          kind: 'stdio',
          command: 'uvx',
          args: ['mcp-server-git', '--repository', '/work/repo'],
          env: [['GIT_AUTHOR', 'me'], ['URL', 'https://x/?a=b']],
        },
      },
    ]);
    expect(screen.getByRole('button', { name: 'Saving…' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    finish(ok(saved));
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Saved. New sessions use these servers.'));
    expect(screen.getByRole('button', { name: 'Save' })).toBeTruthy();
    // The list is the shell's answer now: its statuses, its summary of git.
    expect(rows()).toHaveLength(4);
    expect(within(row('git')).getByTestId('mcp-summary').textContent).toBe('uvx mcp-server-git');
    expect(within(row('broken')).getByTestId('mcp-status').textContent?.trim()).toBe("Not started yet (starts with a session's first turn)");
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('a refused save shows the reason and keeps every row as typed', async () => {
    const { save } = setup({ save: async () => ({ ok: false, error: refusal }) });
    await waitFor(() => expect(rows()).toHaveLength(3));
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await type(input('Server name'), 'a b');
    await type(input('Command'), 'run-me');
    await type(input('Arguments'), '--flag');
    await fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    await fireEvent.click(within(row('fs')).getByRole('checkbox', { name: 'Enabled' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('the server name "a b" must be 1 to 32 letters');
    expect(alert.textContent).toContain('MCP_CONFIG_INVALID');
    expect(screen.getByRole('status').textContent).toBe('');
    // Nothing typed is lost: the rows, the unchecked box, and the editor's fields when reopened.
    expect(rows().map((r) => within(r).getByTestId('mcp-name').textContent)).toEqual(['fs', 'notion', 'broken', 'a b']);
    expect((within(row('fs')).getByRole('checkbox', { name: 'Enabled' }) as HTMLInputElement).checked).toBe(false);
    await fireEvent.click(within(row('a b')).getByRole('button', { name: 'Edit' }));
    expect(input('Server name').value).toBe('a b');
    expect(input('Command').value).toBe('run-me');
    expect(input('Arguments').value).toBe('--flag');
    // Fixed and saved again: the same rows go out, with the new name.
    await type(input('Server name'), 'ab');
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).toHaveBeenCalledTimes(2);
    expect(save.mock.calls[1]?.[0]).toEqual([
      { ...fs, disabled: true },
      notion,
      broken,
      { name: 'ab', disabled: false, trusted: false, disabled_tools: [], transport: { kind: 'stdio', command: 'run-me', args: ['--flag'], env: [] } },
    ]);
  });

  it('an environment line without "=" is refused inline by Done, naming the line, and nothing is sent', async () => {
    const { save } = setup();
    await waitFor(() => expect(rows()).toHaveLength(3));
    await fireEvent.click(within(row('fs')).getByRole('button', { name: 'Edit' }));
    expect(input('Environment').value).toBe('NODE_ENV=production');
    await type(input('Environment'), 'NODE_ENV=production\nDEBUG');
    await fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.getByRole('alert').textContent).toBe('Environment line 2 ("DEBUG") has no "=": write it as KEY=value.');
    expect(input('Environment').value).toBe('NODE_ENV=production\nDEBUG');
    // Save applies the open editor first, so it is refused the same way.
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).not.toHaveBeenCalled();
    await type(input('Environment'), 'NODE_ENV=production\nDEBUG=1');
    await fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(within(row('fs')).getByTestId('mcp-unsaved').textContent).toBe('Edited, not saved');
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).toHaveBeenCalledWith([
      { ...fs, transport: { ...fs.transport, env: [['NODE_ENV', 'production'], ['DEBUG', '1']] } },
      notion,
      broken,
    ]);
  });

  it('edits an HTTP server’s headers: secret values are write-only, an empty stored one is kept', async () => {
    const { save } = setup();
    await waitFor(() => expect(rows()).toHaveLength(3));
    await fireEvent.click(within(row('notion')).getByRole('button', { name: 'Edit' }));
    expect((screen.getByRole('combobox', { name: 'Type' }) as HTMLSelectElement).value).toBe('http');
    expect(input('URL').value).toBe('https://mcp.notion.com/mcp');
    const [stored] = screen.getAllByLabelText('Header value') as HTMLInputElement[];
    expect(stored?.type).toBe('password');
    expect(stored?.value).toBe('');
    expect(stored?.placeholder).toBe('stored in the keyring');
    expect((screen.getByRole('checkbox', { name: 'Secret' }) as HTMLInputElement).checked).toBe(true);

    await fireEvent.click(screen.getByRole('button', { name: 'Add header' }));
    const names = screen.getAllByRole('textbox', { name: 'Header name' }) as HTMLInputElement[];
    expect(names).toHaveLength(2);
    expect(document.activeElement).toBe(names[1]);
    await type(names[1]!, 'X-Team');
    const values = screen.getAllByLabelText('Header value') as HTMLInputElement[];
    expect(values[1]?.type).toBe('text');
    await type(values[1]!, 'docs');
    // A third, marked secret and typed: sent with its value to store.
    await fireEvent.click(screen.getByRole('button', { name: 'Add header' }));
    await type(screen.getAllByRole('textbox', { name: 'Header name' })[2]!, 'X-Key');
    await fireEvent.click(screen.getAllByRole('checkbox', { name: 'Secret' })[2]!);
    const key = (screen.getAllByLabelText('Header value') as HTMLInputElement[])[2]!;
    expect(key.type).toBe('password');
    expect(key.placeholder).toBe('the secret, to store in the keyring');
    await type(key, 'k-123');
    // And one added then removed again.
    await fireEvent.click(screen.getByRole('button', { name: 'Add header' }));
    await fireEvent.click(screen.getAllByRole('button', { name: 'Remove header' })[3]!);
    expect(screen.getAllByRole('textbox', { name: 'Header name' })).toHaveLength(3);
    await fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).toHaveBeenCalledWith([
      fs,
      {
        ...notion,
        transport: {
          kind: 'http',
          url: 'https://mcp.notion.com/mcp',
          headers: [
            { name: 'Authorization', value: '', secret: true },
            { name: 'X-Team', value: 'docs', secret: false },
            { name: 'X-Key', value: 'k-123', secret: true },
          ],
        },
      },
      broken,
    ]);
  });

  it('switching Type shows the other fields and loses nothing typed', async () => {
    const { save } = setup();
    await waitFor(() => expect(rows()).toHaveLength(3));
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await type(input('Server name'), 'remote');
    await type(input('Command'), 'half-typed');
    const kind = screen.getByRole('combobox', { name: 'Type' }) as HTMLSelectElement;
    expect(Array.from(kind.options).map((o) => [o.value, o.textContent])).toEqual([
      ['stdio', 'Command (stdio)'],
      ['http', 'URL (streamable HTTP)'],
    ]);
    await fireEvent.change(kind, { target: { value: 'http' } });
    expect(screen.queryByRole('textbox', { name: 'Command' })).toBeNull();
    await type(input('URL'), 'https://example.com/mcp');
    await fireEvent.change(kind, { target: { value: 'stdio' } });
    expect(input('Command').value).toBe('half-typed');
    await fireEvent.change(kind, { target: { value: 'http' } });
    expect(input('URL').value).toBe('https://example.com/mcp');
    await fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save.mock.calls[0]?.[0][3]).toEqual({
      name: 'remote',
      disabled: false, trusted: false, disabled_tools: [],
      transport: { kind: 'http', url: 'https://example.com/mcp', headers: [] },
    });
  });

  it('Remove and Enabled change what is sent; Cancel and Esc drop an edit', async () => {
    const { save } = setup();
    await waitFor(() => expect(rows()).toHaveLength(3));
    await fireEvent.click(within(row('notion')).getByRole('checkbox', { name: 'Enabled' }));
    await fireEvent.click(within(row('broken')).getByRole('button', { name: 'Remove' }));
    expect(rows()).toHaveLength(2);
    expect(screen.getByText('Unsaved changes')).toBeTruthy();

    await fireEvent.click(within(row('fs')).getByRole('button', { name: 'Edit' }));
    await type(input('Command'), 'changed');
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(within(row('fs')).getByTestId('mcp-summary').textContent).toBe('npx -y server-fs /notes');
    expect(document.activeElement).toBe(within(row('fs')).getByRole('button', { name: 'Edit' }));

    await fireEvent.click(within(row('fs')).getByRole('button', { name: 'Edit' }));
    await type(input('Command'), 'changed again');
    await fireEvent.keyDown(input('Command'), { key: 'Escape' });
    expect(screen.queryByRole('textbox', { name: 'Command' })).toBeNull();

    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).toHaveBeenCalledWith([fs, { ...notion, disabled: false }]);
  });

  it('Trusted is sent with its server, and a server starts untrusted', async () => {
    const { save } = setup();
    await waitFor(() => expect(rows()).toHaveLength(3));
    const trusted = within(row('fs')).getByRole('checkbox', { name: 'Trusted' }) as HTMLInputElement;
    expect(trusted.checked).toBe(false);
    await fireEvent.click(trusted);
    expect(screen.getByText('Unsaved changes')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).toHaveBeenCalledWith([{ ...fs, trusted: true }, notion, broken]);
  });

  it('Save with the editor open applies it first', async () => {
    const { save } = setup({ view: mcpView({ servers: [] }) });
    expect(await screen.findByText('No MCP servers yet.')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    await type(input('Server name'), 'time');
    await type(input('Command'), 'uvx');
    await type(input('Arguments'), 'mcp-server-time');
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).toHaveBeenCalledWith([
      { name: 'time', disabled: false, trusted: false, disabled_tools: [], transport: { kind: 'stdio', command: 'uvx', args: ['mcp-server-time'], env: [] } },
    ]);
  });

  it('shows server text as text, never as markup', async () => {
    const evil: McpEntry = {
      name: '<img src=x onerror=alert(1)>',
      disabled: false, trusted: false, disabled_tools: [],
      transport: { kind: 'http', url: 'https://x/<b>bold</b>', headers: [] },
    };
    setup({
      view: mcpView({
        servers: [{ entry: evil, status: { state: 'failed', error: { name: 'E', code: 'C', message: '<script>x()</script>' } }, tools: [{ name: '<b>t</b>', offer: 'left_out' }] }],
      }),
    });
    await waitFor(() => expect(rows()).toHaveLength(1));
    const r = rows()[0]!;
    expect(within(r).getByTestId('mcp-name').textContent).toBe('<img src=x onerror=alert(1)>');
    expect(within(r).getByTestId('mcp-summary').textContent).toBe('https://x/<b>bold</b>');
    expect(within(r).getByTestId('mcp-status').textContent?.trim()).toBe('<script>x()</script> (C)');
    expect(within(r).getByTestId('mcp-tools-<img src=x onerror=alert(1)>').textContent).toContain('<b>t</b>');
    expect(r.querySelector('img, b, script')).toBeNull();
  });

  it('lists a started server’s tools as the shell marks them; a checkbox turns one off or on and saves at once', async () => {
    const many: McpEntry = {
      name: 'many', disabled: false, trusted: false, disabled_tools: ['t001', 'zz-gone'],
      transport: { kind: 'stdio', command: 'py', args: ['tools_server.py'], env: [] },
    };
    const listed = (offers: Array<'offered' | 'disabled' | 'left_out'>) =>
      offers.map((offer, i) => ({ name: `t00${i}`, offer }));
    const view = mcpView({
      servers: [
        { entry: many, status: { state: 'running', tools: 3 }, tools: listed(['offered', 'disabled', 'left_out']) },
        { entry: fs, status: { state: 'not_started' }, tools: [] },
        { entry: notion, status: { state: 'not_started' }, tools: [] },
      ],
    });
    // The shell's answer to the first save: t000 off lets t002 in.
    const after = (servers: McpEntry[]) =>
      ok(mcpView({
        servers: servers.map((entry) => ({
          entry,
          status: { state: 'running' as const, tools: 3 },
          tools: entry.name === 'many' ? listed(['disabled', 'disabled', 'offered']) : [],
        })),
      }));
    const save = vi.fn(async (servers: McpEntry[]) => after(servers));
    setup({ view, save });
    const list = await screen.findByTestId('mcp-tools-many');
    expect(within(row('many')).getByTestId('mcp-tools-summary').textContent).toBe('Tools: 1 of 3 tools offered · 1 left out');
    const box = (name: string) => within(screen.getByTestId('mcp-tools-many')).getByRole('checkbox', { name }) as HTMLInputElement;
    expect(within(list).getAllByRole('checkbox').map((c) => (c as HTMLInputElement).checked)).toEqual([true, false, true]);
    // The one past the limit says so, and its checkbox is described by that.
    const mark = within(list).getByText("left out: over the model's 128-tool limit");
    expect(box('t002').getAttribute('aria-describedby')).toBe(mark.id);
    expect(within(list).getAllByText(/left out/)).toHaveLength(1);
    // A server no session has started yet says where its tools will be.
    expect(within(row('fs')).queryByTestId('mcp-tools-fs')).toBeNull();
    expect(within(row('fs')).getByTestId('mcp-tools-none').textContent).toContain('once a session has started it');

    await fireEvent.click(box('t000'));
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    // Names turned off stay, sorted, those the server no longer lists too; every row is sent.
    expect(save).toHaveBeenLastCalledWith([{ ...many, disabled_tools: ['t000', 't001', 'zz-gone'] }, fs, notion]);
    await waitFor(() => expect(within(row('many')).getByTestId('mcp-tools-summary').textContent).toBe('Tools: 1 of 3 tools offered'));
    expect(screen.queryByText("left out: over the model's 128-tool limit")).toBeNull();
    expect(box('t000').checked).toBe(false);

    await fireEvent.click(box('t001'));
    await waitFor(() => expect(save).toHaveBeenCalledTimes(2));
    expect(save).toHaveBeenLastCalledWith([{ ...many, disabled_tools: ['t000', 'zz-gone'] }, fs, notion]);
  });
});
