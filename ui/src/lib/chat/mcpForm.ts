// The MCP servers section of Settings as data: the rows the person edits, and what
// `save_mcp_servers` gets. Which names, commands and URLs are acceptable is the shell's to say (it
// refuses with the reason); only what the text fields themselves cannot express is checked here.
import type { EntryTransport, McpEntry, McpToolView, McpView, ServerStatus } from '../types';

export type Kind = EntryTransport['kind'];

export interface HeaderRow {
  name: string;
  /** Empty for a secret read back from the shell: its value stays in the keyring. */
  value: string;
  secret: boolean;
  /** Read back as a secret: the keyring holds its value, and an empty value keeps that one. */
  stored: boolean;
}

/**
 * One server as the editor shows it. Both transports' fields are kept, so switching Type back and
 * forth loses nothing typed; only those of `kind` are sent.
 */
export interface ServerRow {
  /** Stable within the list (for keyed rendering and focus), never sent. */
  id: number;
  name: string;
  disabled: boolean;
  /** Its read-only tools may run before a plan is approved (toggled in the list, like Enabled). */
  trusted: boolean;
  /** The tools the person turned off, by the server's names (toggled in the list, saved at once). */
  disabledTools: string[];
  /**
   * The tools the server listed when a session last started it, each as the shell decided (offered,
   * turned off, or left out past the model's limit); empty until then, and for a row not saved yet.
   */
  tools: McpToolView[];
  kind: Kind;
  command: string;
  /** One argument per line. */
  args: string;
  /** `KEY=value`, one per line. */
  env: string;
  url: string;
  headers: HeaderRow[];
  /** How the server last started, as the shell said; null for a server added here and not saved yet. */
  status: ServerStatus | null;
  /** Edited since the shell's view was read. */
  changed: boolean;
  /**
   * The entry as read. Arguments or environment whose text was not touched are sent as they were
   * read: a value holding a newline cannot be split back out of lines.
   */
  loaded: McpEntry | null;
}

export function argsText(args: readonly string[]): string {
  return args.join('\n');
}

/** One argument per line; surrounding spaces and blank lines are dropped. */
export function parseArgs(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export function envText(env: ReadonlyArray<readonly [string, string]>): string {
  return env.map(([k, v]) => `${k}=${v}`).join('\n');
}

/**
 * `KEY=value` lines, split at the first `=` (a value may hold more). Blank lines are ignored; a line
 * without `=`, without a name, or naming a variable again is a problem that names the line.
 */
export function parseEnv(text: string): Array<[string, string]> | string {
  const env: Array<[string, string]> = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const n = i + 1;
    const at = line.indexOf('=');
    if (at < 0) return `Environment line ${n} ("${line}") has no "=": write it as KEY=value.`;
    const key = line.slice(0, at).trim();
    if (key === '') return `Environment line ${n} has no variable name before "=".`;
    if (env.some(([k]) => k === key)) return `Environment line ${n} sets ${key} a second time.`;
    env.push([key, line.slice(at + 1).trim()]);
  }
  return env;
}

export function rowFrom(entry: McpEntry, status: ServerStatus | null, id: number, tools: McpToolView[] = []): ServerRow {
  const t = entry.transport;
  return {
    id,
    name: entry.name,
    disabled: entry.disabled,
    trusted: entry.trusted,
    disabledTools: [...entry.disabled_tools],
    tools: tools.map((tool) => ({ ...tool })),
    kind: t.kind,
    command: t.kind === 'stdio' ? t.command : '',
    args: t.kind === 'stdio' ? argsText(t.args) : '',
    env: t.kind === 'stdio' ? envText(t.env) : '',
    url: t.kind === 'http' ? t.url : '',
    headers: t.kind === 'http' ? t.headers.map((h) => ({ name: h.name, value: h.value, secret: h.secret, stored: h.secret })) : [],
    status,
    changed: false,
    loaded: entry,
  };
}

/** The rows of the shell's view, in its order. */
export function rowsFrom(view: McpView): ServerRow[] {
  return view.servers.map((s, i) => rowFrom(s.entry, s.status, i, s.tools));
}

/** A new server's row: a command to run, nothing filled in. */
export function emptyRow(id: number): ServerRow {
  return {
    id, name: '', disabled: false, trusted: false, disabledTools: [], tools: [], kind: 'stdio', command: '', args: '', env: '', url: '', headers: [],
    status: null, changed: true, loaded: null,
  };
}

/** An id no row of `rows` has. */
export function nextId(rows: readonly ServerRow[]): number {
  return rows.reduce((max, r) => Math.max(max, r.id), -1) + 1;
}

/** A copy to edit; the row itself stays as it was until the edit is applied. */
export function copyRow(row: ServerRow): ServerRow {
  return {
    ...row,
    disabledTools: [...row.disabledTools],
    tools: row.tools.map((t) => ({ ...t })),
    headers: row.headers.map((h) => ({ ...h })),
  };
}

export function emptyHeader(): HeaderRow {
  return { name: '', value: '', secret: false, stored: false };
}

/** Whether the editor changed anything that is sent (Enabled and Trusted are toggled in the list). */
export function sameEdit(a: ServerRow, b: ServerRow): boolean {
  const fields = (r: ServerRow) =>
    JSON.stringify([r.name, r.kind, r.command, r.args, r.env, r.url, r.headers.map((h) => [h.name, h.value, h.secret])]);
  return fields(a) === fields(b);
}

/** What the placeholder of a header's value says. */
export function headerPlaceholder(h: HeaderRow): string {
  if (!h.secret) return '';
  return h.stored ? 'stored in the keyring' : 'the secret, to store in the keyring';
}

/** The entry `row` stands for, or what keeps the text from being one. */
export function toEntry(row: ServerRow): McpEntry | string {
  const base = { name: row.name.trim(), disabled: row.disabled, trusted: row.trusted, disabled_tools: [...row.disabledTools] };
  if (row.kind === 'http') {
    // A header row left blank (Add header, then nothing typed) is no header.
    const headers = row.headers
      .filter((h) => h.name.trim() !== '' || h.value !== '')
      .map((h) => ({ name: h.name.trim(), value: h.value, secret: h.secret }));
    return { ...base, transport: { kind: 'http', url: row.url.trim(), headers } };
  }
  const read = row.loaded?.transport.kind === 'stdio' ? row.loaded.transport : null;
  const args = read && row.args === argsText(read.args) ? [...read.args] : parseArgs(row.args);
  let env: Array<[string, string]>;
  if (read && row.env === envText(read.env)) {
    env = read.env.map(([k, v]) => [k, v]);
  } else {
    const parsed = parseEnv(row.env);
    if (typeof parsed === 'string') return parsed;
    env = parsed;
  }
  return { ...base, transport: { kind: 'stdio', command: row.command.trim(), args, env } };
}

/** What `save_mcp_servers` gets for `rows`, or the first problem, naming its server. */
export function toEntries(rows: readonly ServerRow[]): McpEntry[] | string {
  const entries: McpEntry[] = [];
  for (const row of rows) {
    const entry = toEntry(row);
    if (typeof entry === 'string') return `${row.name.trim() || 'A new server'}: ${entry}`;
    entries.push(entry);
  }
  return entries;
}

/** The list's one-line description of a server: its command line, or its URL. */
export function summary(row: ServerRow): string {
  if (row.kind === 'http') return row.url.trim();
  const entry = toEntry(row);
  const args = typeof entry !== 'string' && entry.transport.kind === 'stdio' ? entry.transport.args : parseArgs(row.args);
  return [row.command.trim(), ...args].filter((s) => s !== '').join(' ');
}

/** `disabled` with `tool` turned on or off, in the order the file keeps them (sorted). */
export function withTool(disabled: readonly string[], tool: string, on: boolean): string[] {
  const rest = disabled.filter((name) => name !== tool);
  return on ? rest : [...rest, tool].sort();
}

/** The line above a server's tools: how many of those it listed the shell says are offered. */
export function toolsSummary(tools: readonly McpToolView[]): string {
  const offered = tools.filter((t) => t.offer === 'offered').length;
  const leftOut = tools.filter((t) => t.offer === 'left_out').length;
  const total = `${offered} of ${tools.length} ${tools.length === 1 ? 'tool' : 'tools'} offered`;
  return leftOut > 0 ? `${total} · ${leftOut} left out` : total;
}

/** How a server last started, in words. */
export function statusText(status: ServerStatus): string {
  switch (status.state) {
    case 'not_started':
      return "Not started yet (starts with a session's first turn)";
    case 'running':
      return `Running · ${status.tools} ${status.tools === 1 ? 'tool' : 'tools'}`;
    case 'failed':
      return `${status.error.message} (${status.error.code})`;
  }
}
