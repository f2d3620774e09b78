import { describe, expect, it, vi } from 'vitest';
import { TakeoverKeeper } from './takeover';
import { deferred, flush } from './fakes';
import type { Result } from '../api';
import type { AttachResult } from '../types';

function setup() {
  const attaches: Array<{ callId: string; d: ReturnType<typeof deferred<Result<AttachResult>>> }> = [];
  let nextId = 1;
  const api = {
    attach: vi.fn((_s: string, callId: string) => {
      const d = deferred<Result<AttachResult>>();
      attaches.push({ callId, d });
      return d.promise;
    }),
    release: vi.fn(async () => ({ ok: true as const, value: undefined })),
  };
  const handshakes: unknown[] = [];
  const keeper = new TakeoverKeeper(api, (h) => handshakes.push(h));
  const grant = async (i: number, remaining: number | null = 30_000) => {
    attaches[i]?.d.resolve({ ok: true, value: { takeover_id: nextId++, remaining_ms: remaining } });
    await flush();
  };
  return { api, keeper, attaches, handshakes, grant };
}

describe('TakeoverKeeper', () => {
  it('attaches once for the wanted question and hands the host time to the panel', async () => {
    const { api, keeper, handshakes, grant } = setup();
    keeper.want({ sessionId: 's1', callId: 'a' });
    keeper.want({ sessionId: 's1', callId: 'a' });
    await grant(0, 42_000);
    expect(api.attach).toHaveBeenCalledTimes(1);
    expect(handshakes).toEqual([{ callId: 'a', epoch: 1, remainingMs: 42_000 }]);
    expect(keeper.holding()).toEqual({ sessionId: 's1', callId: 'a' });
  });

  it('releases when nothing is wanted (session switched, window hidden) and re-attaches with a new epoch', async () => {
    const { api, keeper, handshakes, grant } = setup();
    keeper.want({ sessionId: 's1', callId: 'a' });
    await grant(0);
    keeper.want(null);
    await flush();
    expect(api.release).toHaveBeenCalledWith('s1', 'a', 1);
    expect(keeper.holding()).toBeNull();
    keeper.want({ sessionId: 's1', callId: 'a' });
    await grant(1, 10_000);
    expect(handshakes.at(-1)).toEqual({ callId: 'a', epoch: 2, remainingMs: 10_000 });
  });

  it('gives back a take-over whose attach returned after the person moved on', async () => {
    const { api, keeper, grant } = setup();
    keeper.want({ sessionId: 's1', callId: 'a' });
    keeper.want(null);
    await grant(0);
    expect(api.release).toHaveBeenCalledWith('s1', 'a', 1);
    expect(keeper.holding()).toBeNull();
  });

  it('a failed attach holds nothing and sends no handshake', async () => {
    const { keeper, attaches, handshakes } = setup();
    keeper.want({ sessionId: 's1', callId: 'a' });
    attaches[0]?.d.resolve({ ok: false, error: { name: 'E', code: 'NOT_PENDING', message: 'gone' } });
    await flush();
    expect(keeper.holding()).toBeNull();
    expect(handshakes).toEqual([]);
  });
});
