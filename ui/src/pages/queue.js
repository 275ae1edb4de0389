// The queue: runs held back by a queue policy or the global cap, in promotion order.
import { api, spacePath } from "../api.js";
import { clear, empty, errorBox, h, loading, when, fill } from "../dom.js";

export function queuePage(main) {
  const body = h("div", {}, loading());
  main.append(h("h1", {}, "Queue"), body);
  async function load() {
    try {
      const page = await api("GET", spacePath("/queue?limit=200"));
      fill(body, 
        page.items.length
          ? h(
              "ol",
              {},
              page.items.map((run) =>
                h("li", {}, h("a", { href: `/runs/${run.id}` }, run.id.slice(0, 8)), ` queued ${when(run.created_at)} · `, h("a", { href: `/automations/${run.automation_id}` }, "automation"), h("button", { type: "button", onclick: () => cancel(run.id) }, "Cancel")),
              ),
            )
          : empty("Nothing is queued: every run got a slot."),
      );
    } catch (error) {
      fill(body, errorBox(error));
    }
  }
  async function cancel(id) {
    try {
      await api("POST", spacePath(`/runs/${id}/cancel`));
      load();
    } catch (error) {
      body.prepend(errorBox(error));
    }
  }
  load();
}
