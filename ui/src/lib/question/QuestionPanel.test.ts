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
  const onHide = vi.fn();
  const onDraftChange = vi.fn();
  const onExpire = vi.fn();
  const r = render(QuestionPanel, {
    questions: three,
    clock,
    onSubmit,
    onClose,
    onHide,
    onDraftChange,
    onExpire,
    ...props,
  });
  return { ...r, onSubmit, onClose, onHide, onDraftChange, onExpire };
}

const panel = () => screen.getByRole('region', { name: 'Question' });
const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;
const submitButton = () => screen.getByRole('button', { name: /^(Submit|Resubmit)$/ }) as HTMLButtonElement;

describe('QuestionPanel: accessible by construction', () => {
  it('is a region named Question with radios for a single-select question, named by their labels', () => {
    setup();
    expect(panel().tagName).toBe('SECTION');
    const sqlite = screen.getByRole('radio', { name: 'SQLite' }) as HTMLInputElement;
    expect(screen.getByRole('radio', { name: 'Postgres' })).toBeTruthy();
    expect(sqlite.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(sqlite.getAttribute('aria-describedby') ?? '')?.textContent).toBe('embedded, zero setup');
    expect(screen.getByRole('group', { name: /Which database\?/ })).toBeTruthy();
    for (const name of ['Submit', 'Skip', 'Other', 'Close', 'Hide']) expect(button(name)).toBeTruthy();
  });

  it('shows the recommended option with a badge, selects nothing by itself, and returns its whole label', async () => {
    const pick = {
      id: 'db',
      question: 'Which database?',
      options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
      multi_select: false,
    };
    const { onSubmit } = setup({ questions: [pick] });
    const recommended = screen.getByRole('radio', { name: 'Postgres Recommended' }) as HTMLInputElement;
    expect(screen.getByText('Recommended').className).toContain('badge');
    expect(screen.queryByText(/\(Recommended\)/)).toBeNull();
    expect(recommended.checked).toBe(false);
    expect((screen.getByRole('radio', { name: 'SQLite' }) as HTMLInputElement).checked).toBe(false);
    await fireEvent.click(recommended);
    await fireEvent.click(submitButton());
    expect(onSubmit).toHaveBeenCalledWith({ answers: [{ id: 'db', selected: ['Postgres (Recommended)'] }] });
  });

  it('shows checkboxes for multi-select and toggles them', async () => {
    setup({ questions: [extras] });
    const auth = screen.getByRole('checkbox', { name: 'Auth' }) as HTMLInputElement;
    await fireEvent.click(auth);
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Queue' }));
    expect(auth.checked).toBe(true);
    await fireEvent.click(auth);
    expect(auth.checked).toBe(false);
    expect((screen.getByRole('checkbox', { name: 'Queue' }) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText('Which extras?')).toBeTruthy(); // no advance on multi-select
  });

  it('advances to the next item on a single-select choice', async () => {
    setup();
    expect(screen.getByText('Which database?')).toBeTruthy();
    await fireEvent.click(screen.getByRole('radio', { name: 'Postgres' }));
    expect(screen.getByText('Which extras?')).toBeTruthy();
    expect(screen.queryByRole('radio')).toBeNull();
  });

  it('"Other" reveals a focused free-text field labelled "Other answer" that overrides the choice', async () => {
    const { onSubmit } = setup({ questions: [db] });
    expect(screen.queryByRole('textbox', { name: 'Other answer' })).toBeNull();
    await fireEvent.click(button('Other'));
    const other = screen.getByRole('textbox', { name: 'Other answer' });
    expect(document.activeElement).toBe(other);
    await fireEvent.input(other, { target: { value: ' DuckDB ' } });
    expect((screen.getByRole('radio', { name: 'SQLite' }) as HTMLInputElement).checked).toBe(false);
    await fireEvent.click(submitButton());
    expect(onSubmit).toHaveBeenCalledWith({ answers: [{ id: 'db', selected: [], custom: 'DuckDB' }] });
  });

  it('a free-form question has a textarea labelled "Your answer"', () => {
    setup({ questions: [name] });
    expect(screen.getByRole('textbox', { name: 'Your answer' }).tagName).toBe('TEXTAREA');
    expect(screen.queryByRole('button', { name: 'Other' })).toBeNull();
  });
});

describe('QuestionPanel: answering', () => {
  it('answers everything by keyboard and submits the protocol batch on Enter, never during IME composition', async () => {
    const { onSubmit } = setup();
    await fireEvent.keyDown(panel(), { key: '2' }); // db → Postgres, advances
    await fireEvent.keyDown(panel(), { key: '1' }); // extras: toggle Auth
    await fireEvent.keyDown(panel(), { key: 'ArrowDown' });
    await fireEvent.keyDown(panel(), { key: 'ArrowDown' });
    expect(document.activeElement).toBe(screen.getByRole('checkbox', { name: 'Cache' }));
    await fireEvent.keyDown(panel(), { key: '2' }); // toggle Cache
    await fireEvent.keyDown(panel(), { key: 'Enter' });
    expect(onSubmit).not.toHaveBeenCalled(); // "name" still open
    await fireEvent.click(screen.getByRole('button', { name: /Question 3/ }));
    const box = screen.getByRole('textbox', { name: 'Your answer' });
    await fireEvent.input(box, { target: { value: ' hark-demo ' } });
    await fireEvent.keyDown(box, { key: 'Enter', isComposing: true });
    await fireEvent.keyDown(box, { key: 'Enter', keyCode: 229 });
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

  it('Skip marks only the current item and keeps earlier drafts; Submit enables once every item is settled', async () => {
    const { onSubmit } = setup({ questions: [db, name] });
    await fireEvent.click(screen.getByRole('radio', { name: 'SQLite' }));
    expect(submitButton().disabled).toBe(true);
    await fireEvent.click(button('Skip'));
    expect(submitButton().disabled).toBe(false);
    await fireEvent.click(screen.getByRole('button', { name: /Question 1/ }));
    expect((screen.getByRole('radio', { name: 'SQLite' }) as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(submitButton());
    expect(onSubmit).toHaveBeenCalledWith({
      answers: [
        { id: 'db', selected: ['SQLite'] },
        { id: 'name', selected: [] },
      ],
    });
  });

  it('Close and Escape call onClose; Hide calls onHide only', async () => {
    const { onClose, onHide } = setup();
    await fireEvent.keyDown(panel(), { key: 'Escape' });
    await fireEvent.click(button('Close'));
    expect(onClose).toHaveBeenCalledTimes(2);
    expect(onHide).not.toHaveBeenCalled();
    await fireEvent.click(button('Hide'));
    expect(onHide).toHaveBeenCalledTimes(1);
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it('Escape during an IME composition does not close', async () => {
    const { onClose } = setup({ questions: [name] });
    await fireEvent.keyDown(screen.getByRole('textbox', { name: 'Your answer' }), { key: 'Escape', isComposing: true });
    expect(onClose).not.toHaveBeenCalled();
  });

  it('restores a stored draft and reports every change for persistence', async () => {
    const stored = serialize(setCustom(choose(newDraft(three), 'SQLite'), 'Search'));
    const { onDraftChange } = setup({ storedDraft: stored });
    expect((screen.getByRole('textbox', { name: 'Other answer' }) as HTMLInputElement).value).toBe('Search');
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Queue' }));
    const last = onDraftChange.mock.lastCall?.[0] as string;
    expect(deserialize(three, last).items[1]?.selected).toEqual(['Queue']);
    expect(deserialize(three, last).frozen).toBe(false); // untimed: no countdown to freeze
  });
});

describe('QuestionPanel: countdown', () => {
  it('is a timer that counts down calmly, pauses while the empty answer area has focus, and expires', async () => {
    const { onExpire, rerender } = setup({ questions: [name], timed: true });
    expect(screen.queryByRole('timer')).toBeNull();
    await rerender({ remainingMs: 65_000 });
    const timer = screen.getByRole('timer');
    expect(timer.getAttribute('data-testid')).toBe('countdown');
    expect(timer.textContent).toBe('1:05 left');
    expect(timer.classList.contains('urgent')).toBe(false);
    const box = screen.getByRole('textbox', { name: 'Your answer' });
    t += 5_000;
    await fireEvent.focus(box);
    t += 100_000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(screen.getByRole('timer').textContent).toBe('1:00 left · paused while you read');
    await fireEvent.blur(box);
    t += 51_000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(screen.getByRole('timer').classList.contains('urgent')).toBe(true);
    t += 9_000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(onExpire).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('timer').textContent).toBe('The model carried on; you can still answer');
  });

  it('a new handshake (re-attach) restarts a live clock from the host time', async () => {
    const { rerender } = setup({ questions: [extras], timed: true, remainingMs: 30_000, handshakeId: 1 });
    t += 20_000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(screen.getByRole('timer').textContent).toBe('0:10 left');
    await rerender({ remainingMs: 25_000, handshakeId: 2 });
    expect(screen.getByRole('timer').textContent).toBe('0:25 left');
  });

  it('the first edit freezes the countdown and the frozen flag is persisted', async () => {
    const { onExpire, onDraftChange } = setup({ questions: [name], timed: true, remainingMs: 10_000 });
    await fireEvent.input(screen.getByRole('textbox', { name: 'Your answer' }), { target: { value: 'h' } });
    expect(screen.getByRole('timer').textContent).toBe('No countdown — take your time');
    expect(deserialize([name], onDraftChange.mock.lastCall?.[0] as string).frozen).toBe(true);
    t += 60_000;
    await vi.advanceTimersByTimeAsync(2000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('"Take your time" freezes without editing', async () => {
    const { onExpire } = setup({ questions: [extras], timed: true, remainingMs: 10_000 });
    await fireEvent.click(button('Take your time'));
    expect(screen.queryByRole('button', { name: 'Take your time' })).toBeNull();
    t += 60_000;
    await vi.advanceTimersByTimeAsync(2000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('a frozen stored draft starts frozen', async () => {
    const stored = JSON.stringify({ v: 1, index: 0, frozen: true, items: {} });
    const { onExpire } = setup({ questions: [name], timed: true, remainingMs: 1_000, storedDraft: stored });
    expect(screen.getByRole('timer').textContent).toBe('No countdown — take your time');
    t += 5_000;
    await vi.advanceTimersByTimeAsync(2000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('an untimed question shows no timer and no "Take your time"', () => {
    setup({ questions: [name], timed: false, remainingMs: 5_000 });
    expect(screen.queryByRole('timer')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Take your time' })).toBeNull();
  });
});

describe('QuestionPanel: submission states', () => {
  it('shows a BAD_ANSWER message inline and stays editable', () => {
    setup({
      questions: [db],
      submit: { kind: 'editing', error: { name: 'UserInteractionError', code: 'BAD_ANSWER', message: 'bad batch' } },
    });
    expect(screen.getByRole('alert').textContent).toBe('bad batch');
    expect((screen.getByRole('radio', { name: 'SQLite' }) as HTMLInputElement).disabled).toBe(false);
  });

  it('REPLY_QUEUED reads as an answer already on its way', () => {
    setup({
      questions: [db],
      submit: { kind: 'resubmit', error: { name: 'UserInteractionError', code: 'REPLY_QUEUED', message: 'x' } },
    });
    expect(screen.getByRole('alert').textContent).toBe('An answer is already on its way');
  });

  it('locks while submitting and offers "Resubmit" with the kept draft after losing the race', async () => {
    const stored = serialize(choose(newDraft([db]), 'SQLite'));
    const { rerender, onSubmit } = setup({
      questions: [db],
      storedDraft: stored,
      submit: { kind: 'submitting', path: 'foreground' },
    });
    expect(submitButton().disabled).toBe(true);
    expect((screen.getByRole('radio', { name: 'SQLite' }) as HTMLInputElement).matches(':disabled')).toBe(true);
    await rerender({ submit: { kind: 'resubmit' } });
    expect(screen.getByRole('status').textContent).toMatch(/draft is kept/);
    await fireEvent.click(button('Resubmit'));
    expect(onSubmit).toHaveBeenCalledWith({ answers: [{ id: 'db', selected: ['SQLite'] }] });
  });
});

describe('QuestionPanel: focus', () => {
  it('takes focus when it appears so keys work at once, without pausing the countdown', async () => {
    const { onSubmit } = setup({ questions: [db], timed: true, remainingMs: 30_000 });
    expect(document.activeElement).toBe(panel());
    expect(screen.getByRole('timer').textContent).toBe('0:30 left');
    await fireEvent.keyDown(document.activeElement as Element, { key: '1' });
    await fireEvent.keyDown(document.activeElement as Element, { key: 'Enter' });
    expect(onSubmit).toHaveBeenCalledWith({ answers: [{ id: 'db', selected: ['SQLite'] }] });
  });
});

describe('QuestionPanel: an MCP server form', () => {
  const form = { server: 'deploy', message: 'Release 1.2 <b>now</b>', url: null, closedIds: ['db'] };

  it('says which server asks, shows its message as text, offers Decline and no Other for a closed choice', async () => {
    const onDecline = vi.fn();
    setup({ questions: [db], form, onDecline });
    expect(screen.getByTestId('asker').textContent).toBe('MCP server \u201cdeploy\u201d asks');
    const message = screen.getByTestId('form-message');
    expect(message.textContent).toBe('Release 1.2 <b>now</b>');
    expect(message.querySelector('b')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Other' })).toBeNull();
    await fireEvent.click(button('Decline'));
    expect(onDecline).toHaveBeenCalledTimes(1);
  });

  it('shows a URL-mode link as text and opens it only through the parent (the link dialog)', async () => {
    const onLink = vi.fn();
    setup({ questions: [db], form: { ...form, url: 'https://example.com/sign-in' }, onLink });
    expect(screen.getByTestId('form-url').textContent).toBe('https://example.com/sign-in');
    expect(document.querySelector('a')).toBeNull();
    await fireEvent.click(button('Open link…'));
    expect(onLink).toHaveBeenCalledWith('https://example.com/sign-in');
  });

  it('keeps Other for an open question, and offers Decline only when the parent does', () => {
    setup({ questions: [db], form: { ...form, closedIds: [] } });
    expect(button('Other')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Decline' })).toBeNull();
  });

  it("an agent's permission request shows the agent, the tool and what it will do as plain text, with its answers", async () => {
    const approval = {
      kind: 'approval' as const,
      agent: 'Claude Code',
      tool: 'Bash',
      summary: 'run `npm publish`',
      detail: 'Publish\n$ npm publish <b>--tag</b> next',
      always: 'always allow `Bash(npm publish:*)` in this project',
    };
    const question = {
      id: 'approval',
      question: 'Allow Claude Code to run `npm publish`?',
      header: 'Approval',
      options: [
        { label: 'Allow once', description: 'Let it do this, this time' },
        { label: 'Always allow', description: 'Always allow `Bash(npm publish:*)` in this project' },
        { label: 'Deny', description: 'Or type a reason instead: the agent reads it' },
      ],
      multi_select: false,
    };
    const { onSubmit } = setup({ questions: [question], approval, agent: 'Claude Code' });
    expect(screen.getByTestId('asker').textContent).toBe('Claude Code asks permission to use Bash');
    const detail = screen.getByTestId('approval-detail');
    expect(detail.textContent).toBe('Publish\n$ npm publish <b>--tag</b> next');
    expect(detail.querySelector('b')).toBeNull();
    // Allow or Deny only: no Skip (it would deny without saying so), and Other is a reason to deny.
    expect(screen.queryByRole('button', { name: 'Skip' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Other' })).toBeNull();
    await fireEvent.click(screen.getByRole('radio', { name: 'Allow once' }));
    await fireEvent.click(submitButton());
    expect(onSubmit).toHaveBeenCalledWith({ answers: [{ id: 'approval', selected: ['Allow once'] }] });
  });

  it('a reason typed for an approval denies with it', async () => {
    const approval = { kind: 'approval' as const, agent: 'Codex', tool: 'Bash', summary: 'run `rm -rf build`', detail: '$ rm -rf build' };
    const question = {
      id: 'approval',
      question: 'Allow Codex to run `rm -rf build`?',
      header: 'Approval',
      options: [
        { label: 'Allow once', description: 'Let it do this, this time' },
        { label: 'Deny', description: 'Or type a reason instead: the agent reads it' },
      ],
      multi_select: false,
    };
    const { onSubmit } = setup({ questions: [question], approval, agent: 'Codex' });
    await fireEvent.click(button('Deny with a reason…'));
    const reason = screen.getByRole('textbox', { name: 'Reason to deny' }) as HTMLInputElement;
    expect(reason.placeholder).toBe('Why not? The agent reads your reason');
    await fireEvent.input(reason, { target: { value: 'keep the build' } });
    await fireEvent.click(submitButton());
    expect(onSubmit).toHaveBeenCalledWith({ answers: [{ id: 'approval', selected: [], custom: 'keep the build' }] });
  });
});
