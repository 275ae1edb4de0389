// One approval on its own page (/approvals/<id>): where a notification's link lands, and what the
// inbox opens. A pending call shows the decision controls; a decided one what was decided and when.
import { ApiError, call, client, inSpace, spacePath } from "../../api.js";
import { errorBox, fill, h, lastPainted, loading, statusBadge, when } from "../../dom.js";
import { listen } from "../../sse.js";
import { approvalFacts, approvalTitle, decisionControls } from "./decision.js";

/** @typedef {import("../../api.js").Schema<"ApprovalOut">} Approval */

const OUTCOME = {
  approved: "Approved",
  executing: "Approved, running",
  executed: "Approved and done",
  failed: "Approved, the call failed",
  denied: "Denied",
  expired: "Expired: nobody decided in time",
};

/** @param {HTMLElement} main @param {string} id */
export function approvalPage(main, id) {
  const title = h("h1", {}, "Approval");
  const body = h("div", { class: "approval-page", "data-approval": id }, loading());
  main.append(h("p", {}, h("a", { href: "/approvals", class: "back" }, "← All approvals")), title, body);
  const painted = lastPainted();

  async function load() {
    try {
      show(await call(client.GET("/api/v1/spaces/{space_id}/approvals/{approval_id}", { params: { path: inSpace({ approval_id: id }) } })));
    } catch (error) {
      painted.forget();
      if (error instanceof ApiError && error.status === 404) fill(body, h("p", { class: "empty" }, "This approval does not exist in this space (or the space is not yours)."));
      else fill(body, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  /** @param {Approval} approval */
  function show(approval) {
    if (painted.same(approval)) return;
    body.dataset.run = approval.run_id;
    title.textContent = approvalTitle(approval);
    document.title = `${approvalTitle(approval)} · Automations`;
    fill(body, h("p", { class: "state", role: "status" }, statusBadge(approval.status), " ", approval.status === "pending" ? "Waiting for your decision" : OUTCOME[approval.status] || approval.status), ...approvalFacts(approval), approval.status === "pending" ? decisionControls(approval, show) : outcome(approval));
  }

  /** @param {Approval} approval */
  function outcome(approval) {
    return h(
      "dl",
      { class: "facts outcome" },
      approval.decided_at ? [h("dt", {}, "Decided"), h("dd", {}, when(approval.decided_at), approval.decision_scope ? ` (${approval.decision_scope.replace("_", " ")})` : "")] : null,
      approval.denied_reason ? [h("dt", {}, "Why"), h("dd", {}, approval.denied_reason)] : null,
      approval.error ? [h("dt", {}, "Message"), h("dd", {}, String(approval.error.message || approval.error.code || ""))] : null,
    );
  }

  load();
  return listen(
    spacePath("/runs/events"),
    (event, change) => {
      if (event === "run" && change && change.run_id === body.dataset.run) load();
    },
    { onLive: load },
  );
}
