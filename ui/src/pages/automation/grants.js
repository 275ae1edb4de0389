// Standing approvals ("Approve and always allow"): each covers one step's calls to one target, and
// shows where it came from (who granted it, when, from which approval, for which version). A call of
// the step to another target lapses it. Admins and owners revoke one here (the API answers 403 to
// others).
import { call, client, inSpace } from "../../api.js";
import { empty, errorBox, fill, h, loading, when } from "../../dom.js";

// user id → email, for the "granted by" column; members who cannot list members see ids.
async function memberEmails() {
  try {
    const page = await call(client.GET("/api/v1/spaces/{space_id}/members", { params: { path: inSpace(), query: { limit: 200 } } }));
    return new Map(page.items.map((m) => [m.user_id, m.email]));
  } catch {
    return new Map();
  }
}

/** @param {import("../../api.js").Schema<"ApprovalGrantOut">} grant */
function statusCell(grant) {
  if (grant.status === "active") return h("span", { class: "badge status-succeeded" }, "active");
  return [
    h("span", { class: "badge status-failed" }, "lapsed"),
    h("br"),
    h("small", {}, `version ${grant.lapsed_version} called `, h("code", {}, grant.lapsed_target || "—"), ` on ${when(grant.lapsed_at)}`),
  ];
}

export function grantsSection(automation) {
  const box = h("div", { id: "grants-box" }, loading("Loading standing approvals…"));
  const flash = h("div", { "aria-live": "polite", id: "grants-result" });

  async function load() {
    try {
      const [page, emails] = await Promise.all([
        call(client.GET("/api/v1/spaces/{space_id}/automations/{automation_id}/approval-grants", { params: { path: inSpace({ automation_id: automation().id }), query: { limit: 200 } } })),
        memberEmails(),
      ]);
      paint(page.items, emails);
    } catch (error) {
      fill(box, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  function paint(grants, emails) {
    if (!grants.length) {
      fill(box, empty("No standing approvals. \"Approve and always allow\" on a call of this automation adds one for that step and target."));
      return;
    }
    fill(
      box,
      h(
        "table",
        { class: "grants" },
        h("caption", {}, "Standing approvals of this automation"),
        h("thead", {}, h("tr", {}, ["Step", "Capability", "Target", "Granted by", "When", "Version", "Status", ""].map((t) => h("th", { scope: "col" }, t)))),
        h(
          "tbody",
          {},
          grants.map((grant) =>
            h(
              "tr",
              { "data-grant": grant.id },
              h("th", { scope: "row" }, h("code", {}, grant.step_id)),
              h("td", {}, h("code", {}, grant.capability)),
              h("td", {}, h("code", {}, grant.target)),
              h("td", {}, grant.granted_by ? emails.get(grant.granted_by) || grant.granted_by : "—"),
              h("td", {}, when(grant.granted_at)),
              h("td", {}, String(grant.definition_version)),
              h("td", { class: "grant-status" }, statusCell(grant)),
              h("td", {}, h("button", { type: "button", class: "danger", "aria-label": `Revoke the standing approval of ${grant.step_id} to ${grant.target}`, onclick: () => revoke(grant) }, "Revoke")),
            ),
          ),
        ),
      ),
    );
  }

  async function revoke(grant) {
    try {
      await call(client.DELETE("/api/v1/spaces/{space_id}/automations/{automation_id}/approval-grants/{grant_id}", { params: { path: inSpace({ automation_id: automation().id, grant_id: grant.id }) } }));
      flash.replaceChildren(h("p", { class: "ok", role: "status" }, `Revoked: the next call of ${grant.step_id} asks again.`));
      await load();
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  load();
  return {
    element: h(
      "section",
      { "aria-labelledby": "grants-title" },
      h("h2", { id: "grants-title" }, "Standing approvals"),
      h("p", { class: "hint" }, "Each covers the calls of one step to one target (an HTTP request's method and URL; an MCP tool). Edit the step to call something else and the next call asks again."),
      flash,
      box,
    ),
  };
}
