import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import QuestionPanel from './QuestionPanel.svelte';
import { deserialize, serialize, setCustom, newDraft, choose } from './draft';
import { db, extras, name, three } from './fixtures';

let t = 1_000_000;
const clock = () => t;

beforeEach(() => {
  t = 1_000_000;
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function setup(props: Record<string, unknown> = {}) {
  const onSubmit = vi.fn();
  const onClose = vi.fn();
  const onDraftChange = vi.fn();
  const onExpire = vi.fn();
  const r = render(QuestionPanel, {
    questions: three,
    clock,
    onSubmit,
    onClose,
    onDraftChange,
    onExpire,
    ...props,
  });
  return { ...r, onSubmit, onClose, onDraftChange, onExpire };
}

const panel = () => screen.getByRole('region', { name: 'Question' });
const submitButton = () => screen.getByRole('button', { name: /Submit|Send again|Sending/ }) as HTMLButtonElement;

describe('QuestionPanel', () => {
  it('shows one question at a time and advances on a single-select choice', async () => {
    setup();
    expect(screen.getByText('Which database?')).toBeTruthy();
    expect(screen.getByText('embedded, zero setup')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: /Postgres/ }));
    expect(screen.getByText('Which extras?')).toBeTruthy();
  });

  it('answers everything by keyboard and submits the protocol batch on Enter', async () => {
    const { onSubmit } = setup();
    await fireEvent.keyDown(panel(), { key: '2' }); // db → Postgres, advances
    await fireEvent.keyDown(panel(), { key: '1' }); // extras: toggle Auth
    await fireEvent.keyDown(panel(), { key: 'ArrowDown' });
    await fireEvent.keyDown(panel(), { key: 'ArrowDown' });
    await fireEvent.keyDown(panel(), { key: ' ' }); // toggle Cache
    await fireEvent.keyDown(panel(), { key: 'Enter' });
    expect(onSubmit).not.toHaveBeenCalled(); // "name" still open
    await fireEvent.click(screen.getByRole('button', { name: /Question 3/ }));
    const box = screen.getByRole('textbox', { name: 'Your answer' });
    await fireEvent.input(box, { target: { value: ' hark-demo ' } });
    await fireEvent.keyDown(box, { key: 'Enter', isComposing: true });
    expect(onSubmit).not.toHaveBeenCalled();
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onSubmit).toHaveBeenCalledWith({
      answers: [
        { id: 'db', selected: ['Postgres'] },
        { id: 'extras', selected: ['Auth', 'Cache'] },
        { id: 'name', selected: [], custom: 'hark-demo' },
      ],
    });
  });

  it('Skip marks only the current item; Submit enables once every item is settled', async () => {
    const { onSubmit } = setup({ questions: [db, name] });
    await fireEvent.click(screen.getByRole('button', { name: /SQLite/ }));
    expect(submitButton().disabled).toBe(true);
    await fireEvent.click(screen.getByRole('button', { name: 'Skip' }));
    expect(submitButton().disabled).toBe(false);
    await fireEvent.click(submitButton());
    expect(onSubmit).toHaveBeenCalledWith({
      answers: [
        { id: 'db', selected: ['SQLite'] },
        { id: 'name', selected: [] },
      ],
    });
  });

  it('Escape and the close button cancel the call', async () => {
    const { onClose } = setup();
    await fireEvent.keyDown(panel(), { key: 'Escape' });
    await fireEvent.click(screen.getByRole('button', { name: 'Close question' }));
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it('restores a stored draft and reports every change for persistence', async () => {
    const stored = serialize(setCustom(choose(newDraft(three), 'SQLite'), 'Search'));
    const { onDraftChange } = setup({ storedDraft: stored });
    expect((screen.getByRole('textbox', { name: 'Other answer' }) as HTMLInputElement).value).toBe('Search');
    await fireEvent.click(screen.getByRole('button', { name: /Queue/ }));
    const last = onDraftChange.mock.lastCall?.[0] as string;
    expect(deserialize(three, last).items[1]?.selected).toEqual(['Queue']);
    expect(deserialize(three, last).frozen).toBe(false); // untimed: no countdown to freeze
  });

  it('counts down, pauses while the empty answer area has focus, and expires calmly', async () => {
    const { onExpire, rerender } = setup({ questions: [name], timed: true });
    expect(screen.queryByTestId('countdown')).toBeNull();
    await rerender({ remainingMs: 65_000 });
    expect(screen.getByTestId('countdown').textContent).toBe('1:05 to answer here');
    const box = screen.getByRole('textbox', { name: 'Your answer' });
    t += 5_000;
    await fireEvent.focus(box);
    t += 100_000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(screen.getByTestId('countdown').textContent).toBe('1:00 · paused while you read');
    await fireEvent.blur(box);
    t += 60_000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(onExpire).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('countdown').textContent).toBe('The model carried on; you can still answer');
  });

  it('the first edit freezes the countdown and the frozen flag is persisted', async () => {
    const { onExpire, onDraftChange } = setup({ questions: [name], timed: true, remainingMs: 10_000 });
    await fireEvent.input(screen.getByRole('textbox', { name: 'Your answer' }), { target: { value: 'h' } });
    expect(screen.getByTestId('countdown').textContent).toBe('Take your time');
    expect(deserialize([name], onDraftChange.mock.lastCall?.[0] as string).frozen).toBe(true);
    t += 60_000;
    await vi.advanceTimersByTimeAsync(2000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('"Take your time" freezes without editing', async () => {
    const { onExpire } = setup({ questions: [extras], timed: true, remainingMs: 10_000 });
    await fireEvent.click(screen.getByRole('button', { name: 'Take your time' }));
    expect(screen.queryByRole('button', { name: 'Take your time' })).toBeNull();
    t += 60_000;
    await vi.advanceTimersByTimeAsync(2000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('a frozen stored draft starts frozen', async () => {
    const stored = JSON.stringify({ v: 1, index: 0, frozen: true, items: {} });
    const { onExpire } = setup({ questions: [name], timed: true, remainingMs: 1_000, storedDraft: stored });
    expect(screen.getByTestId('countdown').textContent).toBe('Take your time');
    t += 5_000;
    await vi.advanceTimersByTimeAsync(2000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('shows a BAD_ANSWER message and stays editable', async () => {
    setup({
      questions: [db],
      submit: { kind: 'editing', error: { name: 'UserInteractionError', code: 'BAD_ANSWER', message: 'bad batch' } },
    });
    expect(screen.getByRole('alert').textContent).toBe('bad batch');
    expect((screen.getByRole('button', { name: /SQLite/ }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('locks while submitting and offers to send the kept draft again after losing the race', async () => {
    const stored = serialize(choose(newDraft([db]), 'SQLite'));
    const { rerender, onSubmit } = setup({
      questions: [db],
      storedDraft: stored,
      submit: { kind: 'submitting', path: 'foreground' },
    });
    expect(submitButton().disabled).toBe(true);
    expect((screen.getByRole('button', { name: /SQLite/ }) as HTMLButtonElement).disabled).toBe(true);
    await rerender({ submit: { kind: 'resubmit' } });
    expect(screen.getByRole('status').textContent).toMatch(/draft is kept/);
    await fireEvent.click(screen.getByRole('button', { name: 'Send again' }));
    expect(onSubmit).toHaveBeenCalledWith({ answers: [{ id: 'db', selected: ['SQLite'] }] });
  });
});
