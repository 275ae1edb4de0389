// Decide a call from an emailed link. The link's token travels in the URL fragment (browsers never send
// it to a server, so it reaches no access log) and leaves the address bar as soon as it is read. Opening
// the page only shows the call; the Approve and Deny buttons POST the decision, so a mail scanner that
// follows the link decides nothing. No sign-in: the link is the credential, bound to one approver.
import { ApiError } from "../api.js";
import { errorBox, h, pretty, when } from "../dom.js";

// Kept for this tab only, so a reload of the page (whose address no longer holds it) still works.
const LINK_KEY = "automations.approval-link";

async function post(path, body) {
  const response = await fetch(`/api/v1${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, answer);
  return answer;
}

export function approvalEmailPage(app) {
  if (location.hash.length > 1) {
    sessionStorage.setItem(LINK_KEY, decodeURIComponent(location.hash.slice(1)));
    history.replaceState(history.state, "", "/approval-email");
  }
  const token = sessionStorage.getItem(LINK_KEY);
  const message = h("div", { "aria-live": "polite", id: "approval-email-message" });
  const body = h("div", { id: "approval-email-call" });
  const main = h("main", { id: "main", class: "signin" }, h("h1", {}, "Decide an approval"), message, body);
  app.append(main);
  if (!token) {
    message.replaceChildren(h("p", { class: "error", role: "alert" }, "This link holds no approval. Open the link from your email again."));
    return;
  }

  async function decide(decision, reason) {
    try {
      const answer = await post("/approval-links/decide", { token, decision, reason: reason || null });
      sessionStorage.removeItem(LINK_KEY);
      body.replaceChildren();
      const text =
        answer.status === "pending"
          ? "Your approval is recorded. The call waits for other approvers."
          : `Your decision is recorded: the call is ${answer.status}.`;
      message.replaceChildren(h("p", { class: "ok", role: "status", id: "approval-email-done" }, text));
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  }

  (async () => {
    try {
      const call = await post("/approval-links/view", { token });
      const reason = h("input", { type: "text", id: "approval-email-reason", maxlength: "1000" });
      body.replaceChildren(
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "Capability"),
          h("dd", {}, h("code", {}, call.capability)),
          h("dt", {}, "Step"),
          h("dd", {}, call.step_id),
          h("dt", {}, "Run"),
          h("dd", {}, h("code", {}, call.run_id)),
          h("dt", {}, "Approvals"),
          h("dd", {}, `${call.approvals_so_far} of ${call.required_approvals}`),
          h("dt", {}, "Expires"),
          h("dd", {}, when(call.expires_at)),
          h("dt", {}, "For"),
          h("dd", {}, call.approver_email),
        ),
        h("details", { open: true }, h("summary", {}, "Parameters"), pretty(call.params)),
        h(
          "div",
          { class: "bar" },
          h("button", { type: "button", class: "primary", id: "approval-email-approve", onclick: () => decide("approve") }, "Approve"),
          h("label", { for: "approval-email-reason" }, "Reason"),
          reason,
          h("button", { type: "button", class: "danger", id: "approval-email-deny", onclick: () => decide("deny", reason.value) }, "Deny"),
        ),
        h("p", { class: "hint" }, "This link is yours only and decides once."),
      );
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  })();
}
