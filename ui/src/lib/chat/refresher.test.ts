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

  it('drops an older read that lands after a newer one', async () => {
    const first = deferred<string>();
    const second = deferred<string>();
    const loads = [first.promise, second.promise];
    const apply = vi.fn();
    const r = new Refresher({ load: () => loads.shift() as Promise<string>, apply, current: () => 's1', timers: new ManualTimers() });
    const a = r.now('s1');
    const b = r.now('s1');
    second.resolve('new');
    await b;
    first.resolve('old');
    await a;
    expect(apply.mock.calls).toEqual([['s1', 'new']]);
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
    expect(load.mock.calls).toEqual([['s2']]);
  });
});
