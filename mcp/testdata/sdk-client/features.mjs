// The official MCP TypeScript SDK using prompts, resources and completions with an agent
// key (docs/mcp.md "Prompts", "Resources", "Completions"), started by
// mcp/features_sdk_test.go. It lists prompts, resources and templates, completes a
// company's name for account_brief and a company id for its template, gets the prompt,
// reads the record, and reads a record that does not exist; it prints one JSON line with
// what it saw. The SDK checks every answer against the protocol's schemas.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.env.MCP_URL);
const transport = new StreamableHTTPClientTransport(url, {
  requestInit: { headers: { Authorization: `Bearer ${process.env.AGENT_KEY}` } },
});
const client = new Client({ name: 'workspaced-sdk-features', version: '1.0.0' });

try {
  await client.connect(transport);
  const caps = client.getServerCapabilities() ?? {};
  const { prompts } = await client.listPrompts();
  const { resources } = await client.listResources();
  const { resourceTemplates } = await client.listResourceTemplates();
  const names = await client.complete({
    ref: { type: 'ref/prompt', name: 'account_brief' },
    argument: { name: 'company', value: process.env.PARTIAL },
  });
  const ids = await client.complete({
    ref: { type: 'ref/resource', uri: 'workspaced://companies/{id}' },
    argument: { name: 'id', value: process.env.PARTIAL },
  });
  const prompt = await client.getPrompt({ name: 'account_brief', arguments: { company: names.completion.values[0] } });
  const read = await client.readResource({ uri: `workspaced://companies/${ids.completion.values[0]}` });
  let missing = null;
  try {
    await client.readResource({ uri: 'workspaced://companies/00000000-0000-4000-8000-000000000000' });
  } catch (err) {
    missing = { code: err.code, data: err.data ?? null };
  }
  const line = JSON.stringify({
    protocol: transport.protocolVersion,
    capabilities: Object.keys(caps).sort(),
    prompts: prompts.map((p) => p.name),
    resources: resources.map((r) => r.uri),
    templates: resourceTemplates.map((t) => t.uriTemplate),
    names: names.completion.values,
    ids: ids.completion.values,
    promptText: prompt.messages[0]?.content?.text ?? '',
    contents: read.contents.map((c) => ({ uri: c.uri, mimeType: c.mimeType, text: c.text })),
    missing,
  }) + '\n';
  await new Promise((resolve) => process.stdout.write(line, resolve));
  await client.close();
  process.exit(0);
} catch (err) {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
}
