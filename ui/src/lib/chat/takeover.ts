// The take-over of a timed foreground question: held while the panel shows it in a
// visible window, so the host deadline pauses; released when the session is switched, the window is
// hidden, or the question resolved. One at a time. `want()` states what should be held; the keeper
// attaches and releases to match, and never leaks a take-over whose attach returned late.
import type { Result } from '../api';
import type { AttachResult } from '../types';

export interface TakeoverApi {
  attach: (sessionId: string, callId: string) => Promise<Result<AttachResult>>;
  release: (sessionId: string, callId: string, takeoverId: number) => Promise<Result<void>>;
}

export interface Target {
  sessionId: string;
  callId: string;
}

export interface Handshake {
  callId: string;
  /** Increments with every attach, so the panel can take a fresh handshake after a re-attach. */
  epoch: number;
  remainingMs: number | null;
}

const same = (a: Target | null, b: Target | null) =>
  a === b || (a !== null && b !== null && a.sessionId === b.sessionId && a.callId === b.callId);

export class TakeoverKeeper {
  private wanted: Target | null = null;
  private held: (Target & { takeoverId: number }) | null = null;
  private epoch = 0;
  private attaching: Target | null = null;

  constructor(
    private readonly api: TakeoverApi,
    private readonly onHandshake: (h: Handshake | null) => void,
  ) {}

  /** What should be held now (null: nothing). Idempotent. */
  want(target: Target | null): void {
    if (same(target, this.wanted)) return;
    this.wanted = target;
    void this.sync();
  }

  /** The take-over currently held, for tests and diagnostics. */
  holding(): Target | null {
    return this.held ? { sessionId: this.held.sessionId, callId: this.held.callId } : null;
  }

  private async sync(): Promise<void> {
    if (this.held && !same(this.held, this.wanted)) {
      const h = this.held;
      this.held = null;
      this.onHandshake(null);
      await this.api.release(h.sessionId, h.callId, h.takeoverId);
    }
    const target = this.wanted;
    if (!target || this.held || same(this.attaching, target)) return;
    this.attaching = target;
    const r = await this.api.attach(target.sessionId, target.callId);
    if (same(this.attaching, target)) this.attaching = null;
    // Not attachable (already resolved or continued): the next read of pending questions decides.
    if (!r.ok) return;
    if (!same(this.wanted, target) || this.held) {
      // The person moved on while we attached: give it straight back.
      await this.api.release(target.sessionId, target.callId, r.value.takeover_id);
      return;
    }
    this.held = { ...target, takeoverId: r.value.takeover_id };
    this.onHandshake({ callId: target.callId, epoch: ++this.epoch, remainingMs: r.value.remaining_ms });
  }
}
