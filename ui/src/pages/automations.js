// Automations: the list with status, triggers, last run, next fire; search and status filter;
// activate / pause / archive in place.
import { call, client, inSpace } from "../api.js";
import { changeStatus } from "./automation/status_actions.js";
import { clear, empty, errorBox, h, loading, statusBadge, when, fill } from "../dom.js";
import { statsSection } from "./stats_section.js";

const ACTIONS = { active: ["pause", "archive"], paused: ["activate", "archive"], archived: ["unarchive"] };

export function automationsPage(main) {
  const params = new URLSearchParams(location.search);
  const search = h("input", { type: "search", id: "search", value: params.get("q") || "", "aria-label": "Search by name" });
  const status = h(
    "select",
    { id: "status-filter", "aria-label": "Status" },
    ["", "active", "paused", "archived"].map((value) =>
      h("option", { value, selected: value === (params.get("status") || "") }, value || "any status"),
    ),
  );
  const body = h("div", { class: "list" }, loading());
  const stats = statsSection({ path: "/automations/stats", id: "space-stats", title: "Runs of all automations" });
  main.append(
    h("div", { class: "heading" }, h("h1", {}, "Automations"), h("a", { class: "button primary", href: "/automations/new" }, "New automation")),
    h("div", { class: "filters" }, search, status),
    body,
    stats.element,
  );
  let items = [];
  let lastRuns = {};

  async function load() {
    try {
      const [automations, runs] = await Promise.all([
        call(client.GET("/api/v1/spaces/{space_id}/automations", { params: { path: inSpace(), query: { limit: 200 } } })),
        call(client.GET("/api/v1/spaces/{space_id}/runs", { params: { path: inSpace(), query: { limit: 200 } } })),
      ]);
      items = automations.items;
      lastRuns = {};
      for (const run of runs.items) if (!lastRuns[run.automation_id]) lastRuns[run.automation_id] = run;
      draw();
    } catch (error) {
      fill(body, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  function draw() {
    const q = search.value.trim().toLowerCase();
    const wanted = status.value;
    const shown = items.filter((a) => (!q || a.name.toLowerCase().includes(q)) && (!wanted || a.status === wanted));
    const query = new URLSearchParams();
    if (q) query.set("q", q);
    if (wanted) query.set("status", wanted);
    history.replaceState(history.state, "", `/automations${query.toString() ? "?" + query : ""}`);
    clear(body);
    if (!items.length) {
      body.append(empty("No automations yet.", h("a", { class: "button primary", href: "/automations/new" }, "Describe your first one")));
      return;
    }
    if (!shown.length) {
      body.append(empty("Nothing matches these filters."));
      return;
    }
    body.append(
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, ["Name", "Status", "Triggers", "Last run", "Next fire", "Actions"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, shown.map(row)),
      ),
    );
  }

  /** @param {import("../api.js").Schema<"AutomationOut">} automation */
  function row(automation) {
    const last = lastRuns[automation.id];
    const nextFire = automation.triggers.map((t) => t.next_fire_at).filter(Boolean).sort()[0];
    return h(
      "tr",
      { "data-id": automation.id },
      h("td", {}, h("a", { href: `/automations/${automation.id}` }, automation.name)),
      h("td", {}, statusBadge(automation.status)),
      h("td", {}, automation.triggers.map((t) => t.type).join(", ") || "manual only"),
      h("td", {}, last ? [statusBadge(last.status), " ", h("a", { href: `/runs/${last.id}` }, when(last.created_at))] : "—"),
      h("td", {}, automation.status === "active" && nextFire ? when(nextFire) : "—"),
      h(
        "td",
        { class: "actions" },
        (ACTIONS[automation.status] || []).map((action) =>
          h("button", { type: "button", onclick: () => change(automation, action), "aria-label": `${action} ${automation.name}` }, action),
        ),
      ),
    );
  }

  async function change(automation, action) {
    try {
      const updated = await changeStatus(automation.id, action);
      items = items.map((a) => (a.id === updated.id ? updated : a));
      draw();
    } catch (error) {
      body.prepend(errorBox(error));
    }
  }

  search.addEventListener("input", draw);
  status.addEventListener("change", draw);
  load();
  return stats.stop;
}
