
// The record card: every field of a get_ result; a deal's stage picker and a task's
// Complete button.
start("workspaced-record", async function render(record, state) {
  const kind = kindOf(state.tool, record);
  $("title").textContent = titleOf(record);
  const fields = $("fields");
  fields.replaceChildren();
  const stages = kind === "deals" && record.pipeline_id ? await (state.stages ||= stagesOf(record.pipeline_id)) : null;
  for (const [k, v] of Object.entries(record)) {
    if (v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0) || k === "workspace_id") continue;
    const stage = k === "pipeline_stage_id" && stages ? stages.find((s) => s.id === v) : null;
    fields.append(el("div", { className: "field" }, el("dt", { textContent: stage ? "stage" : k.replaceAll("_", " ") }),
      el("dd", { textContent: stage ? stage.name : show(v) })));
  }
  const actions = $("actions");
  actions.replaceChildren();
  if (!state.shown) say(""); // after an action, its outcome stays said
  state.shown = true;
  if (stages) {
    actions.append(moveControl(record, stages, (updated) => render(updated, state)));
  } else if ((kind === "tasks" || kind === "deal_tasks") && record.completed !== true) {
    actions.append(completeControl(kind, record, (updated) => render(updated, state)));
  }
});
