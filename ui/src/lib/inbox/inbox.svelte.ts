// The inbox's state: the core's list of every waiting question, the person's place in it, and the
// answer on its way. Answers go through the same command as the chat panel's (first answer wins,
// decided by the host); the path is left to the host, which answers the waiting call or, once it
// went on, the continued question.
import * as api from '../api';
import type { HarkError } from '../errors';
import { draftKey } from '../question/draft';
import type { AnswerBatch } from '../question/types';
import type { InboxEntry } from '../types';
import { type Key, keyOf, move, reselect } from './selection';

export type InboxApi = Pick<typeof api, 'inbox' | 'submitAnswers' | 'cancelQuestion'>;

export class Inbox {
  entries: InboxEntry[] = $state.raw([]);
  selected: Key | null = $state(null);
  /** The entry whose answer is being sent. */
  sending: Key | null = $state(null);
  error: HarkError | null = $state(null);
  private reads = 0;

  constructor(
    private readonly io: InboxApi = api,
    private readonly storage: Storage | null = typeof localStorage === 'undefined' ? null : localStorage,
  ) {}

  get current(): InboxEntry | undefined {
    return this.entries.find((e) => keyOf(e) === this.selected);
  }

  /** Reads the list again; the newest read wins when reads overlap. */
  async refresh(): Promise<void> {
    const read = ++this.reads;
    const r = await this.io.inbox();
    if (read !== this.reads) return;
    if (!r.ok) {
      this.error = r.error;
      return;
    }
    const selected = reselect(this.entries, r.value, this.selected);
    // An error was about the question it came from: not shown over the next one.
    if (selected !== this.selected) this.error = null;
    this.selected = selected;
    this.entries = r.value;
  }

  select(key: Key): void {
    this.selected = key;
    this.error = null;
  }

  step(by: 1 | -1): void {
    this.selected = move(this.entries, this.selected, by);
    this.error = null;
  }

  async answer(entry: InboxEntry, batch: AnswerBatch): Promise<void> {
    const key = keyOf(entry);
    if (this.sending !== null) return;
    this.sending = key;
    this.error = null;
    const r = await this.io.submitAnswers(entry.session_id, entry.call_id, batch, null);
    if (r.ok) this.forgetDraft(entry);
    // The panel stays busy until the list says where things stand, so the answer is not sent twice.
    await this.refresh();
    this.sending = null;
    if (!r.ok) this.error = r.error;
  }

  /** Esc: a question waiting now is closed unanswered, as in the chat; a continued one is left as it is. */
  async close(entry: InboxEntry): Promise<void> {
    if (entry.phase === 'foreground') {
      const r = await this.io.cancelQuestion(entry.session_id, entry.call_id);
      if (!r.ok && r.error.code !== 'NOT_PENDING') this.error = r.error;
      await this.refresh();
    } else {
      this.step(1);
    }
  }

  storedDraft(entry: InboxEntry): string | null {
    try {
      return this.storage?.getItem(draftKey(entry.session_id, entry.call_id)) ?? null;
    } catch {
      return null;
    }
  }

  saveDraft(entry: InboxEntry, json: string): void {
    try {
      this.storage?.setItem(draftKey(entry.session_id, entry.call_id), json);
    } catch {
      // Full or unavailable storage: the draft lives on in the panel only.
    }
  }

  private forgetDraft(entry: InboxEntry): void {
    try {
      this.storage?.removeItem(draftKey(entry.session_id, entry.call_id));
    } catch {
      // Nothing to forget.
    }
  }
}
