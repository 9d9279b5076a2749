// The official MCP TypeScript SDK with an agent key in the Authorization header (the
// "headers" form of docs/mcp.md), started by mcp/sdk_test.go. It calls the tools named in
// CALLS (a JSON array of {name, arguments}) and prints one JSON line with the tool names and
// each call's result, and the input schemas of the tools named in SCHEMAS (comma-separated)
// as listed. A call answered confirmation_required (the SDK cannot show the
// user a form) is called again with its token, as a model does once its user agreed, and
// its result says asked: true. The SDK validates every structuredContent against the tool's
// outputSchema, so a schema that does not describe real results fails here.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.env.MCP_URL);
const calls = JSON.parse(process.env.CALLS || '[]');
const transport = new StreamableHTTPClientTransport(url, {
  requestInit: { headers: { Authorization: `Bearer ${process.env.AGENT_KEY}` } },
});
const client = new Client({ name: 'workspaced-sdk-agent-key', version: '1.0.0' });

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const results = [];
  for (const c of calls) {
    let r = await client.callTool({ name: c.name, arguments: c.arguments ?? {} });
    let asked = false;
    if (r.isError && r.content?.[0]?.text?.includes('"confirmation_required"')) {
      asked = true;
      const { confirm } = JSON.parse(r.content[0].text);
      r = await client.callTool({ name: c.name, arguments: { ...(c.arguments ?? {}), confirm } });
    }
    results.push({ name: c.name, asked, isError: !!r.isError, structuredContent: r.structuredContent ?? null, text: r.content?.[0]?.text });
  }
  // Writes to a pipe are asynchronous: wait for the flush, or process.exit cuts the line short.
  const wanted = (process.env.SCHEMAS || '').split(',');
  const schemas = Object.fromEntries(tools.filter((t) => wanted.includes(t.name)).map((t) => [t.name, t.inputSchema]));
  const line = JSON.stringify({ protocol: transport.protocolVersion, tools: tools.map((t) => t.name), results, schemas }) + '\n';
  await new Promise((resolve) => process.stdout.write(line, resolve));
  await client.close();
  process.exit(0);
} catch (err) {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
}
