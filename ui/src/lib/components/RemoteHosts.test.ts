import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import RemoteHosts from './RemoteHosts.svelte';
import type { Result } from '../api';
import type { RemoteHostView, RemoteHostsView } from '../types';

const ok = <T,>(value: T): Result<T> => ({ ok: true, value });
const refused = <T,>(code: string, message: string): Result<T> => ({ ok: false, error: { name: 'RemoteHostsError', code, message } });
/** Rows as the shell sends them; a row that says nothing of its host's hark has `hark: null`. */
type Row = Omit<RemoteHostView, 'hark'> & { hark?: RemoteHostView['hark'] };
const hosts = (...rows: Row[]): RemoteHostsView => ({ hosts: rows.map((r) => ({ hark: null, ...r })) });

type Fakes = {
  load?: () => Promise<Result<RemoteHostsView>>;
  add?: (host: string) => Promise<Result<RemoteHostsView>>;
  remove?: (host: string) => Promise<Result<RemoteHostsView>>;
};

function setup(first: RemoteHostsView, fakes: Fakes = {}) {
  const load = vi.fn(fakes.load ?? (async () => ok(first)));
  const add = vi.fn(fakes.add ?? (async () => ok(first)));
  const remove = vi.fn(fakes.remove ?? (async () => ok(hosts())));
  render(RemoteHosts, { load, add, remove, pollMs: 20 });
  return { load, add, remove };
}

const row = (host: string) => {
  const found = screen.getAllByTestId('remote-host').find((li) => li.dataset.host === host);
  if (!found) throw new Error(`no row for ${host}`);
  return found;
};
const stateOf = (host: string) => within(row(host)).getByTestId('remote-host-state').textContent;
const field = () => screen.getByLabelText('Host, as ssh names it') as HTMLInputElement;

describe('RemoteHosts', () => {
  it("shows each host's tunnel state in words, ssh's reason with it", async () => {
    setup(
      hosts(
        { host: 'devbox', tunnel: { state: 'connected' } },
        { host: 'ada@build', tunnel: { state: 'refused', reason: 'ada@build: Permission denied (publickey).' } },
        { host: 'lab', tunnel: { state: 'reconnecting', reason: 'Connection closed by 10.0.0.7 port 22' } },
        { host: 'new', tunnel: { state: 'connecting' } },
        { host: 'idle', tunnel: null },
      ),
    );
    await waitFor(() => expect(screen.getAllByTestId('remote-host')).toHaveLength(5));
    expect(screen.getAllByTestId('remote-host-name').map((e) => e.textContent)).toEqual(['devbox', 'ada@build', 'lab', 'new', 'idle']);
    expect(stateOf('devbox')).toBe('Connected');
    expect(stateOf('ada@build')).toBe('Refused (ada@build: Permission denied (publickey).)');
    expect(stateOf('lab')).toBe('Reconnecting (Connection closed by 10.0.0.7 port 22)');
    expect(stateOf('new')).toBe('Connecting…');
    expect(stateOf('idle')).toBe('Not connected');
    expect(screen.getByText(/hark remote add\|list\|remove HOST/)).toBeTruthy();
  });

  it("says on the row when the host has no hark or another version, and nothing when it has this one", async () => {
    setup(
      hosts(
        { host: 'devbox', tunnel: { state: 'connected' }, hark: { hark: 'missing' } },
        { host: 'lab', tunnel: { state: 'connected' }, hark: { hark: 'other', version: 'hark 0.0.1' } },
        { host: 'build', tunnel: { state: 'connected' }, hark: { hark: 'this' } },
      ),
    );
    await waitFor(() => expect(screen.getAllByTestId('remote-host')).toHaveLength(3));
    const note = (host: string) => within(row(host)).queryByTestId('remote-host-hark')?.textContent ?? null;
    expect(note('devbox')).toBe('No hark on this host: run hark remote add devbox in a terminal to copy this one there.');
    expect(note('lab')).toContain('another hark (hark 0.0.1)');
    expect(note('build')).toBeNull();
  });

  it('reads the states again while it is shown', async () => {
    let tunnel: RemoteHostView['tunnel'] = { state: 'connecting' };
    const { load } = setup(hosts(), { load: async () => ok(hosts({ host: 'devbox', tunnel })) });
    await waitFor(() => expect(stateOf('devbox')).toBe('Connecting…'));
    tunnel = { state: 'refused', reason: 'ssh: Could not resolve hostname devbox: Name or service not known' };
    await waitFor(() => expect(stateOf('devbox')).toBe('Refused (ssh: Could not resolve hostname devbox: Name or service not known)'));
    expect(load.mock.calls.length).toBeGreaterThan(1);
  });

  it('adds a host and lists it; a refusal is shown under the field, which keeps what was typed', async () => {
    const { add } = setup(hosts(), {
      add: async (host) =>
        host.startsWith('-')
          ? refused('BAD_HOST', `"${host}" is not a host name ssh can be given: it starts with '-', which ssh would read as an option`)
          : ok(hosts({ host, tunnel: null })),
    });
    await waitFor(() => screen.getByTestId('remote-none'));
    await fireEvent.input(field(), { target: { value: '-oProxyCommand=touch /tmp/x' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    expect(add).toHaveBeenCalledWith('-oProxyCommand=touch /tmp/x');
    const error = await screen.findByTestId('remote-add-error');
    expect(error.textContent).toContain("it starts with '-', which ssh would read as an option");
    expect(error.textContent).toContain('BAD_HOST');
    expect(field().value, 'what was typed stays to be fixed').toBe('-oProxyCommand=touch /tmp/x');
    expect(screen.queryAllByTestId('remote-host')).toHaveLength(0);

    await fireEvent.input(field(), { target: { value: 'devbox' } });
    await fireEvent.submit(field().form!);
    expect(add).toHaveBeenLastCalledWith('devbox');
    await waitFor(() => expect(screen.getAllByTestId('remote-host-name').map((e) => e.textContent)).toEqual(['devbox']));
    expect(screen.queryByTestId('remote-add-error')).toBeNull();
    expect(field().value).toBe('');
  });

  it('removes a host; a refusal is shown on its row', async () => {
    const two = hosts({ host: 'devbox', tunnel: { state: 'connected' } }, { host: 'lab', tunnel: null });
    let gone = false;
    const { remove } = setup(two, {
      load: async () => ok(gone ? hosts({ host: 'lab', tunnel: null }) : two),
      remove: async (host) => {
        if (host === 'lab') return refused('NOT_FOUND', 'lab is not among the remote hosts');
        gone = true;
        return ok(hosts({ host: 'lab', tunnel: null }));
      },
    });
    await waitFor(() => expect(screen.getAllByTestId('remote-host')).toHaveLength(2));
    await fireEvent.click(within(row('devbox')).getByRole('button', { name: 'Remove' }));
    expect(remove).toHaveBeenCalledWith('devbox');
    await waitFor(() => expect(screen.getAllByTestId('remote-host-name').map((e) => e.textContent)).toEqual(['lab']));
    await fireEvent.click(within(row('lab')).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(within(row('lab')).getByTestId('remote-remove-error').textContent).toContain('NOT_FOUND'));
  });

  it('says why the hosts could not be read, and tries again', async () => {
    let calls = 0;
    setup(hosts(), {
      load: async () => (++calls === 1 ? refused('REMOTE_HOSTS_READ', 'The remote hosts file could not be read') : ok(hosts())),
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('REMOTE_HOSTS_READ');
    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => screen.getByTestId('remote-none'));
  });
});
