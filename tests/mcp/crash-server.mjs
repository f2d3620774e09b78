// An MCP server on the official SDK whose `crash` tool kills the server in the middle of the call,
// the way a server with a bug dies: no reply, its pipes close. `echo` answers, to show the next
// turn gets a fresh server; `hang` never answers; `env` lists which variables it was given.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'crashy', version: '1.0.0' });

server.registerTool(
  'crash',
  { description: 'Dies while it runs.', inputSchema: { reason: z.string() } },
  async () => {
    process.stderr.write('crashy: dying mid-call\n');
    process.exit(3);
  },
);

server.registerTool(
  'echo',
  { description: 'Returns its text with the server process id.', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text: `echo ${text} from ${process.pid}` }] }),
);

server.registerTool(
  'hang',
  { description: 'Never answers.', inputSchema: {} },
  () => new Promise(() => {}),
);

server.registerTool(
  'env',
  { description: 'Says which of some environment variables it was started with.', inputSchema: {} },
  async () => {
    const names = ['DEEPSEEK_API_KEY', 'OPENAI_API_KEY', 'PASSED_ON'];
    return { content: [{ type: 'text', text: names.filter((n) => process.env[n] !== undefined).join(',') || 'none' }] };
  },
);

await server.connect(new StdioServerTransport());
