// Template fields of the generated forms become code editors (CodeMirror, its own chunk fetched the
// first time a template field shows): highlighted `{{ }}` / `{% %}`, completion of the run context,
// a palette of the filters. The form's text input stays, hidden, as the value's holder: every edit
// is written back into it with a `change` event, exactly as typing into it would.
import { flatten } from "./plan_steps.js";

const MARKERS = ["{{", "{%", "{#"];

// What the editor chunk gives: `attach(input, context)` and `refresh(input)`.
let chunk = null;
function loadChunk() {
  chunk ||= import("./template_codemirror.js");
  return chunk;
}

export function isTemplate(text) {
  return typeof text === "string" && MARKERS.some((marker) => text.includes(marker));
}

function textInputs(holder) {
  return [...holder.querySelectorAll("input[type=text], input[type=url], input:not([type]), textarea")].filter((input) => !input.closest(".secret-offer, .je-modal"));
}

function fields(schema) {
  const properties = (schema && schema.properties) || {};
  return Object.keys(properties).map((name) => ({ name, detail: properties[name].type || "" }));
}

// The names a template of the step at `pointer` can read: the inputs of the definition, the
// `output_as` of the steps before it (with the fields of their action's output schema, from the
// catalog; inside a loop's body only those of its own iteration), `item` and `index` inside a loop,
// the fields of the triggers' payloads.
export function templateContext(definition, pointer, catalog) {
  const actions = new Map(((catalog && catalog.actions) || []).map((action) => [action.type, action]));
  const triggers = new Map(((catalog && catalog.triggers) || []).map((trigger) => [trigger.type, trigger]));
  const steps = flatten(definition.plan || []);
  // An on_failure step reads what the whole plan bound (outside loops), as the validator allows.
  const at = pointer.startsWith("/execution/on_failure") ? steps.length : steps.findIndex((entry) => entry.pointer === pointer);
  const here = steps[at];
  const loops = here ? here.loops : [];
  const outputs = steps
    .slice(0, at < 0 ? 0 : at)
    // A block around the step binds its own output only after its end.
    .filter((entry) => entry.step && entry.step.output_as && !pointer.startsWith(`${entry.pointer}/`))
    .filter((entry) => entry.loops.every((loop, index) => loops[index] === loop))
    .map(({ step }) => ({ name: step.output_as, detail: `output of step ${step.step_id}`, fields: fields((actions.get(step.action) || {}).output_schema) }));
  if (loops.length)
    outputs.push({ name: "item", detail: `the current item of ${loops[loops.length - 1]}`, fields: [] }, { name: "index", detail: "the item's position, from 0", fields: [] });
  const payload = new Map();
  for (const trigger of definition.triggers || [])
    for (const field of fields((triggers.get(trigger && trigger.type) || {}).payload_schema)) payload.set(field.name, field);
  return { inputs: fields(definition.inputs && definition.inputs.schema), outputs, payload: [...payload.values()] };
}

// Upgrades every text field of `holder` that holds a template, and any that gets one while typed in.
// `context()` answers the names to complete (see templateContext).
export function upgradeTemplateFields(holder, context) {
  const upgrade = async (input, focus = false) => {
    if (input.dataset.template) return;
    input.dataset.template = "pending";
    try {
      const { attach } = await loadChunk();
      attach(input, context, focus);
    } catch {
      // The chunk did not load: the plain input stays, and the next template typed tries again.
      chunk = null;
      delete input.dataset.template;
    }
  };
  for (const input of textInputs(holder)) if (isTemplate(input.value)) upgrade(input);
  if (holder.dataset.templateWatch) return;
  holder.dataset.templateWatch = "1";
  holder.addEventListener("input", (event) => {
    const input = event.target;
    if (textInputs(holder).includes(input) && isTemplate(input.value)) upgrade(input, true);
  });
}

// After the form was given a value from elsewhere (the JSON view): editors show their field's value.
export async function refreshTemplateFields(holder) {
  const upgraded = holder.querySelectorAll("[data-template=ready]");
  if (!upgraded.length) return;
  const { refresh } = await loadChunk();
  for (const input of upgraded) refresh(input);
}
