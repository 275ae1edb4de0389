// Space settings: members and roles (a new member gets an invitation link to hand over); the space's
// default action modes, approval settings, Slack and email approvals and input defaults; your API tokens (sign-ins are listed there too, every
// token has an end but an admin's service token) and your password.
import { api, call, client, inSpace, spacePath } from "../api.js";
import { clear, empty, errorBox, h, loading, when, fill } from "../dom.js";
import { loadApprovalSettings, loadModes } from "./space_modes.js";
import { loadInputDefaults } from "./input_defaults.js";
import { policyHistorySection } from "./settings_audit.js";
import { loadEmailApprovals, loadSlackApprovals } from "./settings_channels.js";

export function settingsPage(main) {
  main.append(h("h1", {}, "Settings"));
  const members = h("div", {}, loading());
  const modes = h("div", {}, loading());
  const approvals = h("div", {}, loading());
  const slack = h("div", {}, loading());
  const email = h("div", {}, loading());
  const inputDefaults = h("div", {}, loading());
  const tokens = h("div", {}, loading());
  const password = h("div", {});
  main.append(
    h("section", { "aria-labelledby": "members-title" }, h("h2", { id: "members-title" }, "Members"), members),
    h("section", { "aria-labelledby": "modes-title" }, h("h2", { id: "modes-title" }, "Action modes"), modes),
    h("section", { "aria-labelledby": "approval-settings-title" }, h("h2", { id: "approval-settings-title" }, "Approvals"), approvals),
    h("section", { "aria-labelledby": "slack-approvals-title" }, h("h2", { id: "slack-approvals-title" }, "Approvals in Slack"), slack),
    h("section", { "aria-labelledby": "email-approvals-title" }, h("h2", { id: "email-approvals-title" }, "Approvals by email"), email),
    h("section", { "aria-labelledby": "input-defaults-title" }, h("h2", { id: "input-defaults-title" }, "Input defaults"), inputDefaults),
    policyHistorySection(),
    h("section", { "aria-labelledby": "tokens-title" }, h("h2", { id: "tokens-title" }, "Your API tokens"), tokens),
    h("section", { "aria-labelledby": "password-title" }, h("h2", { id: "password-title" }, "Your password"), password),
  );
  loadMembers(members);
  loadModes(modes);
  loadApprovalSettings(approvals);
  loadSlackApprovals(slack);
  loadEmailApprovals(email);
  loadInputDefaults(inputDefaults);
  loadTokens(tokens);
  passwordForm(password);
}

async function loadMembers(box) {
  const flash = h("div", { "aria-live": "polite" });
  const email = h("input", { id: "member-email", type: "email", required: true });
  const role = h("select", { id: "member-role" }, ["member", "admin", "owner"].map((r) => h("option", { value: r }, r)));
  async function load() {
    try {
      const page = await call(client.GET("/api/v1/spaces/{space_id}/members", { params: { path: inSpace(), query: { limit: 200 } } }));
      fill(box, 
        flash,
        h("ul", {}, page.items.map((m) => h("li", {}, `${m.email} · ${m.role}`))),
        h(
          "form",
          { class: "inline", onsubmit: add, "aria-label": "Add a member" },
          h("label", { for: "member-email" }, "Email"),
          email,
          h("label", { for: "member-role" }, "Role"),
          role,
          h("button", { type: "submit" }, "Add member"),
        ),
      );
    } catch (error) {
      fill(box, errorBox(error));
    }
  }
  async function add(event) {
    event.preventDefault();
    try {
      const made = await call(client.POST("/api/v1/spaces/{space_id}/members", { params: { path: inSpace() }, body: { email: email.value, role: role.value } }));
      email.value = "";
      await load();
      if (made.invitation) flash.replaceChildren(invitationNotice(made.email, made.invitation));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }
  await load();
}

function invitationNotice(email, invitation) {
  const link = new URL(invitation.url, location.origin).href;
  return h(
    "div",
    { class: "secret", role: "alert" },
    `Send ${email} this invitation link (shown once; it works once, until ${when(invitation.expires_at)}): `,
    h("code", { id: "invitation-link" }, link),
  );
}

// Lifetimes offered when making a token; the API refuses one past the operator's maximum.
const LIFETIMES = [
  ["7", "7 days"],
  ["30", "30 days"],
  ["90", "90 days"],
  ["365", "1 year"],
  ["never", "Never (service token; owners and admins)"],
];

function tokenLine(t) {
  const kind = t.kind === "service" ? " · service token" : t.kind === "session" ? " · sign-in" : "";
  const ends = t.expires_at ? `expires ${when(t.expires_at)}` : "never expires";
  return `${t.display_prefix}…${kind}${scopeText(t.scopes)} · created ${when(t.created_at)} · ${ends} `;
}

// A scoped token can do only what its scopes name; one without scopes has its user's full access.
function scopeText(scopes) {
  if (!scopes) return "";
  const parts = [];
  if (scopes.mcp) {
    const count = scopes.mcp.automations.length;
    parts.push(`MCP tools of ${count} automation${count === 1 ? "" : "s"}`);
  }
  if (scopes.as_code) parts.push(`export and apply of one space's automations (${scopes.as_code.space})`);
  return ` · only: ${parts.join(", ") || "nothing"}`;
}

async function loadTokens(box) {
  const flash = h("div", { "aria-live": "polite" });
  const name = h("input", { id: "token-name", required: true, maxlength: "200" });
  const lifetime = h(
    "select",
    { id: "token-lifetime" },
    LIFETIMES.map(([value, label]) => h("option", { value, selected: value === "90" }, label)),
  );
  // An agent's token: scoped to the MCP tools chosen here, it can do nothing else.
  const tools = h("select", { id: "token-mcp-tools", multiple: true, size: "3" });
  // A CI pipeline's token: `automations export` / `apply` in this space, and nothing else.
  const asCode = h("input", { id: "token-as-code", type: "checkbox" });
  async function load() {
    try {
      const [page, automations] = await Promise.all([
        api("GET", "/tokens?limit=200"),
        api("GET", spacePath("/automations?limit=200")),
      ]);
      const exposed = automations.items.filter((a) => a.definition.expose && a.definition.expose.mcp);
      tools.replaceChildren(...exposed.map((a) => h("option", { value: a.id }, `${a.definition.expose.mcp.tool_name} (${a.name})`)));
      const live = page.items.filter((t) => !t.revoked_at);
      fill(box, 
        flash,
        live.length
          ? h(
              "ul",
              {},
              live.map((t) =>
                h("li", {}, h("strong", {}, t.name), " ", tokenLine(t), h("button", { type: "button", onclick: () => revoke(t.id), "aria-label": `Revoke token ${t.name}` }, "Revoke")),
              ),
            )
          : empty("No live tokens."),
        h(
          "form",
          { class: "inline", onsubmit: create, "aria-label": "Create a token" },
          h("label", { for: "token-name" }, "Name"),
          name,
          h("label", { for: "token-lifetime" }, "Expires after"),
          lifetime,
          exposed.length ? h("label", { for: "token-mcp-tools" }, "Only for an agent calling these MCP tools (optional)") : null,
          exposed.length ? tools : null,
          asCode,
          h("label", { for: "token-as-code" }, "Only for CI: export and apply this space's automations as code"),
          h("button", { type: "submit" }, "Create token"),
        ),
      );
    } catch (error) {
      fill(box, errorBox(error));
    }
  }
  async function create(event) {
    event.preventDefault();
    try {
      const days = lifetime.value === "never" ? "never" : Number(lifetime.value);
      const chosen = [...tools.selectedOptions].map((option) => option.value);
      const body = { name: name.value, expires_in_days: days };
      const scopes = {};
      if (chosen.length) scopes.mcp = { automations: chosen };
      if (asCode.checked) scopes.as_code = { space: inSpace().space_id };
      if (Object.keys(scopes).length) body.scopes = scopes;
      const made = await api("POST", "/tokens", body);
      name.value = "";
      asCode.checked = false;
      await load();
      const ends = made.expires_at ? `expires ${when(made.expires_at)}` : "never expires";
      flash.replaceChildren(h("div", { class: "secret", role: "alert" }, `New token (shown once; ${ends}): `, h("code", { id: "new-token" }, made.token)));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }
  async function revoke(id) {
    try {
      await call(client.POST("/api/v1/tokens/{token_id}/revoke", { params: { path: { token_id: id } } }));
      await load();
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }
  await load();
}

function passwordForm(box) {
  const flash = h("div", { "aria-live": "polite" });
  const current = h("input", { id: "current-password", type: "password", autocomplete: "current-password" });
  const next = h("input", { id: "new-password", type: "password", autocomplete: "new-password", required: true, minlength: "12" });
  async function save(event) {
    event.preventDefault();
    try {
      const body = { password: next.value };
      if (current.value) body.current_password = current.value;
      await call(client.PUT("/api/v1/me/password", { body: body }));
      current.value = "";
      next.value = "";
      flash.replaceChildren(h("p", { class: "ok" }, "Password set. Your other sign-ins and tokens are revoked."));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }
  box.append(
    flash,
    h(
      "form",
      { class: "inline", onsubmit: save, "aria-label": "Set your password" },
      h("label", { for: "current-password" }, "Current password (if set)"),
      current,
      h("label", { for: "new-password" }, "New password (12 or more characters)"),
      next,
      h("button", { type: "submit" }, "Set password"),
    ),
  );
}
