// A headless MCP client on the official TypeScript SDK, started by mcp/sdk_e2e_test.go.
//
// It connects to MCP_URL with no credential, follows the 401 through RFC 9728 and RFC 8414
// discovery, registers dynamically with a loopback redirect, completes authorization by
// playing the browser (login and consent forms, with fetch and a cookie jar), lists tools,
// calls me and list_deals, then asks the Go test to expire its access token and recovers
// through the refresh grant without a second login.
//
// Protocol with the Go test: one JSON object per line on stdout ({"event": ...}); the test
// answers "expired" on stdin once the token is expired. Diagnostics go to stderr.

import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const MCP_URL = new URL(need('MCP_URL'));
const EMAIL = need('LOGIN_EMAIL');
const PASSWORD = need('LOGIN_PASSWORD');
// Loopback redirect (RFC 8252 section 7.3); nothing listens there: the browser stand-in
// stops at the redirect and reads the code from its Location.
const REDIRECT = 'http://127.0.0.1:7777/callback';

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

function emit(event, fields = {}) {
  process.stdout.write(JSON.stringify({ event, ...fields }) + '\n');
}

const stdinLines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
async function waitFor(line) {
  const { value, done } = await stdinLines.next();
  if (done || value.trim() !== line) throw new Error(`expected "${line}" on stdin, got ${done ? 'EOF' : value}`);
}

// An in-memory OAuthClientProvider, as a desktop client would keep in its settings.
class Provider {
  constructor() {
    this.authorizations = 0;
    this.savedTokens = [];
    this._client = undefined;
    this._tokens = undefined;
    this._verifier = undefined;
    this._state = undefined;
    this.code = undefined;
  }
  get redirectUrl() { return REDIRECT; }
  get clientMetadata() {
    return {
      client_name: 'workspaced SDK e2e',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    this._state = crypto.randomUUID();
    return this._state;
  }
  clientInformation() { return this._client; }
  saveClientInformation(info) { this._client = info; }
  tokens() { return this._tokens; }
  saveTokens(tokens) { this._tokens = tokens; this.savedTokens.push(tokens); }
  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() { return this._verifier; }
  async redirectToAuthorization(url) {
    this.authorizations++;
    const back = await browse(url);
    if (back.searchParams.get('state') !== this._state) {
      throw new Error(`state ${back.searchParams.get('state')} does not match ${this._state} (RFC 6749 section 10.12)`);
    }
    if (back.searchParams.get('error')) throw new Error(`authorization failed: ${back}`);
    this.code = back.searchParams.get('code');
    if (!this.code) throw new Error(`no code in ${back}`);
  }
}

// browse plays the user's browser from the authorization URL to the redirect back to the
// client: it keeps cookies, follows redirects, fills the sign-in form and approves consent.
async function browse(start) {
  const jar = new Map();
  let url = new URL(start);
  let init = { method: 'GET' };
  for (let hop = 0; hop < 15; hop++) {
    const headers = { ...(init.headers || {}) };
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location'), url);
      if (next.href.startsWith(REDIRECT)) return next;
      url = next;
      init = { method: 'GET' };
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`${init.method} ${url} answered ${res.status}: ${html.slice(0, 300)}`);
    const form = pickForm(html);
    if (!form) throw new Error(`no form to submit at ${url}: ${html.slice(0, 300)}`);
    const action = new URL(form.action || url.href, url);
    const body = new URLSearchParams(form.fields).toString();
    if ((form.method || 'get').toLowerCase() === 'post') {
      init = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      url = action;
    } else {
      action.search = body;
      url = action;
      init = { method: 'GET' };
    }
    emit('browser', { submitted: form.kind, to: action.pathname, fields: form.fields.map(([k, v]) => (k === 'scope' ? v : k)) });
  }
  throw new Error('too many steps before the redirect back to the client');
}

const attr = (tag, name) => {
  const m = tag.match(new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i'));
  return m ? decodeEntities(m[2] ?? m[3] ?? m[4]) : undefined;
};
const named = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };
const decodeEntities = (s) => s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e) => {
  if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  return named[e.toLowerCase()] ?? m;
});

// pickForm finds the sign-in form (it has a password field) or else the consent form, and
// returns its fields as a browser would submit them after the user filled or approved it.
function pickForm(html) {
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((m) => ({ open: m[1], inner: m[2] }));
  const login = forms.find((f) => /type\s*=\s*["']?password/i.test(f.inner));
  const consent = forms.find((f) => /approve|allow|authori[sz]e|consent/i.test(f.inner) && !/deny|cancel/i.test(attr(`<x ${f.open}>`, 'action') || ''));
  const form = login || consent || forms[0];
  if (!form) return undefined;
  const fields = [];
  for (const [tag] of form.inner.matchAll(/<input\b[^>]*>/gi)) {
    const name = attr(tag, 'name');
    if (!name) continue;
    const type = (attr(tag, 'type') || 'text').toLowerCase();
    let value = attr(tag, 'value') ?? '';
    if (type === 'password') value = PASSWORD;
    else if (type === 'email' || /email|username|login/i.test(name)) value = EMAIL;
    else if ((type === 'checkbox' || type === 'radio') && !/\schecked\b/i.test(tag)) continue;
    else if (type === 'submit' || type === 'button') continue;
    fields.push([name, value]);
  }
  // The approving submit button, if it carries a name (Approve/Deny share one form).
  const buttons = [...form.inner.matchAll(/<(button|input)\b[^>]*>/gi)].map((m) => m[0])
    .filter((t) => /^<button/i.test(t) || /type\s*=\s*["']?submit/i.test(t));
  const approve = buttons.find((t) => /approve|allow|accept|consent|authori[sz]e|sign|log/i.test(t + (attr(t, 'value') || '')));
  if (approve && attr(approve, 'name')) fields.push([attr(approve, 'name'), attr(approve, 'value') ?? '']);
  return { kind: login ? 'login' : 'consent', action: attr(`<x ${form.open}>`, 'action'), method: attr(`<x ${form.open}>`, 'method'), fields };
}

async function connect(provider) {
  const client = new Client({ name: 'workspaced-sdk-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
}

function structured(result, name) {
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

async function main() {
  const provider = new Provider();
  let client;
  try {
    ({ client } = await connect(provider));
    throw new Error('connected without authorization: /mcp must answer 401 first');
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  if (provider.authorizations !== 1 || !provider.code) throw new Error('the 401 did not lead to an authorization');
  const first = new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider });
  await first.finishAuth(provider.code);
  emit('authorized', { client_id: provider.clientInformation().client_id, scope: provider.tokens().scope });

  ({ client } = await connect(provider));
  const { tools } = await client.listTools();
  const me = structured(await client.callTool({ name: 'me', arguments: {} }), 'me');
  const deals = structured(await client.callTool({ name: 'list_deals', arguments: { limit: 5 } }), 'list_deals');
  emit('called', {
    protocol: client.getServerVersion()?.name, tools: tools.map((t) => t.name),
    me, deals,
  });

  emit('expire', { access_token: provider.tokens().access_token });
  await waitFor('expired');
  const before = provider.tokens();
  const again = structured(await client.callTool({ name: 'me', arguments: {} }), 'me after expiry');
  const after = provider.tokens();
  emit('refreshed', {
    authorizations: provider.authorizations,
    token_changed: before.access_token !== after.access_token,
    refresh_token_rotated: before.refresh_token !== after.refresh_token,
    me: again,
  });
  await client.close();
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(`${err.stack || err}\n`);
  emit('error', { message: String(err.message || err) });
  process.exit(1);
});
