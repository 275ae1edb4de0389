// Published JSON Schemas (Pydantic's 2020-12 output and the catalog's config schemas) shaped for
// generated forms: optional fields written as anyOf [X, null] become X (an empty field is simply left
// out), `const` becomes a one-value enum, and each sub-form carries the definition's `$defs` so its
// local `#/$defs/…` references resolve.
import { call, client } from "./api.js";

let cache = null;

export async function loadSchemas() {
  if (!cache) {
    cache = Promise.all([call(client.GET("/api/v1/schemas/definition")), call(client.GET("/api/v1/catalog"))]).then(([definition, catalog]) => ({
      definition,
      catalog,
    }));
    cache.catch(() => {
      cache = null;
    });
  }
  return cache;
}

export function simplify(schema) {
  if (Array.isArray(schema)) return schema.map(simplify);
  if (!schema || typeof schema !== "object") return schema;
  /** @type {Record<string, any>} */
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema" || key === "$id" || key === "discriminator") continue;
    out[key] = key === "properties" || key === "$defs" ? mapValues(value, simplify) : simplify(value);
  }
  if (Array.isArray(out.anyOf)) {
    const others = out.anyOf.filter((s) => !(s && s.type === "null"));
    if (others.length === 1 && others.length < out.anyOf.length) {
      const { anyOf, default: fallback, ...rest } = out;
      Object.assign(rest, others[0]);
      if (fallback !== null && fallback !== undefined) rest.default = fallback;
      return rest;
    }
  }
  if ("const" in out) {
    out.enum = [out.const];
    delete out.const;
  }
  return out;
}

function mapValues(object, fn) {
  return Object.fromEntries(Object.entries(object || {}).map(([k, v]) => [k, fn(v)]));
}

export function withDefs(schema, defs) {
  return { ...schema, $defs: defs };
}

// The form of one step: the Step definition with `config` replaced by the action's config schema.
export function stepSchema(schemas, action) {
  const defs = simplify(schemas.definition.$defs);
  const step = structuredClone(defs.Step);
  const known = schemas.catalog.actions.find((a) => a.type === action);
  step.title = known ? known.name : action;
  step.properties.action = { type: "string", enum: [action], title: "Action", readOnly: true };
  step.properties.config = known
    ? { ...simplify(known.config_schema), title: "Config" }
    : { type: "object", title: "Config", additionalProperties: true };
  return withDefs(step, defs);
}

// The form of a block (`if`, `for_each`): its own fields; its nested steps get forms of their own.
// The condition and the items are edited as text (JSON, or a template for the items).
export function blockSchema(schemas, kind) {
  const defs = simplify(schemas.definition.$defs);
  if (kind === "if") {
    const step = defs.IfStep;
    const condition = defs.IfBlock.properties.condition;
    return withDefs(
      {
        type: "object",
        title: "Branch (if)",
        required: ["step_id", "if"],
        properties: {
          step_id: step.properties.step_id,
          name: step.properties.name,
          if: {
            type: "object",
            title: "If",
            properties: { condition: { type: "string", format: "textarea", title: "Condition (a filter, as JSON)", description: condition.description } },
          },
        },
      },
      defs,
    );
  }
  const step = defs.ForEachStep;
  const { steps: _steps, ...fields } = defs.ForEachBlock.properties;
  return withDefs(
    {
      type: "object",
      title: "Loop (for_each)",
      required: ["step_id", "for_each"],
      properties: {
        step_id: step.properties.step_id,
        name: step.properties.name,
        output_as: step.properties.output_as,
        for_each: { type: "object", title: "For each", properties: { ...fields, items: { type: "string", title: "Items", description: fields.items.description } } },
      },
    },
    defs,
  );
}

const TRIGGER_DEFS = { schedule: "ScheduleTrigger", webhook: "WebhookTrigger", event: "EventTrigger" };

export function triggerSchema(schemas, type) {
  const defs = simplify(schemas.definition.$defs);
  const name = TRIGGER_DEFS[type];
  if (name && defs[name]) return withDefs({ ...defs[name], title: `${type} trigger` }, defs);
  const known = schemas.catalog.triggers.find((t) => t.type === type);
  return withDefs(
    {
      type: "object",
      title: `${type} trigger`,
      properties: { type: { type: "string", enum: [type] }, config: simplify((known && known.config_schema) || { type: "object" }) },
    },
    defs,
  );
}

// Everything of the definition but its triggers and plan (they get one form each).
export function generalSchema(schemas) {
  const root = simplify(schemas.definition);
  const { $defs, ...rest } = root;
  const properties = { ...rest.properties };
  delete properties.triggers;
  delete properties.plan;
  return withDefs({ ...rest, title: "General", properties, required: (rest.required || []).filter((r) => r !== "triggers" && r !== "plan") }, $defs);
}
