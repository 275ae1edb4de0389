// Runs across the space, newest first, with filters; rows update live from the run events stream.
import { spacePath, call, client, inSpace } from "../api.js";
import { clear, empty, errorBox, fill, h, lastPainted, loading, statusBadge, when } from "../dom.js";
import { listen } from "../sse.js";

const STATUSES = ["", "queued", "pending", "running", "awaiting_approval", "waiting", "succeeded", "failed", "cancelled", "timed_out", "dropped"];

export function runsPage(main) {
  const params = new URLSearchParams(location.search);
  const automationFilter = params.get("automation") || "";
  const parentFilter = params.get("parent_run_id") || "";
  const statusSelect = h(
    "select",
    { id: "run-status-filter", "aria-label": "Status" },
    STATUSES.map((value) => h("option", { value, selected: value === (params.get("status") || "") }, value || "any status")),
  );
  const live = h("span", { class: "live", id: "live-state", role: "status" }, "connecting…");
  const body = h("div", {}, loading());
  main.append(
    h("div", { class: "heading" }, h("h1", {}, "Runs"), live),
    h(
      "div",
      { class: "filters" },
      statusSelect,
      automationFilter ? h("span", {}, "one automation ", h("a", { href: "/runs" }, "(show all)")) : null,
    ),
    body,
  );
  let runs = [];
  const names = {};
  const painted = lastPainted();

  // The table, drawn again only when what it shows changed: a read that finds the same (as the
  // stream's opening asks for) leaves it alone.
  function show(items) {
    runs = items;
    if (!painted.same([runs, names])) draw();
  }

  async function load() {
    try {
      /** @type {NonNullable<import("../api-schema").operations["runs_list"]["parameters"]["query"]>} */
      const query = { limit: 100 };
      if (automationFilter) query.automation_id = automationFilter;
      if (parentFilter) query.parent_run_id = parentFilter;
      if (statusSelect.value) query.status = [statusSelect.value];
      const [page, automations] = await Promise.all([
        call(client.GET("/api/v1/spaces/{space_id}/runs", { params: { path: inSpace(), query } })),
        call(client.GET("/api/v1/spaces/{space_id}/automations", { params: { path: inSpace(), query: { limit: 200 } } })),
      ]);
      for (const a of automations.items) names[a.id] = a.name;
      show(page.items);
    } catch (error) {
      painted.forget();
      fill(body, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  function draw() {
    clear(body);
    if (!runs.length) {
      body.append(empty("No runs yet. Run an automation from its page, or wait for a trigger."));
      return;
    }
    body.append(
      h(
        "table",
        { id: "runs-table" },
        h("thead", {}, h("tr", {}, ["Run", "Automation", "Status", "Trigger", "Created", "Duration", "Cost"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, runs.map(row)),
      ),
    );
  }

  /** @param {import("../api.js").Schema<"RunOut">} run */
  function row(run) {
    const duration = run.started_at && run.finished_at ? `${((new Date(run.finished_at).getTime() - new Date(run.started_at).getTime()) / 1000).toFixed(1)} s` : "—";
    return h(
      "tr",
      { "data-run": run.id },
      h("td", {}, h("a", { href: `/runs/${run.id}` }, run.id.slice(0, 8))),
      h("td", {}, h("a", { href: `/automations/${run.automation_id}` }, names[run.automation_id] || run.automation_id.slice(0, 8))),
      h("td", {}, statusBadge(run.status), run.reason ? h("small", {}, ` ${run.reason}`) : null),
      h("td", {}, run.trigger_type),
      h("td", {}, when(run.created_at)),
      h("td", {}, duration),
      h("td", {}, `$${Number(run.cost_usd).toFixed(4)}`),
    );
  }

  function wanted(run) {
    return (!automationFilter || run.automation_id === automationFilter) && (!parentFilter || run.parent_run_id === parentFilter) && (!statusSelect.value || run.status === statusSelect.value);
  }

  async function onChange(event, change) {
    if (event !== "run") return;
    try {
      const run = await call(client.GET("/api/v1/spaces/{space_id}/runs/{run_id}", { params: { path: inSpace({ run_id: change.run_id }) } }));
      const index = runs.findIndex((r) => r.id === run.id);
      if (index >= 0) runs[index] = run;
      else if (wanted(run)) runs.unshift(run);
      if (!wanted(run) && index >= 0) runs.splice(index, 1);
      show(runs);
    } catch {
      // A run deleted meanwhile, or a network blip: the next change or a reload shows it.
    }
  }

  statusSelect.addEventListener("change", () => {
    const query = new URLSearchParams(location.search);
    if (statusSelect.value) query.set("status", statusSelect.value);
    else query.delete("status");
    history.replaceState(history.state, "", `/runs${query.toString() ? "?" + query : ""}`);
    load();
  });
  load();
  return listen(spacePath("/runs/events"), onChange, {
    onLive: load,
    onState: (state) => {
      live.textContent = state === "live" ? "● live" : state;
      live.dataset.state = state;
    },
  });
}
