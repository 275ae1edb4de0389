// The queue: runs held back by a queue policy or the global cap, in promotion order, with how many
// wait for each worker queue; cancel any of them. Refreshes live as runs change.
import { api, spacePath } from "../api.js";
import { empty, errorBox, h, loading, when, fill } from "../dom.js";
import { listen } from "../sse.js";

export function queuePage(main) {
  const flash = h("div", { "aria-live": "polite" });
  const body = h("div", {}, loading());
  main.append(h("h1", {}, "Queue"), flash, body);

  async function load() {
    try {
      const page = await api("GET", spacePath("/queue?limit=200"));
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
          h("thead", {}, h("tr", {}, ["#", "Run", "Automation", "Worker queue", "Queued", ""].map((t) => h("th", { scope: "col" }, t)))),
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
                h("td", {}, when(run.created_at)),
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

  async function cancel(id) {
    try {
      await api("POST", spacePath(`/runs/${id}/cancel`));
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
