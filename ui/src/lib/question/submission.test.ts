import { describe, expect, it } from 'vitest';
import {
  type SubmitState,
  accepted,
  acceptedVia,
  becameContinued,
  canEdit,
  clearError,
  errorText,
  initialSubmit,
  isBusy,
  rejected,
  replyDiscarded,
  resolved,
  submit,
} from './submission';

const err = (code: string, message = `${code} happened`) => ({ name: 'UserInteractionError', code, message });
const fg: SubmitState = { kind: 'submitting', path: 'foreground' };
const late: SubmitState = { kind: 'submitting', path: 'late' };

describe('submit', () => {
  it('starts editable, then goes busy on the foreground path for an open question', () => {
    expect(canEdit(initialSubmit)).toBe(true);
    const s = submit(initialSubmit, false);
    expect(s).toEqual(fg);
    expect(isBusy(s)).toBe(true);
    expect(canEdit(s)).toBe(false);
  });
  it('uses the late path for a continued question', () => {
    expect(submit(initialSubmit, true)).toEqual(late);
  });
  it('is ignored while busy or done', () => {
    expect(submit(fg, false)).toBe(fg);
    const done: SubmitState = { kind: 'done' };
    expect(submit(done, true)).toBe(done);
    const queued: SubmitState = { kind: 'queued' };
    expect(submit(queued, true)).toBe(queued);
  });
});

describe('host outcomes', () => {
  it('resolved → done, from any state', () => {
    for (const s of [initialSubmit, fg, late, { kind: 'queued' }, { kind: 'resubmit' }] as SubmitState[]) {
      expect(resolved(s)).toEqual({ kind: 'done' });
    }
    expect(canEdit({ kind: 'done' })).toBe(false);
    expect(isBusy({ kind: 'done' })).toBe(false);
  });
  it('a foreground answer stays busy after the call returns, until the resolved frame', () => {
    expect(accepted(fg)).toBe(fg);
  });
  it('a late answer is queued after the call returns, still busy', () => {
    const s = accepted(late);
    expect(s).toEqual({ kind: 'queued' });
    expect(isBusy(s)).toBe(true);
    expect(accepted(initialSubmit)).toBe(initialSubmit);
  });
});

describe('losing the race (resubmission)', () => {
  it('NOT_PENDING while the question became continued offers resubmission via the late path', () => {
    let s = rejected(fg, err('NOT_PENDING'), true);
    expect(s).toEqual({ kind: 'resubmit' });
    expect(canEdit(s)).toBe(true);
    s = submit(s, false); // the resubmit always goes the late path
    expect(s).toEqual(late);
    s = accepted(s);
    expect(s).toEqual({ kind: 'queued' });
    expect(resolved(s)).toEqual({ kind: 'done' });
  });
  it('NOT_PENDING alone keeps the draft busy until the projection decides', () => {
    let s = rejected(fg, err('NOT_PENDING'), false);
    expect(s).toBe(fg);
    s = becameContinued(s);
    expect(s).toEqual({ kind: 'resubmit' });
  });
  it('NOT_PENDING on the late path waits for the resolved frame (answered elsewhere)', () => {
    expect(rejected(late, err('NOT_PENDING'), true)).toBe(late);
  });
  it('becameContinued only affects a foreground submission in flight', () => {
    expect(becameContinued(initialSubmit)).toBe(initialSubmit);
    expect(becameContinued(late)).toBe(late);
  });
  it('a discarded late reply can be answered again', () => {
    expect(replyDiscarded({ kind: 'queued' })).toEqual({ kind: 'resubmit' });
    expect(replyDiscarded(fg)).toBe(fg);
  });
});

describe('refusals keep the draft editable with the message', () => {
  it('BAD_ANSWER on the foreground path', () => {
    const s = rejected(fg, err('BAD_ANSWER', 'question "db" has two answers'), false);
    expect(s).toEqual({ kind: 'editing', error: err('BAD_ANSWER', 'question "db" has two answers') });
    expect(canEdit(s)).toBe(true);
  });
  it('BAD_ANSWER or REPLY_QUEUED on the late path stays on the late path', () => {
    const s = rejected(late, err('REPLY_QUEUED'), true);
    expect(s).toEqual({ kind: 'resubmit', error: err('REPLY_QUEUED') });
    expect(submit(s, true)).toEqual(late);
  });
  it('transport failures read as HarkErrors', () => {
    expect(rejected(fg, 'command answer not found', false)).toEqual({
      kind: 'editing',
      error: { name: 'IpcError', code: 'IPC_ERROR', message: 'command answer not found' },
    });
  });
  it('rejections outside a submission are ignored', () => {
    expect(rejected(initialSubmit, err('BAD_ANSWER'), false)).toBe(initialSubmit);
  });
  it('clearError drops the message and keeps the state', () => {
    expect(clearError({ kind: 'editing', error: err('BAD_ANSWER') })).toEqual({ kind: 'editing' });
    expect(clearError({ kind: 'resubmit', error: err('REPLY_QUEUED') })).toEqual({ kind: 'resubmit' });
    expect(clearError(fg)).toBe(fg);
    expect(clearError(initialSubmit)).toBe(initialSubmit);
  });
});

describe('the host decides the path', () => {
  it('a foreground submit the host routed late is queued; a foreground one stays busy', () => {
    expect(acceptedVia(submit(initialSubmit, false), 'late')).toEqual({ kind: 'queued' });
    expect(acceptedVia(submit(initialSubmit, false), 'foreground')).toEqual({ kind: 'submitting', path: 'foreground' });
    expect(acceptedVia({ kind: 'done' }, 'late')).toEqual({ kind: 'done' });
  });

  it('REPLY_QUEUED reads as an answer already on its way; others show their message', () => {
    expect(errorText({ name: 'UserInteractionError', code: 'REPLY_QUEUED', message: 'queued' })).toBe(
      'An answer is already on its way',
    );
    expect(errorText({ name: 'UserInteractionError', code: 'BAD_ANSWER', message: 'db: unknown label' })).toBe(
      'db: unknown label',
    );
  });
});
