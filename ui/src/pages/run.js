// One run: status and timings, the step timeline with rendered configs, outputs and errors, model
// spend, deliveries, and cancel. Refreshes live while the run is not finished.
import { api, spacePath } from "../api.js";
import { clear, errorBox, h, loading, pretty, statusBadge, when, fill } from "../dom.js";
import { listen } from "../sse.js";

const FINISHED = new Set(["succeeded", "failed", "cancelled", "timed_out", "dropped"]);

export function runPage(main, id) {
  const body = h("div", {}, loading());
  main.append(body);
  let stop = null;

  async function load() {
    try {
      paint(await api("GET", spacePath(`/runs/${id}`)));
    } catch (error) {
      fill(body, errorBox(error), h("p", {}, h("a", { href: "/runs" }, "Back to runs")));
    }
  }

  function paint(run) {
    const flash = h("div", { "aria-live": "polite" });
    fill(body, 
      h("div", { class: "heading" }, h("h1", {}, `Run ${run.id.slice(0, 8)}`), statusBadge(run.status)),
      flash,
      h(
        "div",
        { class: "bar" },
        h("a", { class: "button", href: `/automations/${run.automation_id}` }, "Automation"),
        FINISHED.has(run.status) ? null : h("button", { type: "button", id: "cancel-run", onclick: () => cancel(flash) }, run.cancel_requested ? "Cancel requested" : "Cancel"),
      ),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "Automation version"),
        h("dd", {}, String(run.automation_version)),
        h("dt", {}, "Trigger"),
        h("dd", {}, run.trigger_type),
        h("dt", {}, "Queue"),
        h("dd", {}, run.queue),
        h("dt", {}, "Created"),
        h("dd", {}, when(run.created_at)),
        h("dt", {}, "Started"),
        h("dd", {}, when(run.started_at)),
        h("dt", {}, "Finished"),
        h("dd", {}, when(run.finished_at)),
        h("dt", {}, "Model spend"),
        h("dd", {}, `$${Number(run.cost_usd).toFixed(6)}`),
        run.reason ? [h("dt", {}, "Reason"), h("dd", {}, run.reason)] : null,
      ),
      run.error ? h("section", { class: "error", role: "alert" }, h("h2", {}, "Error"), pretty(run.error)) : null,
      h("h2", {}, "Steps"),
      run.steps.length
        ? h(
            "ol",
            { class: "timeline" },
            run.steps.map((step) =>
              h(
                "li",
                { class: `step status-${step.status}` },
                h("div", { class: "step-head" }, h("strong", {}, step.step_id), ` ${step.action} · attempt ${step.attempt} · `, statusBadge(step.status), step.duration_ms !== null ? ` · ${step.duration_ms} ms` : ""),
                h("details", {}, h("summary", {}, "Rendered config"), pretty(step.config)),
                step.output !== null ? h("details", { open: true }, h("summary", {}, "Output"), pretty(step.output)) : null,
                step.error ? h("div", { class: "error" }, pretty(step.error)) : null,
              ),
            ),
          )
        : h("p", {}, FINISHED.has(run.status) ? "No steps ran." : "No step has started yet."),
      run.output !== null && run.output !== undefined ? [h("h2", {}, "Output"), pretty(run.output)] : null,
      h("h2", {}, "Deliveries"),
      run.webhook_deliveries && run.webhook_deliveries.length
        ? h("ul", {}, run.webhook_deliveries.map((d) => h("li", {}, `${d.event_type} → ${d.status} (${d.attempts} of ${d.max_attempts} attempts)`, d.last_error ? ` · ${d.last_error}` : "")))
        : h("p", {}, "No outbound deliveries."),
      h("details", {}, h("summary", {}, "Inputs and trigger payload"), pretty({ inputs: run.inputs, trigger_payload: run.trigger_payload })),
    );
    if (FINISHED.has(run.status) && stop) {
      stop();
      stop = null;
    }
  }

  async function cancel(flash) {
    try {
      await api("POST", spacePath(`/runs/${id}/cancel`));
      await load();
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  load();
  stop = listen(spacePath("/runs/events"), (event, change) => {
    if (event === "run" && change.run_id === id) load();
  });
  return () => stop && stop();
}
