import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import PhoneSettings from './PhoneSettings.svelte';
import type { Result } from '../api';
import type { PairingView, PhoneForm, PhoneView } from '../types';

const ok = <T,>(value: T): Result<T> => ({ ok: true, value });
const refused = <T,>(code: string, message: string): Result<T> => ({ ok: false, error: { name: 'PhoneError', code, message } });

const phoneView = (over: Partial<PhoneView> = {}): PhoneView => ({
  api_url: 'https://api.telegram.org',
  delay_secs: 60,
  only_that_it_waits: false,
  paired: null,
  pairing: null,
  token: { kind: 'none' },
  link: { state: 'no_token' },
  error: null,
  ...over,
});
const code: PairingView = { code: 'ABCD2345', line: '/start ABCD2345', expires_at: '2099-01-01T00:00:00Z' };
const ada = { user_id: '42', chat_id: '42', name: '@ada' };

type Fakes = {
  load?: () => Promise<Result<PhoneView>>;
  save?: (form: PhoneForm, token: string | null) => Promise<Result<PhoneView>>;
  pair?: () => Promise<Result<PairingView>>;
  unpair?: () => Promise<Result<PhoneView>>;
};

function setup(first: PhoneView, fakes: Fakes = {}) {
  const load = vi.fn(fakes.load ?? (async () => ok(first)));
  const save = vi.fn(fakes.save ?? (async () => ok(first)));
  const pair = vi.fn(fakes.pair ?? (async () => ok(code)));
  const unpair = vi.fn(fakes.unpair ?? (async () => ok(phoneView())));
  render(PhoneSettings, { load, save, pair, unpair, pollMs: 20 });
  return { load, save, pair, unpair };
}

const input = (label: string | RegExp) => screen.getByLabelText(label) as HTMLInputElement;

describe('PhoneSettings', () => {
  it('shows the saved values, that a token is stored (never the token) and the link', async () => {
    setup(phoneView({ delay_secs: 5, only_that_it_waits: true, token: { kind: 'keyring' }, link: { state: 'online' } }));
    await waitFor(() => expect(screen.getByTestId('phone-link').textContent).toBe('Connected to Telegram.'));
    expect(input('Bot token').value).toBe('');
    expect(input('Bot token').type).toBe('password');
    expect(input('Bot token').placeholder).toBe('•••• stored in the system keyring');
    expect(screen.getByTestId('phone-token').textContent).toContain('stored in the system keyring');
    expect(input('Bot API server').value).toBe('https://api.telegram.org');
    expect(input(/Send to the phone after/).value).toBe('5');
    expect(input(/Send only that a question waits/).checked).toBe(true);
    expect(screen.getByRole('button', { name: 'Revert' })).toHaveProperty('disabled', true);
    expect(screen.queryByTestId('unsaved')).toBeNull();
  });

  it('saves the form with a typed token, and "" when the stored one is removed', async () => {
    const { save } = setup(phoneView({ token: { kind: 'keyring' } }), {
      save: async (form) => ok(phoneView({ ...form, token: { kind: 'keyring' }, link: { state: 'connecting' } })),
    });
    await waitFor(() => screen.getByLabelText('Bot token'));
    await fireEvent.input(input('Bot token'), { target: { value: '  123:abc  ' } });
    await fireEvent.input(input('Bot API server'), { target: { value: 'http://127.0.0.1:9001' } });
    await fireEvent.input(input(/Send to the phone after/), { target: { value: '0' } });
    await fireEvent.click(input(/Send only that a question waits/));
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).toHaveBeenCalledWith({ api_url: 'http://127.0.0.1:9001', delay_secs: 0, only_that_it_waits: true }, '123:abc');
    await waitFor(() => expect(screen.getByTestId('section-save').textContent).toContain('Saved.'));
    expect(input('Bot token').value, 'the typed token is not kept in the form').toBe('');
    expect(screen.getByTestId('phone-link').textContent).toBe('Connecting to Telegram…');

    await fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    expect(screen.getByTestId('phone-token').textContent).toContain('will be removed when you save');
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).toHaveBeenLastCalledWith({ api_url: 'http://127.0.0.1:9001', delay_secs: 0, only_that_it_waits: true }, '');
  });

  it('says what is wrong with the form before saving, and shows the shell refusal once', async () => {
    const { save } = setup(phoneView(), {
      save: async () => refused('INVALID_SETTINGS', 'api_url: plain http:// only to a server on this machine'),
    });
    await waitFor(() => screen.getByLabelText('Bot API server'));
    await fireEvent.input(input(/Send to the phone after/), { target: { value: '90000' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(save).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toContain('whole seconds from 0');

    await fireEvent.input(input(/Send to the phone after/), { target: { value: '10' } });
    await fireEvent.input(input('Bot API server'), { target: { value: 'http://10.0.0.2:8081' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getAllByRole('alert')).toHaveLength(1));
    expect(screen.getByRole('alert').textContent).toBe('api_url: plain http:// only to a server on this machine INVALID_SETTINGS');
  });

  it('pairs: shows the /start line, reads the view every pollMs, then "Paired with" the person', async () => {
    let reads = 0;
    const { load, pair } = setup(phoneView(), {
      load: async () => {
        reads += 1;
        if (reads === 1) return ok(phoneView({ token: { kind: 'keyring' }, link: { state: 'online' } }));
        if (reads < 4) return ok(phoneView({ token: { kind: 'keyring' }, link: { state: 'online' }, pairing: code }));
        return ok(phoneView({ token: { kind: 'keyring' }, link: { state: 'online' }, paired: ada }));
      },
    });
    await waitFor(() => screen.getByRole('button', { name: 'Pair a phone' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Pair a phone' }));
    expect(pair).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('phone-start-line').textContent).toBe('/start ABCD2345');
    await waitFor(() => expect(screen.getByTestId('phone-paired').textContent).toContain('Paired with @ada'));
    const calls = load.mock.calls.length;
    expect(calls).toBeGreaterThanOrEqual(4);
    await new Promise((r) => setTimeout(r, 90));
    expect(load.mock.calls.length - calls, 'reading slows down once paired').toBeLessThanOrEqual(1);
    expect(screen.queryByTestId('phone-start-line')).toBeNull();
  });

  it('offers no pairing without a token, and says so when the shell refuses it', async () => {
    setup(phoneView(), { pair: async () => refused('NO_TOKEN', 'No Telegram bot token') });
    await waitFor(() => screen.getByRole('button', { name: 'Pair a phone' }));
    expect(screen.getByRole('button', { name: 'Pair a phone' })).toHaveProperty('disabled', true);
    expect(screen.getByTestId('phone-token').textContent).toContain('@BotFather');
  });

  it('a read that began before Pair does not hide the new code when it answers late', async () => {
    const before = phoneView({ token: { kind: 'keyring' }, link: { state: 'online' } });
    let answerLate: (r: Result<PhoneView>) => void = () => {};
    let reads = 0;
    const { load } = setup(before, {
      load: () => {
        reads += 1;
        if (reads === 1) return Promise.resolve(ok(before));
        if (reads === 2) return new Promise((resolve) => (answerLate = resolve));
        return Promise.resolve(ok({ ...before, pairing: code }));
      },
    });
    await waitFor(() => expect(load).toHaveBeenCalledTimes(2));
    await fireEvent.click(screen.getByRole('button', { name: 'Pair a phone' }));
    expect(screen.getByTestId('phone-start-line').textContent).toBe('/start ABCD2345');
    answerLate(ok(before));
    await new Promise((r) => setTimeout(r, 10));
    expect(screen.getByTestId('phone-start-line').textContent).toBe('/start ABCD2345');
    expect(screen.queryByTestId('phone-note')).toBeNull();
  });

  it('cancelling a pairing forgets the code without saying it ran out', async () => {
    let now = phoneView({ token: { kind: 'keyring' }, pairing: code });
    const { unpair } = setup(now, {
      load: async () => ok(now),
      unpair: async () => ok((now = phoneView({ token: { kind: 'keyring' } }))),
    });
    await waitFor(() => screen.getByTestId('phone-start-line'));
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel pairing' }));
    expect(unpair).toHaveBeenCalledTimes(1);
    await waitFor(() => screen.getByRole('button', { name: 'Pair a phone' }));
    expect(screen.queryByTestId('phone-note')).toBeNull();
  });

  it('a code that ran out is said once, and the Pair button comes back', async () => {
    let reads = 0;
    setup(phoneView(), {
      load: async () => {
        reads += 1;
        const base = phoneView({ token: { kind: 'env', variable: 'HARK_TELEGRAM_TOKEN' }, link: { state: 'online' } });
        return ok(reads === 1 ? { ...base, pairing: code } : base);
      },
    });
    await waitFor(() => screen.getByTestId('phone-start-line'));
    expect(screen.getByTestId('phone-token').textContent).toContain('HARK_TELEGRAM_TOKEN');
    await waitFor(() => expect(screen.getByTestId('phone-note').textContent).toContain('ran out'));
    expect(screen.getByRole('button', { name: 'Pair a phone' })).toHaveProperty('disabled', false);
  });

  it('unpairs, and shows a revoked token or a blocked bot as the state the link is in', async () => {
    const { unpair } = setup(phoneView({ token: { kind: 'keyring' }, paired: ada, link: { state: 'token_rejected', reason: 'Unauthorized' } }), {
      unpair: async () => ok(phoneView({ token: { kind: 'keyring' }, link: { state: 'blocked', reason: 'Forbidden: bot was blocked by the user' } })),
    });
    await waitFor(() => screen.getByTestId('phone-paired'));
    expect(screen.getByRole('alert').textContent).toBe(
      'Telegram refused the bot token (Unauthorized): paste the token @BotFather shows now.',
    );
    await fireEvent.click(screen.getByRole('button', { name: 'Unpair' }));
    expect(unpair).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByTestId('phone-paired')).toBeNull());
    expect(screen.getByRole('alert').textContent).toContain('The bot was blocked in Telegram');
  });

  it('says plainly when another Hark reads the same bot', async () => {
    const reason = 'the Hark of /home/ada/.local/share/hark-work (pid 4242) on this computer reads it';
    setup(phoneView({ token: { kind: 'keyring' }, paired: ada, link: { state: 'in_use_elsewhere', reason } }));
    await waitFor(() => screen.getByRole('alert'));
    expect(screen.getByRole('alert').textContent).toBe(
      `This bot is in use by another Hark (${reason}): questions go to the phone from that one; give each Hark a bot of its own.`,
    );
  });

  it('reads the view again while the relay connects, until it says how that went', async () => {
    let reads = 0;
    setup(phoneView(), {
      load: async () => ok(phoneView({ token: { kind: 'keyring' }, link: ++reads < 3 ? { state: 'connecting' } : { state: 'online' } })),
    });
    await waitFor(() => expect(screen.getByTestId('phone-link').textContent).toBe('Connecting to Telegram…'));
    await waitFor(() => expect(screen.getByTestId('phone-link').textContent).toBe('Connected to Telegram.'));
  });

  it('an unreadable view is reported with a way to try again', async () => {
    let reads = 0;
    setup(phoneView(), {
      load: async () => (++reads === 1 ? refused('PHONE_SETTINGS_READ', 'phone.json could not be read') : ok(phoneView())),
    });
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('phone.json could not be read'));
    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => screen.getByLabelText('Bot token'));
  });
});
