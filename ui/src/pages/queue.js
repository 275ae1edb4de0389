// The queue: runs held back by a queue policy or the global cap, in promotion order (priority, then
// age), with how many wait for each worker queue; move a run up or down the line (its priority) or
// cancel it. Refreshes live as runs change.
import { spacePath, call, client, inSpace } from "../api.js";
import { empty, errorBox, h, loading, when, fill } from "../dom.js";
import { listen } from "../sse.js";

const MIN_PRIORITY = -1000;
const MAX_PRIORITY = 1000;

export function queuePage(main) {
  const flash = h("div", { "aria-live": "polite" });
  const body = h("div", {}, loading());
  main.append(h("h1", {}, "Queue"), flash, body);

  async function load() {
    try {
      const page = await call(client.GET("/api/v1/spaces/{space_id}/queue", { params: { path: inSpace(), query: { limit: 200 } } }));
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
  return listen(spacePath("/runs/events"), (event, change) => {
    if (event === "run" && (change.status === "queued" || change.status === "pending" || change.status === "cancelled")) load();
  });
}
