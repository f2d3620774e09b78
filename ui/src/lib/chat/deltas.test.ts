import { describe, expect, it } from 'vitest';
import { REREAD, type Applied, applyTranscriptEvent, catchUp } from './deltas';
import { assistantItem as assistant, record, transcriptEvent as ev, turn, userItem as user } from './fakes';
import type { QuestionRecord, Transcript, TranscriptDelta, TranscriptItem, Turn, TurnEnd } from '../types';

const call = (seq: number, callId: string): TranscriptItem => ({
  kind: 'tool_call',
  seq,
  at: '',
  call_id: callId,
  name: 'ask_user_question',
  arguments: {},
  result: null,
  question: null,
  queued_answers: null,
});
const okResult = (seq: number) => ({ seq, at: '', outcome: { status: 'ok' as const, content: 'done' } });
const batch = { answers: [{ id: 'db', selected: ['SQLite'] }] };

/** Frozen all the way down, so any update made in place throws. */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) frozen(v);
    Object.freeze(value);
  }
  return value;
}

function tx(turns: Turn[], over: Partial<Transcript> = {}): Transcript {
  return frozen({ title: 't', workspace: null, model: null, client: null, started_by: null, turns, earlier_turns: 0, questions: [], queued: [], seq: 10, ...over });
}

/** The applied transcript; fails the test on a re-read. */
function applied(r: Applied): Transcript {
  if (r === REREAD) throw new Error('expected the event to apply');
  return r;
}

describe('applyTranscriptEvent: order', () => {
  it('an event the transcript already includes changes nothing', () => {
    const t = tx([turn('t0')]);
    // Even deltas that would not fit are not looked at: the read that made `t` saw them applied.
    const late = ev(10, { kind: 'item_added', turn: 7, item: 3, value: user(10) });
    expect(applyTranscriptEvent(t, late)).toBe(t);
    expect(applyTranscriptEvent(t, ev(4))).toBe(t);
  });

  it('an event after a gap asks for a re-read', () => {
    const t = tx([turn('t0')]);
    expect(applyTranscriptEvent(t, ev(12, { kind: 'item_added', turn: 0, item: 0, value: user(12) }))).toBe(REREAD);
  });

  it('the next event moves seq on, also when it changes nothing shown', () => {
    const t = tx([turn('t0', [user(3)])]);
    const next = applied(applyTranscriptEvent(t, ev(11)));
    expect(next).not.toBe(t);
    expect(next.seq).toBe(11);
    expect(next.turns).toBe(t.turns);
  });

  it('the deltas of one event apply in order, and one that does not fit fails the whole event', () => {
    const t = tx([turn('t0', [], { reason: 'completed', seq: 9, at: '' })]);
    const next = applied(
      applyTranscriptEvent(
        t,
        ev(11, { kind: 'turn_opened', turn: 1, value: turn('t1') }, { kind: 'item_added', turn: 1, item: 0, value: user(11) }),
      ),
    );
    expect(next.turns.map((x) => x.items.length)).toEqual([0, 1]);
    const bad = ev(11, { kind: 'item_added', turn: 0, item: 0, value: user(11) }, { kind: 'item_added', turn: 0, item: 5, value: user(11) });
    expect(applyTranscriptEvent(t, bad)).toBe(REREAD);
  });
});

describe('applyTranscriptEvent: turns and items', () => {
  it('turn_opened appends the turn at the next local index, counting the turns left out', () => {
    const t = tx([turn('t10'), turn('t11')], { earlier_turns: 10 });
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'turn_opened', turn: 12, value: turn('t12') })));
    expect(next.turns.map((x) => x.turn_id)).toEqual(['t10', 't11', 't12']);
    expect(next.earlier_turns).toBe(10);
    // A turn that would leave a hole, or one already loaded, means the window's picture is off.
    expect(applyTranscriptEvent(t, ev(11, { kind: 'turn_opened', turn: 13, value: turn('t13') }))).toBe(REREAD);
    expect(applyTranscriptEvent(t, ev(11, { kind: 'turn_opened', turn: 11, value: turn('t11') }))).toBe(REREAD);
  });

  it('turn_opened without earlier turns starts at index 0', () => {
    const t = tx([]);
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'turn_opened', turn: 0, value: turn('first') })));
    expect(next.turns.map((x) => x.turn_id)).toEqual(['first']);
    expect(applyTranscriptEvent(t, ev(11, { kind: 'turn_opened', turn: 1, value: turn('x') }))).toBe(REREAD);
  });

  it('turn_closed ends that loaded turn; a turn not loaded yet is a re-read', () => {
    const t = tx([turn('t5', [user(1)]), turn('t6')], { earlier_turns: 5 });
    const ended: TurnEnd = { reason: 'completed', seq: 11, at: 'now' };
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'turn_closed', turn: 6, ended })));
    expect(next.turns[1]?.ended).toEqual(ended);
    expect(next.turns[0]).toBe(t.turns[0]);
    expect(applyTranscriptEvent(t, ev(11, { kind: 'turn_closed', turn: 7, ended }))).toBe(REREAD);
  });

  it('item_added appends to its turn; any other index is a re-read', () => {
    const t = tx([turn('t3', [user(1)]), turn('t4', [user(2), assistant(3)])], { earlier_turns: 3 });
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'item_added', turn: 4, item: 2, value: call(11, 'c1') })));
    expect(next.turns[1]?.items.map((i) => i.seq)).toEqual([2, 3, 11]);
    expect(next.turns[0]).toBe(t.turns[0]);
    expect(applyTranscriptEvent(t, ev(11, { kind: 'item_added', turn: 4, item: 1, value: user(11) }))).toBe(REREAD);
    expect(applyTranscriptEvent(t, ev(11, { kind: 'item_added', turn: 4, item: 3, value: user(11) }))).toBe(REREAD);
    expect(applyTranscriptEvent(t, ev(11, { kind: 'item_added', turn: 5, item: 0, value: user(11) }))).toBe(REREAD);
  });

  it('result fills in the tool call at (turn, item); anything else there is a re-read', () => {
    const t = tx([turn('t2', [assistant(1), call(2, 'c1')])], { earlier_turns: 2 });
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'result', turn: 2, item: 1, result: okResult(11) })));
    const row = next.turns[0]?.items[1];
    expect(row?.kind === 'tool_call' && row.result).toEqual(okResult(11));
    expect(next.turns[0]?.items[0]).toBe(t.turns[0]?.items[0]);
    expect(applyTranscriptEvent(t, ev(11, { kind: 'result', turn: 2, item: 0, result: okResult(11) }))).toBe(REREAD);
    expect(applyTranscriptEvent(t, ev(11, { kind: 'result', turn: 2, item: 2, result: okResult(11) }))).toBe(REREAD);
    expect(applyTranscriptEvent(t, ev(11, { kind: 'result', turn: 3, item: 0, result: okResult(11) }))).toBe(REREAD);
  });

  it('deltas about turns older than the loaded page are ignored', () => {
    const t = tx([turn('t4', [user(1)])], { earlier_turns: 4 });
    const older: TranscriptDelta[] = [
      { kind: 'turn_opened', turn: 2, value: turn('t2') },
      { kind: 'turn_closed', turn: 3, ended: { reason: 'completed', seq: 11, at: '' } },
      { kind: 'item_added', turn: 0, item: 99, value: user(11) },
      { kind: 'result', turn: 3, item: 0, result: okResult(11) },
    ];
    const next = applied(applyTranscriptEvent(t, ev(11, ...older)));
    expect(next.turns).toBe(t.turns);
    expect(next.seq).toBe(11);
  });
});

describe('applyTranscriptEvent: calls and the queue', () => {
  it('call updates the row of that call in whichever loaded turn holds it, and replaces its record', () => {
    const t = tx([turn('t0', [call(1, 'c1'), user(2)]), turn('t1', [call(3, 'c2')])], {
      questions: [record('c1', 'open'), record('c2', 'open')],
    });
    const settled: QuestionRecord = { ...record('c1', 'settled'), answers: batch, answered_late: true };
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'call', call_id: 'c1', question: settled, queued_answers: batch })));
    const row = next.turns[0]?.items[0];
    expect(row?.kind === 'tool_call' && [row.question, row.queued_answers]).toEqual([settled, batch]);
    expect(next.turns[0]?.items[1]).toBe(t.turns[0]?.items[1]);
    expect(next.turns[1]).toBe(t.turns[1]);
    // Replaced in place: the records stay in call order.
    expect(next.questions.map((q) => [q.call_id, q.state])).toEqual([
      ['c1', 'settled'],
      ['c2', 'open'],
    ]);
  });

  it('a call not loaded adds its new record; a null question leaves the records alone', () => {
    const t = tx([turn('t9', [call(1, 'c9')])], { earlier_turns: 9, questions: [record('c0', 'continued')] });
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'call', call_id: 'c1', question: record('c1', 'open'), queued_answers: null })));
    expect(next.turns).toBe(t.turns);
    expect(next.questions.map((q) => q.call_id)).toEqual(['c0', 'c1']);

    const withAnswer = applied(applyTranscriptEvent(t, ev(11, { kind: 'call', call_id: 'c9', question: null, queued_answers: batch })));
    expect(withAnswer.questions).toBe(t.questions);
    const row = withAnswer.turns[0]?.items[0];
    expect(row?.kind === 'tool_call' && row.queued_answers).toEqual(batch);
  });

  it('a call about a row that is not a tool call leaves it alone', () => {
    const late: TranscriptItem = { kind: 'late_answer', seq: 1, at: '', message_id: 'm', call_id: 'c1', questions: [], answers: null, raw_text: null };
    const t = tx([turn('t0', [late])]);
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'call', call_id: 'c1', question: null, queued_answers: batch })));
    expect(next.turns).toBe(t.turns);
  });

  it('queued replaces the messages waiting for the agent', () => {
    const t = tx([turn('t0')], { queued: [user(5)] });
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'queued', queued: [user(5), user(11)] })));
    expect(next.queued?.map((i) => i.seq)).toEqual([5, 11]);
    expect(applied(applyTranscriptEvent(next, ev(12, { kind: 'queued', queued: [] }))).queued).toEqual([]);
  });
});

describe('applyTranscriptEvent: immutability', () => {
  it('copies only the path to the change and leaves the input as it was', () => {
    const t = tx([turn('t0', [user(1)]), turn('t1', [call(2, 'c1')])], { questions: [record('c1', 'open')] });
    const before = JSON.stringify(t);
    const next = applied(applyTranscriptEvent(t, ev(11, { kind: 'result', turn: 1, item: 0, result: okResult(11) })));
    expect(JSON.stringify(t)).toBe(before);
    expect(next).not.toBe(t);
    expect(next.turns).not.toBe(t.turns);
    expect(next.turns[1]).not.toBe(t.turns[1]);
    expect(next.turns[1]?.items).not.toBe(t.turns[1]?.items);
    expect(next.turns[0]).toBe(t.turns[0]);
    expect(next.questions).toBe(t.questions);
  });
});

describe('catchUp', () => {
  it('skips the events a read includes and applies the ones after it', () => {
    const read = tx([turn('t0', [user(10)])]);
    const events = [ev(9), ev(10, { kind: 'item_added', turn: 0, item: 0, value: user(10) }), ev(11, { kind: 'item_added', turn: 0, item: 1, value: assistant(11) })];
    const next = applied(catchUp(read, events));
    expect(next.seq).toBe(11);
    expect(next.turns[0]?.items.map((i) => i.seq)).toEqual([10, 11]);
    expect(catchUp(read, [])).toBe(read);
  });

  it('asks for a re-read when the events do not follow the read', () => {
    const read = tx([turn('t0')]);
    expect(catchUp(read, [ev(11), ev(13)])).toBe(REREAD);
  });
});
