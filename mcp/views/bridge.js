"use strict";
// The host bridge of the MCP Apps extension (io.modelcontextprotocol/ui, 2026-01-26):
// JSON-RPC 2.0 over postMessage with the host (window.parent). The view asks nothing of
// the network: its data come as the host's tool-result notification, and its actions
// and lookups are tools/call requests that the host forwards to the server.
const bridge = (() => {
  let next = 1;
  const pending = new Map();
  const handlers = new Map();
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined) {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error.message || "the host refused the request"));
      else p.resolve(m.result);
      return;
    }
    if (m.id !== undefined) { // a request from the host: ping and teardown need only an answer
      const known = m.method === "ping" || m.method === "ui/resource-teardown";
      window.parent.postMessage(known ? { jsonrpc: "2.0", id: m.id, result: {} }
        : { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "method not found: " + m.method } }, "*");
      return;
    }
    const h = handlers.get(m.method);
    if (h) h(m.params || {});
  });
  return {
    request(method, params) {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
      });
    },
    notify(method, params) { window.parent.postMessage({ jsonrpc: "2.0", method, params }, "*"); },
    on(method, fn) { handlers.set(method, fn); },
  };
})();

// ToolError is a tool's refusal: the service's error code and its message.
class ToolError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

// failure reads a failed tool result ({error, message, request_id} as text).
function failure(result) {
  const text = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  try {
    const body = JSON.parse(text);
    return new ToolError(body.error || "error", body.message || text);
  } catch {
    return new ToolError("error", text || "the tool failed");
  }
}

// callTool runs a tool through the host; it resolves to structuredContent and rejects
// with a ToolError when the tool refuses.
async function callTool(name, args) {
  const result = await bridge.request("tools/call", { name, arguments: args });
  if (result.isError) throw failure(result);
  return result.structuredContent;
}

const $ = (id) => document.getElementById(id);

// el builds an element: el("td", {className: "x"}, "text", child).
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const c of children) {
    if (c !== null && c !== undefined) node.append(c);
  }
  return node;
}

// say shows progress politely; alarm shows a refusal or failure.
function say(text) { $("status").textContent = text; }
function alarm(err) {
  const box = $("error");
  box.hidden = false;
  box.textContent = err instanceof ToolError ? err.code + ": " + err.message : String(err.message || err);
}
function quiet() { $("error").hidden = true; $("error").textContent = ""; }

// show renders a field's value as text: numbers grouped, times to the minute in the
// user's zone, yes and no.
function show(v) {
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(show).join(", ");
  if (typeof v === "object") return JSON.stringify(v);
  if (typeof v === "number") return v.toLocaleString("en");
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v) && !Number.isNaN(Date.parse(v))) {
    return new Date(v).toLocaleString("en", { dateStyle: "medium", timeStyle: "short" });
  }
  return String(v);
}

// titleOf is a record's name for people: its name, title or email, else its id.
function titleOf(r) { return r.name || r.title || r.email || r.id || "Record"; }

// kindOf names the resource a tool's result holds: from the tool the host says it ran,
// else from the record's shape.
function kindOf(tool, record) {
  const m = /^(?:get|list)_(.+)$/.exec(tool || "");
  if (m) return m[1];
  if (!record) return "";
  if ("pipeline_stage_id" in record) return "deals";
  if ("completed" in record) return "deal_id" in record ? "deal_tasks" : "tasks";
  return "";
}

// stagesOf lists a pipeline's stages (every pipeline's when id is empty), by position.
async function stagesOf(pipelineId) {
  const args = { fields: "id,pipeline_id,name,position,outcome", limit: 100 };
  if (pipelineId) args.pipeline_id = pipelineId;
  const page = await callTool("list_pipeline_stages", args);
  return (page.data || []).sort((a, b) => (a.position ?? 0) - (b.position ?? 0) || String(a.name).localeCompare(String(b.name)));
}

// start performs the handshake and calls render with each tool result the host sends
// (onInput, if given, with the tool's arguments, which come first); the tool's name
// comes from the host context when the host gives it.
function start(appName, render, onInput) {
  const state = { tool: "", input: {} };
  bridge.on("ui/notifications/tool-input", (p) => {
    state.input = p.arguments || {};
    if (onInput) onInput(state.input);
  });
  bridge.on("ui/notifications/tool-result", (result) => {
    quiet();
    if (result.isError) {
      alarm(failure(result));
      say("");
      return;
    }
    Promise.resolve(render(result.structuredContent || {}, state)).catch(alarm);
  });
  bridge.on("ui/notifications/tool-cancelled", () => say("The tool call was cancelled."));
  bridge.on("ui/notifications/host-context-changed", (ctx) => theme(ctx));
  const theme = (ctx) => {
    if (ctx.theme === "dark" || ctx.theme === "light") document.documentElement.dataset.theme = ctx.theme;
    for (const [name, value] of Object.entries(ctx.styles?.variables || {})) {
      if (name.startsWith("--") && typeof value === "string") document.documentElement.style.setProperty(name, value);
    }
    if (ctx.toolInfo && ctx.toolInfo.tool && ctx.toolInfo.tool.name) state.tool = ctx.toolInfo.tool.name;
  };
  new ResizeObserver(() => {
    const r = document.documentElement.getBoundingClientRect();
    bridge.notify("ui/notifications/size-changed", { width: Math.ceil(r.width), height: Math.ceil(r.height) });
  }).observe(document.documentElement);
  bridge.request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: appName, version: "1.0.0" },
    appCapabilities: { availableDisplayModes: ["inline"] },
  }).then((res) => {
    theme((res && res.hostContext) || {});
    bridge.notify("ui/notifications/initialized", {});
  }).catch(alarm);
}

// moveControl is a deal's stage picker and its Move button; onMoved gets the updated
// deal. It is no form: a sandboxed view may have no form submission.
function moveControl(deal, stages, onMoved) {
  const id = "stage-" + deal.id;
  const select = el("select", { id });
  for (const s of stages) {
    select.append(el("option", { value: s.id, textContent: s.name, selected: s.id === deal.pipeline_stage_id }));
  }
  if (!stages.some((s) => s.id === deal.pipeline_stage_id)) {
    select.prepend(el("option", { value: "", textContent: "No stage", selected: true, disabled: true }));
  }
  const button = el("button", { type: "button", textContent: "Move" });
  button.setAttribute("aria-label", "Move " + titleOf(deal));
  button.addEventListener("click", async () => {
    if (!select.value || select.value === deal.pipeline_stage_id) {
      say("Pick another stage for " + titleOf(deal) + " first.");
      return;
    }
    const stage = select.selectedOptions[0].textContent;
    button.disabled = true;
    quiet();
    say("Moving " + titleOf(deal) + "…");
    try {
      const updated = await callTool("update_deals", { id: deal.id, pipeline_stage_id: select.value });
      say(titleOf(deal) + " moved to " + stage + ".");
      onMoved(updated);
    } catch (err) {
      say("");
      alarm(err);
    } finally {
      button.disabled = false;
    }
  });
  return el("div", { className: "move" }, el("label", { htmlFor: id, textContent: "Stage" }), select, button);
}

// completeControl is a task's Complete button; kind is tasks or deal_tasks.
function completeControl(kind, task, onDone) {
  const button = el("button", { type: "button", textContent: "Complete" });
  button.setAttribute("aria-label", "Complete " + titleOf(task));
  button.addEventListener("click", async () => {
    button.disabled = true;
    quiet();
    say("Completing " + titleOf(task) + "…");
    try {
      const updated = await callTool("update_" + kind, { id: task.id, completed: true });
      say(titleOf(task) + " is complete.");
      onDone(updated);
    } catch (err) {
      button.disabled = false;
      say("");
      alarm(err);
    }
  });
  return button;
}
