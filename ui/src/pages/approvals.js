// The approvals inbox: pending calls with capability, params, who asked, automation, run and time
// left; approve once, approve and always allow (not for destructive capabilities), deny with a reason
// (`POST …/approvals/{id}/approve {scope}` and `…/deny {reason}`). The badge in the navigation
// shows the pending count, refreshed on every run change (a run that starts waiting is one).
import { api, ApiError, spacePath } from "../api.js";
import { clear, empty, errorBox, h, loading, pretty, when, fill } from "../dom.js";
import { listen } from "../sse.js";

async function pending() {
  return api("GET", spacePath("/approvals?status=pending&limit=100"));
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
  const stop = listen(spacePath("/runs/events"), (event, change) => {
    if (event === "run") refresh();
  });
  const timer = setInterval(refresh, 30000);
  return () => {
    stopped = true;
    stop();
    clearInterval(timer);
  };
}

export function approvalsPage(main) {
  const body = h("div", {}, loading());
  main.append(h("h1", {}, "Approvals"), body);

  async function load() {
    try {
      const page = await pending();
      clear(body);
      if (!page.items.length) {
        body.append(empty("Nothing waits for your decision."));
        return;
      }
      body.append(h("ul", { class: "approvals" }, page.items.map(item)));
      focusLinked();
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && error.code === "not_found")
        fill(body, empty("Approvals are not available on this server yet."));
      else fill(body, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  function item(approval) {
    const reason = h("input", { type: "text", id: `reason-${approval.id}`, maxlength: "500" });
    const flash = h("div", { "aria-live": "polite" });
    async function decide(action, body) {
      try {
        await api("POST", spacePath(`/approvals/${approval.id}/${action}`), body);
        load();
      } catch (error) {
        flash.replaceChildren(errorBox(error));
      }
    }
    return h(
      "li",
      { class: "approval", "data-approval": approval.id, id: `approval-${approval.id}`, tabindex: "-1" },
      h("h2", {}, approval.capability_id || approval.capability || "capability", approval.risk ? ` (${approval.risk})` : ""),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "Automation"),
        h("dd", {}, approval.automation_id ? h("a", { href: `/automations/${approval.automation_id}` }, approval.automation_name || approval.automation_id.slice(0, 8)) : "—"),
        h("dt", {}, "Run"),
        h("dd", {}, approval.run_id ? h("a", { href: `/runs/${approval.run_id}` }, approval.run_id.slice(0, 8)) : "—"),
        h("dt", {}, "Asked by"),
        h("dd", {}, approval.requested_by || approval.step_id || "—"),
        h("dt", {}, "Asked"),
        h("dd", {}, when(approval.requested_at || approval.created_at)),
        h("dt", {}, "Expires"),
        h("dd", {}, when(approval.expires_at)),
      ),
      h("details", { open: true }, h("summary", {}, "Parameters"), pretty(approval.params || approval.args || {})),
      approval.params_hash
        ? h("p", { class: "hint" }, "The approval covers these exact arguments, hidden and cut values included (SHA-256 ", h("code", {}, `${approval.params_hash.slice(0, 12)}…`), "): if the resumed call differs in any of them, it is refused.")
        : null,
      flash,
      h(
        "div",
        { class: "bar" },
        h("button", { type: "button", class: "primary", onclick: () => decide("approve", { scope: "once" }) }, "Approve once"),
        approval.destructive
          ? null
          : h("button", { type: "button", title: `Later calls of step ${approval.step_id} to ${approval.target || approval.capability} run without asking; an edit that calls something else asks again.`, onclick: () => decide("approve", { scope: "always" }) }, "Approve and always allow"),
        h("label", { for: reason.id }, "Reason"),
        reason,
        h("button", { type: "button", class: "danger", onclick: () => decide("deny", reason.value ? { reason: reason.value } : {}) }, "Deny"),
      ),
    );
  }

  // A run page links here with ?approval=<id>: that entry is marked and focused.
  function focusLinked() {
    const wanted = new URLSearchParams(location.search).get("approval");
    const card = wanted && document.getElementById(`approval-${wanted}`);
    if (!card || card.classList.contains("linked")) return;
    card.classList.add("linked");
    card.focus();
  }

  load();
  return listen(spacePath("/runs/events"), (event) => {
    if (event === "run") load();
  });
}
