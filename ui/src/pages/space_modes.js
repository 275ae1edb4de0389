// Space settings, governance part: the space's default action modes (one per capability or pattern,
// used by every automation unless it overrides them) and the approval settings (how long a call
// waits for a decision, and whether the person who started a run may approve its calls).
import { call, client, inSpace } from "../api.js";
import { errorBox, h, fill } from "../dom.js";

const MODES = [
  ["", "not set (inferred)"],
  ["allow", "allow"],
  ["require_approval", "require approval"],
  ["deny", "deny"],
];

// Members may read these settings; only admins and owners may change them (the API says 403).
export async function mayChange() {
  const space = await call(client.GET("/api/v1/spaces/{space_id}", { params: { path: inSpace() } }));
  return space.role === "admin" || space.role === "owner";
}

function readOnlyNote(writable) {
  return writable ? null : h("p", { class: "hint read-only" }, "Only admins and owners can change these.");
}

function modeSelect(id, label, value) {
  return h(
    "select",
    { id, "aria-label": label, "data-mode-for": label },
    MODES.map(([mode, text]) => h("option", { value: mode, selected: mode === (value || "") }, text)),
  );
}

export async function loadModes(box) {
  const flash = h("div", { "aria-live": "polite" });
  let rows = [];
  let writable = false;

  async function load() {
    try {
      const [current, catalog, allowed] = await Promise.all([call(client.GET("/api/v1/spaces/{space_id}/action-modes", { params: { path: inSpace() } })), call(client.GET("/api/v1/spaces/{space_id}/catalog", { params: { path: inSpace() } })), mayChange()]);
      writable = allowed;
      paint(current.modes, catalog.capabilities);
    } catch (error) {
      fill(box, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  function paint(modes, capabilities) {
    const ids = capabilities.map((c) => c.id);
    // Patterns and ids the catalog does not list (a removed plugin's, say) stay editable too.
    const keys = [...ids, ...Object.keys(modes).filter((key) => !ids.includes(key)).sort()];
    const risk = new Map(capabilities.map((c) => [c.id, c.risk]));
    rows = keys.map((key, index) => ({ key, select: modeSelect(`mode-${index}`, key, modes[key]) }));
    const pattern = h("input", { id: "mode-pattern", placeholder: "crm.*", maxlength: "200" });
    const patternMode = modeSelect("mode-pattern-value", "Mode for the new pattern", "require_approval");
    fill(
      box,
      h("p", { class: "hint" }, "The space's defaults: an automation's own modes win over these, and a capability left unset follows the inferred rule (a saved step may call it; a model's write asks first)."),
      readOnlyNote(writable),
      flash,
      h(
        "form",
        { onsubmit: save, "aria-label": "Space action modes" },
        h(
          "table",
          { class: "modes" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Capability or pattern"), h("th", { scope: "col" }, "Risk"), h("th", { scope: "col" }, "Mode"))),
          h(
            "tbody",
            {},
            rows.map((row) => h("tr", {}, h("td", {}, h("code", {}, row.key)), h("td", {}, risk.get(row.key) || "pattern"), h("td", {}, row.select))),
          ),
        ),
        h("div", { class: "bar" }, h("label", { for: "mode-pattern" }, "Add a pattern"), pattern, patternMode),
        h("button", { type: "submit", class: "primary", id: "save-modes" }, "Save action modes"),
      ),
    );
    if (!writable) for (const control of box.querySelectorAll("select, input, button")) control.disabled = true;

    async function save(event) {
      event.preventDefault();
      /** @type {import("../api.js").Schema<"ActionModes">["modes"]} */
      const body = {};
      for (const row of rows) if (row.select.value) body[row.key] = row.select.value;
      if (pattern.value.trim() && patternMode.value) body[pattern.value.trim()] = patternMode.value;
      try {
        const saved = await call(client.PUT("/api/v1/spaces/{space_id}/action-modes", { params: { path: inSpace() }, body: { modes: body } }));
        paint(saved.modes, capabilities);
        flash.replaceChildren(h("p", { class: "ok", role: "status" }, "Action modes saved."));
      } catch (error) {
        flash.replaceChildren(errorBox(error));
      }
    }
  }

  await load();
}

export async function loadApprovalSettings(box) {
  const flash = h("div", { "aria-live": "polite" });
  // The API counts seconds (60 s to 30 days); people think in minutes.
  const minutes = h("input", { id: "approval-ttl", type: "number", min: "1", max: String(30 * 24 * 60), step: "1", required: true });
  const forbid = h("input", { id: "forbid-self-approval", type: "checkbox" });

  let writable = false;

  async function load() {
    try {
      const [settings, allowed] = await Promise.all([call(client.GET("/api/v1/spaces/{space_id}/approval-settings", { params: { path: inSpace() } })), mayChange()]);
      writable = allowed;
      show(settings);
    } catch (error) {
      fill(box, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  function show(settings) {
    minutes.value = String(Math.round(settings.approval_ttl_seconds / 60));
    forbid.checked = settings.forbid_self_approval;
    fill(
      box,
      readOnlyNote(writable),
      flash,
      h(
        "form",
        { onsubmit: save, "aria-label": "Approval settings" },
        h("label", { for: "approval-ttl" }, "A call waits for a decision for (minutes)"),
        minutes,
        h("p", { class: "hint" }, "After that the call expires and its step fails. 1 minute to 30 days."),
        h("div", { class: "check" }, forbid, h("label", { for: "forbid-self-approval" }, "Refuse approvals from whoever started the run or saved the automation's version")),
        h("button", { type: "submit", class: "primary", id: "save-approval-settings" }, "Save approval settings"),
      ),
    );
    if (!writable) for (const control of box.querySelectorAll("input, button")) control.disabled = true;
  }

  async function save(event) {
    event.preventDefault();
    try {
      const saved = await call(client.PUT("/api/v1/spaces/{space_id}/approval-settings", { params: { path: inSpace() }, body: {
        approval_ttl_seconds: Number(minutes.value) * 60,
        forbid_self_approval: forbid.checked,
      } }));
      show(saved);
      flash.replaceChildren(h("p", { class: "ok", role: "status" }, "Approval settings saved."));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  await load();
}
