// Keeps the shown transcript in step with the session from the shell's per-event deltas, so a long
// session is not read and projected again after every event. Pure: the controller shows the result.
// Updates are immutable and copy only the path to what changed, so a `$state.raw` field sees a new
// object while untouched turns and items keep their identity (their rows are not re-rendered).
import type { Transcript, TranscriptDelta, TranscriptEvent, TranscriptItem, Turn } from '../types';

/** What is shown cannot take the event: the window must read the transcript again. */
export const REREAD = 'reread';

export type Applied = Transcript | typeof REREAD;

export function applyTranscriptEvent(transcript: Transcript, event: TranscriptEvent): Applied {
  // The read that produced this transcript already saw the event.
  if (event.seq <= transcript.seq) return transcript;
  // The stream skipped events (it lagged): something changed that the deltas here do not say.
  if (event.seq !== transcript.seq + 1) return REREAD;
  let next = transcript;
  for (const delta of event.deltas) {
    const applied = applyDelta(next, delta);
    if (applied === REREAD) return REREAD;
    next = applied;
  }
  return { ...next, seq: event.seq };
}

/**
 * Brings a transcript read up to date with the events that arrived while the read ran: those it
 * already includes are skipped, the rest applied in order.
 */
export function catchUp(transcript: Transcript, events: readonly TranscriptEvent[]): Applied {
  let next = transcript;
  for (const event of events) {
    const applied = applyTranscriptEvent(next, event);
    if (applied === REREAD) return REREAD;
    next = applied;
  }
  return next;
}

function applyDelta(t: Transcript, d: TranscriptDelta): Applied {
  // These two are not about one turn: they apply whatever part of the session is loaded.
  if (d.kind === 'call') return applyCall(t, d);
  if (d.kind === 'queued') return { ...t, queued: d.queued };
  const local = d.turn - (t.earlier_turns ?? 0);
  // A turn older than the loaded page is not shown; its question changes still come as `call` deltas.
  if (local < 0) return t;
  switch (d.kind) {
    case 'turn_opened':
      return local === t.turns.length ? { ...t, turns: [...t.turns, d.value] } : REREAD;
    case 'turn_closed':
      return updateTurn(t, local, (turn) => ({ ...turn, ended: d.ended }));
    case 'item_added':
      return updateTurn(t, local, (turn) =>
        d.item === turn.items.length ? { ...turn, items: [...turn.items, d.value] } : REREAD,
      );
    case 'result':
      return updateTurn(t, local, (turn) => {
        const item = turn.items[d.item];
        return item?.kind === 'tool_call' ? withItem(turn, d.item, { ...item, result: d.result }) : REREAD;
      });
  }
}

function updateTurn(t: Transcript, local: number, change: (turn: Turn) => Turn | typeof REREAD): Applied {
  const turn = t.turns[local];
  if (!turn) return REREAD;
  const changed = change(turn);
  if (changed === REREAD) return REREAD;
  const turns = t.turns.slice();
  turns[local] = changed;
  return { ...t, turns };
}

function withItem(turn: Turn, index: number, item: TranscriptItem): Turn {
  const items = turn.items.slice();
  items[index] = item;
  return { ...turn, items };
}

function applyCall(t: Transcript, d: Extract<TranscriptDelta, { kind: 'call' }>): Transcript {
  const turns = withCallState(t.turns, d);
  let questions = t.questions;
  if (d.question) {
    const record = d.question;
    const at = questions.findIndex((q) => q.call_id === record.call_id);
    questions = at < 0 ? [...questions, record] : questions.map((q, i) => (i === at ? record : q));
  }
  return turns === t.turns && questions === t.questions ? t : { ...t, turns, questions };
}

/** The call's row, when it is in a loaded turn (the first one with that id, as the shell pairs them). */
function withCallState(turns: Turn[], d: Extract<TranscriptDelta, { kind: 'call' }>): Turn[] {
  for (const [t, turn] of turns.entries()) {
    const i = turn.items.findIndex((item) => item.kind === 'tool_call' && item.call_id === d.call_id);
    const item = turn.items[i];
    if (item?.kind !== 'tool_call') continue;
    const next = turns.slice();
    next[t] = withItem(turn, i, { ...item, question: d.question, queued_answers: d.queued_answers });
    return next;
  }
  return turns;
}
