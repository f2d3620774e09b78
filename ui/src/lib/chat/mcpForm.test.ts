import { describe, expect, it } from 'vitest';
import {
  copyRow,
  emptyRow,
  headerPlaceholder,
  nextId,
  parseArgs,
  parseEnv,
  rowsFrom,
  sameEdit,
  statusText,
  summary,
  toEntries,
  toEntry,
  toolsSummary,
  withTool,
} from './mcpForm';
import type { McpEntry, McpView } from '../types';

const fs: McpEntry = {
  name: 'fs',
  disabled: false, trusted: false, disabled_tools: [],
  transport: {
    kind: 'stdio',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'],
    env: [['NODE_ENV', 'production'], ['TOKEN', '${TOKEN}']],
  },
};
const notion: McpEntry = {
  name: 'notion',
  disabled: true, trusted: false, disabled_tools: [],
  transport: {
    kind: 'http',
    url: 'https://mcp.notion.com/mcp',
    headers: [
      { name: 'Authorization', value: '', secret: true },
      { name: 'X-Team', value: 'docs', secret: false },
    ],
  },
};
const view: McpView = {
  path: '/home/me/.local/share/hark/mcp.json',
  servers: [
    { entry: fs, status: { state: 'running', tools: 3 }, tools: [] },
    { entry: notion, status: { state: 'not_started' }, tools: [] },
  ],
  error: null,
  tool_limit: 128,
};

describe('mcp form rows', () => {
  it('reads the view into rows: arguments one per line, environment as KEY=value lines, headers as rows', () => {
    const [a, b] = rowsFrom(view);
    expect(a).toMatchObject({
      id: 0,
      name: 'fs',
      disabled: false, trusted: false, disabledTools: [], tools: [],
      kind: 'stdio',
      command: 'npx',
      args: '-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes',
      env: 'NODE_ENV=production\nTOKEN=${TOKEN}',
      url: '',
      headers: [],
      status: { state: 'running', tools: 3 },
      changed: false,
    });
    expect(b).toMatchObject({
      id: 1,
      name: 'notion',
      disabled: true, trusted: false, disabledTools: [], tools: [],
      kind: 'http',
      url: 'https://mcp.notion.com/mcp',
      command: '',
      args: '',
      env: '',
      headers: [
        { name: 'Authorization', value: '', secret: true, stored: true },
        { name: 'X-Team', value: 'docs', secret: false, stored: false },
      ],
    });
  });

  it('rows read from the view convert back to the same entries', () => {
    expect(toEntries(rowsFrom(view))).toEqual([fs, notion]);
  });

  it('edited text converts to entries: trimmed fields, blank lines dropped, blank header rows left out', () => {
    const [a, b] = rowsFrom(view).map(copyRow);
    if (!a || !b) throw new Error('two rows');
    a.name = ' files ';
    a.command = ' node ';
    a.args = '  server.js \n\n--root\r\n/tmp\n';
    a.env = '\nA=1\n  B = two words \n\n';
    b.url = ' https://example.com/mcp ';
    b.headers.push({ name: '', value: '', secret: false, stored: false });
    b.headers.push({ name: ' X-New ', value: 'v ', secret: true, stored: false });
    expect(toEntries([a, b])).toEqual([
      {
        name: 'files',
        disabled: false, trusted: false, disabled_tools: [],
        transport: { kind: 'stdio', command: 'node', args: ['server.js', '--root', '/tmp'], env: [['A', '1'], ['B', 'two words']] },
      },
      {
        name: 'notion',
        disabled: true, trusted: false, disabled_tools: [],
        transport: {
          kind: 'http',
          url: 'https://example.com/mcp',
          headers: [
            { name: 'Authorization', value: '', secret: true },
            { name: 'X-Team', value: 'docs', secret: false },
            { name: 'X-New', value: 'v ', secret: true },
          ],
        },
      },
    ]);
  });

  it('sends only the chosen transport, and keeps the other one’s fields for switching back', () => {
    const row = copyRow(rowsFrom(view)[0]!);
    row.kind = 'http';
    row.url = 'https://x/mcp';
    expect(toEntry(row)).toEqual({ name: 'fs', disabled: false, trusted: false, disabled_tools: [], transport: { kind: 'http', url: 'https://x/mcp', headers: [] } });
    row.kind = 'stdio';
    expect(toEntry(row)).toEqual(fs);
  });

  it('untouched arguments and environment are sent exactly as read, even when a value holds a newline', () => {
    const odd: McpEntry = {
      name: 'odd',
      disabled: false, trusted: false, disabled_tools: [],
      transport: { kind: 'stdio', command: 'node', args: ['-e', 'a()\nb()', ' spaced '], env: [['SCRIPT', 'x\ny']] },
    };
    const [row] = rowsFrom({ path: 'p', servers: [{ entry: odd, status: { state: 'not_started' }, tools: [] }], error: null, tool_limit: 128 });
    expect(toEntry(row!)).toEqual(odd);
    // Once the text is edited, it is read as lines.
    row!.args = '-e\na()';
    expect(toEntry(row!)).toMatchObject({ transport: { args: ['-e', 'a()'], env: [['SCRIPT', 'x\ny']] } });
  });

  it('a new row is an empty stdio server with a fresh id', () => {
    const rows = rowsFrom(view);
    expect(nextId(rows)).toBe(2);
    expect(nextId([])).toBe(0);
    const row = emptyRow(nextId(rows));
    expect(row).toMatchObject({ id: 2, kind: 'stdio', status: null, changed: true, loaded: null });
    // The shell, not this form, says what a name or command must be.
    expect(toEntry(row)).toEqual({ name: '', disabled: false, trusted: false, disabled_tools: [], transport: { kind: 'stdio', command: '', args: [], env: [] } });
  });

  it('a copy edits without touching the row, and sameEdit tells whether anything sent changed', () => {
    const row = rowsFrom(view)[1]!;
    const draft = copyRow(row);
    expect(sameEdit(row, draft)).toBe(true);
    draft.disabled = !draft.disabled;
    expect(sameEdit(row, draft)).toBe(true);
    draft.headers[0]!.value = 'Bearer new';
    expect(row.headers[0]!.value).toBe('');
    expect(sameEdit(row, draft)).toBe(false);
  });

  it('a secret header says where its value is', () => {
    expect(headerPlaceholder({ name: 'A', value: '', secret: true, stored: true })).toBe('stored in the keyring');
    expect(headerPlaceholder({ name: 'A', value: '', secret: true, stored: false })).toBe('the secret, to store in the keyring');
    expect(headerPlaceholder({ name: 'A', value: '', secret: false, stored: false })).toBe('');
  });

  it('summarises a server as its command line or its URL', () => {
    const [a, b] = rowsFrom(view);
    expect(summary(a!)).toBe('npx -y @modelcontextprotocol/server-filesystem /home/me/notes');
    expect(summary(b!)).toBe('https://mcp.notion.com/mcp');
    expect(summary(emptyRow(0))).toBe('');
  });
});

describe('environment lines', () => {
  it('split at the first "=", blank lines ignored', () => {
    expect(parseEnv('')).toEqual([]);
    expect(parseEnv('\n  \n')).toEqual([]);
    expect(parseEnv('A=b=c\nEMPTY=\n\nURL=https://x/?q=1')).toEqual([
      ['A', 'b=c'],
      ['EMPTY', ''],
      ['URL', 'https://x/?q=1'],
    ]);
    expect(parseEnv('WIN=1\r\nDOS=2\r\n')).toEqual([['WIN', '1'], ['DOS', '2']]);
  });

  it('a line without "=" is a problem naming the line', () => {
    expect(parseEnv('A=1\n\nJUST_A_NAME\nB=2')).toBe('Environment line 3 ("JUST_A_NAME") has no "=": write it as KEY=value.');
  });

  it('a line without a name, or naming a variable again, is a problem naming the line', () => {
    expect(parseEnv('=value')).toBe('Environment line 1 has no variable name before "=".');
    expect(parseEnv('A=1\nA=2')).toBe('Environment line 2 sets A a second time.');
  });

  it('stops toEntries, naming the server', () => {
    const row = copyRow(rowsFrom(view)[0]!);
    row.env = 'OK=1\nbroken';
    expect(toEntry(row)).toBe('Environment line 2 ("broken") has no "=": write it as KEY=value.');
    expect(toEntries([row])).toBe('fs: Environment line 2 ("broken") has no "=": write it as KEY=value.');
    const unnamed = { ...emptyRow(5), env: 'x' };
    expect(toEntries([unnamed])).toMatch(/^A new server: Environment line 1/);
  });

  it('arguments: one per line, blank lines dropped', () => {
    expect(parseArgs('')).toEqual([]);
    expect(parseArgs('a\n\n  b c  \n')).toEqual(['a', 'b c']);
  });
});

describe('statusText', () => {
  it('says how the server last started', () => {
    expect(statusText({ state: 'not_started' })).toBe("Not started yet (starts with a session's first turn)");
    expect(statusText({ state: 'running', tools: 1 })).toBe('Running · 1 tool');
    expect(statusText({ state: 'running', tools: 0 })).toBe('Running · 0 tools');
    expect(statusText({ state: 'running', tools: 12 })).toBe('Running · 12 tools');
    expect(
      statusText({ state: 'failed', error: { name: 'McpError', code: 'MCP_START_FAILED', message: 'npx: not found' } }),
    ).toBe('npx: not found (MCP_START_FAILED)');
  });

  it('turns a tool off or on in the sorted list of those off, and counts what the shell offers', () => {
    expect(withTool(['b'], 'a', false)).toEqual(['a', 'b']);
    expect(withTool(['a', 'b'], 'a', false)).toEqual(['a', 'b']);
    expect(withTool(['a', 'b'], 'a', true)).toEqual(['b']);
    expect(toolsSummary([{ name: 'a', offer: 'offered' }])).toBe('1 of 1 tool offered');
    expect(
      toolsSummary([
        { name: 'a', offer: 'offered' },
        { name: 'b', offer: 'disabled' },
        { name: 'c', offer: 'left_out' },
        { name: 'd', offer: 'left_out' },
      ]),
    ).toBe('1 of 4 tools offered · 2 left out');
  });
});
