// The plan as a graph: nodes (each with a `kind`) and edges, from a definition and, when there is one,
// a preview's modes. Pure data, no layout: the renderer places it. Kinds today: `trigger`, `step`,
// `failure` (the entry of the on_failure steps) and `on_failure`; a kind the renderer does not know
// is drawn as a plain box, so branch, loop, wait or child-run nodes can be added here first.

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

// `definition`: the automation's definition (possibly unsaved). `modes`: Map step_id → mode (see
// stepModes), or null when no preview is at hand. Each node: {id, kind, title, detail, mode, target},
// `target` being the JSON pointer of the form the node stands for.
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
  const stepNode = (kind, prefix, pointer) => (step, index) => ({
    id: `${prefix}-${index}`,
    kind,
    title: (step && step.step_id) || `step ${index + 1}`,
    detail: (step && step.action) || "",
    mode: modes ? (modes.get(step && step.step_id) ?? null) : null,
    target: `${pointer}/${index}`,
  });
  const steps = plan.map(stepNode("step", "step", "/plan"));
  nodes.push(...steps);
  if (steps.length) for (const node of nodes.filter((n) => n.kind === "trigger")) edges.push({ from: node.id, to: steps[0].id, kind: "next" });
  steps.slice(1).forEach((node, index) => edges.push({ from: steps[index].id, to: node.id, kind: "next" }));
  if (onFailure.length) {
    // on_failure steps are not previewed: their mode is shown once a run calls them.
    const failures = onFailure.map((step, index) => ({ ...stepNode("on_failure", "failure", "/execution/on_failure")(step, index), mode: null }));
    nodes.push({ id: "failure-entry", kind: "failure", title: "If a step fails", detail: "on_failure", mode: null, target: "/execution/on_failure" });
    nodes.push(...failures);
    edges.push({ from: "failure-entry", to: failures[0].id, kind: "next" });
    failures.slice(1).forEach((node, index) => edges.push({ from: failures[index].id, to: node.id, kind: "next" }));
    // Drawn from the first step, dashed: any step failing leads there.
    if (steps.length) edges.push({ from: steps[0].id, to: "failure-entry", kind: "failure" });
  }
  return { nodes, edges };
}
