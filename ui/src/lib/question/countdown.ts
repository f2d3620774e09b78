// The client countdown of a timed question as a pure state machine. No timers live here: the panel
// passes `now` (ms, e.g. Date.now()) into every call and re-renders on its own tick. The terminal runs
// the same machine (hark-core's `Countdown`); both pass one scenario table
// (src-tauri/core/src/question/countdown_scenarios.json), so the surfaces keep one rule.
//
// - The host hands over `remaining_ms` with the take-over; the deadline is t0 + remaining.
// - Focusing the still-untouched answer area pauses (the remaining time is kept); blur resumes from it.
// - The first edit or "Take your time" freezes the countdown for good (the draft persists that).
// - Focus before the handshake counts once the handshake arrives (it starts paused); a blur before the
//   handshake only clears that focus, it never starts a timer by itself.
// - Indefinite waits (no remaining_ms) and frozen countdowns never expire.

export type Countdown =
  /** Take-over not answered yet; remembers whether the empty answer area has focus. */
  | { kind: 'awaiting'; focused: boolean }
  /** No host deadline (legacy or timeout -1). */
  | { kind: 'indefinite' }
  | { kind: 'running'; deadline: number }
  | { kind: 'paused'; remainingMs: number }
  /** Stopped for good. `remainingMs` is what was left at that moment, `null` if there was no clock. */
  | { kind: 'frozen'; remainingMs: number | null }
  | { kind: 'expired' };

/** A fresh countdown; `frozen` comes from the persisted draft so a reload keeps it stopped. */
export function createCountdown(opts: { frozen?: boolean } = {}): Countdown {
  return opts.frozen ? { kind: 'frozen', remainingMs: null } : { kind: 'awaiting', focused: false };
}

/** A running countdown whose deadline passed is expired; every transition sees that first. */
function settle(c: Countdown, now: number): Countdown {
  return c.kind === 'running' && now >= c.deadline ? { kind: 'expired' } : c;
}

function clampMs(ms: number): number {
  return Number.isFinite(ms) ? Math.max(0, ms) : 0;
}

/**
 * The host's answer to the take-over arrived at `now`: `remainingMs` null/undefined means an indefinite
 * wait. Only the first handshake counts; later calls leave the countdown alone.
 */
export function start(c: Countdown, remainingMs: number | null | undefined, now: number): Countdown {
  if (c.kind !== 'awaiting') return c;
  if (remainingMs === null || remainingMs === undefined) return { kind: 'indefinite' };
  const ms = clampMs(remainingMs);
  if (c.focused) return { kind: 'paused', remainingMs: ms };
  return settle({ kind: 'running', deadline: now + ms }, now);
}

/** The untouched answer area got focus: pause, keeping the time left. */
export function focusEmpty(c: Countdown, now: number): Countdown {
  const s = settle(c, now);
  if (s.kind === 'awaiting') return { kind: 'awaiting', focused: true };
  if (s.kind === 'running') return { kind: 'paused', remainingMs: s.deadline - now };
  return s;
}

/** The answer area lost focus: resume from the kept time. */
export function blur(c: Countdown, now: number): Countdown {
  if (c.kind === 'awaiting') return { kind: 'awaiting', focused: false };
  if (c.kind === 'paused') return settle({ kind: 'running', deadline: now + c.remainingMs }, now);
  return settle(c, now);
}

function freeze(c: Countdown, now: number): Countdown {
  const s = settle(c, now);
  switch (s.kind) {
    case 'expired':
    case 'frozen':
      return s;
    case 'running':
      return { kind: 'frozen', remainingMs: s.deadline - now };
    case 'paused':
      return { kind: 'frozen', remainingMs: s.remainingMs };
    default:
      return { kind: 'frozen', remainingMs: null };
  }
}

/** The first edit of the draft: the countdown stops for good. */
export function edit(c: Countdown, now: number): Countdown {
  return freeze(c, now);
}

/** The "Take your time" button: the countdown stops for good. */
export function takeYourTime(c: Countdown, now: number): Countdown {
  return freeze(c, now);
}

/** Milliseconds left on a live clock (running or paused); `null` when there is no clock to show. */
export function remaining(c: Countdown, now: number): number | null {
  const s = settle(c, now);
  if (s.kind === 'running') return s.deadline - now;
  if (s.kind === 'paused') return s.remainingMs;
  if (s.kind === 'expired') return 0;
  return null;
}

/** The client's own timeout: the panel releases its take-over and the question goes on in the background. */
export function expired(c: Countdown, now: number): boolean {
  return settle(c, now).kind === 'expired';
}

export function isFrozen(c: Countdown): boolean {
  return c.kind === 'frozen';
}

/** `1:05`, `0:09`, `1:00:00`; rounds up so the clock shows `0:00` only when the time is really up. */
export function formatClock(ms: number): string {
  const total = Math.ceil(clampMs(ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Calm one-line wording for the panel footer (visible, never alarming). Empty before the handshake. */
export function describe(c: Countdown, now: number): string {
  const s = settle(c, now);
  switch (s.kind) {
    case 'awaiting':
      return '';
    case 'indefinite':
      return 'No time limit';
    case 'running':
      return `${formatClock(s.deadline - now)} left`;
    case 'paused':
      return `${formatClock(s.remainingMs)} left · paused while you read`;
    case 'frozen':
      return 'No countdown — take your time';
    case 'expired':
      return 'The model carried on; you can still answer';
  }
}

/** The last seconds of a running countdown: the only time the clock may turn red. */
export const URGENT_MS = 10_000;

export function isUrgent(c: Countdown, now: number): boolean {
  const s = settle(c, now);
  return s.kind === 'running' && s.deadline - now <= URGENT_MS;
}
