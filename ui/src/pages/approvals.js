// The approvals inbox: pending calls with automation, step, capability, who is asked, parameters and
// time left, each a link to its own page (/approvals/<id>, where notification links land); approve once,
// approve and always allow (not for destructive capabilities), deny with a reason, in place. The badge
// in the navigation shows the pending count, refreshed on every run change (a run that starts waiting
// is one).
import { ApiError, call, client, inSpace, spacePath } from "../api.js";
import { clear, empty, errorBox, h, lastPainted, loading, when, fill } from "../dom.js";
import { listen } from "../sse.js";
import { approvalFacts, approvalTitle, decisionControls } from "./approvals/decision.js";

async function pending() {
  return call(client.GET("/api/v1/spaces/{space_id}/approvals", { params: { path: inSpace(), query: { status: ["pending"], limit: 100 } } }));
}

export function startApprovalBadge() {
  let stopped = false;
  async function refresh() {
    const badge = document.getElementById("approval-count");
    if (!badge || stopped) return;
    try {
      const page = await pending();
      badge.textContent = String(page.items.length);
      badge.hidden = page.items.length === 0;
      badge.setAttribute("aria-label", `${page.items.length} pending approvals`);
    } catch {
      badge.hidden = true;
    }
  }
  refresh();
  const stop = listen(
    spacePath("/runs/events"),
    (event) => {
      if (event === "run") refresh();
    },
    { onLive: refresh },
  );
  const timer = setInterval(refresh, 30000);
  return () => {
    stopped = true;
    stop();
    clearInterval(timer);
  };
}

/** @param {HTMLElement} main */
export function approvalsPage(main) {
  const body = h("div", {}, loading());
  main.append(h("h1", {}, "Approvals"), body);
  const painted = lastPainted();

  async function load() {
    try {
      const page = await pending();
      if (painted.same(page.items)) return;
      clear(body);
      if (!page.items.length) {
        body.append(empty("Nothing waits for your decision."));
        return;
      }
      body.append(h("ul", { class: "approvals" }, page.items.map(item)));
    } catch (error) {
      painted.forget();
      if (error instanceof ApiError && error.status === 404 && error.code === "not_found")
        fill(body, empty("Approvals are not available on this server yet."));
      else fill(body, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  /** @param {import("../api.js").Schema<"ApprovalOut">} approval */
  function item(approval) {
    return h(
      "li",
      { class: "approval", "data-approval": approval.id, id: `approval-${approval.id}` },
      h("h2", {}, h("a", { class: "open-approval", href: `/approvals/${approval.id}` }, approvalTitle(approval))),
      h("p", { class: "hint" }, `Step ${approval.step_id} · expires ${when(approval.expires_at)}`),
      approvalFacts(approval),
      decisionControls(approval, load),
    );
  }

  load();
  return listen(
    spacePath("/runs/events"),
    (event) => {
      if (event === "run") load();
    },
    { onLive: load },
  );
}
