// The queue: a chart of the runs that waited on each worker queue over the last hour (sampled once a
// minute), then the runs held back by a queue policy or the global cap, in promotion order (priority,
// then age), with how many wait for each worker queue; move a run up or down the line (its priority)
// or cancel it. The list refreshes live as runs change, the chart every minute.
import { spacePath, call, client, inSpace } from "../api.js";
import { empty, errorBox, fill, h, lastPainted, loading, when } from "../dom.js";
import { listen } from "../sse.js";

const MIN_PRIORITY = -1000;
const MAX_PRIORITY = 1000;

const DEPTH_MINUTES = 60;

let charts = null;
function loadCharts() {
  charts = charts || import("../visual/charts.js");
  return charts;
}

// The chart, with its numbers in words beside it for those who do not see it.
function depthSection() {
  const holder = h("div", { class: "chart", id: "queue-depth-chart", role: "img", "aria-label": "Waiting runs per worker queue, minute by minute, over the last hour" });
  const summary = h("p", { class: "hint", id: "queue-depth-summary" });
  const section = h("section", { class: "stats", id: "queue-depth", "aria-labelledby": "queue-depth-title" }, h("h2", { id: "queue-depth-title" }, "Waiting runs, last hour"), summary, holder);
  let chart = null;
  async function load() {
    try {
      const depth = await call(client.GET("/api/v1/spaces/{space_id}/queue/depth", { params: { path: inSpace(), query: { minutes: DEPTH_MINUTES } } }));
      const peaks = depth.queues.map((series) => `${series.queue}: at most ${Math.max(...series.queued.map((q, i) => q + series.pending[i]))}, now ${series.queued[series.queued.length - 1] + series.pending[series.pending.length - 1]}`);
      summary.textContent = peaks.length ? `Queued and pending runs per minute. ${peaks.join("; ")}.` : "No run of this space waited for a worker in the last hour.";
      const { queueChart } = await loadCharts();
      if (chart) chart.destroy();
      holder.replaceChildren();
      chart = queueChart(holder, depth);
    } catch (error) {
      holder.replaceChildren(errorBox(error));
    }
  }
  return { section, load };
}

export function queuePage(main) {
  const flash = h("div", { "aria-live": "polite" });
  const body = h("div", {}, loading());
  const depth = depthSection();
  main.append(h("h1", {}, "Queue"), depth.section, flash, h("h2", {}, "In line now"), body);
  const painted = lastPainted();

  async function load() {
    try {
      const page = await call(client.GET("/api/v1/spaces/{space_id}/queue", { params: { path: inSpace(), query: { limit: 200 } } }));
      if (painted.same(page)) return;
      if (!page.items.length) {
        fill(body, empty("Nothing is queued: every run got a slot."));
        return;
      }
      const depth = new Map();
      for (const run of page.items) depth.set(run.queue, (depth.get(run.queue) || 0) + 1);
      fill(
        body,
        h("ul", { class: "depths", "aria-label": "Queued runs per worker queue" }, [...depth].map(([queue, count]) => h("li", { "data-queue": queue }, h("strong", {}, String(count)), ` on ${queue}`))),
        page.next_cursor ? h("p", { class: "hint" }, "Showing the first 200 queued runs.") : null,
        h(
          "table",
          { class: "queue" },
          h("thead", {}, h("tr", {}, ["#", "Run", "Automation", "Worker queue", "Priority", "Queued", "Move", ""].map((t) => h("th", { scope: "col" }, t)))),
          h(
            "tbody",
            {},
            page.items.map((run, index) =>
              h(
                "tr",
                { "data-run": run.id },
                h("td", {}, String(index + 1)),
                h("td", {}, h("a", { href: `/runs/${run.id}` }, run.id.slice(0, 8))),
                h("td", {}, h("a", { href: `/automations/${run.automation_id}` }, run.automation_id.slice(0, 8))),
                h("td", {}, run.queue),
                h("td", { class: "priority" }, String(run.priority)),
                h("td", {}, when(run.created_at)),
                h("td", { class: "move" }, moveButtons(page.items, index)),
                h("td", {}, h("button", { type: "button", onclick: () => cancel(run.id), "aria-label": `Cancel run ${run.id.slice(0, 8)}` }, "Cancel")),
              ),
            ),
          ),
        ),
      );
    } catch (error) {
      painted.forget();
      fill(body, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  // Raising puts a run just ahead of the one above it (one more than its priority: ties go by age, and
  // the run above is older); lowering puts it just behind the one below.
  function moveButtons(items, index) {
    const run = items[index];
    const label = run.id.slice(0, 8);
    const above = items[index - 1];
    const below = items[index + 1];
    return [
      h("button", { type: "button", class: "arrow", disabled: !above, onclick: () => move(run, above.priority + 1), "aria-label": `Raise run ${label}`, title: "Move up" }, "↑"),
      h("button", { type: "button", class: "arrow", disabled: !below, onclick: () => move(run, below.priority - 1), "aria-label": `Lower run ${label}`, title: "Move down" }, "↓"),
    ];
  }

  async function move(run, wanted) {
    const priority = Math.max(MIN_PRIORITY, Math.min(MAX_PRIORITY, wanted));
    try {
      const moved = await call(client.PUT("/api/v1/spaces/{space_id}/runs/{run_id}/priority", { params: { path: inSpace({ run_id: run.id }) }, body: { priority } }));
      flash.replaceChildren(h("p", { class: "ok", role: "status" }, `Run ${run.id.slice(0, 8)} now has priority ${moved.priority}.`));
      await load();
    } catch (error) {
      flash.replaceChildren(errorBox(error));
      await load();
    }
  }

  async function cancel(id) {
    try {
      await call(client.POST("/api/v1/spaces/{space_id}/runs/{run_id}/cancel", { params: { path: inSpace({ run_id: id }) } }));
      flash.replaceChildren(h("p", { class: "ok", role: "status" }, `Run ${id.slice(0, 8)} cancelled.`));
      await load();
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  load();
  depth.load();
  const timer = setInterval(depth.load, 60_000);
  const stop = listen(
    spacePath("/runs/events"),
    (event, change) => {
      if (event === "run" && (change.status === "queued" || change.status === "pending" || change.status === "cancelled")) load();
    },
    { onLive: load },
  );
  return () => {
    clearInterval(timer);
    stop();
  };
}
