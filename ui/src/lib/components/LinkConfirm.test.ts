import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import LinkConfirm from './LinkConfirm.svelte';

describe('LinkConfirm', () => {
  it('asks before opening, names the URL, and Escape cancels', async () => {
    const onOpen = vi.fn();
    const onCancel = vi.fn();
    render(LinkConfirm, { url: 'https://example.com/x', onOpen, onCancel });
    const dialog = screen.getByRole('dialog', { name: 'Open this link in your browser?' });
    expect(dialog.textContent).toContain('https://example.com/x');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    await fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(onCancel).toHaveBeenCalledTimes(1);
    await fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    expect(onOpen).toHaveBeenCalledTimes(1);
  });
});
