import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import Markdown from './Markdown.svelte';

describe('Markdown', () => {
  it('renders untrusted HTML as visible text, never as elements', () => {
    const src = 'Hi <script>window.pwned=1</script> <img src=x onerror="window.pwned=2"> **bold**';
    const { container } = render(Markdown, { source: src, onLink: () => {} });
    expect(container.querySelector('script, img, [onerror]')).toBeNull();
    expect(container.textContent).toContain('<script>window.pwned=1</script>');
    expect(container.textContent).toContain('<img src=x onerror="window.pwned=2">');
    expect(container.querySelector('strong')?.textContent).toBe('bold');
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });

  it('renders safe links as buttons that report the target, and unsafe ones as plain text', async () => {
    const onLink = vi.fn();
    const { container } = render(Markdown, {
      source: '[site](https://example.com) and [evil](javascript:alert(1))',
      onLink,
    });
    expect(container.querySelector('a')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'site' }));
    expect(onLink).toHaveBeenCalledWith('https://example.com');
    expect(screen.queryByRole('button', { name: 'evil' })).toBeNull();
    expect(container.textContent).toContain('evil');
  });

  it('renders code blocks, lists and headings as their elements', () => {
    const { container } = render(Markdown, {
      source: '## Plan\n1. a\n2. b\n\n```\nlet x = "<b>";\n```',
      onLink: () => {},
    });
    expect(container.querySelector('h2')?.textContent).toBe('Plan');
    expect(container.querySelectorAll('ol > li')).toHaveLength(2);
    expect(container.querySelector('pre code')?.textContent).toBe('let x = "<b>";');
    expect(container.querySelector('b')).toBeNull();
  });
});
