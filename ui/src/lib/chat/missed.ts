// The transcript events that arrive while a transcript read runs. The shell may have taken the read
// before some of them, and the window shows the read in place of what those events built, so the read
// is caught up with them (deltas.ts `catchUp`) when it lands; the ones it already includes are skipped.
import type { TranscriptEvent } from '../types';

export class MissedEvents {
  /** One list per read in flight (opening a session and a re-read can overlap). */
  private readonly lists = new Set<TranscriptEvent[]>();

  /** A transcript event of the shown session arrived. */
  note(event: TranscriptEvent): void {
    for (const list of this.lists) list.push(event);
  }

  /** Runs `read`, collecting the events that arrive from its start until it lands. */
  async during<T>(read: () => Promise<T>): Promise<{ value: T; missed: TranscriptEvent[] }> {
    const missed: TranscriptEvent[] = [];
    this.lists.add(missed);
    try {
      return { value: await read(), missed };
    } finally {
      this.lists.delete(missed);
    }
  }
}
