// One approval as the API returns it (`ApprovalOut`): the facts a person decides on, and the decision
// controls. Approving a call that changes something outside (risk `write`, or a destructive one) takes
// a second tap in a confirmation dialog; approving a read, or denying, takes one.
import { call, client, inSpace } from "../../api.js";
import { errorBox, h, pretty, when } from "../../dom.js";

/** @typedef {import("../../api.js").Schema<"ApprovalOut">} Approval */

const ROLE_NAMES = { owner: "an owner", admin: "an admin" };

/** @param {Approval} approval */
export function needsConfirmation(approval) {
  return approval.destructive || approval.risk === "write";
}

/** @param {Approval} approval */
export function approvalTitle(approval) {
  return `${approval.capability} in ${approval.automation_name || "an automation"}`;
}

/** @param {Approval} approval */
function askedOf(approval) {
  const roles = approval.approvers.map((role) => ROLE_NAMES[role] || role);
  return roles.length ? `${roles.join(" or ")} of this space` : "—";
}

/** How many distinct members approved so far, of how many the rule asks, and through which channel.
 * @param {Approval} approval */
function approvalsSoFar(approval) {
  const approved = approval.decisions.filter((decision) => decision.decision === "approve");
  const via = approved.map((decision) => `${when(decision.created_at)} (${decision.via})`).join(", ");
  return `${approved.length} of ${approval.required_approvals}${via ? `: ${via}` : ""}`;
}

/** The facts of a call waiting (or no longer waiting) for a decision. @param {Approval} approval */
export function approvalFacts(approval) {
  return [
    h(
      "dl",
      { class: "facts approval-facts" },
      h("dt", {}, "Automation"),
      h("dd", {}, h("a", { href: `/automations/${approval.automation_id}` }, approval.automation_name || approval.automation_id.slice(0, 8))),
      h("dt", {}, "Step"),
      h("dd", {}, h("code", {}, approval.step_id)),
      h("dt", {}, "Capability"),
      h("dd", {}, h("code", {}, approval.capability), ` (${approval.risk}${approval.destructive ? ", may destroy data" : ""})`),
      approval.target ? [h("dt", {}, "Acts on"), h("dd", { class: "target" }, h("code", {}, approval.target))] : null,
      h("dt", {}, "Asked of"),
      h("dd", {}, askedOf(approval)),
      approval.required_approvals > 1 ? [h("dt", {}, "Approvals"), h("dd", { class: "approvals-so-far" }, approvalsSoFar(approval))] : null,
      approval.mode_rule ? [h("dt", {}, "Decided by"), h("dd", {}, `rule ${Number(approval.mode_rule.index) + 1} of the ${String(approval.mode_rule.level)}'s modes`)] : null,
      h("dt", {}, "Requested"),
      h("dd", {}, when(approval.created_at)),
      h("dt", {}, "Expires"),
      h("dd", {}, when(approval.expires_at)),
      h("dt", {}, "Run"),
      h("dd", {}, h("a", { href: `/runs/${approval.run_id}` }, approval.run_id.slice(0, 8))),
    ),
    h("details", { open: true }, h("summary", {}, "Parameters (secrets and long values hidden)"), pretty(approval.params)),
    approval.params_hash
      ? h("p", { class: "hint" }, "The approval covers these exact arguments, hidden and cut values included (SHA-256 ", h("code", {}, `${approval.params_hash.slice(0, 12)}…`), "): if the resumed call differs in any of them, it is refused.")
      : null,
  ];
}

/**
 * Approve once, approve and always allow (not for a destructive call), deny with a reason.
 * @param {Approval} approval
 * @param {(decided: Approval) => void} onDecided called with the approval as the API answers it
 */
export function decisionControls(approval, onDecided) {
  const reason = h("input", { type: "text", id: `reason-${approval.id}`, maxlength: "1000", autocomplete: "off" });
  const flash = h("div", { "aria-live": "polite" });
  const path = { params: { path: inSpace({ approval_id: approval.id }) } };

  /** @param {() => Promise<Approval>} send */
  async function decide(send) {
    try {
      onDecided(await send());
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }
  /** @param {"once" | "always"} scope */
  const approve = (scope) => decide(() => call(client.POST("/api/v1/spaces/{space_id}/approvals/{approval_id}/approve", { ...path, body: { scope } })));
  /** @param {"once" | "always"} scope */
  const asked = (scope) => (needsConfirmation(approval) ? confirmApproval(approval, () => approve(scope)) : approve(scope));
  const deny = () => decide(() => call(client.POST("/api/v1/spaces/{space_id}/approvals/{approval_id}/deny", { ...path, body: reason.value ? { reason: reason.value } : {} })));

  return h(
    "div",
    { class: "decision" },
    flash,
    h(
      "div",
      { class: "decide-buttons" },
      h("button", { type: "button", class: "primary", onclick: () => asked("once") }, "Approve once"),
      approval.destructive
        ? null
        : h("button", { type: "button", title: `Later calls of step ${approval.step_id} to ${approval.target || approval.capability} run without asking; an edit that calls something else asks again.`, onclick: () => asked("always") }, "Approve and always allow"),
    ),
    h("div", { class: "deny" }, h("label", { for: reason.id }, "Reason (optional)"), reason, h("button", { type: "button", class: "danger", onclick: deny }, "Deny")),
  );
}

// A modal dialog: focus is held inside it, Escape cancels, and the page behind cannot be tapped.
function confirmApproval(approval, proceed) {
  const titleId = `confirm-title-${approval.id}`;
  const yes = h("button", { type: "button", class: "primary", onclick: () => close(true) }, "Yes, approve");
  const dialog = h(
    "dialog",
    { class: "confirm", "aria-labelledby": titleId },
    h("h2", { id: titleId }, "Approve this call?"),
    h("p", {}, approval.destructive ? "It may destroy data, and it runs as soon as you approve." : "It changes something outside this service, and it runs as soon as you approve."),
    h("p", {}, h("code", {}, approval.target || approval.capability)),
    h("div", { class: "decide-buttons" }, yes, h("button", { type: "button", onclick: () => close(false) }, "Cancel")),
  );
  function close(confirmed) {
    dialog.close();
    dialog.remove();
    if (confirmed) proceed();
  }
  dialog.addEventListener("cancel", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  yes.focus();
}
