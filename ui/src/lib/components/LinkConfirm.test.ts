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
    expect(screen.getByTestId('link-host').textContent).toBe('example.com');
    expect(screen.queryByRole('status')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    await fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(onCancel).toHaveBeenCalledTimes(1);
    await fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    expect(onOpen).toHaveBeenCalledWith('https://example.com/x');
  });

  it('shows a look-alike host as the browser receives it, and opens exactly that', async () => {
    const onOpen = vi.fn();
    // The first letter is Cyrillic "а" (U+0430), not Latin "a".
    render(LinkConfirm, { url: 'https://\u0430pple.com/l\u00f6gin', onOpen, onCancel: () => {} });
    expect(screen.getByTestId('link-host').textContent).toBe('xn--pple-43d.com');
    expect(screen.getByRole('status').textContent).toContain('xn--pple-43d.com');
    const dialog = screen.getByRole('dialog');
    expect(dialog.textContent).toContain('https://xn--pple-43d.com/l%C3%B6gin');
    expect(dialog.textContent).not.toContain('\u0430pple');
    await fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    expect(onOpen).toHaveBeenCalledWith('https://xn--pple-43d.com/l%C3%B6gin');
  });
});
