// A streamable-HTTP MCP server on the official SDK. It prints its URL on stdout, refuses requests
// without `Authorization: Bearer test-token` (so a test can see configured headers arrive), and has
// one tool, `whoami`, that returns the header it got.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const TOKEN = 'Bearer test-token';

function server() {
  const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
  mcp.registerTool('whoami', { description: 'Says which credentials it was called with.' }, async (extra) => ({
    content: [{ type: 'text', text: `called with ${extra.requestInfo?.headers?.authorization}` }],
  }));
  return mcp;
}

const http = createServer(async (req, res) => {
  if (req.headers.authorization !== TOKEN) {
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    return;
  }
  let body = '';
  for await (const chunk of req) body += chunk;
  // Stateless: a fresh server and transport per request, as the SDK's stateless example does.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const mcp = server();
  res.on('close', () => {
    transport.close();
    mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res, body ? JSON.parse(body) : undefined);
});

http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
});
