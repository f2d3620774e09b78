import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Composer from './Composer.svelte';

describe('Composer', () => {
  it('sends the trimmed text on Enter and clears the box', async () => {
    const onSend = vi.fn();
    render(Composer, { onSend });
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: '  list the files  ' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onSend).toHaveBeenCalledWith('list the files');
    expect(box.value).toBe('');
  });

  it('does not send during an IME composition', async () => {
    const onSend = vi.fn();
    render(Composer, { onSend });
    const box = screen.getByRole('textbox', { name: 'Message' });
    await fireEvent.input(box, { target: { value: '你好' } });
    await fireEvent.keyDown(box, { key: 'Enter', isComposing: true });
    expect(onSend).not.toHaveBeenCalled();
  });

  it('keeps Send disabled for blank text', async () => {
    render(Composer, { onSend: () => {} });
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true);
  });

  it('is found by its test id, and offers Stop only while a turn runs', async () => {
    const onStop = vi.fn();
    const { rerender } = render(Composer, { onSend: () => {}, onStop });
    expect(screen.getByTestId('composer-input')).toBe(screen.getByRole('textbox', { name: 'Message' }));
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    await rerender({ busy: true });
    await fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(onStop).toHaveBeenCalledTimes(1);
  });

  it('Shift+Enter does not send, and a refused send keeps the text', async () => {
    const onSend = vi.fn(() => false);
    render(Composer, { onSend });
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: 'hello' } });
    await fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(onSend).toHaveBeenCalledWith('hello');
    expect(box.value).toBe('hello');
  });
});
