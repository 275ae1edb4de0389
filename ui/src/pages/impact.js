// Cost and impact of a definition: the model spend estimate, and the outside systems its steps touch.
import { h } from "../dom.js";

const TOUCHES = {
  http_request: (config) => {
    try {
      return `HTTP ${config.method || "GET"} to ${new URL(config.url).host}`;
    } catch {
      return `HTTP ${config.method || "GET"} to a templated URL`;
    }
  },
  slack_post: (config) => `Slack channel ${config.channel || "(templated)"}`,
  send_email: (config) => `Email to ${[].concat(config.to || []).join(", ") || "(templated)"}`,
  llm_complete: (config) => `Language model ${config.model || ""}`,
  agent_task: (config) => `Language model ${config.model || ""} with ${(config.tools || []).length} tool(s)`,
};

export function impactOf(definition, estimate) {
  const plan = (definition && definition.plan) || [];
  const touches = plan.map((step) => (TOUCHES[step.action] ? TOUCHES[step.action](step.config || {}) : null)).filter(Boolean);
  const triggers = ((definition && definition.triggers) || []).map((t) =>
    t.type === "schedule" ? `schedule ${(t.config && t.config.cron) || ""} ${(t.config && t.config.timezone) || ""}` : t.type,
  );
  const money = (value) => (value === null || value === undefined ? "—" : `$${Number(value).toFixed(4)}`);
  return h(
    "dl",
    { class: "facts" },
    h("dt", {}, "Runs on"),
    h("dd", {}, triggers.join("; ") || "run now only"),
    h("dt", {}, "External systems"),
    h("dd", {}, touches.length ? h("ul", {}, touches.map((t) => h("li", {}, t))) : "none"),
    h("dt", {}, "Model spend"),
    h(
      "dd",
      {},
      estimate
        ? `at most ${money(estimate.per_run_usd)} per run` +
            (estimate.per_month_usd !== null && estimate.per_month_usd !== undefined
              ? `, ${money(estimate.per_month_usd)} per month (${estimate.runs_per_month} runs)`
              : "")
        : "no model calls",
    ),
    h("dt", {}, "Approvals"),
    h("dd", {}, "Calls that need a person's approval wait in the approvals inbox; the space's action modes decide which."),
  );
}
