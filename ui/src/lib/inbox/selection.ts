// Which inbox entry is selected. The list and its order are the core's (`inbox`); this only keeps
// the person's place in it: an entry is named by session and call, and when it leaves the list (it
// was answered) the one that took its place is selected, so answering moves on to the next.
import type { InboxEntry } from '../types';

export type Key = string;

export function keyOf(e: Pick<InboxEntry, 'session_id' | 'call_id'>): Key {
  return `${e.session_id}\u0000${e.call_id}`;
}

/** The selection after the list changed: the same entry if still listed, else the one now at its place. */
export function reselect(before: readonly InboxEntry[], after: readonly InboxEntry[], selected: Key | null): Key | null {
  if (after.length === 0) return null;
  if (selected !== null && after.some((e) => keyOf(e) === selected)) return selected;
  const was = selected === null ? -1 : before.findIndex((e) => keyOf(e) === selected);
  const from = Math.max(0, Math.min(was, after.length - 1));
  const at = (i: number): Key | null => {
    const e = after[i];
    return e?.answerable ? keyOf(e) : null;
  };
  for (let i = from; i < after.length; i++) if (at(i)) return at(i);
  for (let i = from - 1; i >= 0; i--) if (at(i)) return at(i);
  const fallback = after[from];
  return fallback ? keyOf(fallback) : null;
}

/** j/k and the arrows: the entry `step` places away, staying at the ends. */
export function move(entries: readonly InboxEntry[], selected: Key | null, step: 1 | -1): Key | null {
  if (entries.length === 0) return null;
  const at = entries.findIndex((e) => keyOf(e) === selected);
  const next = entries[at < 0 ? 0 : Math.max(0, Math.min(entries.length - 1, at + step))];
  return next ? keyOf(next) : null;
}

/** The entries in groups of one asker each, in the list's order. */
export function groups(entries: readonly InboxEntry[]): { asker: string; entries: InboxEntry[] }[] {
  const out: { asker: string; entries: InboxEntry[] }[] = [];
  for (const e of entries) {
    const last = out[out.length - 1];
    if (last && last.asker === e.asker) last.entries.push(e);
    else out.push({ asker: e.asker, entries: [e] });
  }
  return out;
}

/** How the row says where the question stands. */
export function standing(e: InboxEntry): string {
  if (e.phase === 'foreground') return 'Waiting now';
  return e.reply_queued ? 'Answer sent — waiting for the agent' : 'Continued — answer any time';
}
