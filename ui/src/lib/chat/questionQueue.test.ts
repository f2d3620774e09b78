import { describe, expect, it } from 'vitest';
import * as Q from './questionQueue';
import { cont, fg, listed } from './fakes';

describe('question queue', () => {
  it('opens the first answerable foreground question by itself, never a continued one', () => {
    expect(Q.reconcile(Q.emptyQueue, [cont('c0')]).open).toBeNull();
    const q = Q.reconcile(Q.emptyQueue, [fg('a'), fg('b'), cont('c0')]);
    expect(q.open).toEqual({ callId: 'a', collapsed: false });
  });

  it('keeps one panel at a time and moves on to the next foreground question when the host stops listing one', () => {
    let q = Q.reconcile(Q.emptyQueue, [fg('a'), fg('b')]);
    q = Q.reconcile(q, [fg('b'), fg('a')]);
    expect(q.open?.callId).toBe('a');
    q = Q.reconcile(q, [fg('b')]);
    expect(q.open?.callId).toBe('b');
  });

  it('keeps the panel while its question goes from the foreground to continued', () => {
    const q = Q.reconcile(Q.emptyQueue, [fg('a', true)]);
    const continued = Q.reconcile(q, [cont('a')]);
    expect(continued).toBe(q);
    expect(Q.reconcile(continued, []).open).toBeNull();
  });

  it('a hidden question stays held (collapsed) and does not reopen by itself; the strip or the row reopens it', () => {
    let q = Q.reconcile(Q.emptyQueue, [fg('a'), fg('b')]);
    q = Q.hide(q);
    expect(q.open).toEqual({ callId: 'a', collapsed: true });
    expect(Q.panelShown(q)).toBe(false);
    q = Q.reconcile(q, [fg('a'), fg('b')]);
    expect(q.open).toEqual({ callId: 'a', collapsed: true });
    expect(Q.nextToAnswer(q, [fg('a'), fg('b')])).toBe('a');
    q = Q.openCall(q, 'a');
    expect(q).toEqual({ open: { callId: 'a', collapsed: false }, dismissed: [] });
  });

  it('a closed question never reopens by itself; the next foreground one does', () => {
    let q = Q.reconcile(Q.emptyQueue, [fg('a'), fg('b')]);
    q = Q.close(q);
    expect(q.open).toBeNull();
    q = Q.reconcile(q, [fg('a'), fg('b')]);
    expect(q.open?.callId).toBe('b');
  });

  it('counts for the strip what the host says is answerable, in its order, less the one on screen', () => {
    const views = [fg('a'), cont('c1'), cont('c2', 'm1')];
    const q = Q.reconcile(Q.emptyQueue, views);
    expect(Q.waiting(q, views).map((v) => v.call_id)).toEqual(['c1']);
    expect(Q.waiting(Q.hide(q), views).map((v) => v.call_id)).toEqual(['a', 'c1']);
    expect(Q.nextToAnswer(Q.close(q), views)).toBe('a');
    expect(Q.nextToAnswer(Q.close(q), [cont('c2', 'm1')])).toBeNull();
  });

  it('keeps the newer of two lists by the host revision, so a late read cannot bring back an answered question', () => {
    const asked = listed([fg('a')], 4);
    const answered = listed([], 5);
    expect(Q.newer(Q.noQuestions, asked)).toBe(asked);
    expect(Q.newer(asked, answered)).toBe(answered);
    expect(Q.newer(answered, asked)).toBe(answered);
    const again = listed([], 5);
    expect(Q.newer(answered, again)).toBe(again);
  });
});
