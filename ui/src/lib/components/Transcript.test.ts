import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Transcript from './Transcript.svelte';
import type { Transcript as Data, TranscriptItem, Turn } from '../types';

const turn = (id: string, items: TranscriptItem[]): Turn => ({ turn_id: id, started_at: '', ended: null, items });
const data = (turns: Turn[]): Data => ({ title: 't', workspace: null, model: null, turns, questions: [], seq: 0 });
const user = (seq: number, text: string): TranscriptItem => ({ kind: 'user_message', seq, at: '', message_id: `m${seq}`, text });
const assistant = (seq: number, text: string): TranscriptItem => ({ kind: 'assistant_message', seq, at: '', text, reasoning: null, tool_calls: [] });
const modelError: TranscriptItem = { kind: 'model_error', seq: 9, at: '', error: { name: 'ModelError', code: 'HTTP_401', message: 'Unauthorized' } };

describe('Transcript', () => {
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

  it('says when earlier turns were summarised or left out for the model', () => {
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
    expect(summarised?.textContent).toContain('We set up <script>x</script> the repo.');
    expect(summarised?.querySelector('script')).toBeNull();
    expect(left?.textContent).toContain('left out');
  });
});
