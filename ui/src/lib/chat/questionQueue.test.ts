import { describe, expect, it } from 'vitest';
import * as Q from './questionQueue';
import { cont, fg, pending, record, transcript } from './fakes';

describe('question queue', () => {
  it('opens the first foreground question by itself, never a continued one', () => {
    expect(Q.reconcile(Q.emptyQueue, pending({ continued: [cont('c0')] }), transcript()).open).toBeNull();
    const q = Q.reconcile(Q.emptyQueue, pending({ foreground: [fg('a'), fg('b')], continued: [cont('c0')] }), transcript());
    expect(q.open).toEqual({ callId: 'a', collapsed: false });
  });

  it('keeps one panel at a time and moves on to the next foreground question when one resolves', () => {
    let q = Q.reconcile(Q.emptyQueue, pending({ foreground: [fg('a'), fg('b')] }), transcript());
    q = Q.reconcile(q, pending({ foreground: [fg('b'), fg('a')] }), transcript());
    expect(q.open?.callId).toBe('a');
    q = Q.reconcile(q, pending({ foreground: [fg('b')] }), transcript([record('a', 'settled')]));
    expect(q.open?.callId).toBe('b');
  });

  it('keeps the panel in the gap between a foreground wait ending and its pending result being recorded', () => {
    const q = Q.reconcile(Q.emptyQueue, pending({ foreground: [fg('a', true)] }), transcript());
    const gap = Q.reconcile(q, pending(), transcript([record('a', 'open')]));
    expect(gap.open?.callId).toBe('a');
    const continued = Q.reconcile(gap, pending({ continued: [cont('a')] }), transcript([record('a', 'continued')]));
    expect(continued.open?.callId).toBe('a');
  });

  it('isResolved needs the pending list and the transcript to agree', () => {
    expect(Q.isResolved('a', pending({ continued: [cont('a')] }), transcript())).toBe(false);
    expect(Q.isResolved('a', pending(), transcript([record('a', 'open')]))).toBe(false);
    expect(Q.isResolved('a', pending(), transcript([record('a', 'settled')]))).toBe(true);
    expect(Q.isResolved('a', pending(), transcript())).toBe(true); // cancelled: the record is gone
  });

  it('a hidden question stays held (collapsed) and does not reopen by itself; the strip or the row reopens it', () => {
    let q = Q.reconcile(Q.emptyQueue, pending({ foreground: [fg('a'), fg('b')] }), transcript());
    q = Q.hide(q);
    expect(q.open).toEqual({ callId: 'a', collapsed: true });
    expect(Q.panelShown(q)).toBe(false);
    q = Q.reconcile(q, pending({ foreground: [fg('a'), fg('b')] }), transcript());
    expect(q.open).toEqual({ callId: 'a', collapsed: true });
    expect(Q.nextToAnswer(q, pending({ foreground: [fg('a'), fg('b')] }), transcript())).toBe('a');
    q = Q.openCall(q, 'a');
    expect(q).toEqual({ open: { callId: 'a', collapsed: false }, dismissed: [] });
  });

  it('a closed question never reopens by itself; the next foreground one does', () => {
    let q = Q.reconcile(Q.emptyQueue, pending({ foreground: [fg('a'), fg('b')] }), transcript());
    q = Q.close(q);
    expect(q.open).toBeNull();
    q = Q.reconcile(q, pending({ foreground: [fg('a'), fg('b')] }), transcript());
    expect(q.open?.callId).toBe('b');
  });

  it('counts waiting questions for the strip: not the one on screen, not one with a reply on its way', () => {
    const p = pending({ foreground: [fg('a')], continued: [cont('c1'), cont('c2', 'm1')] });
    const q = Q.reconcile(Q.emptyQueue, p, transcript());
    expect(Q.waiting(q, p, transcript()).map((a) => a.callId)).toEqual(['c1']);
    expect(Q.waiting(Q.hide(q), p, transcript()).map((a) => a.callId)).toEqual(['a', 'c1']);
    expect(Q.nextToAnswer(Q.close(q), p, transcript())).toBe('a');
  });

  it('the strip goes as soon as the transcript says a late answer settled the question or is queued for it', () => {
    // The pending list is read again only after the question event; the transcript's deltas come first.
    const p = pending({ continued: [cont('c1'), cont('c2')] });
    const q = Q.reconcile(Q.emptyQueue, p, transcript());
    const queued = { ...record('c2', 'continued'), reply_queued: 'm9' };
    const tx = transcript([record('c1', 'settled'), queued]);
    expect(Q.waiting(q, p, transcript([record('c1', 'continued'), record('c2', 'continued')])).length).toBe(2);
    expect(Q.waiting(q, p, tx)).toEqual([]);
    expect(Q.nextToAnswer(q, p, tx)).toBeNull();
  });

  it('lists foreground first; a call in both lists counts as foreground', () => {
    const list = Q.askedList(pending({ foreground: [fg('a', true)], continued: [cont('a'), cont('b')] }));
    expect(list.map((a) => [a.callId, a.kind])).toEqual([
      ['a', 'foreground'],
      ['b', 'continued'],
    ]);
    expect(list[0]?.wait?.timed).toBe(true);
  });
});
