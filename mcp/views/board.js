
// The pipeline board: a list_deals page in one column per stage of the deals'
// pipelines (the pipeline_id the tool was called with, else the stages the deals are
// in); every deal can move to another stage of its pipeline. The stages load as soon as
// the tool's arguments arrive, while the host still waits for the deals.
let loading = null;
start("workspaced-board", async (page, state) => {
  const deals = page.data || [];
  say("Loading the stages…");
  let stages = await (loading || stagesOf(state.input.pipeline_id));
  const stageOf = new Map(stages.map((s) => [s.id, s]));
  if (!state.input.pipeline_id) {
    const used = new Set(deals.map((d) => stageOf.get(d.pipeline_stage_id)?.pipeline_id).filter(Boolean));
    if (used.size > 0) stages = stages.filter((s) => used.has(s.pipeline_id));
  }
  const draw = (focusId) => {
    const columns = stages.map((s) => ({ id: s.id, name: s.name, deals: [] }));
    const loose = { id: "", name: "No stage", deals: [] };
    const byId = new Map(columns.map((c) => [c.id, c]));
    for (const d of deals) (byId.get(d.pipeline_stage_id) || loose).deals.push(d);
    if (loose.deals.length > 0) columns.push(loose);
    $("board").replaceChildren(...columns.map((c, i) => {
      const heading = el("h2", { id: "col-" + i, textContent: c.name + " (" + c.deals.length + ")" });
      const section = el("section", { className: "column" }, heading);
      section.setAttribute("aria-labelledby", heading.id);
      if (c.deals.length === 0) section.append(el("p", { className: "empty", textContent: "No deals." }));
      for (const d of c.deals) {
        const pipeline = stageOf.get(d.pipeline_stage_id)?.pipeline_id;
        const choices = pipeline ? stages.filter((s) => s.pipeline_id === pipeline) : stages;
        const facts = [d.value !== null && d.value !== undefined ? show(d.value) : "", d.status || ""].filter(Boolean).join(" · ");
        const card = el("article", { className: "deal" }, el("h3", { textContent: titleOf(d) }),
          facts ? el("p", { textContent: facts }) : null,
          moveControl(d, choices, (updated) => {
            Object.assign(d, { pipeline_stage_id: updated.pipeline_stage_id, status: updated.status });
            draw(d.id);
          }));
        card.setAttribute("aria-label", titleOf(d));
        section.append(card);
      }
      return section;
    }));
    if (focusId) document.getElementById("stage-" + focusId)?.focus();
  };
  draw();
  $("more").hidden = !page.next_cursor;
  if (deals.length === 0) say("No deals.");
  else if ($("status").textContent === "Loading the stages…") say("");
}, (input) => {
  loading = stagesOf(input.pipeline_id);
  loading.catch((err) => {
    say("");
    alarm(err);
  });
});
