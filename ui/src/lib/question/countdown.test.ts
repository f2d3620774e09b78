import { describe, expect, it } from 'vitest';
import {
  type Countdown,
  blur,
  createCountdown,
  describe as describeCountdown,
  edit,
  expired,
  focusEmpty,
  formatClock,
  isFrozen,
  isUrgent,
  remaining,
  start,
  takeYourTime,
} from './countdown';
// The table the terminal's countdown (hark-core's `Countdown`) runs too: one rule for every surface.
import scenarios from '../../../../src-tauri/core/src/question/countdown_scenarios.json';

const T0 = 1_000_000;
const started = (ms: number | null, at = T0): Countdown => start(createCountdown(), ms, at);

describe('start', () => {
  it('sets the deadline to t0 + remaining_ms', () => {
    const c = started(120_000);
    expect(c).toEqual({ kind: 'running', deadline: T0 + 120_000 });
    expect(remaining(c, T0 + 20_000)).toBe(100_000);
    expect(expired(c, T0 + 119_999)).toBe(false);
    expect(expired(c, T0 + 120_000)).toBe(true);
    expect(remaining(c, T0 + 500_000)).toBe(0);
  });
  it('no remaining_ms means an indefinite wait that never expires', () => {
    for (const ms of [null, undefined]) {
      const c = start(createCountdown(), ms, T0);
      expect(c).toEqual({ kind: 'indefinite' });
      expect(expired(c, T0 + 1e12)).toBe(false);
      expect(remaining(c, T0)).toBeNull();
      expect(focusEmpty(c, T0)).toEqual(c);
      expect(blur(c, T0)).toEqual(c);
    }
  });
  it('zero or negative remaining expires at once; garbage counts as zero', () => {
    expect(expired(started(0), T0)).toBe(true);
    expect(expired(started(-5), T0)).toBe(true);
    expect(expired(started(Number.NaN), T0)).toBe(true);
  });
  it('only the first handshake counts', () => {
    const c = started(60_000);
    expect(start(c, 5_000, T0 + 10)).toBe(c);
  });
  it('before the handshake there is no clock and nothing expires', () => {
    const c = createCountdown();
    expect(remaining(c, T0)).toBeNull();
    expect(expired(c, T0 + 1e9)).toBe(false);
    expect(describeCountdown(c, T0)).toBe('');
  });
});

describe('focus pauses, blur resumes', () => {
  it('keeps the remaining time while the empty answer area has focus', () => {
    let c = started(60_000);
    c = focusEmpty(c, T0 + 10_000);
    expect(c).toEqual({ kind: 'paused', remainingMs: 50_000 });
    expect(remaining(c, T0 + 999_000)).toBe(50_000);
    expect(expired(c, T0 + 999_000)).toBe(false);
    c = blur(c, T0 + 300_000);
    expect(c).toEqual({ kind: 'running', deadline: T0 + 350_000 });
    expect(remaining(c, T0 + 340_000)).toBe(10_000);
    expect(expired(c, T0 + 350_000)).toBe(true);
  });
  it('repeated pauses accumulate correctly', () => {
    let c = started(30_000);
    c = focusEmpty(c, T0 + 5_000); // 25s left
    c = blur(c, T0 + 100_000);
    c = focusEmpty(c, T0 + 110_000); // 15s left
    expect(remaining(c, T0 + 200_000)).toBe(15_000);
    c = blur(c, T0 + 200_000);
    expect(remaining(c, T0 + 214_000)).toBe(1_000);
  });
  it('a second focus or blur changes nothing', () => {
    const p = focusEmpty(started(30_000), T0 + 1_000);
    expect(focusEmpty(p, T0 + 9_000)).toEqual(p);
    const r = blur(started(30_000), T0 + 1_000);
    expect(r).toEqual(started(30_000));
  });
  it('focus after the deadline does not revive the countdown', () => {
    const c = focusEmpty(started(10_000), T0 + 10_000);
    expect(c).toEqual({ kind: 'expired' });
    expect(blur(c, T0 + 20_000)).toEqual({ kind: 'expired' });
  });
  it('focus before the handshake takes effect when remaining_ms arrives', () => {
    let c = focusEmpty(createCountdown(), T0);
    expect(c).toEqual({ kind: 'awaiting', focused: true });
    c = start(c, 40_000, T0 + 2_000);
    expect(c).toEqual({ kind: 'paused', remainingMs: 40_000 });
    c = blur(c, T0 + 90_000);
    expect(remaining(c, T0 + 100_000)).toBe(30_000);
  });
  it('blur before the handshake does not create a timer', () => {
    let c = blur(focusEmpty(createCountdown(), T0), T0 + 1_000);
    expect(c).toEqual({ kind: 'awaiting', focused: false });
    expect(remaining(c, T0 + 2_000)).toBeNull();
    c = start(c, 40_000, T0 + 5_000);
    expect(c).toEqual({ kind: 'running', deadline: T0 + 45_000 });
  });
});

describe('freeze', () => {
  it('the first edit freezes for good and never expires', () => {
    let c = edit(started(60_000), T0 + 15_000);
    expect(c).toEqual({ kind: 'frozen', remainingMs: 45_000 });
    expect(isFrozen(c)).toBe(true);
    c = blur(focusEmpty(c, T0 + 20_000), T0 + 30_000);
    expect(c.kind).toBe('frozen');
    expect(expired(c, T0 + 1e9)).toBe(false);
    expect(remaining(c, T0 + 1e9)).toBeNull();
  });
  it('Take your time freezes a paused countdown with its kept time', () => {
    const c = takeYourTime(focusEmpty(started(60_000), T0 + 1_000), T0 + 50_000);
    expect(c).toEqual({ kind: 'frozen', remainingMs: 59_000 });
  });
  it('freezing before the handshake holds when remaining_ms arrives', () => {
    const c = start(takeYourTime(createCountdown(), T0), 5_000, T0 + 1);
    expect(c).toEqual({ kind: 'frozen', remainingMs: null });
    expect(expired(c, T0 + 60_000)).toBe(false);
  });
  it('a persisted frozen draft starts frozen', () => {
    const c = start(createCountdown({ frozen: true }), 5_000, T0);
    expect(isFrozen(c)).toBe(true);
    expect(expired(c, T0 + 10_000)).toBe(false);
    expect(createCountdown({ frozen: false })).toEqual(createCountdown());
  });
  it('an edit after the deadline leaves it expired', () => {
    expect(edit(started(1_000), T0 + 1_000)).toEqual({ kind: 'expired' });
  });
  it('an edit on an indefinite wait freezes it too (the flag is persisted)', () => {
    const c = edit(started(null), T0);
    expect(isFrozen(c)).toBe(true);
    expect(isFrozen(started(null))).toBe(false);
  });
});

describe('display', () => {
  it.each([
    [65_000, '1:05'],
    [9_000, '0:09'],
    [8_001, '0:09'],
    [600, '0:01'],
    [0, '0:00'],
    [-10, '0:00'],
    [120_000, '2:00'],
    [3_600_000, '1:00:00'],
    [3_725_000, '1:02:05'],
  ])('formatClock(%i) = %s', (ms, text) => {
    expect(formatClock(ms)).toBe(text);
  });
  it('describes every state calmly', () => {
    const texts = [
      describeCountdown(started(65_000), T0),
      describeCountdown(focusEmpty(started(65_000), T0), T0),
      describeCountdown(edit(started(65_000), T0), T0),
      describeCountdown(started(null), T0),
      describeCountdown(started(1_000), T0 + 5_000),
    ];
    expect(texts).toEqual([
      '1:05 left',
      '1:05 left · paused while you read',
      'No countdown — take your time',
      'No time limit',
      'The model carried on; you can still answer',
    ]);
    for (const t of texts) expect(t).not.toMatch(/!|hurry|urgent|quick|warning/i);
  });
});

describe('isUrgent', () => {
  it('only the last ten seconds of a running clock are urgent', () => {
    expect(isUrgent(started(65_000), T0)).toBe(false);
    expect(isUrgent(started(65_000), T0 + 55_000)).toBe(true);
    expect(isUrgent(focusEmpty(started(5_000), T0), T0)).toBe(false);
    expect(isUrgent(started(5_000), T0 + 6_000)).toBe(false);
  });
});


interface Step {
  at: number;
  op: 'start' | 'focus' | 'blur' | 'edit' | 'take_your_time' | 'check';
  remaining_ms?: number;
  expect?: { kind: Countdown['kind']; remaining_ms: number | null };
}

describe('the shared countdown scenarios', () => {
  const table = scenarios as { name: string; frozen?: boolean; steps: Step[] }[];
  it('are there', () => expect(table.length).toBeGreaterThanOrEqual(10));
  for (const scenario of table) {
    it(scenario.name, () => {
      let c = createCountdown({ frozen: scenario.frozen ?? false });
      scenario.steps.forEach((step, n) => {
        const now = step.at;
        switch (step.op) {
          case 'start':
            c = start(c, step.remaining_ms ?? null, now);
            break;
          case 'focus':
            c = focusEmpty(c, now);
            break;
          case 'blur':
            c = blur(c, now);
            break;
          case 'edit':
            c = edit(c, now);
            break;
          case 'take_your_time':
            c = takeYourTime(c, now);
            break;
          case 'check':
            break;
        }
        if (step.expect) {
          const kind = expired(c, now) ? 'expired' : c.kind;
          expect({ n, kind, remaining: remaining(c, now) }).toEqual({
            n,
            kind: step.expect.kind,
            remaining: step.expect.remaining_ms,
          });
        }
      });
    });
  }
});
