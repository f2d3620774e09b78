// A small Markdown parser for untrusted model text. It produces a token tree that Svelte components
// render as elements and text nodes; no HTML is ever produced or interpreted: `<script>` in the source
// is just text. Supported: paragraphs, ATX headings, emphasis/strong, inline code, fenced code blocks,
// bullet and ordered lists, links (inline and bare URLs), blockquotes, thematic breaks.

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'strong'; children: Inline[] }
  | { kind: 'em'; children: Inline[] }
  | { kind: 'code'; text: string }
  /** `href` is null when the target is not an allowed scheme: the label then renders as plain text. */
  | { kind: 'link'; href: string | null; children: Inline[] }
  | { kind: 'br' };

export type Block =
  | { kind: 'paragraph'; children: Inline[] }
  | { kind: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { kind: 'code'; lang: string; text: string }
  | { kind: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { kind: 'quote'; children: Block[] }
  | { kind: 'rule' };

/** Nesting deeper than this (quotes in lists in quotes…) is kept as plain paragraphs. */
const MAX_DEPTH = 8;

const ALLOWED = /^(https?:\/\/|mailto:)/i;

/**
 * The link target if it may be offered for opening (http, https, mailto), else null. Control characters
 * and whitespace inside the URL disqualify it rather than being stripped (`java\nscript:` stays text).
 */
export function safeHref(raw: string): string | null {
  const url = raw.trim();
  if (url === '' || /[\s\u0000-\u001f\u007f]/.test(url) || !ALLOWED.test(url)) return null;
  if (/^mailto:/i.test(url)) return url.length > 7 ? url : null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- inline

const ESCAPABLE = /[\\`*_{}[\]()#+\-.!<>|~"']/;

function pushText(out: Inline[], text: string) {
  if (text === '') return;
  const last = out[out.length - 1];
  if (last && last.kind === 'text') last.text += text;
  else out.push({ kind: 'text', text });
}

/** Trailing punctuation is not part of a bare URL ("see https://a.b/c."). */
function trimUrl(url: string): string {
  let end = url.length;
  while (end > 0 && /[.,;:!?'")\]*_]/.test(url[end - 1] ?? '')) {
    // Keep a closing parenthesis that has its opening one inside the URL (wiki links).
    if (url[end - 1] === ')' && (url.slice(0, end).match(/\(/g)?.length ?? 0) >= (url.slice(0, end).match(/\)/g)?.length ?? 0)) break;
    end--;
  }
  return url.slice(0, end);
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}]/u.test(c);
}

export function parseInline(src: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  // Delimiters known to have no closer after some position: skipping them keeps a text full of lone
  // `*` or `[` linear instead of quadratic.
  const noCloser = new Map<string, number>();
  const find = (needle: string, from: number): number => {
    const known = noCloser.get(needle);
    if (known !== undefined && from >= known) return -1;
    const at = src.indexOf(needle, from);
    if (at < 0) noCloser.set(needle, Math.min(known ?? Infinity, from));
    return at;
  };

  let i = 0;
  let text = '';
  const flush = () => {
    pushText(out, text);
    text = '';
  };

  while (i < src.length) {
    const c = src[i] as string;

    if (c === '\\' && i + 1 < src.length) {
      const next = src[i + 1] as string;
      if (next === '\n') {
        flush();
        out.push({ kind: 'br' });
        i += 2;
        continue;
      }
      if (ESCAPABLE.test(next)) {
        text += next;
        i += 2;
        continue;
      }
    }

    if (c === '\n') {
      flush();
      out.push({ kind: 'br' });
      i++;
      continue;
    }

    if (c === '`') {
      let run = 1;
      while (src[i + run] === '`') run++;
      const fence = '`'.repeat(run);
      let close = find(fence, i + run);
      // A longer run is not a closer of this one.
      while (close >= 0 && src[close + run] === '`') {
        let j = close;
        while (src[j] === '`') j++;
        close = find(fence, j);
      }
      if (close >= 0) {
        flush();
        let code = src.slice(i + run, close).replace(/\n/g, ' ');
        if (code.length > 1 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
        out.push({ kind: 'code', text: code });
        i = close + run;
        continue;
      }
      text += fence;
      i += run;
      continue;
    }

    if (c === '[' && depth < MAX_DEPTH) {
      const link = matchLink(src, i, find);
      if (link) {
        flush();
        out.push({ kind: 'link', href: safeHref(link.url), children: parseInline(link.label, depth + 1) });
        i = link.end;
        continue;
      }
    }

    if (c === '<') {
      const m = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(src.slice(i, i + 2048));
      if (m && m[1]) {
        flush();
        out.push({ kind: 'link', href: safeHref(m[1]), children: [{ kind: 'text', text: m[1] }] });
        i += m[0].length;
        continue;
      }
    }

    if ((c === 'h' || c === 'H') && !isWordChar(src[i - 1])) {
      const m = /^https?:\/\/[^\s<>]+/i.exec(src.slice(i, i + 4096));
      if (m) {
        const url = trimUrl(m[0]);
        if (url.length > 'https://'.length - 1) {
          flush();
          out.push({ kind: 'link', href: safeHref(url), children: [{ kind: 'text', text: url }] });
          i += url.length;
          continue;
        }
      }
    }

    if ((c === '*' || c === '_') && depth < MAX_DEPTH) {
      const double = src[i + 1] === c;
      const delim = double ? c + c : c;
      const open = i + delim.length;
      const after = src[open];
      // An opener is followed by non-space; `_` inside a word (snake_case) is not emphasis.
      const canOpen = after !== undefined && !/\s/.test(after) && !(c === '_' && isWordChar(src[i - 1]));
      if (canOpen) {
        let close = find(delim, open);
        // Bounded: a flood of rejected candidates (`_a _b _c …`) must not make this quadratic.
        for (let tries = 0; close >= 0; tries++) {
          if (tries >= 32) {
            close = -1;
            break;
          }
          const before = src[close - 1];
          const tripleEdge = !double && src[close + 1] === c; // `*a **b***`: skip the strong closer
          const okClose =
            close > open &&
            before !== undefined &&
            !/\s/.test(before) &&
            !(c === '_' && isWordChar(src[close + delim.length])) &&
            !tripleEdge;
          if (okClose) break;
          close = find(delim, close + (tripleEdge ? 2 : 1));
        }
        if (close >= 0) {
          flush();
          const children = parseInline(src.slice(open, close), depth + 1);
          out.push(double ? { kind: 'strong', children } : { kind: 'em', children });
          i = close + delim.length;
          continue;
        }
      }
      text += delim;
      i += delim.length;
      continue;
    }

    text += c;
    i++;
  }
  flush();
  return out;
}

/** `[label](url "title")` starting at `start`, with balanced brackets in the label. */
function matchLink(
  src: string,
  start: number,
  find: (needle: string, from: number) => number,
): { label: string; url: string; end: number } | null {
  if (find('](', start) < 0) return null;
  let depth = 0;
  let j = start;
  // Labels are short; bounding the scan keeps a text full of unclosed `[` linear.
  const limit = Math.min(src.length, start + 1000);
  for (; j < limit; j++) {
    const ch = src[j];
    if (ch === '\\') {
      j++;
      continue;
    }
    if (ch === '\n' && src[j + 1] === '\n') return null;
    if (ch === '[') depth++;
    else if (ch === ']') {
      depth--;
      if (depth === 0) break;
    }
  }
  if (depth !== 0 || src[j + 1] !== '(') return null;
  const m = /^\(\s*<?([^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/.exec(
    src.slice(j + 1, j + 1 + 4096),
  );
  if (!m) return null;
  return { label: src.slice(start + 1, j), url: m[1] ?? '', end: j + 1 + m[0].length };
}

// ---------------------------------------------------------------- blocks

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)(.*)$/;

const isBlank = (line: string) => line.trim() === '';

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line);
}

function indentOf(line: string): number {
  const m = /^[ \t]*/.exec(line);
  return m ? m[0].replace(/\t/g, '    ').length : 0;
}

function dedent(line: string, n: number): string {
  let removed = 0;
  let k = 0;
  while (k < line.length && removed < n && (line[k] === ' ' || line[k] === '\t')) {
    removed += line[k] === '\t' ? 4 : 1;
    k++;
  }
  return line.slice(k);
}

export function parseBlocks(lines: string[], depth = 0): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (isBlank(line)) {
      i++;
      continue;
    }

    const fence = FENCE.exec(line);
    if (fence && fence[1]) {
      const marker = fence[1];
      const indent = indentOf(line);
      const body: string[] = [];
      i++;
      while (i < lines.length) {
        const l = lines[i] as string;
        const closing = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
        if (closing.test(l)) {
          i++;
          break;
        }
        body.push(dedent(l, indent));
        i++;
      }
      blocks.push({ kind: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }

    const heading = HEADING.exec(line);
    if (heading && heading[1]) {
      const level = heading[1].length as 1 | 2 | 3 | 4 | 5 | 6;
      blocks.push({ kind: 'heading', level, children: parseInline(heading[2] ?? '') });
      i++;
      continue;
    }

    if (RULE.test(line)) {
      blocks.push({ kind: 'rule' });
      i++;
      continue;
    }

    if (QUOTE.test(line) && depth < MAX_DEPTH) {
      const inner: string[] = [];
      while (i < lines.length) {
        const l = lines[i] as string;
        const q = QUOTE.exec(l);
        if (q) inner.push(q[1] ?? '');
        else if (!isBlank(l) && !startsBlock(l) && inner.length > 0 && !isBlank(inner[inner.length - 1] ?? '')) inner.push(l);
        else break;
        i++;
      }
      blocks.push({ kind: 'quote', children: parseBlocks(inner, depth + 1) });
      continue;
    }

    const item = LIST_ITEM.exec(line);
    if (item && depth < MAX_DEPTH) {
      const [list, next] = parseList(lines, i, depth);
      blocks.push(list);
      i = next;
      continue;
    }

    // Paragraph: until a blank line or the start of another block.
    const para: string[] = [line.trim()];
    i++;
    while (i < lines.length) {
      const l = lines[i] as string;
      if (isBlank(l) || startsBlock(l)) break;
      para.push(l.trim());
      i++;
    }
    blocks.push({ kind: 'paragraph', children: parseInline(para.join('\n')) });
  }
  return blocks;
}

function parseList(lines: string[], from: number, depth: number): [Block, number] {
  const first = LIST_ITEM.exec(lines[from] as string) as RegExpExecArray;
  const ordered = /\d/.test(first[2] ?? '');
  const bulletChar = ordered ? (first[2] ?? '.').slice(-1) : first[2];
  const start = ordered ? Number.parseInt(first[2] ?? '1', 10) : 1;
  const items: Block[][] = [];
  let i = from;

  while (i < lines.length) {
    const m = LIST_ITEM.exec(lines[i] as string);
    if (!m) break;
    const marker = m[2] ?? '';
    const sameKind = ordered ? /\d/.test(marker) && marker.slice(-1) === bulletChar : marker === bulletChar;
    if (!sameKind || indentOf(lines[i] as string) > 3) break;
    const contentIndent = (m[1] ?? '').length + marker.length + Math.min((m[3] ?? ' ').length || 1, 4);
    const body: string[] = [m[4] ?? ''];
    i++;
    while (i < lines.length) {
      const l = lines[i] as string;
      if (isBlank(l)) {
        // A blank line continues the item only if indented content follows.
        let k = i + 1;
        while (k < lines.length && isBlank(lines[k] as string)) k++;
        if (k < lines.length && indentOf(lines[k] as string) >= contentIndent) {
          for (; i < k; i++) body.push('');
          continue;
        }
        break;
      }
      if (indentOf(l) >= Math.min(contentIndent, 2)) {
        body.push(dedent(l, contentIndent));
        i++;
        continue;
      }
      if (startsBlock(l)) break;
      body.push(l.trim()); // lazy continuation of the item's paragraph
      i++;
    }
    items.push(parseBlocks(body, depth + 1));
    // Blank lines between items of the same list.
    let k = i;
    while (k < lines.length && isBlank(lines[k] as string)) k++;
    if (k > i && k < lines.length && LIST_ITEM.test(lines[k] as string)) i = k;
  }
  return [{ kind: 'list', ordered, start, items }, i];
}

/** Parses a whole message. */
export function parseMarkdown(src: string): Block[] {
  return parseBlocks(src.replace(/\r\n?/g, '\n').split('\n'));
}
