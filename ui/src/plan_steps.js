// The plan as the editor sees it: a tree of action steps and blocks (`if`, `for_each`) flattened in
// document order, each step with its JSON pointer, its depth and the loops around it; and the two
// block kinds' form values, which hold every field of the block but its nested step lists (those get
// forms of their own).

// The step lists inside a block, as [pointer suffix, list, label].
export function innerLists(step) {
  if (step && step.if) return [["/if/then", step.if.then || [], "then"], ["/if/else", step.if.else || [], "else"]];
  if (step && step.for_each) return [["/for_each/steps", step.for_each.steps || [], "each item"]];
  return [];
}

export function blockKind(step) {
  if (step && step.if) return "if";
  if (step && step.for_each) return "for_each";
  return null;
}

/**
 * Every step at any depth, in document order.
 * @param {any[]} steps
 * @returns {{pointer: string, list: string, index: number, step: any, depth: number, loops: string[]}[]}
 */
export function flatten(steps, list = "/plan", depth = 0, loops = []) {
  const found = [];
  (steps || []).forEach((step, index) => {
    const pointer = `${list}/${index}`;
    found.push({ pointer, list, index, step, depth, loops });
    const inner = step && step.for_each ? [...loops, step.step_id] : loops;
    for (const [suffix, items] of innerLists(step)) found.push(...flatten(items, pointer + suffix, depth + 1, inner));
  });
  return found;
}

// Every step id the plan uses, at any depth.
export function stepIds(plan) {
  return flatten(plan).map((entry) => entry.step && entry.step.step_id);
}

// The block's own fields as its form shows them: the condition and a literal item list as JSON text.
export function blockFormValue(step) {
  const { if: branch, for_each: loop, ...rest } = step;
  if (branch) return { ...rest, if: { condition: JSON.stringify(branch.condition ?? {}, null, 2) } };
  const { steps: _steps, ...fields } = loop || {};
  return { ...rest, for_each: { ...fields, items: typeof fields.items === "string" ? fields.items : JSON.stringify(fields.items ?? []) } };
}

function parsed(text, fallback) {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

// The block back from its form's value, with its nested lists taken from `current` (the step as it
// is). A condition that is not JSON yet keeps its last good value, as the JSON view does.
export function blockFromForm(part, current) {
  if (current.if) {
    const condition = parsed(part.if && part.if.condition, current.if.condition);
    const block = { condition, then: current.if.then || [] };
    if (current.if.else && current.if.else.length) block.else = current.if.else;
    return { ...part, if: block };
  }
  const fields = { ...(part.for_each || {}) };
  const literal = typeof fields.items === "string" && fields.items.trim().startsWith("[") ? parsed(fields.items, null) : null;
  if (Array.isArray(literal)) fields.items = literal;
  return { ...part, for_each: { ...fields, steps: (current.for_each && current.for_each.steps) || [] } };
}
