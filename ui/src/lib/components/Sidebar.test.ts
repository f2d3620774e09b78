import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Sidebar from './Sidebar.svelte';
import type { SessionSummary } from '../types';

const now = new Date('2026-11-29T12:00:00Z');
const session = (over: Partial<SessionSummary>): SessionSummary => ({
  id: 's1',
  title: 'Pick a database',
  created_at: '2026-11-29T11:50:00Z',
  updated_at: '2026-11-29T11:55:00Z',
  open_questions: 0,
  continued_questions: 0,
  event_count: 1,
  ...over,
});

describe('Sidebar', () => {
  it('offers "Connect what you use" only while the first run has something left', async () => {
    const onFirstRun = vi.fn();
    const { rerender } = render(Sidebar, { sessions: [], activeId: null, now, onSelect: () => {}, onFirstRun, firstRunActive: true });
    const entry = screen.getByRole('button', { name: 'Connect what you use' });
    expect(entry.getAttribute('aria-current')).toBe('page');
    await fireEvent.click(entry);
    expect(onFirstRun).toHaveBeenCalled();
    await rerender({ onFirstRun: undefined });
    expect(screen.queryByRole('button', { name: 'Connect what you use' })).toBeNull();
  });

  it('shows the empty state when there are no sessions', () => {
    render(Sidebar, { sessions: [], activeId: null, now, onSelect: () => {} });
    expect(screen.getByText(/No sessions yet/)).toBeTruthy();
  });

  it('badges open plus continued questions and selects on click', async () => {
    const onSelect = vi.fn();
    render(Sidebar, {
      sessions: [session({ open_questions: 1, continued_questions: 2 }), session({ id: 's2', title: 'Quiet one' })],
      activeId: 's2',
      now,
      onSelect,
    });
    expect(screen.getByLabelText('3 questions waiting').textContent).toBe('3');
    expect(screen.queryAllByLabelText(/waiting/)).toHaveLength(1);
    expect(screen.getAllByText('5 min ago')).toHaveLength(2);
    await fireEvent.click(screen.getByText('Pick a database'));
    expect(onSelect).toHaveBeenCalledWith('s1');
    expect(screen.getByText('Quiet one').closest('button')?.getAttribute('aria-current')).toBe('page');
  });

  it('has New chat and Settings buttons and marks rows with their session id', async () => {
    const onNewChat = vi.fn();
    const onSettings = vi.fn();
    const onSelect = vi.fn();
    const { container } = render(Sidebar, { sessions: [session({})], activeId: null, now, onSelect, onNewChat, onSettings });
    await fireEvent.click(screen.getByTestId('new-chat'));
    await fireEvent.click(screen.getByTestId('settings-open'));
    expect(onNewChat).toHaveBeenCalledTimes(1);
    expect(onSettings).toHaveBeenCalledTimes(1);
    const row = container.querySelector('button[data-session-id="s1"]') as HTMLButtonElement;
    await fireEvent.click(row);
    expect(onSelect).toHaveBeenCalledWith('s1');
    expect(screen.getByRole('button', { name: 'New chat' })).toBe(screen.getByTestId('new-chat'));
  });
});
