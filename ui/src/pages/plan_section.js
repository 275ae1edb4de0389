// The plan diagram as a page section (automation page, draft review): triggers → steps → on_failure,
// each node with its action and the mode its calls would get, from a preview. Activating a node
// opens its form in the definition editor. The layout code is fetched on first use.
import { errorBox, fill, h, loading } from "../dom.js";
import { planGraph, stepModes } from "../visual/plan_model.js";

// The form a JSON pointer names in the definition editor, focused on its first field.
function focusForm(pointer) {
  /** @type {any} the section or form element the pointer names */
  let target = null;
  const item = /^\/execution\/on_failure\/(\d+)$/.exec(pointer);
  if (item) {
    const general = document.querySelector('[data-section="/"]');
    target =
      (general && (general.querySelector(`[data-schemapath="root.execution.on_failure.${item[1]}"]`) || general.querySelector('[data-schemapath="root.execution.on_failure"]'))) ||
      general;
  } else if (pointer === "/execution/on_failure") {
    target = document.querySelector('[data-schemapath="root.execution.on_failure"]') || document.querySelector('[data-section="/"]');
  } else {
    target = document.querySelector(`[data-section="${pointer}"]`);
  }
  if (!target) return false;
  target.scrollIntoView({ block: "start" });
  const field = /** @type {HTMLInputElement[]} */ ([...target.querySelectorAll("input, select, textarea")]).find((el) => !el.disabled && el.type !== "hidden" && el.offsetParent !== null);
  if (field) field.focus();
  else {
    target.setAttribute("tabindex", "-1");
    target.focus();
  }
  return true;
}

let renderer = null;
function loadRenderer() {
  renderer = renderer || import("../visual/plan_diagram.js");
  return renderer;
}

// Activating a node focuses its form.
export function planSection({ id = "plan-diagram" } = {}) {
  const box = h("div", { class: "plan-scroll", id: `${id}-box` }, loading("Drawing the plan…"));
  const legend = h(
    "p",
    { class: "plan-legend" },
    "Each box: step id, action, and the mode its calls get now: ",
    h("span", { class: "legend-allow" }, "allow"),
    " · ",
    h("span", { class: "legend-require_approval" }, "require approval"),
    " · ",
    h("span", { class: "legend-deny" }, "deny"),
    ". Tab to a box and press Enter to edit it.",
  );
  const element = h("section", { class: "plan", "aria-labelledby": `${id}-title`, id }, h("h2", { id: `${id}-title` }, "Plan"), legend, box);
  let drawn = 0;
  const activate = (node) => focusForm(node.target);

  // Draw `definition` with the modes of `preview` (null: modes unknown). A later call wins over an
  // earlier one still loading.
  async function update(definition, preview = null, previewError = null) {
    const mine = ++drawn;
    try {
      const { renderPlanDiagram } = await loadRenderer();
      if (mine !== drawn) return;
      const graph = planGraph(definition, preview ? stepModes(preview) : null);
      fill(
        box,
        renderPlanDiagram(graph, { onActivate: activate, label: `Plan of ${graph.nodes.filter((n) => n.kind === "step").length} steps` }),
        previewError ? h("p", { class: "hint" }, `Modes not shown: ${previewError.message}`) : null,
      );
    } catch (error) {
      if (mine === drawn) fill(box, errorBox(error));
    }
  }
  return { element, update };
}
