// Settings → Phone's plain parts: the form as the shell saves it, what the link state says to a
// person, and whether a pairing is still under way. The component only wires them to the shell.
import type { Link, PhoneForm, PhoneView } from '../types';

/** The longest delay `phone.json` takes (a day); the shell refuses more, this only says it sooner. */
export const MAX_DELAY_SECS = 86_400;

export type PhoneFormState = { api_url: string; delay_secs: number | null; only_that_it_waits: boolean };

export const phoneFormFrom = (view: PhoneView): PhoneFormState => ({
  api_url: view.api_url,
  delay_secs: view.delay_secs,
  only_that_it_waits: view.only_that_it_waits,
});

/** Why the form cannot be saved as it is, or null; the shell still checks the server's address. */
export function phoneProblem(form: PhoneFormState): string | null {
  if (!form.api_url.trim()) return 'The Bot API server is empty: use https://api.telegram.org unless you run your own.';
  const d = form.delay_secs;
  if (d === null || !Number.isInteger(d) || d < 0 || d > MAX_DELAY_SECS) {
    return `The delay is whole seconds from 0 (at once) to ${MAX_DELAY_SECS}.`;
  }
  return null;
}

export const toPhoneForm = (form: PhoneFormState): PhoneForm => ({
  api_url: form.api_url.trim(),
  delay_secs: form.delay_secs ?? 0,
  only_that_it_waits: form.only_that_it_waits,
});

export const sameForm = (a: PhoneFormState, b: PhoneFormState): boolean =>
  a.api_url.trim() === b.api_url.trim() && a.delay_secs === b.delay_secs && a.only_that_it_waits === b.only_that_it_waits;

/** The token argument of save_phone_settings: null keeps the stored one, "" removes it. */
export const tokenArg = (typed: string, remove: boolean): string | null => (remove ? '' : typed.trim() ? typed.trim() : null);

/** Where the relay's token comes from, for a person; never the token. */
export function tokenText(view: PhoneView): string {
  switch (view.token.kind) {
    case 'keyring':
      return 'A bot token is stored in the system keyring.';
    case 'env':
      return `The bot token comes from ${view.token.variable}; a token saved here takes its place.`;
    case 'none':
      return 'No bot token yet: create a bot with @BotFather in Telegram and paste its token here.';
  }
}

export type LinkLine = { text: string; problem: boolean };

/** The relay's link as one line: a problem is said once, as the state it is in, not per attempt. */
export function linkLine(link: Link): LinkLine {
  switch (link.state) {
    case 'no_token':
      return { text: 'Off: no bot token.', problem: false };
    case 'connecting':
      return { text: 'Connecting to Telegram…', problem: false };
    case 'online':
      return { text: 'Connected to Telegram.', problem: false };
    case 'offline':
      return { text: `Telegram cannot be reached (${link.reason}); Hark keeps trying.`, problem: true };
    case 'token_rejected':
      return { text: `Telegram refused the bot token (${link.reason}): paste the token @BotFather shows now.`, problem: true };
    case 'blocked':
      return { text: `The bot was blocked in Telegram (${link.reason}): unblock it in the chat with the bot.`, problem: true };
    case 'misconfigured':
      return { text: `Not started: ${link.reason}`, problem: true };
    case 'in_use_elsewhere':
      return {
        text: `This bot is in use by another Hark (${link.reason}): questions go to the phone from that one; give each Hark a bot of its own.`,
        problem: true,
      };
  }
}
