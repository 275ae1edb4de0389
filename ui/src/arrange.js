// Structure controls for the definition editor: add a step (an action from the catalog, a branch or a
// loop), add a trigger of any kind, remove one, move a step up or down, in the plan and in the step
// lists of its blocks alike. Each control edits the whole definition and hands it back to the editor,
// so the forms and the JSON view follow at once.
import { h } from "./dom.js";
import { stepIds } from "./plan_steps.js";

const LABELS = { triggers: "trigger", plan: "step" };
const BLOCK_CHOICES = [
  ["block:if", "Branch (if): run one of two step lists"],
  ["block:for_each", "Loop (for_each): run steps once per item"],
];

// A step id the definition does not use yet, built from the action type (`http_request_2`).
export function freshStepId(plan, action) {
  const base = (action.toLowerCase().replace(/[^a-z0-9_]/g, "_").replace(/^[^a-z]+/, "") || "step").slice(0, 56);
  const used = new Set(stepIds(plan));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}_${n}`)) return `${base}_${n}`;
}

function moved(list, from, to) {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
}

// "triggers" and "plan" name the top lists; a nested list is named by its pointer (`/plan/1/if/then`).
function pointerOf(list) {
  return list.startsWith("/") ? list : `/${list}`;
}

// Element ids: the top lists keep their plain names (`plan-remove-0`), nested ones are spelled out.
function idOf(list) {
  return list.startsWith("/") ? list.slice(1).replace(/[^A-Za-z0-9_]+/g, "-") : list;
}

function listAt(doc, pointer) {
  let node = doc;
  for (const segment of pointer.split("/").slice(1)) node = node && typeof node === "object" ? node[segment] : undefined;
  return node;
}

// A new step of `kind` (an action type, or `block:if` / `block:for_each`) with an id unused in `plan`.
function newStep(plan, kind) {
  const placeholder = (ids) => ({ step_id: freshStepId([...plan, ...ids], "transform_data"), action: "transform_data", config: { output: {} } });
  if (kind === "block:if") {
    const step_id = freshStepId(plan, "branch");
    return { step_id, if: { condition: {}, then: [placeholder([{ step_id }])] } };
  }
  if (kind === "block:for_each") {
    const step_id = freshStepId(plan, "loop");
    return { step_id, for_each: { items: "", steps: [placeholder([{ step_id }])] } };
  }
  return { step_id: freshStepId(plan, kind), action: kind, config: {} };
}

// `editor` is { value(): definition, update(definition, focusId, moves) } from the definition editor;
// `moves` says where each item of the changed list went, so notes beside fields follow their field.
export function arrangeControls(schemas) {
  return (editor) => {
    function change(list, makeList, focusId) {
      const next = editor.value();
      const pointer = pointerOf(list);
      const segments = pointer.split("/");
      const key = segments.pop();
      const parent = listAt(next, segments.join("/"));
      const before = (parent && parent[key]) || [];
      // The same change applied to the positions tells where each old item went (-1: removed).
      const positions = makeList(before.map((_, index) => index));
      parent[key] = makeList(before);
      editor.update(next, focusId, { list: pointer, to: (index) => positions.indexOf(index) });
    }

    function sectionTools(list, index, count) {
      const noun = LABELS[list] || "step";
      const name = `${noun} ${list.startsWith("/") ? `${list.slice(6)}/${index}` : index + 1}`;
      const id = idOf(list);
      const steps = list !== "triggers";
      // A step list of a block must keep one step: its last one is removed with the block.
      const removable = list === "plan" || list === "triggers" || count > 1 || list.endsWith("/else");
      const buttons = [];
      if (steps && index > 0)
        buttons.push(h("button", { type: "button", id: `${id}-up-${index}`, "aria-label": `Move ${name} up`, onclick: () => move(list, index, index - 1) }, "↑ Up"));
      if (steps && index < count - 1)
        buttons.push(h("button", { type: "button", id: `${id}-down-${index}`, "aria-label": `Move ${name} down`, onclick: () => move(list, index, index + 1) }, "↓ Down"));
      if (removable)
        buttons.push(
          h(
            "button",
            {
              type: "button",
              class: "danger",
              id: `${id}-remove-${index}`,
              "aria-label": `Remove ${name}`,
              onclick: () => change(list, (items) => items.filter((_, i) => i !== index), count > 1 ? `${id}-remove-${Math.min(index, count - 2)}` : `add-${id === "triggers" ? "trigger" : id === "plan" ? "step" : id}-kind`),
            },
            "Remove",
          ),
        );
      return h("div", { class: "section-tools", role: "group", "aria-label": `Arrange ${name}` }, buttons);
    }

    function move(list, from, to) {
      // Focus stays with the step that moved; at an end its arrow is gone, so the other one takes it.
      const count = (listAt(editor.value(), pointerOf(list)) || []).length;
      const direction = to < from ? "up" : "down";
      const focus = (direction === "up" && to === 0) || (direction === "down" && to === count - 1) ? (direction === "up" ? "down" : "up") : direction;
      change(list, (items) => moved(items, from, to), count > 1 ? `${idOf(list)}-${focus}-${to}` : null);
    }

    function adder(list, depth = 0) {
      const top = list === "plan" || list === "triggers";
      const noun = LABELS[list] || "step";
      const key = top ? noun : idOf(list);
      const stepList = list !== "triggers";
      const choices = stepList
        ? [
            ...schemas.catalog.actions.map((a) => h("option", { value: a.type, title: a.description || "" }, `${a.name || a.type} (${a.type})`)),
            ...BLOCK_CHOICES.map(([value, text]) => h("option", { value }, text)),
          ]
        : schemas.catalog.triggers.map((t) => h("option", { value: t.type, title: t.description || "" }, t.type));
      const select = h("select", { id: `add-${key}-kind` }, choices);
      const add = () => {
        const kind = select.value;
        if (!kind) return;
        const definition = editor.value();
        const count = (listAt(definition, pointerOf(list)) || []).length;
        change(list, (items) => [...items, stepList ? newStep(definition.plan || [], kind) : { type: kind, config: {} }], `${idOf(list)}-remove-${count}`);
      };
      const where = top ? "" : ` to ${list.slice(6)}`;
      return h(
        "div",
        { class: `adder depth-${depth}`, role: "group", "aria-label": `Add a ${noun}${where}` },
        h("label", { for: `add-${key}-kind` }, stepList ? `New step's action${where}` : "New trigger's kind"),
        select,
        h("button", { type: "button", id: `add-${key}`, onclick: add }, stepList ? `Add step${where}` : "Add trigger"),
      );
    }

    return { sectionTools, adder };
  };
}
