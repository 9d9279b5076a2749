// A minimal MCP Apps host for mcp/views_browser_test.go, bundled by esbuild into one
// browser script: an MCP client (the SDK's, advertising the io.modelcontextprotocol/ui
// extension) connected to the server over Streamable HTTP with a bearer credential, and
// for each rendered view an AppBridge that proxies the view's tools/call and
// resources/read to that client. The view runs in an iframe sandboxed to scripts only
// (an opaque origin), under the CSP the host builds from the resource's _meta.ui.csp as
// the extension specifies. window.host is what the test drives.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport, getToolUiResourceUri, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";

const hostInfo = { name: "workspaced-test-host", version: "1.0.0" };
let client;
let tools = [];

// cspOf is the extension's host-side policy for a view (2026-01-26, "Content Security
// Policy Enforcement"), from the domains it declared.
function cspOf(csp) {
  const list = (l) => (l && l.length ? " " + l.join(" ") : "");
  const res = list(csp?.resourceDomains);
  return [
    "default-src 'none'",
    "script-src 'self' 'unsafe-inline'" + res,
    "style-src 'self' 'unsafe-inline'" + res,
    "connect-src 'self'" + list(csp?.connectDomains),
    "img-src 'self' data:" + res,
    "font-src 'self'" + res,
    "media-src 'self' data:" + res,
    "frame-src " + (csp?.frameDomains?.length ? csp.frameDomains.join(" ") : "'none'"),
    "object-src 'none'",
    "base-uri " + (csp?.baseUriDomains?.length ? csp.baseUriDomains.join(" ") : "'self'"),
  ].join("; ");
}

function textOf(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

window.host = {
  calls: [], // every tools/call a view made through the bridge: {name, arguments, isError, text}
  toolResults: [], // every result the host called a tool for: {name, isError, text}

  // connect connects with the 2025-11-25 initialize handshake, or with modern on the
  // stateless 2026-07-28 core (capabilities on every request); it returns the protocol
  // version and the tools that link a view.
  async connect(url, key, modern) {
    client = new Client(hostInfo, {
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      ...(modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: "Bearer " + key } },
    }));
    tools = (await client.listTools()).tools;
    return [client.getNegotiatedProtocolVersion(), ...tools.filter((t) => getToolUiResourceUri(t)).map((t) => t.name + " " + getToolUiResourceUri(t))];
  },

  // render calls a tool as a model would and shows its result in the tool's view; uri,
  // when given, is a view link the host kept from an earlier listing.
  async render(name, args, uri) {
    const tool = tools.find((t) => t.name === name) || { name, inputSchema: { type: "object" } };
    uri = uri || getToolUiResourceUri(tool);
    if (!uri) throw new Error(name + " has no view");
    const read = await client.readResource({ uri });
    const content = read.contents[0];
    if (content.mimeType !== RESOURCE_MIME_TYPE) throw new Error("unexpected MIME type " + content.mimeType);
    const meta = `<meta http-equiv="Content-Security-Policy" content="${cspOf(content._meta?.ui?.csp)}">`;
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.title = "View of " + name;
    frame.srcdoc = content.text.replace("<head>", "<head>\n" + meta);
    document.getElementById("views").replaceChildren(frame);

    const bridge = new AppBridge(client, hostInfo, { serverTools: {}, serverResources: {}, logging: {} }, {
      hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"], platform: "web",
        styles: { variables: { "--color-text-primary": "#111827" } },
        toolInfo: { tool }, containerDimensions: { maxHeight: 4000 } },
    });
    bridge.onsizechange = ({ height }) => {
      if (height) frame.style.height = height + "px";
    };
    const result = client.callTool({ name, arguments: args });
    bridge.oninitialized = async () => {
      await bridge.sendToolInput({ arguments: args });
      const r = await result;
      window.host.toolResults.push({ name, isError: !!r.isError, text: textOf(r) });
      await bridge.sendToolResult(r);
    };
    await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
    // connect installs the proxy to the server's tools/call; wrapped, it records the calls.
    const proxy = bridge.oncalltool;
    bridge.oncalltool = async (params, extra) => {
      let result;
      try {
        result = await proxy(params, extra);
      } catch (err) {
        window.host.calls.push({ name: params.name, arguments: params.arguments, isError: true, text: "thrown: " + err.message });
        throw err;
      }
      window.host.calls.push({ name: params.name, arguments: params.arguments, isError: !!result.isError, text: textOf(result) });
      return result;
    };
    return uri;
  },
};
