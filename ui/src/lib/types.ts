import type { HarkError } from './errors';
import type { AnswerBatch, Question } from './question/types';

/** A row of the sessions sidebar, as the shell lists it. */
export interface SessionSummary {
  id: string;
  title: string;
  updated_at: string;
  open_questions: number;
  continued_questions: number;
}


export type ToolOutcome =
  | { status: 'ok'; content: string }
  | { status: 'pending'; content: string }
  | { status: 'error'; error: HarkError }
  | { status: 'TOOL_OUTCOME_UNKNOWN' };

export interface QuestionRecord {
  call_id: string;
  state: 'open' | 'continued' | 'settled';
  timed: boolean;
  questions: Question[];
  answers: AnswerBatch | null;
  answered_late: boolean;
  reply_queued: string | null;
}

export type TranscriptItem =
  | { kind: 'user_message'; seq: number; at: string; message_id: string; text: string }
  | {
      kind: 'late_answer';
      seq: number;
      at: string;
      message_id: string;
      call_id: string;
      questions: Question[];
      answers: AnswerBatch | null;
      raw_text: string | null;
    }
  | { kind: 'assistant_message'; seq: number; at: string; text: string; reasoning: string | null; tool_calls: string[] }
  | {
      kind: 'tool_call';
      seq: number;
      at: string;
      call_id: string;
      name: string;
      arguments: unknown;
      result: { seq: number; at: string; outcome: ToolOutcome } | null;
      question: QuestionRecord | null;
      queued_answers: AnswerBatch | null;
    }
  | { kind: 'orphan_result'; seq: number; at: string; call_id: string; outcome: ToolOutcome }
  | { kind: 'model_error'; seq: number; at: string; error: HarkError };

export interface Turn {
  turn_id: string | null;
  started_at: string;
  ended: { reason: string; seq: number; at: string } | null;
  items: TranscriptItem[];
}

export interface Transcript {
  title: string | null;
  workspace: string | null;
  model: { provider: string; base_url: string | null; model: string | null; script: string | null } | null;
  turns: Turn[];
  questions: QuestionRecord[];
}
