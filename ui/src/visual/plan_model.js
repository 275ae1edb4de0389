// The plan as a graph: nodes (each with a `kind`) and edges, from a definition and, when there is one,
// a preview's modes. Pure data, no layout: the renderer places it. Kinds: `trigger`, `step`, `branch`
// (an `if`), `loop` (a `for_each`), `wait` (wait, wait_for_event), `child` (call_automation),
// `failure` (the entry of the on_failure steps) and `on_failure`.

// Strictest first: a step whose calls include a denied one shows "deny".
const MODE_RANK = { deny: 3, require_approval: 2, allow: 1 };

// The mode a step's calls would get now, from a preview's steps (`calls[].mode`); null when the
// preview did not reach the step, "none" when it makes no capability call.
export function stepModes(preview) {
  const modes = new Map();
  for (const step of (preview && preview.steps) || []) {
    const calls = step.calls || [];
    if (!calls.length) {
      modes.set(step.step_id, "none");
      continue;
    }
    const strictest = calls.map((call) => call.mode).sort((a, b) => (MODE_RANK[b] || 0) - (MODE_RANK[a] || 0))[0];
    modes.set(step.step_id, strictest);
  }
  return modes;
}

function triggerLabel(trigger) {
  const config = trigger.config || {};
  if (trigger.type === "schedule" && config.cron) return `schedule ${config.cron}`;
  if (trigger.type === "event" && config.event_type) return `event ${config.event_type}`;
  return trigger.type || "trigger";
}

// Actions that pause the run: drawn as their own kinds, so waits and child runs stand out.
const ACTION_KINDS = { wait: "wait", wait_for_event: "wait", call_automation: "child" };

// A condition by the fields it reads (`if inputs.amount`); the filter itself is in the step's form.
function conditionText(condition) {
  const fields = Object.keys(condition || {}).map((key) => key.replace(/^\$/, ""));
  return fields.length ? `if ${fields.join(", ")}` : "if (no condition yet)";
}

// `definition`: the automation's definition (possibly unsaved). `modes`: Map step_id → mode (see
// stepModes), or null when no preview is at hand. Each node: {id, kind, title, detail, mode, target},
// `target` being the JSON pointer of the form the node stands for. Blocks nest: an `if` node leads to
// its `then` and `else` chains, which meet again at the next step; a `for_each` node leads to its body
// (`each`), whose end loops back to it (`repeat`), and the loop goes on to the next step (`done`).
export function planGraph(definition, modes = null) {
  const nodes = [];
  const edges = [];
  const plan = (definition && definition.plan) || [];
  const onFailure = (definition && definition.execution && definition.execution.on_failure) || [];
  const triggers = (definition && definition.triggers) || [];
  triggers.forEach((trigger, index) =>
    nodes.push({ id: `trigger-${index}`, kind: "trigger", title: trigger.name || triggerLabel(trigger), detail: `trigger ${index + 1}`, mode: null, target: `/triggers/${index}` }),
  );
  if (!triggers.length) nodes.push({ id: "trigger-manual", kind: "trigger", title: "Run now or the API", detail: "no trigger", mode: null, target: null });
  const modeOf = (step) => (modes ? (modes.get(step && step.step_id) ?? null) : null);

  // Adds the chain of `steps` (ids from `prefix`); answers its first node and the ends that lead on,
  // each with the kind of the edge that leaves it.
  function chain(steps, prefix, pointer, kind = "step") {
    let entry = null;
    let ends = [];
    steps.forEach((step, index) => {
      const id = `${prefix}-${index}`;
      const target = `${pointer}/${index}`;
      const title = (step && step.step_id) || `step ${index + 1}`;
      let node;
      let exits;
      if (step && step.if) {
        node = { id, kind: "branch", title, detail: conditionText(step.if.condition), mode: null, target };
        nodes.push(node);
        const yes = chain(step.if.then || [], `${id}-then`, `${target}/if/then`, kind);
        const no = chain(step.if.else || [], `${id}-else`, `${target}/if/else`, kind);
        exits = [...yes.ends];
        if (yes.entry) edges.push({ from: id, to: yes.entry, kind: "then" });
        else exits.push({ id, kind: "then" });
        if (no.entry) {
          edges.push({ from: id, to: no.entry, kind: "else" });
          exits.push(...no.ends);
        } else exits.push({ id, kind: "else" });
      } else if (step && step.for_each) {
        const items = typeof step.for_each.items === "string" ? step.for_each.items : `${(step.for_each.items || []).length} items`;
        node = { id, kind: "loop", title, detail: `for each ${items}`, mode: null, target };
        nodes.push(node);
        const body = chain(step.for_each.steps || [], `${id}-each`, `${target}/for_each/steps`, kind);
        if (body.entry) {
          edges.push({ from: id, to: body.entry, kind: "each" });
          for (const end of body.ends) edges.push({ from: end.id, to: id, kind: "repeat" });
        }
        exits = [{ id, kind: "done" }];
      } else {
        const action = (step && step.action) || "";
        const nodeKind = kind === "step" ? ACTION_KINDS[action] || "step" : kind;
        node = { id, kind: nodeKind, title, detail: action, mode: kind === "step" ? modeOf(step) : null, target };
        nodes.push(node);
        exits = [{ id, kind: "next" }];
      }
      if (entry === null) entry = id;
      for (const end of ends) edges.push({ from: end.id, to: id, kind: end.kind });
      ends = exits;
    });
    return { entry, ends };
  }

  const main = chain(plan, "step", "/plan");
  if (main.entry) for (const node of nodes.filter((n) => n.kind === "trigger")) edges.push({ from: node.id, to: main.entry, kind: "next" });
  if (onFailure.length) {
    // on_failure steps are not previewed: their mode is shown once a run calls them.
    nodes.push({ id: "failure-entry", kind: "failure", title: "If a step fails", detail: "on_failure", mode: null, target: "/execution/on_failure" });
    const failures = chain(onFailure, "failure", "/execution/on_failure", "on_failure");
    if (failures.entry) edges.push({ from: "failure-entry", to: failures.entry, kind: "next" });
    // Drawn from the first step, dashed: any step failing leads there.
    if (main.entry) edges.push({ from: main.entry, to: "failure-entry", kind: "failure" });
  }
  return { nodes, edges };
}
