// Settings, policy history: every change to action modes (the space's and each automation's), to the
// approval settings, and to standing approvals, with who made it, when, and the value before and after.
// Admins and owners only (the API answers 403 to members); newest first, a page at a time.
import { call, client, inSpace } from "../api.js";
import { empty, errorBox, fill, h, loading, pretty, when } from "../dom.js";

const KINDS = {
  space_modes: "Space action modes",
  automation_modes: "Automation action modes",
  approval_settings: "Approval settings",
  approval_grant_added: "Standing approval granted",
  approval_grant_revoked: "Standing approval revoked",
  slack_approvals: "Slack approvals",
  email_approvals: "Email approvals",
};

/** @param {import("../api.js").Schema<"PolicyChangeOut">} change @param {Map<string, string>} emails */
function changeItem(change, emails) {
  const who = change.actor_id ? emails.get(change.actor_id) || change.actor_id : "—";
  return h(
    "li",
    { "data-kind": change.kind },
    h("strong", {}, KINDS[change.kind] || change.kind),
    change.automation_id ? [" · ", h("a", { href: `/automations/${change.automation_id}` }, "automation")] : null,
    ` · ${who} · ${when(change.created_at)}`,
    h("details", {}, h("summary", {}, "Before and after"), h("div", { class: "diff" }, h("h4", {}, "Before"), pretty(change.before), h("h4", {}, "After"), pretty(change.after))),
  );
}

export function policyHistorySection() {
  const box = h("div", { id: "policy-history" }, loading());
  const list = h("ul", { class: "policy-changes" });
  let emails = new Map();

  async function more(cursor) {
    try {
      const page = await call(client.GET("/api/v1/spaces/{space_id}/policy-changes", { params: { path: inSpace(), query: { limit: 50, cursor } } }));
      for (const change of page.items) list.append(changeItem(change, emails));
      const next = page.next_cursor
        ? h("button", { type: "button", id: "policy-history-more", onclick: (event) => { event.target.remove(); more(page.next_cursor); } }, "Older changes")
        : null;
      fill(box, list.children.length ? list : empty("No changes recorded yet."), next);
    } catch (error) {
      fill(box, error.status === 403 ? h("p", { class: "hint" }, "Only admins and owners can see the policy history.") : errorBox(error));
    }
  }

  (async () => {
    try {
      const members = await call(client.GET("/api/v1/spaces/{space_id}/members", { params: { path: inSpace(), query: { limit: 200 } } }));
      emails = new Map(members.items.map((m) => [m.user_id, m.email]));
    } catch {
      emails = new Map();
    }
    await more(null);
  })();
  return h("section", { "aria-labelledby": "policy-history-title" }, h("h2", { id: "policy-history-title" }, "Policy history"), box);
}
