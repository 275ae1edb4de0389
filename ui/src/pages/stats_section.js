// Run statistics as a page section: runs per day by status and model spend per day (uPlot, fetched
// on first use), the median and 95th percentile duration, and the same numbers as a table. `path` is
// the stats route under the space (`/automations/stats` or `/automations/{id}/stats`).
import { api, spacePath } from "../api.js";
import { errorBox, fill, h, loading } from "../dom.js";

const RANGES = [1, 7, 14, 30, 90];

function rangeText(days) {
  return days === 1 ? "today (UTC)" : `in the last ${days} days`;
}

let charts = null;
function loadCharts() {
  charts = charts || import("../visual/charts.js");
  return charts;
}

function duration(ms) {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

function numbers(stats) {
  const statuses = stats.statuses.filter((status) => stats.totals.by_status[status]);
  return h(
    "details",
    { class: "stats-numbers" },
    h("summary", {}, "The numbers"),
    h(
      "table",
      { class: "stats-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Day (UTC)"), h("th", { scope: "col" }, "Runs"), statuses.map((s) => h("th", { scope: "col" }, s)), h("th", { scope: "col" }, "Spend"))),
      h(
        "tbody",
        {},
        stats.per_day.map((day) =>
          h("tr", { "data-day": day.day }, h("th", { scope: "row" }, day.day), h("td", {}, String(day.total)), statuses.map((s) => h("td", {}, String(day.by_status[s] || 0))), h("td", {}, `$${day.cost_usd.toFixed(4)}`)),
        ),
      ),
    ),
  );
}

/** @param {{path?: string, id?: string, title?: string, days?: number}} [options] */
export function statsSection({ path, id = "stats", title = "Runs", days = 14 } = {}) {
  const range = h(
    "select",
    { id: `${id}-days`, "aria-label": "Days shown" },
    RANGES.map((n) => h("option", { value: String(n), selected: n === days }, n === 1 ? "today" : `last ${n} days`)),
  );
  const body = h("div", { class: "stats-body" }, loading("Loading statistics…"));
  const element = h("section", { class: "stats", id, "aria-labelledby": `${id}-title` }, h("div", { class: "heading" }, h("h2", { id: `${id}-title` }, title), range), body);
  let shown = [];
  let asked = 0;

  async function load() {
    const mine = ++asked;
    try {
      const [stats, drawing] = await Promise.all([api("GET", spacePath(`${path}?days=${range.value}`)), loadCharts()]);
      if (mine === asked) paint(stats, drawing);
    } catch (error) {
      if (mine === asked) fill(body, errorBox(error));
    }
  }

  function paint(stats, drawing) {
    for (const chart of shown) chart.destroy();
    shown = [];
    const summary = h(
      "p",
      { class: "stats-summary", id: `${id}-summary` },
      `${stats.totals.runs} run${stats.totals.runs === 1 ? "" : "s"} ${rangeText(stats.days)}`,
      ` · median ${duration(stats.duration_ms.p50)} · 95th percentile ${duration(stats.duration_ms.p95)}`,
      ` · model spend $${stats.totals.cost_usd.toFixed(4)}`,
    );
    if (!stats.totals.runs) {
      fill(body, summary, h("p", { class: "empty stats-empty" }, `No runs ${rangeText(stats.days)}.`));
      return;
    }
    const runs = h("figure", { class: "chart", "aria-label": "Runs per day by status" }, h("figcaption", {}, "Runs per day by status"));
    const cost = h("figure", { class: "chart", "aria-label": "Model spend per day" }, h("figcaption", {}, "Model spend per day"));
    const spent = stats.totals.cost_usd > 0;
    fill(body, summary, runs, spent ? cost : h("p", { class: "hint stats-no-spend" }, "No model spend in this range."), numbers(stats));
    shown = [drawing.runsChart(runs, stats), spent ? drawing.costChart(cost, stats) : null].filter(Boolean);
  }

  range.addEventListener("change", load);
  load();
  return { element, stop: () => shown.forEach((chart) => chart.destroy()) };
}
