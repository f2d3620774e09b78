import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import InboxView from './InboxView.svelte';
import { Inbox, type InboxApi } from '../inbox/inbox.svelte';
import type { InboxEntry } from '../types';
import type { Question } from '../question/types';

const db: Question = { id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'Postgres' }], multi_select: false };
const entry = (asker: string, call: string, text: string): InboxEntry =>
  ({
    asker,
    own_agent: asker === 'Hark',
    session_title: `${asker} · notes`,
    session_id: `s-${asker}`,
    call_id: call,
    intent: { kind: 'question' },
    questions: [{ ...db, question: text }],
    answerable: true,
    asked_at: null,
    phase: 'continued',
    reply_queued: null,
  }) as InboxEntry;

/** A host whose inbox loses each question once it is answered. */
function host(entries: InboxEntry[]) {
  let waiting = [...entries];
  const io = {
    inbox: vi.fn(async () => ({ ok: true as const, value: waiting })),
    submitAnswers: vi.fn(async (session: string, call: string) => {
      waiting = waiting.filter((e) => !(e.session_id === session && e.call_id === call));
      return { ok: true as const, value: { path: 'late' as const } };
    }),
    cancelQuestion: vi.fn(async () => ({ ok: true as const, value: undefined })),
  } satisfies InboxApi;
  return io;
}

describe('InboxView', () => {
  it('lists the questions grouped by asker, answers the selected one in place and moves to the next', async () => {
    const io = host([entry('Hark', 'h1', 'First?'), entry('Hark', 'h2', 'Second?'), entry('Codex', 'c1', 'Third?')]);
    const inbox = new Inbox(io, null);
    await inbox.refresh();
    render(InboxView, { inbox, now: new Date(), onOpenSession: vi.fn(), onLink: vi.fn() });
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['Hark', 'Codex']);
    expect(screen.getByTestId('inbox-count').textContent?.trim()).toBe('3 questions waiting');
    const current = () => document.querySelector('[aria-current="true"]')?.getAttribute('data-call-id');
    expect(current()).toBe('h1');

    // j moves down, k up, from anywhere but a text field.
    await fireEvent.keyDown(screen.getByRole('region', { name: 'Inbox' }), { key: 'j' });
    expect(current()).toBe('h2');
    await fireEvent.keyDown(screen.getByRole('region', { name: 'Inbox' }), { key: 'k' });
    expect(current()).toBe('h1');

    // The panel's own keys: 2 picks Postgres, Enter sends; the next question is shown.
    const panel = screen.getByRole('region', { name: 'Question' });
    await fireEvent.keyDown(panel, { key: '2' });
    await fireEvent.keyDown(panel, { key: 'Enter' });
    await vi.waitFor(() => expect(current()).toBe('h2'));
    expect(io.submitAnswers).toHaveBeenCalledWith('s-Hark', 'h1', { answers: [{ id: 'db', selected: ['Postgres'] }] }, null);
    await tick();
    expect(screen.getByTestId('inbox-count').textContent?.trim()).toBe('2 questions waiting');
  });

  it('says so when nothing waits', async () => {
    const inbox = new Inbox(host([]), null);
    await inbox.refresh();
    render(InboxView, { inbox, now: new Date(), onOpenSession: vi.fn(), onLink: vi.fn() });
    expect(screen.getByTestId('inbox-empty')).toBeTruthy();
  });
});
