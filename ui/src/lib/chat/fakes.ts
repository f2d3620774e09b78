// Test helpers (imported only by tests).
import type { Timers } from './refresher';
import type {
  Catalogue,
  QuestionRecord,
  QuestionView,
  SessionQuestions,
  Transcript,
  TranscriptDelta,
  TranscriptEvent,
  TranscriptItem,
  Turn,
} from '../types';
import type { Question } from '../question/types';

/** Timers that run only when the test says so. */
export class ManualTimers implements Timers {
  private next = 1;
  private tasks = new Map<number, { at: number; fn: () => void }>();
  now = 0;
  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = this.next++;
    this.tasks.set(id, { at: this.now + ms, fn });
    return id;
  };
  clearTimeout = (h: unknown): void => {
    this.tasks.delete(h as number);
  };
  advance(ms: number): void {
    this.now += ms;
    for (const [id, t] of [...this.tasks].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at <= this.now) {
        this.tasks.delete(id);
        t.fn();
      }
    }
  }
  get pending(): number {
    return this.tasks.size;
  }
}

/**
 * The settings catalogue as the shell sends it today. Tests take it from here so that they agree with
 * one another; a test about a different catalogue changes its copy.
 */
export function catalogue(over: Partial<Catalogue> = {}): Catalogue {
  return {
    providers: [
      { id: 'deepseek', label: 'DeepSeek', base_url: 'https://api.deepseek.com', model: 'deepseek-chat', uses_key: true, uses_endpoint: true },
      { id: 'openai', label: 'OpenAI-compatible', base_url: 'https://api.openai.com/v1', model: 'gpt-4o-mini', uses_key: true, uses_endpoint: true },
      { id: 'ollama', label: 'Ollama (local)', base_url: 'http://localhost:11434/v1', model: 'llama3.1', uses_key: false, uses_endpoint: true },
      { id: 'demo', label: 'Demo (scripted, no AI)', base_url: '', model: '', uses_key: false, uses_endpoint: false },
    ],
    demo_scripts: ['batch', 'timed', 'blocking', 'untrusted', 'hello'],
    timeout_secs: { min: 1, max: 604_800 },
    ...over,
  };
}

/** A promise the test resolves by hand. */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export const flush = () => new Promise<void>((r) => setTimeout(r, 0));

export const q1: Question = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'SQLite' }, { label: 'Postgres' }],
  multi_select: false,
};

/** The host's list of a session's waiting questions, as a read or a question event brings it. */
export function listed(views: QuestionView[] = [], revision = 0): SessionQuestions {
  return { revision, questions: views };
}

/** A question waiting in the foreground, as the host lists it (always answerable). */
export const fg = (callId: string, timed = false): QuestionView => ({
  session_id: 's1',
  call_id: callId,
  intent: { kind: 'question' },
  questions: [q1],
  phase: 'foreground',
  wait: timed ? { call_id: callId, timed: true as const, timeout_ms: 60_000 } : null,
  answerable: true,
  asked_at: null,
});

/** A continued question, as the host lists it: answerable until a late reply of it is queued. */
export const cont = (callId: string, replyQueued: string | null = null): QuestionView => ({
  session_id: 's1',
  call_id: callId,
  intent: { kind: 'question' },
  questions: [q1],
  phase: 'continued',
  reply_queued: replyQueued,
  answerable: replyQueued === null,
  asked_at: null,
});

export function record(callId: string, state: QuestionRecord['state']): QuestionRecord {
  return {
    call_id: callId,
    state,
    intent: { kind: 'question' },
    parent_call_id: null,
    timed: true,
    questions: [q1],
    answers: null,
    answered_late: false,
    reply_queued: null,
    returned: false,
    asker: null,
    since: null,
    withdrawn: null,
    asked_at: null,
  };
}

export function transcript(records: QuestionRecord[] = []): Transcript {
  return { title: 't', workspace: null, model: null, client: null, started_by: null, turns: [], earlier_turns: 0, questions: records, queued: [], seq: 0 };
}

export const turn = (id: string, items: TranscriptItem[] = [], ended: Turn['ended'] = null): Turn => ({
  turn_id: id,
  run_id: null,
  started_at: '',
  ended,
  items,
});

export const userItem = (seq: number, text = `hi ${seq}`): TranscriptItem => ({ kind: 'user_message', seq, at: '', message_id: `m${seq}`, text });

export const assistantItem = (seq: number, text = `a${seq}`): TranscriptItem => ({
  kind: 'assistant_message',
  seq,
  at: '',
  text,
  reasoning: null,
  tool_calls: [],
});

/** The `transcript` stream event of event `seq`. */
export const transcriptEvent = (seq: number, ...deltas: TranscriptDelta[]): TranscriptEvent => ({
  type: 'transcript',
  session_id: 's1',
  seq,
  deltas,
});
