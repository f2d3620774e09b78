// Re-reading a session after stream events: coalesced (a burst of events costs one read) and guarded
// (a read that returns after the person switched sessions, or that an older read overtook, is dropped).

export interface Timers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface RefresherOptions<T> {
  /** Reads whatever the refresh shows (transcript and pending questions). */
  load: (sessionId: string) => Promise<T>;
  /** Shows a read; only called for the session still shown and for the newest read. */
  apply: (sessionId: string, data: T) => void;
  /** The session shown now. */
  current: () => string | null;
  delayMs?: number;
  timers?: Timers;
}

export class Refresher<T> {
  private timer: unknown = null;
  private timerSession: string | null = null;
  private generation = 0;
  private readonly delayMs: number;
  private readonly timers: Timers;

  constructor(private readonly opts: RefresherOptions<T>) {
    this.delayMs = opts.delayMs ?? 80;
    this.timers = opts.timers ?? realTimers;
  }

  /** Asks for a read of `sessionId` soon; calls within the delay share one read. */
  schedule(sessionId: string): void {
    if (this.timer !== null && this.timerSession === sessionId) return;
    this.cancel();
    this.timerSession = sessionId;
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      this.timerSession = null;
      void this.now(sessionId);
    }, this.delayMs);
  }

  /** Reads at once (used on open and after the person acted); the newest read wins. */
  async now(sessionId: string): Promise<boolean> {
    const generation = ++this.generation;
    const data = await this.opts.load(sessionId);
    if (generation !== this.generation || this.opts.current() !== sessionId) return false;
    this.opts.apply(sessionId, data);
    return true;
  }

  /** Forgets a scheduled read and invalidates reads in flight (switching sessions). */
  cancel(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.timerSession = null;
    this.generation++;
  }
}
