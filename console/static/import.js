// The console's import page (docs/console.md, "Import"), its only script. Without it the
// page still works: the server maps columns by name (console/imports.go, postedMapping)
// and the status page reloads itself.
//
// On /console/import it reads the chosen file's header and first rows in the browser and
// shows each column beside a select of the resource's fields, matched by name as the
// server would (matchKey in console/imports.go); the selects post as col-N / map-N.
// On /console/import/{id} it asks the import's status every second and moves the bar.
"use strict";

const previewRows = 20;
const previewBytes = 256 * 1024;

// matchKey is console/imports.go's matchKey: lower case, runs of other characters one
// underscore, none at the ends.
function matchKey(s) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
}

// parseCSV reads up to max records of RFC 4180 text (quotes, doubled quotes, CRLF); a
// record cut off at the end of text is dropped.
function parseCSV(text, max) {
  const rows = [];
  let row = [], cell = "", quoted = false, i = 0;
  while (i < text.length && rows.length < max) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      cell += c; i++; continue;
    }
    if (c === '"') { quoted = true; i++; continue; }
    if (c === ",") { row.push(cell); cell = ""; i++; continue; }
    if (c === "\r" || c === "\n") {
      row.push(cell); rows.push(row); row = []; cell = "";
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
      continue;
    }
    cell += c; i++;
  }
  return rows;
}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function importForm(form) {
  const resources = JSON.parse(document.getElementById("import-fields").textContent);
  const file = document.getElementById("import-file");
  const resource = document.getElementById("import-resource");
  const table = document.getElementById("mapping");
  const body = document.getElementById("mapping-rows");
  const hint = document.getElementById("mapping-hint");
  let rows = null;

  function render() {
    body.replaceChildren();
    if (!rows || rows.length === 0) { table.hidden = true; return; }
    const res = resources.find(r => r.name === resource.value) || resources[0];
    const header = rows[0];
    if (header.length > 0) header[0] = header[0].replace(/^\ufeff/, "");
    header.forEach((col, n) => {
      const tr = el("tr", {id: "column-" + n});
      tr.append(el("td", {"data-label": "Column"}, col));
      const td = el("td", {"data-label": "Field"});
      const sel = el("select", {id: "map-" + n, name: "map-" + n, "aria-label": "Field for column " + col});
      sel.append(el("option", {value: ""}, "(leave out)"));
      const auto = res.match[matchKey(col)] || "";
      for (const f of res.fields) {
        const o = el("option", {value: f.name}, f.label);
        if (f.name === auto) o.selected = true;
        sel.append(o);
      }
      td.append(el("input", {type: "hidden", name: "col-" + n, value: col}), sel);
      const sample = el("td", {"data-label": "First rows", class: "sample"});
      const cells = rows.slice(1).map(r => r[n] === undefined ? "" : r[n]);
      sample.textContent = cells.filter(c => c !== "").slice(0, 3).join(" · ") || "(empty)";
      sample.title = cells.join("\n");
      tr.append(td, sample);
      body.append(tr);
    });
    table.hidden = false;
    hint.textContent = "The file's columns and their first values (" + (rows.length - 1) + " of its first rows read here); " +
      "choose the field each goes into, or leave it out.";
  }

  file.addEventListener("change", () => {
    const f = file.files[0];
    rows = null;
    if (!f) { render(); return; }
    const reader = new FileReader();
    reader.onload = () => { rows = parseCSV(String(reader.result), previewRows + 1); render(); };
    reader.readAsText(f.slice(0, previewBytes));
  });
  resource.addEventListener("change", render);
}

function importStatus(box) {
  const total = Number(box.dataset.total) || 0;
  const bar = document.getElementById("progress");
  const text = document.getElementById("progress-text");
  const done = s => s === "completed" || s === "failed" || s === "cancelled";
  async function poll() {
    let imp;
    try {
      const res = await fetch(box.dataset.statusUrl, {credentials: "same-origin", headers: {Accept: "application/json"}});
      if (!res.ok) throw new Error(String(res.status));
      imp = await res.json();
    } catch (e) {
      setTimeout(poll, 1000);
      return;
    }
    document.getElementById("status").textContent = imp.status;
    for (const k of ["created", "updated", "failed"]) document.getElementById("rows-" + k).textContent = imp["rows_" + k];
    const read = imp.rows_read;
    if (total > 0) {
      const pct = Math.min(100, Math.floor(read * 100 / total));
      bar.max = total; bar.value = Math.min(read, total); bar.textContent = pct + "%";
      text.textContent = read + " of " + total + " rows (" + pct + "%)";
    } else {
      bar.max = 1; bar.value = done(imp.status) ? 1 : 0;
      text.textContent = read + " rows";
    }
    if (done(imp.status)) {
      const cancel = document.getElementById("cancel-form");
      if (cancel) cancel.hidden = true;
      return;
    }
    setTimeout(poll, 1000);
  }
  if (!done(document.getElementById("status").textContent)) setTimeout(poll, 1000);
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("import-form");
  if (form) importForm(form);
  const box = document.getElementById("import-status");
  if (box) importStatus(box);
});
