import { describe, expect, it, vi } from 'vitest';
import { Refresher } from './refresher';
import { ManualTimers, deferred, flush } from './fakes';

describe('Refresher', () => {
  it('coalesces a burst of events into one read after the delay', async () => {
    const timers = new ManualTimers();
    const load = vi.fn(async (id: string) => `data:${id}`);
    const apply = vi.fn();
    const r = new Refresher({ load, apply, current: () => 's1', delayMs: 80, timers });
    r.schedule('s1');
    r.schedule('s1');
    r.schedule('s1');
    timers.advance(79);
    expect(load).not.toHaveBeenCalled();
    timers.advance(1);
    await flush();
    expect(load).toHaveBeenCalledTimes(1);
    expect(apply).toHaveBeenCalledWith('s1', 'data:s1');
  });

  it('drops a read for a session the person already left', async () => {
    let current = 's1';
    const d = deferred<string>();
    const apply = vi.fn();
    const r = new Refresher({ load: () => d.promise, apply, current: () => current, timers: new ManualTimers() });
    const done = r.now('s1');
    current = 's2';
    d.resolve('old');
    expect(await done).toBe(false);
    expect(apply).not.toHaveBeenCalled();
  });

  it('starts no read while one runs: the requests meanwhile share exactly one more, shown after it', async () => {
    const first = deferred<string>();
    const second = deferred<string>();
    const loads = [first.promise, second.promise];
    const load = vi.fn(() => loads.shift() ?? Promise.resolve('extra'));
    const apply = vi.fn();
    const r = new Refresher({ load, apply, current: () => 's1', timers: new ManualTimers() });
    const a = r.now('s1');
    const b = r.now('s1');
    const c = r.now('s1');
    await flush();
    expect(load).toHaveBeenCalledTimes(1);
    first.resolve('old');
    expect(await a).toBe(true);
    expect(load).toHaveBeenCalledTimes(2);
    second.resolve('new');
    expect([await b, await c]).toEqual([true, true]);
    await flush();
    expect(load).toHaveBeenCalledTimes(2);
    // Reads never overlap, so the newest is the one shown last.
    expect(apply.mock.calls).toEqual([
      ['s1', 'old'],
      ['s1', 'new'],
    ]);
  });

  it('the read after the running one covers what every request meanwhile asked for', async () => {
    const running = deferred<string>();
    const load = vi.fn((_id: string, want: string) => (want === 'questions' && load.mock.calls.length === 1 ? running.promise : Promise.resolve(want)));
    const merge = (a: string, b: string) => (a === 'all' || b === 'all' ? 'all' : 'questions');
    const r = new Refresher<string, string>({ load, apply: () => {}, merge, current: () => 's1', timers: new ManualTimers() });
    void r.now('s1', 'questions');
    const later = [r.now('s1', 'questions'), r.now('s1', 'all'), r.now('s1', 'questions')];
    running.resolve('x');
    await Promise.all(later);
    expect(load.mock.calls).toEqual([
      ['s1', 'questions'],
      ['s1', 'all'],
    ]);
  });

  it('a debounced read that comes due while one runs waits for it, and does not drop it', async () => {
    const timers = new ManualTimers();
    const running = deferred<string>();
    const load = vi.fn(() => (load.mock.calls.length === 1 ? running.promise : Promise.resolve('next')));
    const apply = vi.fn();
    const r = new Refresher({ load, apply, current: () => 's1', delayMs: 80, timers });
    const first = r.now('s1');
    r.schedule('s1');
    timers.advance(80);
    await flush();
    expect(load).toHaveBeenCalledTimes(1);
    running.resolve('first');
    expect(await first).toBe(true);
    await flush();
    expect(load).toHaveBeenCalledTimes(2);
    expect(apply.mock.calls.map((c) => c[1])).toEqual(['first', 'next']);
  });

  it('switching sessions drops the waiting read and the running one; the new session reads after it', async () => {
    let current = 's1';
    const running = deferred<string>();
    const load = vi.fn((id: string) => (id === 's1' ? running.promise : Promise.resolve(id)));
    const apply = vi.fn();
    const r = new Refresher({ load, apply, current: () => current, timers: new ManualTimers() });
    const inFlight = r.now('s1');
    const waiting = r.now('s1');
    r.cancel();
    current = 's2';
    expect(await waiting).toBe(false);
    const other = r.now('s2');
    await flush();
    expect(load).toHaveBeenCalledTimes(1);
    running.resolve('stale');
    expect(await inFlight).toBe(false);
    expect(await other).toBe(true);
    expect(apply.mock.calls).toEqual([['s2', 's2']]);
  });

  it('a read that fails still lets the waiting one run', async () => {
    const running = deferred<string>();
    const loads = [running.promise.then(() => Promise.reject(new Error('gone'))), Promise.resolve('ok')];
    const apply = vi.fn();
    const r = new Refresher({ load: () => loads.shift() as Promise<string>, apply, current: () => 's1', timers: new ManualTimers() });
    const failing = r.now('s1');
    const waiting = r.now('s1');
    running.resolve('');
    await expect(failing).rejects.toThrow('gone');
    expect(await waiting).toBe(true);
    expect(apply).toHaveBeenCalledWith('s1', 'ok');
  });

  it('cancel forgets the scheduled read and invalidates one in flight', async () => {
    const timers = new ManualTimers();
    const d = deferred<string>();
    const load = vi.fn(() => d.promise);
    const apply = vi.fn();
    const r = new Refresher({ load, apply, current: () => 's1', timers });
    const inFlight = r.now('s1');
    r.schedule('s1');
    r.cancel();
    expect(timers.pending).toBe(0);
    d.resolve('x');
    await inFlight;
    expect(apply).not.toHaveBeenCalled();
  });

  it('a schedule for another session replaces the pending one', async () => {
    const timers = new ManualTimers();
    const load = vi.fn(async (id: string) => id);
    const r = new Refresher({ load, apply: () => {}, current: () => 's2', timers });
    r.schedule('s1');
    r.schedule('s2');
    timers.advance(100);
    await flush();
    expect(load.mock.calls.map((c) => c[0])).toEqual(['s2']);
  });
});
