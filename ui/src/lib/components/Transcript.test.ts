import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Transcript from './Transcript.svelte';
import type { QuestionRecord, Transcript as Data, TranscriptItem, Turn } from '../types';

const turn = (id: string, items: TranscriptItem[]): Turn => ({ turn_id: id, run_id: null, started_at: '', ended: null, items });
const data = (turns: Turn[]): Data => ({ title: 't', workspace: null, model: null, client: null, started_by: null, turns, earlier_turns: 0, questions: [], queued: [], seq: 0 });
const user = (seq: number, text: string): TranscriptItem => ({ kind: 'user_message', seq, at: '', message_id: `m${seq}`, text });
const assistant = (seq: number, text: string): TranscriptItem => ({ kind: 'assistant_message', seq, at: '', text, reasoning: null, tool_calls: [] });
const modelError: TranscriptItem = { kind: 'model_error', seq: 9, at: '', error: { name: 'ModelError', code: 'HTTP_401', message: 'Unauthorized' } };
const tool = (seq: number, content: string): TranscriptItem => ({
  kind: 'tool_call', seq, at: '', call_id: `c${seq}`, name: 'list_files', arguments: { path: '.' },
  result: { seq: seq + 1, at: '', outcome: { status: 'ok', content } }, question: null, queued_answers: null,
});
const ask = (seq: number, state: QuestionRecord['state']): TranscriptItem => ({
  kind: 'tool_call', seq, at: '', call_id: `q${seq}`, name: 'ask_user_question', arguments: { questions: [] },
  result: null, queued_answers: null,
  question: { call_id: `q${seq}`, state, intent: { kind: 'question' }, parent_call_id: null, timed: true, questions: [], answers: null, answered_late: false, reply_queued: null, returned: false, asker: null, since: null, withdrawn: null, asked_at: null },
});
const turnsOf = (container: HTMLElement) => Array.from(container.querySelectorAll<HTMLDetailsElement>('details.turn'));
/** A turn of `n` items: the person's request, then assistant steps; `at` replaces items by position. */
const longTurn = (id: string, n: number, at: Record<number, TranscriptItem> = {}): Turn =>
  turn(id, Array.from({ length: n }, (_, i) => at[i] ?? (i === 0 ? user(0, 'go') : assistant(i * 2, `step ${i}`))));
/** The text of each item a turn renders, in order (the reveal button is not an item). */
const shownItemTexts = (details: HTMLDetailsElement) =>
  Array.from(details.querySelectorAll(':scope > .items > :not(button)')).map((el) => el.textContent?.trim() ?? '');
const steps = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `step ${from + i}`);
/** Clicks a `<details>`'s summary and waits for its toggle event to have been handled. */
async function toggle(details: HTMLDetailsElement) {
  const was = details.open;
  await fireEvent.click(details.querySelector(':scope > summary')!);
  expect(details.open).toBe(!was);
  await new Promise((r) => setTimeout(r, 0));
}

describe('Transcript', () => {
  it('says an MCP server was left out, or only some of its tools, as the error says', () => {
    const gone: TranscriptItem = { kind: 'mcp_unavailable', seq: 2, at: '', server: 'fs', error: { name: 'McpError', code: 'MCP_START_FAILED', message: 'npx: not found' } };
    const fewer: TranscriptItem = { kind: 'mcp_unavailable', seq: 3, at: '', server: 'many', error: { name: 'McpError', code: 'MCP_TOOLS_LEFT_OUT', message: 'left out: t128, t129' } };
    render(Transcript, { hasSession: true, transcript: data([turn('t1', [user(1, 'go'), gone, fewer])]) });
    const shown = screen.getAllByTestId('mcp-unavailable').map((el) => el.textContent ?? '');
    expect(shown[0]).toContain('“fs” is not available');
    expect(shown[1]).toContain('Some tools of the MCP server “many” were left out');
    expect(shown[1]).toContain('Choose which in Settings → MCP servers.');
    expect(shown[1]).not.toContain('not available');
    expect(shown[1]).toContain('t128, t129');
  });

  it('renders assistant Markdown as elements, model HTML as text, and the latest turn open', () => {
    const { container } = render(Transcript, {
      hasSession: true,
      transcript: data([
        turn('t1', [user(1, 'first'), assistant(2, 'old')]),
        turn('t2', [user(3, 'second'), assistant(4, '**bold** <img src=x onerror=alert(1)>')]),
      ]),
    });
    const turns = container.querySelectorAll('details.turn');
    expect((turns[0] as HTMLDetailsElement).open).toBe(false);
    expect((turns[1] as HTMLDetailsElement).open).toBe(true);
    expect(container.querySelector('strong')?.textContent).toBe('bold');
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror=alert(1)>');
  });

  it('shows a model error as a readable banner with Retry', async () => {
    const onRetry = vi.fn();
    render(Transcript, { hasSession: true, transcript: data([turn('t1', [user(1, 'hi'), modelError])]), onRetry });
    expect(screen.getByTestId('model-error').textContent).toContain('Unauthorized');
    await fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('offers no Retry while a turn runs', () => {
    render(Transcript, { hasSession: true, transcript: data([turn('t1', [user(1, 'hi'), modelError])]), busy: true, onRetry: () => {} });
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('streams assistant text into a live bubble as text', () => {
    render(Transcript, { hasSession: true, transcript: data([turn('t1', [user(1, 'hi')])]), streaming: 'Hel<b>lo', busy: true });
    expect(screen.getByTestId('streaming-text').textContent).toBe('Hel<b>lo');
  });

  it('asks before opening a link: the click only reports the URL', async () => {
    const onLink = vi.fn();
    render(Transcript, { hasSession: true, transcript: data([turn('t1', [assistant(1, 'see [docs](https://example.com)')])]), onLink });
    await fireEvent.click(screen.getByRole('button', { name: 'docs' }));
    expect(onLink).toHaveBeenCalledWith('https://example.com');
  });

  it('shows typed messages the agent has not read yet as queued, after the turns, as text', () => {
    const queued: TranscriptItem[] = [
      user(7, 'also <b>use</b> docker'),
      { kind: 'late_answer', seq: 8, at: '', message_id: 'm8', call_id: 'c1', questions: [], answers: null, raw_text: 'x' },
    ];
    const { container } = render(Transcript, {
      hasSession: true,
      transcript: { ...data([turn('t1', [user(1, 'hi'), assistant(2, 'on it')])]), queued },
    });
    const shown = screen.getAllByTestId('queued-message');
    expect(shown).toHaveLength(1);
    expect(shown[0]?.textContent).toContain('Queued');
    expect(shown[0]?.textContent).toContain('also <b>use</b> docker');
    expect(container.querySelector('.queued b')).toBeNull();
    const order = Array.from(container.querySelectorAll('.msg')).map((el) => el.textContent?.trim());
    expect(order[order.length - 1]).toContain('also <b>use</b> docker');
  });

  it('says when earlier turns were summarised or left out for the model', async () => {
    render(Transcript, {
      hasSession: true,
      transcript: data([
        turn('t1', [
          user(1, 'hi'),
          { kind: 'history_compacted', seq: 2, at: '', through_seq: 1, summary: 'We set up <script>x</script> the repo.' },
          { kind: 'history_compacted', seq: 3, at: '', through_seq: 2, summary: null },
        ]),
      ]),
    });
    const [summarised, left] = screen.getAllByTestId('history-compacted');
    expect(summarised?.textContent).toContain('Earlier turns were summarised to fit the model’s context');
    expect(summarised?.textContent).not.toContain('We set up');
    await toggle(summarised as HTMLDetailsElement);
    expect(summarised?.textContent).toContain('We set up <script>x</script> the repo.');
    expect(summarised?.querySelector('script')).toBeNull();
    expect(left?.textContent).toContain('left out');
  });

  it('renders a closed older turn as its summary alone until the person opens it', async () => {
    const { container } = render(Transcript, {
      hasSession: true,
      transcript: data([
        turn('t1', [user(1, 'first'), assistant(2, 'old **bold**'), tool(3, 'README.md')]),
        turn('t2', [user(5, 'second')]),
      ]),
    });
    const [older] = turnsOf(container);
    expect(older?.open).toBe(false);
    expect(older?.children).toHaveLength(1);
    expect(older?.querySelector(':scope > summary')?.textContent).toBe('first');
    expect(older?.querySelector('.items')).toBeNull();

    await toggle(older!);
    expect(older?.querySelector('.msg.user')?.textContent).toBe('first');
    expect(older?.querySelector('strong')?.textContent).toBe('bold');
    expect(older?.querySelector('details.tool')).not.toBeNull();
  });

  it('keeps an opened turn\'s items after the person closes it again', async () => {
    const { container } = render(Transcript, {
      hasSession: true,
      transcript: data([turn('t1', [user(1, 'first'), assistant(2, 'old')]), turn('t2', [user(3, 'second')])]),
    });
    const [older] = turnsOf(container);
    await toggle(older!);
    const items = older?.querySelector('.items');
    expect(items).not.toBeNull();
    await toggle(older!);
    expect(older?.open).toBe(false);
    expect(older?.querySelector('.items')).toBe(items);
    expect(older?.textContent).toContain('old');
  });

  it('renders the items of an older turn that starts open', () => {
    const { container } = render(Transcript, {
      hasSession: true,
      transcript: data([
        turn('t1', [user(1, 'first'), ask(2, 'continued')]),
        turn('t2', [user(3, 'second'), modelError]),
        turn('t3', [user(10, 'third'), assistant(11, 'newest')]),
      ]),
    });
    const [withQuestion, withError, last] = turnsOf(container);
    expect(withQuestion?.open).toBe(true);
    expect(withQuestion?.querySelector('[data-testid="question-row"]')).not.toBeNull();
    expect(withError?.open).toBe(true);
    expect(withError?.querySelector('[data-testid="model-error"]')).not.toBeNull();
    expect(last?.textContent).toContain('newest');
  });

  it('shows a turn\'s items once it starts open later, and keeps them when it no longer does', async () => {
    const older = turn('t1', [user(1, 'first'), ask(2, 'settled')]);
    const { container, rerender } = render(Transcript, {
      hasSession: true,
      transcript: data([older, turn('t2', [user(3, 'second')])]),
    });
    expect(turnsOf(container)[0]?.querySelector('.items')).toBeNull();

    // Its question continues: the turn opens and shows the row.
    await rerender({ transcript: data([turn('t1', [user(1, 'first'), ask(2, 'continued')]), turn('t2', [user(3, 'second')])]) });
    expect(turnsOf(container)[0]?.open).toBe(true);
    expect(turnsOf(container)[0]?.querySelector('[data-testid="question-row"]')).not.toBeNull();
    await new Promise((r) => setTimeout(r, 0));

    // The question settles: the turn closes again, but what it showed stays in place.
    await rerender({ transcript: data([older, turn('t2', [user(3, 'second')])]) });
    expect(turnsOf(container)[0]?.open).toBe(false);
    expect(turnsOf(container)[0]?.querySelector('[data-testid="question-row"]')?.getAttribute('data-state')).toBe('settled');

    // The last turn is open; once a newer turn arrives it closes and keeps its items.
    await rerender({ transcript: data([older, turn('t2', [user(3, 'second')]), turn('t3', [user(4, 'third')])]) });
    const [, second] = turnsOf(container);
    expect(second?.open).toBe(false);
    expect(second?.querySelector('.msg.user')?.textContent).toBe('second');
  });

  it('renders a tool row\'s result only once the row has been opened', async () => {
    const orphan: TranscriptItem = { kind: 'orphan_result', seq: 7, at: '', call_id: 'gone', outcome: { status: 'ok', content: 'orphan text' } };
    const { container } = render(Transcript, {
      hasSession: true,
      transcript: data([turn('t1', [user(1, 'hi'), tool(3, 'README.md\nsrc/'), orphan])]),
    });
    const rows = Array.from(container.querySelectorAll<HTMLDetailsElement>('details.tool'));
    expect(rows).toHaveLength(2);
    expect(rows[0]?.querySelector('.tool-name')?.textContent).toBe('list_files');
    expect(container.querySelector('.result')).toBeNull();

    await toggle(rows[0]!);
    expect(rows[0]?.querySelector('.result')?.textContent).toBe('README.md\nsrc/');
    expect(rows[1]?.querySelector('.result')).toBeNull();
    await toggle(rows[0]!);
    expect(rows[0]?.querySelector('.result')?.textContent).toBe('README.md\nsrc/');

    await toggle(rows[1]!);
    expect(rows[1]?.querySelector('.result')?.textContent).toBe('orphan text');
  });

  // The window is the newest 40 items; each click reveals 100 more (numbers written out here so these
  // tests read on their own).
  it('renders the opening message and the newest 40 items of a long turn, with a button that counts the rest', () => {
    const { container } = render(Transcript, { hasSession: true, transcript: data([longTurn('t1', 300)]) });
    const [only] = turnsOf(container);
    // What the person asked stays in view above the gap; the button stands where the hidden items are.
    expect(shownItemTexts(only!)).toEqual(['go', ...steps(260, 300)]);
    const button = screen.getByTestId('show-earlier-items');
    expect(button.textContent?.trim()).toBe('Show 259 earlier items');
    const children = Array.from(only!.querySelector(':scope > .items')!.children);
    expect(children[0]?.textContent?.trim()).toBe('go');
    expect(children[1]).toBe(button);
  });

  it('reveals 100 earlier items a click, then the rest, and then drops the button', async () => {
    const { container } = render(Transcript, { hasSession: true, transcript: data([longTurn('t1', 300)]) });
    const [only] = turnsOf(container);
    await fireEvent.click(screen.getByTestId('show-earlier-items'));
    expect(shownItemTexts(only!)).toEqual(['go', ...steps(160, 300)]);
    expect(screen.getByTestId('show-earlier-items').textContent?.trim()).toBe('Show 159 earlier items');
    await fireEvent.click(screen.getByTestId('show-earlier-items'));
    expect(shownItemTexts(only!)).toHaveLength(241);
    expect(screen.getByTestId('show-earlier-items').textContent?.trim()).toBe('Show 59 earlier items');
    await fireEvent.click(screen.getByTestId('show-earlier-items'));
    expect(shownItemTexts(only!)).toEqual(['go', ...steps(1, 300)]);
    expect(screen.queryByTestId('show-earlier-items')).toBeNull();
  });

  it('keeps an old waiting question and an old model error of a long turn in their place', () => {
    const error: TranscriptItem = { kind: 'model_error', seq: 20, at: '', error: { name: 'ModelError', code: 'HTTP_500', message: 'Overloaded' } };
    const { container } = render(Transcript, {
      hasSession: true,
      transcript: data([longTurn('t1', 300, { 5: ask(10, 'open'), 10: error, 12: ask(24, 'settled') })]),
    });
    const [only] = turnsOf(container);
    const row = only?.querySelector('[data-testid="question-row"]');
    expect(row?.getAttribute('data-state')).toBe('open');
    const banner = screen.getByTestId('model-error');
    expect(banner.textContent).toContain('Overloaded');
    // The opening message, the question, the error, then the newest 40; the settled question stays
    // behind the button with the rest.
    const items = Array.from(only!.querySelectorAll(':scope > .items > :not(button)'));
    expect(items).toHaveLength(43);
    expect(items[0]?.textContent?.trim()).toBe('go');
    expect(items[1]).toBe(row);
    expect(items[2]).toBe(banner);
    expect(shownItemTexts(only!).slice(3)).toEqual(steps(260, 300));
    expect(screen.getByTestId('show-earlier-items').textContent?.trim()).toBe('Show 257 earlier items');
  });

  it('renders a turn of up to 40 items whole, without a button', async () => {
    const { container } = render(Transcript, {
      hasSession: true,
      transcript: data([turn('t1', [user(1000, 'before'), assistant(1001, 'short')]), longTurn('t2', 40)]),
    });
    const [short, full] = turnsOf(container);
    expect(full?.open).toBe(true);
    expect(shownItemTexts(full!)).toEqual(['go', ...steps(1, 40)]);
    await toggle(short!);
    expect(shownItemTexts(short!)).toEqual(['before', 'short']);
    expect(screen.queryByTestId('show-earlier-items')).toBeNull();
  });

  it('slides the window over items arriving live, but keeps what the person revealed', async () => {
    const { container, rerender } = render(Transcript, { hasSession: true, transcript: data([longTurn('t1', 300)]) });
    await rerender({ transcript: data([longTurn('t1', 301)]) });
    expect(shownItemTexts(turnsOf(container)[0]!)).toEqual(['go', ...steps(261, 301)]);
    expect(screen.getByTestId('show-earlier-items').textContent?.trim()).toBe('Show 260 earlier items');

    await fireEvent.click(screen.getByTestId('show-earlier-items'));
    expect(shownItemTexts(turnsOf(container)[0]!)).toEqual(['go', ...steps(161, 301)]);
    await rerender({ transcript: data([longTurn('t1', 303)]) });
    expect(shownItemTexts(turnsOf(container)[0]!)).toEqual(['go', ...steps(161, 303)]);
    expect(screen.getByTestId('show-earlier-items').textContent?.trim()).toBe('Show 160 earlier items');
  });

  it('keeps the DOM small for a transcript of many closed turns', () => {
    const count = 100;
    const turns = Array.from({ length: count }, (_, i) =>
      turn(`t${i}`, [user(i * 10, `ask ${i}`), assistant(i * 10 + 1, `**done** ${i}\n\n- a\n- b`), tool(i * 10 + 2, 'x'.repeat(200))]),
    );
    const { container } = render(Transcript, { hasSession: true, transcript: data(turns) });
    // A closed turn is three elements (details, summary, title); the open last one adds a few dozen.
    expect(container.querySelectorAll('*').length).toBeLessThan(count * 3 + 40);
  });
});

describe('Transcript: an MCP server form', () => {
  const questions = [
    { id: 'env', question: 'Where to?', options: [{ label: 'Staging' }, { label: 'Production' }], multi_select: false },
    { id: 'notify', question: 'Tell the team?', options: [{ label: 'Yes' }, { label: 'No' }], multi_select: false },
  ];
  const form = (outcome: Extract<TranscriptItem, { kind: 'mcp_form' }>['outcome']): TranscriptItem => ({
    kind: 'mcp_form', seq: 3, at: '', server: 'deploy', message: 'Release <b>1.2</b>', questions, outcome,
  });

  it('shows who asked, why, and the answers given, as text', () => {
    const outcome = { action: 'accept' as const, answers: { answers: [{ id: 'env', selected: ['Production'] }, { id: 'notify', selected: [] }] } };
    render(Transcript, { hasSession: true, transcript: data([turn('t1', [user(1, 'go'), form(outcome)])]) });
    const row = screen.getByTestId('mcp-form');
    expect(row.textContent).toContain('MCP server “deploy” asked: Release <b>1.2</b>');
    expect(row.querySelector('b')).toBeNull();
    expect(Array.from(row.querySelectorAll('dd')).map((d) => d.textContent)).toEqual(['Production', 'Skipped']);
    expect(row.textContent).toContain('Where to?');
    expect(row.textContent).toContain('Production');
    expect(row.textContent).toContain('Skipped');
  });

  it('says when the person declined or closed it', () => {
    const { unmount } = render(Transcript, { hasSession: true, transcript: data([turn('t1', [user(1, 'go'), form({ action: 'decline' })])]) });
    expect(screen.getByTestId('mcp-form').textContent).toContain('You declined.');
    unmount();
    render(Transcript, { hasSession: true, transcript: data([turn('t1', [user(1, 'go'), form({ action: 'cancel' })])]) });
    expect(screen.getByTestId('mcp-form').textContent).toContain('Closed without an answer.');
  });
});
