import { describe, expect, it } from 'vitest';
import { type Block, type Inline, parseInline, parseMarkdown, safeHref } from './parse';

/** All text of a token tree, for "nothing got lost" checks. */
function textOf(nodes: (Inline | Block)[]): string {
  return nodes
    .map((n) => {
      switch (n.kind) {
        case 'text':
        case 'code':
          return n.text;
        case 'br':
          return '\n';
        case 'strong':
        case 'em':
        case 'link':
        case 'paragraph':
        case 'heading':
        case 'quote':
          return textOf(n.children);
        case 'list':
          return n.items.map(textOf).join('\n');
        case 'rule':
          return '';
      }
    })
    .join('');
}

describe('parseInline', () => {
  it('reads emphasis, strong, inline code and escapes', () => {
    expect(parseInline('a *b* **c** `d*e*` \\*f\\*')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'em', children: [{ kind: 'text', text: 'b' }] },
      { kind: 'text', text: ' ' },
      { kind: 'strong', children: [{ kind: 'text', text: 'c' }] },
      { kind: 'text', text: ' ' },
      { kind: 'code', text: 'd*e*' },
      { kind: 'text', text: ' *f*' },
    ]);
  });

  it('leaves snake_case and lone delimiters as text', () => {
    expect(parseInline('snake_case_name and 2 * 3 * x')).toEqual([
      { kind: 'text', text: 'snake_case_name and 2 * 3 * x' },
    ]);
    expect(parseInline('**unclosed')).toEqual([{ kind: 'text', text: '**unclosed' }]);
  });

  it('makes http, https and mailto links clickable and nothing else', () => {
    const [ok] = parseInline('[docs](https://example.com/a?b=1)');
    expect(ok).toEqual({ kind: 'link', href: 'https://example.com/a?b=1', children: [{ kind: 'text', text: 'docs' }] });
    expect(parseInline('[mail](mailto:a@b.c)')[0]).toMatchObject({ kind: 'link', href: 'mailto:a@b.c' });
    for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<b>x</b>', 'file:///etc/passwd', 'vbscript:x', '/relative']) {
      const [node] = parseInline(`[click](${bad})`);
      if (node?.kind === 'link') expect(node.href).toBeNull();
      else expect(textOf(parseInline(`[click](${bad})`))).toContain('click');
    }
  });

  it('finds bare and angle-bracket URLs without trailing punctuation', () => {
    expect(parseInline('see https://a.example/x.')).toEqual([
      { kind: 'text', text: 'see ' },
      { kind: 'link', href: 'https://a.example/x', children: [{ kind: 'text', text: 'https://a.example/x' }] },
      { kind: 'text', text: '.' },
    ]);
    expect(parseInline('<http://b.example>')[0]).toMatchObject({ kind: 'link', href: 'http://b.example' });
  });

  it('keeps HTML as text: script tags and event handlers are never elements', () => {
    const src = '<script>alert(1)</script><img src=x onerror="alert(2)">';
    expect(parseInline(src)).toEqual([{ kind: 'text', text: src }]);
  });

  it('stays linear on a flood of unmatched delimiters', () => {
    const src = '[x _y *z '.repeat(20_000) + '`'.repeat(3) + '](';
    const t0 = performance.now();
    const nodes = parseInline(src);
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(textOf(nodes)).toBe(src);
  });
});

describe('safeHref', () => {
  it('accepts only well-formed http(s) and mailto targets', () => {
    expect(safeHref(' https://x.example/ ')).toBe('https://x.example/');
    expect(safeHref('mailto:')).toBeNull();
    expect(safeHref('java\nscript:alert(1)')).toBeNull();
    expect(safeHref('https://exa mple.com')).toBeNull();
    expect(safeHref('http://')).toBeNull();
  });
});

describe('parseMarkdown', () => {
  it('reads headings, paragraphs with line breaks, rules and quotes', () => {
    const blocks = parseMarkdown('# Title\nline one\nline two\n\n---\n> quoted *x*\n> more');
    expect(blocks).toEqual([
      { kind: 'heading', level: 1, children: [{ kind: 'text', text: 'Title' }] },
      { kind: 'paragraph', children: [{ kind: 'text', text: 'line one' }, { kind: 'br' }, { kind: 'text', text: 'line two' }] },
      { kind: 'rule' },
      {
        kind: 'quote',
        children: [
          {
            kind: 'paragraph',
            children: [
              { kind: 'text', text: 'quoted ' },
              { kind: 'em', children: [{ kind: 'text', text: 'x' }] },
              { kind: 'br' },
              { kind: 'text', text: 'more' },
            ],
          },
        ],
      },
    ]);
  });

  it('keeps fenced code verbatim, HTML included, and an unclosed fence runs to the end', () => {
    expect(parseMarkdown('```html\n<script>alert(1)</script>\n  *not em*\n```\nafter')).toEqual([
      { kind: 'code', lang: 'html', text: '<script>alert(1)</script>\n  *not em*' },
      { kind: 'paragraph', children: [{ kind: 'text', text: 'after' }] },
    ]);
    expect(parseMarkdown('~~~\nopen')).toEqual([{ kind: 'code', lang: '', text: 'open' }]);
  });

  it('reads bullet and ordered lists with nesting and continuation', () => {
    const blocks = parseMarkdown('- one\n- two\n  - nested\n- three\n  continued\n\n3. c\n4. d');
    expect(blocks).toHaveLength(2);
    const [bullets, numbers] = blocks as [Extract<Block, { kind: 'list' }>, Extract<Block, { kind: 'list' }>];
    expect(bullets).toMatchObject({ kind: 'list', ordered: false });
    expect(bullets.items).toHaveLength(3);
    expect(bullets.items[1]?.[1]).toMatchObject({ kind: 'list', ordered: false });
    expect(textOf(bullets.items[2] ?? [])).toBe('three\ncontinued');
    expect(numbers).toMatchObject({ kind: 'list', ordered: true, start: 3 });
    expect(numbers.items.map(textOf)).toEqual(['c', 'd']);
  });

  it('bounds nesting depth instead of recursing without limit', () => {
    const deep = '>'.repeat(5000) + ' hi';
    expect(textOf(parseMarkdown(deep))).toContain('hi');
    const nestedLinks = '['.repeat(3000) + 'x' + '](https://a.b)'.repeat(3000);
    expect(() => parseMarkdown(nestedLinks)).not.toThrow();
  });

  it('loses no text of a very long unbroken word', () => {
    const word = 'x'.repeat(10_000);
    expect(parseMarkdown(word)).toEqual([{ kind: 'paragraph', children: [{ kind: 'text', text: word }] }]);
  });
});
