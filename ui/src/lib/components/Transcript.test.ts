import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Transcript from './Transcript.svelte';
import type { Transcript as Data, TranscriptItem, Turn } from '../types';

const turn = (id: string, items: TranscriptItem[]): Turn => ({ turn_id: id, started_at: '', ended: null, items });
const data = (turns: Turn[]): Data => ({ title: 't', workspace: null, model: null, turns, questions: [] });
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
});
