// Structure controls for the definition editor: add a step from the catalog's actions, add a trigger
// of any kind, remove one, move a step up or down. Each control edits the whole definition and hands
// it back to the editor, so the forms and the JSON view follow at once.
import { h } from "./dom.js";

const LABELS = { triggers: "trigger", plan: "step" };

// A step id the definition does not use yet, built from the action type (`http_request_2`).
export function freshStepId(plan, action) {
  const base = (action.toLowerCase().replace(/[^a-z0-9_]/g, "_").replace(/^[^a-z]+/, "") || "step").slice(0, 56);
  const used = new Set((plan || []).map((step) => step && step.step_id));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}_${n}`)) return `${base}_${n}`;
}

function moved(list, from, to) {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
}

// `editor` is { value(): definition, update(definition, focusId, moves) } from the definition editor;
// `moves` says where each item of the changed list went, so notes beside fields follow their field.
export function arrangeControls(schemas) {
  return (editor) => {
    function change(list, makeList, focusId) {
      const next = editor.value();
      const before = next[list] || [];
      // The same change applied to the positions tells where each old item went (-1: removed).
      const positions = makeList(before.map((_, index) => index));
      next[list] = makeList(before);
      editor.update(next, focusId, { list, to: (index) => positions.indexOf(index) });
    }

    function sectionTools(list, index, count) {
      const noun = LABELS[list];
      const name = `${noun} ${index + 1}`;
      const buttons = [];
      if (list === "plan" && index > 0)
        buttons.push(
          h("button", { type: "button", id: `${list}-up-${index}`, "aria-label": `Move ${name} up`, onclick: () => move(index, index - 1) }, "↑ Up"),
        );
      if (list === "plan" && index < count - 1)
        buttons.push(
          h("button", { type: "button", id: `${list}-down-${index}`, "aria-label": `Move ${name} down`, onclick: () => move(index, index + 1) }, "↓ Down"),
        );
      buttons.push(
        h(
          "button",
          {
            type: "button",
            class: "danger",
            id: `${list}-remove-${index}`,
            "aria-label": `Remove ${name}`,
            onclick: () =>
              change(list, (items) => items.filter((_, i) => i !== index), count > 1 ? `${list}-remove-${Math.min(index, count - 2)}` : `add-${noun}-kind`),
          },
          "Remove",
        ),
      );
      return h("div", { class: "section-tools", role: "group", "aria-label": `Arrange ${name}` }, buttons);
    }

    function move(from, to) {
      // Focus stays with the step that moved; at an end its arrow is gone, so the other one takes it.
      const count = (editor.value().plan || []).length;
      const direction = to < from ? "up" : "down";
      const focus = (direction === "up" && to === 0) || (direction === "down" && to === count - 1) ? (direction === "up" ? "down" : "up") : direction;
      change("plan", (items) => moved(items, from, to), count > 1 ? `plan-${focus}-${to}` : null);
    }

    function adder(list) {
      const noun = LABELS[list];
      const choices =
        list === "plan"
          ? schemas.catalog.actions.map((a) => h("option", { value: a.type, title: a.description || "" }, `${a.name || a.type} (${a.type})`))
          : schemas.catalog.triggers.map((t) => h("option", { value: t.type, title: t.description || "" }, t.type));
      const select = h("select", { id: `add-${noun}-kind` }, choices);
      const add = () => {
        const kind = select.value;
        if (!kind) return;
        const count = (editor.value()[list] || []).length;
        change(
          list,
          (items) => [...items, list === "plan" ? { step_id: freshStepId(items, kind), action: kind, config: {} } : { type: kind, config: {} }],
          `${list}-remove-${count}`,
        );
      };
      return h(
        "div",
        { class: "adder", role: "group", "aria-label": `Add a ${noun}` },
        h("label", { for: `add-${noun}-kind` }, list === "plan" ? "New step's action" : "New trigger's kind"),
        select,
        h("button", { type: "button", id: `add-${noun}`, onclick: add }, list === "plan" ? "Add step" : "Add trigger"),
      );
    }

    return { sectionTools, adder };
  };
}
