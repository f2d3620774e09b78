import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import PlanReview from './PlanReview.svelte';
import { feedbackDraft, storedFeedback } from './planReview';
import type { Question } from './types';

// The review's question as the shell sends it: its id and its one approving option.
const review: Question = {
  id: 'plan',
  question: 'Approve this plan, or say what to change?',
  header: 'Plan',
  options: [{ label: 'Approve', description: 'Let the agent carry it out' }],
  multi_select: false,
};
const plan = '## Plan\n\n1. Write **notes.md**\n2. <img src=x onerror=alert(1)> stays text\n';

function setup(props: Record<string, unknown> = {}) {
  const onSubmit = vi.fn();
  const onClose = vi.fn();
  const onDraftChange = vi.fn();
  const onLink = vi.fn();
  const r = render(PlanReview, { plan, question: review, onSubmit, onClose, onDraftChange, onLink, ...props });
  return { ...r, onSubmit, onClose, onDraftChange };
}

const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

describe('PlanReview', () => {
  it('renders the plan as safe Markdown and approves with the shell’s own option', async () => {
    const { container, onSubmit } = setup();
    const shown = screen.getByTestId('plan');
    expect(shown.querySelector('h2')?.textContent).toBe('Plan');
    expect(shown.querySelector('strong')?.textContent).toBe('notes.md');
    expect(container.querySelector('img')).toBeNull();
    expect(shown.textContent).toContain('<img src=x onerror=alert(1)>');
    await fireEvent.click(button('Approve'));
    expect(onSubmit).toHaveBeenCalledWith({ answers: [{ id: 'plan', selected: ['Approve'] }] });
  });

  it('asks for changes with the typed feedback, never an empty one, and keeps it as a draft', async () => {
    const { onSubmit, onDraftChange } = setup();
    await fireEvent.click(button('Request changes'));
    expect(button('Send feedback').disabled).toBe(true);
    const area = screen.getByRole('textbox', { name: 'What should change' });
    await fireEvent.input(area, { target: { value: '  use a table ' } });
    expect(onDraftChange).toHaveBeenLastCalledWith(feedbackDraft('  use a table '));
    await fireEvent.click(button('Send feedback'));
    expect(onSubmit).toHaveBeenCalledWith({ answers: [{ id: 'plan', selected: [], custom: 'use a table' }] });
  });

  it('reopens with its feedback draft, and Escape closes', async () => {
    const { onClose } = setup({ storedDraft: feedbackDraft('shorter') });
    expect((screen.getByRole('textbox', { name: 'What should change' }) as HTMLTextAreaElement).value).toBe('shorter');
    // Escape in the box leaves the box and keeps the text; outside it, it closes the review.
    await fireEvent.keyDown(screen.getByRole('textbox', { name: 'What should change' }), { key: 'Escape' });
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.queryByRole('textbox', { name: 'What should change' })).toBeNull();
    await fireEvent.click(button('Request changes'));
    expect((screen.getByRole('textbox', { name: 'What should change' }) as HTMLTextAreaElement).value).toBe('shorter');
    await fireEvent.keyDown(screen.getByRole('region', { name: 'Plan review' }), { key: 'Escape' });
    expect(onClose).toHaveBeenCalled();
    expect(storedFeedback('{"items":[]}')).toBe('');
    expect(storedFeedback('not json')).toBe('');
  });

  it('says when the agent already went on, and locks while the answer is on its way', () => {
    setup({ continued: true, submit: { kind: 'submitting' } });
    expect(screen.getByText(/answer any time/)).toBeTruthy();
    expect(button('Approve').disabled).toBe(true);
    expect(button('Request changes').disabled).toBe(true);
  });
});

describe('verdictText', () => {
  it('names an approval and a change request with its feedback', async () => {
    const { verdictText } = await import('./planReview');
    expect(verdictText(review, { answers: [{ id: 'plan', selected: ['Approve'] }] })).toBe('Approved');
    expect(verdictText(review, { answers: [{ id: 'plan', selected: [], custom: 'use a table' }] })).toBe(
      'Changes requested: “use a table”',
    );
    expect(verdictText(review, { answers: [{ id: 'plan', selected: [] }] })).toBe('Changes requested');
  });
});
