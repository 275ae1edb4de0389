// The definition editor: generated forms (one for the general fields, one per trigger, one per step,
// each from the published schemas) and a JSON view, kept in sync both ways. Flags and validation
// problems are shown beside the field their JSON pointer names; a refused save's problems stay until
// the user edits what they name. Beside a credential written as a literal (`literal_secret`), an
// admin is offered to move it into a secret: the value is stored, and the field becomes a reference.
import { JSONEditor } from "@json-editor/json-editor";
import { clear, errorBox, h } from "./dom.js";
import { blockFormValue, blockFromForm, blockKind, flatten, innerLists } from "./plan_steps.js";
import { blockSchema, generalSchema, stepSchema, triggerSchema } from "./schema.js";
import { SECRET_NAME, suggestedName } from "./secrets.js";
import { refreshTemplateFields, templateContext, upgradeTemplateFields } from "./template_editor.js";

const OPTIONS = {
  theme: "html",
  iconlib: null,
  disable_edit_json: true,
  disable_properties: true,
  disable_collapse: true,
  disable_array_delete_all_rows: true,
  disable_array_delete_last_row: true,
  remove_empty_properties: true,
  prompt_before_delete: false,
  use_default_values: false,
  show_errors: "change",
};

// What the server writes where it cut a credential out of a model's proposal.
const CUT_MARKER = "[credential removed]";

function decode(segment) {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function segmentsOf(pointer) {
  return pointer && pointer !== "/" ? pointer.split("/").slice(1).map(decode) : [];
}

// What a JSON pointer names in `doc` (undefined when it names nothing).
function valueAt(doc, pointer) {
  let node = doc;
  for (const segment of segmentsOf(pointer)) {
    if (node === null || typeof node !== "object" || !(segment in node)) return undefined;
    node = node[segment];
  }
  return node;
}

// The same, as comparable text ("" when it names nothing).
function valueText(doc, pointer) {
  const node = valueAt(doc, pointer);
  return node === undefined ? "" : JSON.stringify(node);
}

function isReference(node) {
  return node !== null && typeof node === "object" && !Array.isArray(node) && Object.keys(node).length === 1 && typeof node.$secret === "string";
}

// A form field typed as a string shows a secret reference as its JSON text and answers that text
// back: where the text is unchanged, the reference is put back in `after` (changed in place).
function restoreReferences(before, after) {
  if (before === null || typeof before !== "object" || after === null || typeof after !== "object") return;
  for (const key of Object.keys(after)) {
    if (!(key in before)) continue;
    if (isReference(before[key]) && after[key] === JSON.stringify(before[key])) after[key] = before[key];
    else restoreReferences(before[key], after[key]);
  }
}

// A copy of `doc` with what `pointer` names replaced by `replacement`.
function replacedAt(doc, pointer, replacement) {
  const copy = structuredClone(doc);
  const segments = segmentsOf(pointer);
  const parent = valueAt(copy, "/" + segments.slice(0, -1).join("/"));
  parent[segments[segments.length - 1]] = replacement;
  return copy;
}

// `arrange` (optional, see arrange.js) adds controls to add, remove and reorder triggers and steps.
/**
 * @param {HTMLElement} container
 * @param {any} schemas
 * @param {any} definition
 * @param {{ onChange?: (value: any) => void, readOnly?: boolean, arrange?: any }} [options]
 */
export function definitionEditor(container, schemas, definition, { onChange = () => {}, readOnly = false, arrange = null } = {}) {
  let value = structuredClone(definition);
  let forms = [];
  let marks = [];
  let silent = false;
  // The last refused save still shown: its box, its answer, and each problem with the value it saw.
  let refusal = null;
  // Set by the page for callers who may create secrets: (name, value) => Promise.
  let keepSecret = null;
  const formsBox = h("div", { class: "forms" });
  const jsonError = h("p", { class: "json-error", role: "alert", hidden: true });
  const json = h("textarea", {
    id: "json-view",
    class: "json-view",
    spellcheck: "false",
    rows: "24",
    "aria-label": "Definition as JSON",
    readonly: readOnly,
  });
  const formTab = h("button", { type: "button", role: "tab", "aria-selected": "true", id: "tab-form", "aria-controls": "panel-form" }, "Form");
  const jsonTab = h("button", { type: "button", role: "tab", "aria-selected": "false", id: "tab-json", "aria-controls": "panel-json" }, "JSON");
  const formPanel = h("div", { role: "tabpanel", id: "panel-form", "aria-labelledby": "tab-form" }, formsBox);
  const jsonPanel = h("div", { role: "tabpanel", id: "panel-json", "aria-labelledby": "tab-json", hidden: true }, json, jsonError);
  function show(tab) {
    const isJson = tab === "json";
    formTab.setAttribute("aria-selected", String(!isJson));
    jsonTab.setAttribute("aria-selected", String(isJson));
    formPanel.hidden = isJson;
    jsonPanel.hidden = !isJson;
  }
  formTab.addEventListener("click", () => show("form"));
  jsonTab.addEventListener("click", () => show("json"));
  const split = h("label", { class: "side" }, h("input", { type: "checkbox", id: "side-by-side" }), " Side by side");
  split.firstChild.addEventListener("change", (event) => {
    container.classList.toggle("side-by-side", event.target.checked);
    formPanel.hidden = false;
    jsonPanel.hidden = !event.target.checked && jsonTab.getAttribute("aria-selected") !== "true";
  });
  container.append(h("div", { class: "tabs", role: "tablist", "aria-label": "Editor view" }, formTab, jsonTab), split, h("div", { class: "panels" }, formPanel, jsonPanel));

  const tools =
    arrange && !readOnly
      ? arrange({
          value: () => structuredClone(value),
          update: (next, focusId, moves) => {
            if (moves) marks = marks.flatMap((mark) => moved(mark, moves));
            if (moves && refusal) {
              refusal.problems = refusal.problems.flatMap((problem) => moved(problem, moves));
              showRefusal();
            }
            setValue(next, { rebuild: true });
            changed();
            const target = focusId && document.getElementById(focusId);
            if (target) target.focus();
          },
        })
      : null;

  // A mark inside a trigger or step that moved follows it; one inside a removed item goes. `list` is
  // the moved list's pointer (`/plan`, `/plan/2/if/then`).
  function moved(mark, { list, to }) {
    const path = mark.path || "";
    if (!path.startsWith(`${list}/`)) return [mark];
    const match = /^(\d+)(\/.*)?$/.exec(path.slice(list.length + 1));
    if (!match) return [mark];
    const index = to(Number(match[1]));
    return index < 0 ? [] : [{ ...mark, path: `${list}/${index}${match[2] || ""}` }];
  }

  function structure(def) {
    const steps = flatten(def.plan || []).map((entry) => [entry.pointer, (entry.step && entry.step.action) || blockKind(entry.step)]);
    return JSON.stringify([(def.triggers || []).map((t) => t && t.type), steps]);
  }

  function build() {
    for (const form of forms) form.editor.destroy();
    forms = [];
    clear(formsBox);
    const general = { ...value };
    delete general.triggers;
    delete general.plan;
    add("", generalSchema(schemas), general, "General");
    const triggers = value.triggers || [];
    const plan = value.plan || [];
    triggers.forEach((trigger, index) =>
      add(`/triggers/${index}`, triggerSchema(schemas, trigger && trigger.type), trigger, `Trigger ${index + 1}: ${trigger && trigger.type}`, tools && tools.sectionTools("triggers", index, triggers.length)),
    );
    if (tools) formsBox.append(tools.adder("triggers"));
    // Steps at every depth, each block followed by its nested lists (indented), each list ending
    // with its own adder.
    const addList = (steps, list, depth) => {
      steps.forEach((step, index) => {
        const pointer = `${list}/${index}`;
        const kind = blockKind(step);
        const where = depth ? `${pointer.slice(6)}: ` : `${index + 1}: `;
        const title = kind
          ? `${kind === "if" ? "Branch" : "Loop"} ${where}${(step && step.step_id) || ""} (${kind})`
          : `Step ${where}${(step && step.step_id) || ""} (${step && step.action})`;
        const schema = kind ? blockSchema(schemas, kind) : stepSchema(schemas, step && step.action);
        add(pointer, schema, kind ? blockFormValue(step) : step, title, tools && tools.sectionTools(list === "/plan" ? "plan" : list, index, steps.length), depth);
        for (const [suffix, items, label] of innerLists(step)) {
          formsBox.append(h("p", { class: `block-label depth-${depth + 1}` }, `${(step && step.step_id) || ""}: ${label}`));
          addList(items, pointer + suffix, depth + 1);
        }
      });
      if (tools) formsBox.append(tools.adder(list === "/plan" ? "plan" : list, depth));
    };
    addList(plan, "/plan", 0);
  }

  function add(pointer, schema, startval, title, sectionTools = null, depth = 0) {
    const holder = h("div", { class: "form-holder" });
    const section = h("section", { class: `form-section depth-${depth}`, "data-section": pointer || "/", "aria-label": title }, h("h3", {}, title), sectionTools, holder);
    formsBox.append(section);
    // The section's heading names the form, so its root object shows no title of its own.
    const root = { ...schema, title: undefined, description: undefined, options: { ...(schema.options || {}), compact: true } };
    const editor = new JSONEditor(holder, { ...OPTIONS, schema: root, startval });
    if (readOnly) editor.disable();
    const form = { pointer, editor, ready: false };
    forms.push(form);
    editor.on("ready", () => {
      form.ready = true;
      editor.setValue(startval);
      // A step's template fields get the template editor, completing what the step can read.
      if (pointer.startsWith("/plan/")) upgradeTemplateFields(holder, () => templateContext(value, pointer, schemas.catalog));
      // The general form holds the on_failure steps: their template fields get the editor too.
      else if (!pointer) upgradeTemplateFields(holder, () => templateContext(value, "/execution/on_failure", schemas.catalog));
      applyMarks();
    });
    editor.on("change", () => {
      if (!form.ready || silent) return;
      collect();
    });
  }

  function collect() {
    const next = structuredClone(value);
    for (const form of forms) {
      const part = form.editor.getValue();
      if (!form.pointer) {
        for (const key of Object.keys(next)) if (key !== "triggers" && key !== "plan") delete next[key];
        Object.assign(next, part);
      } else {
        const segments = segmentsOf(form.pointer);
        const index = Number(segments.pop());
        const list = valueAt(next, "/" + segments.join("/"));
        if (!Array.isArray(list)) continue;
        const current = list[index];
        // json-editor leaves an empty object out, and a step or trigger rebuilt without its config
        // (another one added or moved) would show no config fields at all: keep it, empty.
        if (blockKind(current)) list[index] = blockFromForm(part, current);
        else {
          if (part && typeof part === "object" && !("config" in part)) part.config = {};
          list[index] = part;
        }
      }
    }
    const ordered = {};
    restoreReferences(value, next);
    for (const key of ["schema_version", "name", "goal", "description", "inputs", "triggers", "plan", "execution", "metadata"])
      if (key in next) ordered[key] = next[key];
    Object.assign(ordered, next);
    if (JSON.stringify(ordered) === JSON.stringify(value)) return;
    value = ordered;
    json.value = JSON.stringify(value, null, 2);
    applyMarks();
    changed();
  }

  json.addEventListener("input", () => {
    let parsed;
    try {
      parsed = JSON.parse(json.value);
    } catch (error) {
      jsonError.hidden = false;
      jsonError.textContent = `Not valid JSON yet: ${error.message}`;
      return;
    }
    jsonError.hidden = true;
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      jsonError.hidden = false;
      jsonError.textContent = "A definition is a JSON object.";
      return;
    }
    setValue(parsed, { keepJson: true });
    changed();
  });

  // Every edit, from the form, the JSON view or the arranging controls.
  function changed() {
    settleRefusal();
    onChange(structuredClone(value));
  }

  // A refused save shown in `box` and beside its fields. `toPath` turns an answer's pointer into the
  // definition's. Each problem stays until the value its pointer names changes (its step moving
  // does not count; its step removed does); an answer that names no field goes at the first edit.
  function refuse(box, error, toPath = (path) => path || "/") {
    const problems = (error.details || []).map((detail) => {
      const path = toPath(detail.path);
      // What the answer's pointer has before the definition's (`/definition`), to name a moved one.
      const prefix = detail.path && path !== "/" && detail.path.endsWith(path) ? detail.path.slice(0, -path.length) : null;
      return { detail, path, prefix, seen: valueText(value, path) };
    });
    refusal = { box, error, problems };
    showRefusal();
  }

  function settleRefusal() {
    if (!refusal) return;
    const standing = refusal.problems.filter((problem) => valueText(value, problem.path) === problem.seen);
    if (refusal.problems.length && standing.length === refusal.problems.length) return;
    refusal.problems = standing;
    if (standing.length) return showRefusal();
    refusal.box.replaceChildren();
    refusal = null;
    marks = marks.filter((mark) => mark.kind !== "problem");
    applyMarks();
  }

  function showRefusal() {
    const { box, error, problems } = refusal;
    const details = problems.map((p) => (p.prefix === null ? p.detail : { ...p.detail, path: p.prefix + p.path }));
    box.replaceChildren(errorBox({ code: error.code, message: error.message, details }));
    marks = [
      ...marks.filter((mark) => mark.kind !== "problem"),
      ...problems.map((p) => ({ kind: "problem", path: p.path, message: p.detail.message, severity: "error" })),
    ];
    applyMarks();
  }

  // A new save attempt: the previous refusal is no longer what the box shows.
  function forgetRefusal() {
    refusal = null;
  }

  function setValue(next, { keepJson = false, rebuild: force = false } = {}) {
    const rebuild = force || structure(next) !== structure(value) || !forms.length;
    value = structuredClone(next);
    if (!keepJson) json.value = JSON.stringify(value, null, 2);
    if (rebuild) build();
    else {
      silent = true;
      for (const form of forms) {
        if (!form.ready) continue;
        if (!form.pointer) {
          const general = { ...value };
          delete general.triggers;
          delete general.plan;
          form.editor.setValue(general);
        } else {
          const step = valueAt(value, form.pointer);
          form.editor.setValue(blockKind(step) ? blockFormValue(step) : step);
        }
      }
      silent = false;
      refreshTemplateFields(formsBox);
      applyMarks();
    }
  }

  // A pointer's form and the json-editor path inside it; the nearest field that exists is used.
  function locate(pointer) {
    const parts = pointer.split("/").slice(1).map(decode);
    let form = forms.find((f) => !f.pointer);
    let rest = parts;
    if ((parts[0] === "triggers" || parts[0] === "plan") && parts.length >= 2) {
      // The deepest step form holding the pointer (a nested step's own form, not its block's).
      const owner = forms
        .filter((f) => f.pointer && (pointer === f.pointer || pointer.startsWith(`${f.pointer}/`)))
        .sort((a, b) => b.pointer.length - a.pointer.length)[0];
      form = owner || form;
      rest = owner ? parts.slice(segmentsOf(owner.pointer).length) : parts.slice(0, 1);
    }
    if (!form || !form.ready) return null;
    for (let n = rest.length; n >= 0; n--) {
      const editor = form.editor.getEditor(["root", ...rest.slice(0, n)].join("."));
      if (editor && editor.container) return { form, editor, exact: n === rest.length };
    }
    return null;
  }

  // The notes drawn, by everything they show. Marks are drawn again at every check; a note whose mark
  // is unchanged stays as it is, with what is typed or shown in it (a secret's name, a refusal) and the
  // focus, so a check answering while the user works in a note does not wipe it.
  let drawn = new Map();

  function applyMarks() {
    for (const old of formsBox.querySelectorAll("[data-marked]")) old.removeAttribute("data-marked");
    const next = new Map();
    marks.forEach((mark, index) => {
      const found = locate(mark.path || "/");
      const target = found ? found.editor.container : formsBox;
      // Kept in memory only: the value may be the very literal a secret offer is about.
      const key = JSON.stringify([index, mark.kind, mark.severity, mark.code, mark.path, mark.message, found && found.exact, Boolean(keepSecret), valueAt(value, mark.path || "/")]);
      let note = drawn.get(key);
      if (!note || note.parentNode !== target) {
        note = h(
          "p",
          { class: `mark ${mark.kind}`, role: "note", id: `mark-${index}`, "data-path": mark.path },
          h("span", { class: "mark-kind" }, mark.kind === "flag" ? "⚑ Flag" : mark.severity === "warning" ? "⚠ Warning" : "✖ Problem"),
          " ",
          mark.message,
          found && !found.exact ? h("span", { class: "mark-path" }, ` (${mark.path})`) : null,
          secretOffer(mark, index),
        );
        target.append(note);
      }
      next.set(key, note);
      target.setAttribute("data-marked", mark.kind);
      // A template field's editor (right after its hidden input) stands for the input.
      const first = target.querySelector("input, select, textarea");
      const input = first && first.dataset.template === "ready" ? first.nextElementSibling.querySelector(".cm-content") : first;
      // Each note once: marks are drawn again at every check, with the same ids.
      const described = new Set((input && input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean));
      if (input && !described.has(note.id)) input.setAttribute("aria-describedby", [...described, note.id].join(" "));
    });
    for (const [key, note] of drawn) if (next.get(key) !== note) note.remove();
    drawn = next;
  }

  function setMarks(flags = [], problems = []) {
    marks = [
      ...flags.map((f) => ({ kind: "flag", path: f.path, code: f.code, message: f.message })),
      ...problems.map((p) => ({ kind: "problem", path: p.path, code: p.code, message: p.message, severity: p.severity })),
    ];
    applyMarks();
  }

  // The offer beside a credential literal: a name for the secret and a button. Only where the pointer
  // names the whole string (a key inside a URL's query cannot become a reference by itself).
  function secretOffer(mark, index) {
    const literal = valueAt(value, mark.path || "/");
    if (mark.code !== "literal_secret" || !keepSecret || readOnly || typeof literal !== "string") return null;
    // What the server cut out of a model's proposal is gone: there is nothing left to keep.
    if (/\/url$/.test(mark.path) || literal.includes(CUT_MARKER)) return null;
    const id = `secret-name-${index}`;
    const name = h("input", { id, type: "text", class: "secret-name", value: suggestedName(value, mark.path), pattern: "[a-z0-9_]{1,64}", maxlength: "64" });
    const result = h("span", { "aria-live": "polite" });
    const move = async () => {
      if (!SECRET_NAME.test(name.value)) {
        result.replaceChildren(h("span", { class: "error", role: "alert" }, " 1-64 lowercase letters, digits or underscores."));
        return;
      }
      button.disabled = true;
      try {
        await keepSecret(name.value, literal);
      } catch (error) {
        button.disabled = false;
        result.replaceChildren(errorBox(error));
        return;
      }
      marks = marks.filter((other) => other !== mark);
      setValue(replacedAt(value, mark.path, { $secret: name.value }), { rebuild: true });
      changed();
    };
    const button = h("button", { type: "button", class: "move-secret", onclick: move }, "Move into a secret");
    return h("span", { class: "secret-offer" }, " ", h("label", { for: id }, "Secret name"), " ", name, " ", button, result);
  }

  function setSecretKeeper(keeper) {
    keepSecret = keeper;
    applyMarks();
  }

  setValue(value);
  return { getValue: () => structuredClone(value), setValue: (v) => setValue(v), setMarks, refuse, forgetRefusal, setSecretKeeper };
}
