// Action modes: for each capability the plan calls, the mode it gets now and where that comes from
// (this automation's override, the space default, inference, the write policy, the drift guard), and
// the automation's overrides to change: per capability, or any id or pattern (`crm.*`); and the rules over
// a call's arguments of this automation and of the space, tried before the overrides (first match wins).
import { api, call, client, inSpace, spacePath } from "../../api.js";
import { errorBox, fill, h, loading } from "../../dom.js";

export const MODES = ["allow", "require_approval", "deny"];
const MODE_LABELS = { allow: "allow", require_approval: "require approval", deny: "deny" };
const SOURCES = {
  automation_rule: "this automation's rule",
  space_rule: "space rule",
  automation_override: "this automation's override",
  space_default: "space default",
  inferred_default: "inferred default",
  write_policy: "write policy (always draft)",
  approval_grant: "standing approval (always)",
  drift_guard: "drift guard (tool changed)",
};

export function modeLabel(mode) {
  return MODE_LABELS[mode] || mode;
}

export function sourceLabel(source) {
  return SOURCES[source] || source;
}

function globPattern(glob) {
  const escaped = glob.replace(/[.+^$()|[\]{}\\]/g, "\\$&");
  return new RegExp(`^${escaped.replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
}

// The space default entry that answers for a capability: its exact id, else the longest pattern
// (`*`, `?`) that matches it, as the cascade picks inside one level.
function spaceEntry(spaceModes, capability) {
  if (spaceModes[capability]) return { key: capability, mode: spaceModes[capability] };
  const matching = Object.keys(spaceModes)
    .filter((key) => globPattern(key).test(capability))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return matching.length ? { key: matching[0], mode: spaceModes[matching[0]] } : null;
}

function spaceCell(spaceModes, capability) {
  const entry = spaceEntry(spaceModes, capability);
  if (!entry) return "—";
  return entry.key === capability ? modeLabel(entry.mode) : [modeLabel(entry.mode), " ", h("small", {}, `(${entry.key})`)];
}

// Capabilities the plan calls, from a preview: capability → {steps, chosen_by, mode, mode_source}.
function usedCapabilities(preview) {
  const used = new Map();
  for (const step of preview ? preview.steps : [])
    for (const call of step.calls || []) {
      const entry = used.get(call.capability) || { steps: [], chosenBy: new Set(), mode: call.mode, source: call.mode_source, rule: call.mode_rule, approvers: call.required_approvals || 1 };
      if (!entry.steps.includes(step.step_id)) entry.steps.push(step.step_id);
      entry.chosenBy.add(call.chosen_by);
      used.set(call.capability, entry);
    }
  return used;
}

function modeSelect(id, value, label, { inherit = true } = {}) {
  return h(
    "select",
    { id, "aria-label": label },
    inherit ? h("option", { value: "", selected: !value }, "no override") : null,
    MODES.map((mode) => h("option", { value: mode, selected: value === mode }, modeLabel(mode))),
  );
}

// `automation()` answers the page's automation; `onSaved(modes)` records the new overrides;
// `previewNow()` answers a fresh preview (or throws), used to show the effective modes.
export function modesSection(automation, { onSaved, previewNow }) {
  const box = h("div", { id: "modes-box" }, loading("Loading action modes…"));
  const result = h("div", { "aria-live": "polite", id: "modes-result" });
  // A refused save stays until the table changes: then it no longer describes what is there.
  function settleRefusal() {
    if (result.querySelector(".error")) result.replaceChildren();
  }
  box.addEventListener("input", settleRefusal);
  box.addEventListener("change", settleRefusal);
  let preview = null;
  let previewError = null;
  let spaceModes = {};
  let spaceRules = [];
  let automationRules = [];
  let rows = [];

  async function load() {
    try {
      const [space, own] = await Promise.all([
        api("GET", spacePath("/action-modes")),
        api("GET", spacePath(`/automations/${automation().id}/action-modes`)),
      ]);
      spaceModes = space.modes;
      spaceRules = space.rules || [];
      automationRules = own.rules || [];
    } catch (error) {
      box.replaceChildren(errorBox(error));
      return;
    }
    await refreshPreview();
  }

  async function refreshPreview() {
    try {
      preview = await previewNow();
      previewError = null;
    } catch (error) {
      preview = null;
      previewError = error;
    }
    paint();
  }

  function paint() {
    const overrides = { ...(automation().action_modes || {}) };
    const used = usedCapabilities(preview);
    rows = [];
    const usedRows = [...used.entries()].map(([capability, entry], index) => {
      const select = modeSelect(`mode-${index}`, overrides[capability] || "", `Override for ${capability}`);
      rows.push({ key: () => capability, select });
      delete overrides[capability];
      return h(
        "tr",
        { "data-capability": capability },
        h("th", { scope: "row" }, h("code", {}, capability)),
        h("td", {}, entry.steps.join(", "), entry.chosenBy.has("agent") ? " (agent's tool)" : ""),
        h("td", {}, spaceCell(spaceModes, capability)),
        h("td", { class: "effective" }, h("strong", { class: `mode mode-${entry.mode}` }, modeLabel(entry.mode)), h("br"), h("small", {}, sourceLabel(entry.source), entry.rule ? ` #${entry.rule.index + 1}` : "", entry.approvers > 1 ? `, ${entry.approvers} approvers` : "")),
        h("td", {}, select),
      );
    });
    // Overrides for ids or patterns the plan does not call now stay editable (and removable).
    const otherRows = Object.entries(overrides).map(([key, mode], index) => {
      const keyInput = h("input", { type: "text", value: key, id: `mode-key-${index}`, "aria-label": "Capability id or pattern", maxlength: "200" });
      const select = modeSelect(`mode-other-${index}`, mode, `Mode for ${key}`, { inherit: false });
      const row = { key: () => keyInput.value.trim(), select };
      rows.push(row);
      const tr = h(
        "tr",
        { "data-capability": key },
        h("th", { scope: "row" }, keyInput),
        h("td", {}, "not called by the plan now"),
        h("td", {}, spaceModes[key] ? modeLabel(spaceModes[key]) : "—"),
        h("td", {}, "—"),
        h(
          "td",
          {},
          select,
          h("button", { type: "button", class: "danger", "aria-label": `Remove the override for ${key}`, onclick: () => { rows.splice(rows.indexOf(row), 1); tr.remove(); settleRefusal(); document.getElementById("mode-new-key").focus(); } }, "Remove"),
        ),
      );
      return tr;
    });
    const newKey = h("input", { type: "text", id: "mode-new-key", placeholder: "crm.* or crm.create_note", maxlength: "200" });
    const newMode = modeSelect("mode-new-mode", "require_approval", "Mode for the new override", { inherit: false });
    fill(
      box,
      previewError
        ? h("p", { class: "hint", id: "modes-preview-error" }, `Effective modes need a preview, which failed: ${previewError.message} Use "Try it" below with inputs, and they show here.`)
        : null,
      used.size || otherRows.length
        ? h(
            "table",
            { class: "modes" },
            h("caption", {}, "Modes of the capabilities this automation calls"),
            h("thead", {}, h("tr", {}, ["Capability", "Used by", "Space default", "Effective now", "This automation"].map((t) => h("th", { scope: "col" }, t)))),
            h("tbody", {}, usedRows, otherRows),
          )
        : preview
          ? h("p", {}, "The plan calls no capability.")
          : null,
      h(
        "div",
        { class: "adder", role: "group", "aria-label": "Add an override" },
        h("label", { for: "mode-new-key" }, "Override for another id or pattern"),
        newKey,
        newMode,
      ),
      h("div", { class: "bar" }, h("button", { type: "button", class: "primary", id: "save-modes", onclick: () => save(newKey, newMode) }, "Save action modes")),
      rulesPart(),
    );
  }

  function rulesTable(id, caption, rules) {
    if (!rules.length) return h("p", { class: "hint", id }, `${caption}: none.`);
    return h(
      "table",
      { class: "modes", id },
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, ["#", "Capability", "When the arguments match", "Mode", "Approvers"].map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        rules.map((rule, index) =>
          h(
            "tr",
            { "data-rule": String(index) },
            h("td", {}, String(index + 1)),
            h("td", {}, h("code", {}, rule.capability)),
            h("td", {}, rule.when ? h("code", {}, JSON.stringify(rule.when)) : "always"),
            h("td", {}, modeLabel(rule.mode)),
            h("td", {}, rule.mode === "require_approval" ? String(rule.approvals || 1) : "—"),
          ),
        ),
      ),
    );
  }

  function rulesPart() {
    const editor = h("textarea", { id: "mode-rules", rows: "6", spellcheck: "false", "aria-label": "This automation's rules as JSON" }, JSON.stringify(automationRules, null, 2));
    return h(
      "div",
      { id: "mode-rules-box" },
      h("h3", {}, "Rules over a call's arguments"),
      h("p", { class: "hint" }, 'Tried in order before the overrides; the first that matches decides. e.g. [{"capability": "http.request", "when": {"method": {"in": ["DELETE"]}}, "mode": "deny"}] or {"capability": "payments.refund", "when": {"amount": {"gt": 1000}}, "mode": "require_approval", "approvals": 2}.'),
      rulesTable("automation-rules", "This automation's rules", automationRules),
      rulesTable("space-rules", "Space rules (after this automation's)", spaceRules),
      h("label", { for: "mode-rules" }, "Edit this automation's rules (JSON array)"),
      editor,
      h("div", { class: "bar" }, h("button", { type: "button", id: "save-mode-rules", onclick: () => saveRules(editor) }, "Save rules")),
    );
  }

  async function saveRules(editor) {
    let rules;
    try {
      rules = JSON.parse(editor.value || "[]");
    } catch (error) {
      result.replaceChildren(errorBox({ message: `The rules are not valid JSON: ${error.message}` }));
      return;
    }
    result.replaceChildren(loading("Saving rules…"));
    try {
      const saved = await api("PUT", spacePath(`/automations/${automation().id}/action-modes`), { modes: automation().action_modes || {}, rules });
      automationRules = saved.rules;
      onSaved(saved.modes);
      await refreshPreview();
      result.replaceChildren(h("p", { class: "ok" }, "Rules saved. They apply to the next call; no new version is made."));
    } catch (error) {
      result.replaceChildren(errorBox(error));
    }
  }

  async function save(newKey, newMode) {
    /** @type {import("../../api.js").Schema<"ActionModes">["modes"]} */
    const modes = {};
    for (const row of rows) {
      const key = row.key();
      if (key && row.select.value) modes[key] = row.select.value;
    }
    if (newKey.value.trim()) modes[newKey.value.trim()] = newMode.value;
    result.replaceChildren(loading("Saving action modes…"));
    try {
      const saved = await call(client.PUT("/api/v1/spaces/{space_id}/automations/{automation_id}/action-modes", { params: { path: inSpace({ automation_id: automation().id }) }, body: { modes } }));
      onSaved(saved.modes);
      await refreshPreview();
      result.replaceChildren(h("p", { class: "ok" }, "Action modes saved. They apply to the next call; no new version is made."));
      document.getElementById("save-modes")?.focus();
    } catch (error) {
      result.replaceChildren(errorBox(error));
    }
  }

  load();
  return {
    element: h(
      "section",
      { "aria-labelledby": "modes-title" },
      h("h2", { id: "modes-title" }, "Action modes"),
      h("p", { class: "hint" }, "Allow a call, deny it, or hold it for a human to approve. The automation's override wins over the space default; without either, the mode is inferred."),
      box,
      result,
    ),
    // A preview made with inputs fills the table when the one without inputs failed; otherwise the
    // table is left alone so unsaved choices in it survive.
    update(answer) {
      if (!previewError) return;
      preview = answer;
      previewError = null;
      paint();
    },
  };
}
