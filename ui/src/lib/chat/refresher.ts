// Re-reading a session: coalesced (a burst of requests costs one read), one at a time (a long session's
// read is costly for the shell, so requests that come while one runs share the one read after it), and
// guarded (a read that returns after the person switched sessions is dropped). Reads never overlap, so
// the one that lands last is always the newest.

export interface Timers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface RefresherOptions<T, W> {
  /** Reads what `want` asks for. */
  load: (sessionId: string, want: W) => Promise<T>;
  /** Shows a read; only called for the session still shown. */
  apply: (sessionId: string, data: T) => void;
  /** What one read serving both requests must cover; without it the later request's `want` is used. */
  merge?: (a: W, b: W) => W;
  /** The session shown now. */
  current: () => string | null;
  delayMs?: number;
  timers?: Timers;
}

interface Waiting<W> {
  sessionId: string;
  want: W;
  /** Told whether the read was shown. */
  done: ((applied: boolean) => void)[];
}

export class Refresher<T, W = void> {
  private timer: unknown = null;
  private scheduled: { sessionId: string; want: W } | null = null;
  private running = false;
  /** The read that starts when the running one lands. */
  private next: Waiting<W> | null = null;
  private generation = 0;
  private readonly delayMs: number;
  private readonly timers: Timers;
  private readonly merge: (a: W, b: W) => W;

  constructor(private readonly opts: RefresherOptions<T, W>) {
    this.delayMs = opts.delayMs ?? 80;
    this.timers = opts.timers ?? realTimers;
    this.merge = opts.merge ?? ((_a, b) => b);
  }

  /** Asks for a read of `sessionId` soon; calls within the delay share one read. */
  schedule(sessionId: string, want: W): void {
    if (this.scheduled?.sessionId === sessionId) {
      this.scheduled.want = this.merge(this.scheduled.want, want);
      return;
    }
    // Another session is shown now: nothing asked for the old one matters any more.
    if (this.scheduled) this.cancel();
    this.scheduled = { sessionId, want };
    this.timer = this.timers.setTimeout(() => {
      const s = this.scheduled;
      this.timer = null;
      this.scheduled = null;
      if (s) void this.now(s.sessionId, s.want);
    }, this.delayMs);
  }

  /**
   * Reads at once (used on open and after the person acted), or right after the read that is running;
   * resolves with whether the read was shown.
   */
  now(sessionId: string, want: W): Promise<boolean> {
    if (!this.running) return this.run(sessionId, want);
    return new Promise((resolve) => {
      const next = this.next;
      if (next?.sessionId === sessionId) {
        next.want = this.merge(next.want, want);
        next.done.push(resolve);
        return;
      }
      next?.done.forEach((d) => d(false));
      this.next = { sessionId, want, done: [resolve] };
    });
  }

  /** Forgets scheduled and waiting reads and invalidates the one in flight (switching sessions). */
  cancel(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.scheduled = null;
    this.next?.done.forEach((d) => d(false));
    this.next = null;
    this.generation++;
  }

  private async run(sessionId: string, want: W): Promise<boolean> {
    const generation = this.generation;
    this.running = true;
    try {
      const data = await this.opts.load(sessionId, want);
      // A read overtaken by a waiting one is still shown: it is newer than what is shown, and dropping
      // it would show nothing at all while requests keep coming faster than reads.
      if (generation !== this.generation || this.opts.current() !== sessionId) return false;
      this.opts.apply(sessionId, data);
      return true;
    } finally {
      this.running = false;
      this.startNext();
    }
  }

  private startNext(): void {
    const next = this.next;
    if (!next) return;
    this.next = null;
    this.run(next.sessionId, next.want).then(
      (applied) => next.done.forEach((d) => d(applied)),
      () => next.done.forEach((d) => d(false)),
    );
  }
}
