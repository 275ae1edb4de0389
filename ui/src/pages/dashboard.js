// The dashboard, the page after sign-in: what needs a person now (pending approvals), what is going
// wrong (automations with failed runs in the last 7 days), today's model spend of each automation
// against its daily cap, and how many runs wait in the queue per worker queue.
import { api, spacePath } from "../api.js";
import { empty, errorBox, fill, h, loading, when } from "../dom.js";

const SHOWN = 5;
const CAPPED = 10;

function usd(value) {
  return `$${Number(value).toFixed(value < 1 ? 4 : 2)}`;
}

// Each panel loads on its own: one that fails shows its error and leaves the others.
function panel(id, title, fillIn) {
  const body = h("div", {}, loading());
  fillIn(body).catch((error) => fill(body, errorBox(error)));
  return h("section", { class: "panel", id, "aria-labelledby": `${id}-title` }, h("h2", { id: `${id}-title` }, title), body);
}

export function dashboardPage(main) {
  const names = api("GET", spacePath("/automations?limit=200")).then((page) => new Map(page.items.map((a) => [a.id, a])));
  const nameOf = (map, id) => (map.get(id) ? map.get(id).name : id.slice(0, 8));
  main.append(
    h("div", { class: "heading" }, h("h1", {}, "Dashboard"), h("a", { class: "button primary", href: "/automations/new" }, "New automation"), h("a", { class: "button", href: "/automations" }, "All automations")),
    h(
      "div",
      { class: "dashboard" },
      panel("dash-approvals", "Waiting for approval", approvals),
      panel("dash-failing", "Failing automations (last 7 days)", failing),
      panel("dash-spend", "Model spend today (UTC)", spend),
      panel("dash-queue", "Queue", queue),
    ),
  );

  async function approvals(body) {
    const page = await api("GET", spacePath(`/approvals?limit=50`));
    if (!page.items.length) return fill(body, empty("Nothing waits for a decision."));
    fill(
      body,
      h("p", { class: "big", id: "dash-approvals-count" }, `${page.items.length}${page.next_cursor ? "+" : ""} pending`),
      h(
        "ul",
        {},
        page.items.slice(0, SHOWN).map((call) =>
          h("li", {}, h("a", { href: `/approvals/${call.id}` }, call.capability), ` in ${call.automation_name ? `${call.automation_name} › ` : ""}${call.step_id} · asked ${when(call.created_at)}`),
        ),
      ),
      h("a", { href: "/approvals" }, "Open the inbox"),
    );
  }

  async function failing(body) {
    const [stats, known] = await Promise.all([api("GET", spacePath("/automations/stats?days=7")), names]);
    const bad = stats.by_automation.filter((entry) => entry.failed > 0).sort((a, b) => b.failed - a.failed);
    if (!bad.length) return fill(body, empty("No failed runs in the last 7 days."));
    fill(
      body,
      h(
        "ul",
        {},
        bad.slice(0, SHOWN * 2).map((entry) =>
          h(
            "li",
            { "data-automation": entry.automation_id },
            h("a", { href: `/automations/${entry.automation_id}` }, nameOf(known, entry.automation_id)),
            ` · ${entry.failed} of ${entry.runs} run${entry.runs === 1 ? "" : "s"} failed · `,
            h("a", { href: `/runs?automation=${entry.automation_id}&status=failed` }, "failed runs"),
          ),
        ),
      ),
    );
  }

  // Today's spend per automation beside the daily cap in force for it (the automation's own, else the
  // operator's default), from a preview of each: only for the automations that spent today.
  async function spend(body) {
    const [stats, known] = await Promise.all([api("GET", spacePath("/automations/stats?days=1")), names]);
    const spenders = stats.by_automation.filter((entry) => entry.cost_usd > 0).slice(0, CAPPED);
    if (!spenders.length) return fill(body, h("p", { class: "big" }, usd(0)), empty("No model spend today."));
    const caps = await Promise.all(
      spenders.map((entry) => api("POST", spacePath(`/automations/${entry.automation_id}/preview`), {}).then((p) => p.caps.daily_cost_usd, () => null)),
    );
    fill(
      body,
      h("p", { class: "big", id: "dash-spend-total" }, usd(stats.totals.cost_usd)),
      h(
        "table",
        { class: "spend" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Automation"), h("th", { scope: "col" }, "Today"), h("th", { scope: "col" }, "Daily cap"), h("th", { scope: "col" }, "Used"))),
        h(
          "tbody",
          {},
          spenders.map((entry, index) => {
            const cap = caps[index] && caps[index].value;
            const label = `${nameOf(known, entry.automation_id)}: share of the daily cap used`;
            return h(
              "tr",
              { "data-automation": entry.automation_id },
              h("td", {}, h("a", { href: `/automations/${entry.automation_id}` }, nameOf(known, entry.automation_id))),
              h("td", {}, usd(entry.cost_usd)),
              h("td", {}, cap ? usd(cap) : "none"),
              h("td", {}, cap ? [h("meter", { min: "0", max: String(cap), high: String(cap * 0.8), optimum: "0", value: String(Math.min(entry.cost_usd, cap)), "aria-label": label }), ` ${Math.round((entry.cost_usd / cap) * 100)} %`] : "—"),
            );
          }),
        ),
      ),
    );
  }

  async function queue(body) {
    const page = await api("GET", spacePath("/queue?limit=200"));
    if (!page.items.length) return fill(body, empty("Nothing is queued."), h("a", { href: "/queue" }, "Open the queue"));
    const depth = new Map();
    for (const run of page.items) depth.set(run.queue, (depth.get(run.queue) || 0) + 1);
    fill(
      body,
      h("ul", { "aria-label": "Queued runs per worker queue" }, [...depth].map(([name, count]) => h("li", { "data-queue": name }, h("strong", {}, `${count}${page.next_cursor ? "+" : ""}`), ` on ${name}`))),
      h("a", { href: "/queue" }, "Open the queue"),
    );
  }
}
