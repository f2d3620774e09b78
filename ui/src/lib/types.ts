/** A row of the sessions sidebar, as the shell lists it. */
export interface SessionSummary {
  id: string;
  title: string;
  updated_at: string;
  open_questions: number;
  continued_questions: number;
}
