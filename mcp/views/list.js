
// The list table: a list_ page, one row per record, its main fields as columns (ids
// left out, as people read names); a task row has a Complete button. Narrow screens
// show each row as a block of labelled values.
start("workspaced-list", function render(page, state) {
  const rows = Array.isArray(page.data) ? page.data : [page];
  const kind = kindOf(state.tool, rows[0]);
  const noun = kind ? kind.replaceAll("_", " ") : "records";
  $("title").textContent = noun.charAt(0).toUpperCase() + noun.slice(1);
  const keys = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
  let columns = keys.filter((k) => k !== "id" && !k.endsWith("_id") && !k.endsWith("_ids"));
  if (columns.length === 0) columns = keys;
  const tasks = kind === "tasks" || kind === "deal_tasks";
  $("head").replaceChildren(...columns.map((k) => el("th", { scope: "col", textContent: k.replaceAll("_", " ") })),
    ...(tasks ? [el("th", { scope: "col", textContent: "action" })] : []));
  $("rows").replaceChildren(...rows.map((r) => {
    const tr = el("tr", {}, ...columns.map((k) => {
      const td = el("td", { textContent: show(r[k]) });
      td.dataset.label = k.replaceAll("_", " ");
      return td;
    }));
    if (tasks) {
      const td = el("td", {}, r.completed === true ? "done" : completeControl(kind, r, (updated) => {
        Object.assign(r, updated);
        render(page, state);
      }));
      td.dataset.label = "action";
      tr.append(td);
    }
    return tr;
  }));
  $("caption").textContent = rows.length + " " + (rows.length === 1 ? "record" : noun);
  $("table").hidden = rows.length === 0;
  $("more").hidden = !page.next_cursor;
  if (!state.shown) say(rows.length === 0 ? "No " + noun + "." : ""); // after an action, its outcome stays said
  state.shown = true;
});
