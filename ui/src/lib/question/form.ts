// An MCP server's form as the question panel shows it: who asks, their message, and which questions
// take no text of the person's own (the server reads only the values behind the options).
import type { Intent } from '../bindings';

export interface FormView {
  server: string;
  message: string;
  /** URL mode: the link the server wants opened (only through the link dialog). */
  url: string | null;
  closedIds: string[];
}

type FormIntent = Extract<Intent, { kind: 'form' }>;

/** The panel's view of a form; the same rule as the host's `FieldKind::is_closed`, which refuses text anyway. */
export function formOf(intent: FormIntent): FormView {
  return {
    server: intent.server,
    message: intent.message,
    url: intent.url ?? null,
    closedIds: intent.fields.filter((f) => f.kind.type !== 'text' && f.kind.type !== 'number').map((f) => f.id),
  };
}
