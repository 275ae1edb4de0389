// Try it: a preview of what each step would do now (rendered config, the calls it would make, their
// modes, which need approval and which a dry run would hold back), and dry or verify runs whose
// status follows live, with a link to the run.
import { spacePath, call, client, inSpace } from "../../api.js";
import { errorBox, h, loading, pretty, statusBadge, when } from "../../dom.js";
import { listen } from "../../sse.js";
import { modeLabel, sourceLabel } from "./modes.js";

const FINISHED = new Set(["succeeded", "failed", "cancelled", "timed_out", "dropped"]);
const RUN_KINDS = { dry_run: "Dry run", verify: "Verify run" };

// The generated forms leave empty values out (`metadata: {}`), so two definitions are compared with
// empty objects, empty strings and nulls dropped, and keys in any order.
function pruned(value) {
  if (Array.isArray(value)) return value.map(pruned);
  if (!value || typeof value !== "object") return value;
  const out = {};
  for (const key of Object.keys(value).sort()) {
    const item = pruned(value[key]);
    const empty = item === null || item === undefined || item === "" || (typeof item === "object" && !Array.isArray(item) && !Object.keys(item).length);
    if (!empty) out[key] = item;
  }
  return out;
}

export function sameDefinition(a, b) {
  return JSON.stringify(pruned(a)) === JSON.stringify(pruned(b));
}

function parseObject(text, label) {
  if (!text.trim()) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${label} is not valid JSON: ${error.message}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error(`${label} must be a JSON object.`);
  return value;
}

function callRow(call) {
  const needsApproval = call.mode === "require_approval";
  return h(
    "tr",
    { "data-capability": call.capability },
    h("th", { scope: "row" }, h("code", {}, call.capability)),
    h("td", {}, call.chosen_by === "agent" ? "the agent may call it" : "the step calls it"),
    h("td", {}, call.risk, call.destructive ? ", destructive" : "", call.drifted ? ", changed since confirmed" : ""),
    h("td", {}, h("strong", { class: `mode mode-${call.mode}` }, modeLabel(call.mode)), h("br"), h("small", {}, sourceLabel(call.mode_source))),
    h(
      "td",
      {},
      needsApproval ? h("span", { class: "badge needs-approval" }, "needs approval") : null,
      call.grant === "refused" ? " refused by the tool grants" : "",
      call.held_back_in && call.held_back_in.length ? ` held back in ${call.held_back_in.map((m) => RUN_KINDS[m] || m).join(" and ")}` : " runs in every mode",
    ),
  );
}

// Where a step inside blocks runs: in which branch, once per item of which loop.
function placeText(step) {
  const parts = [...(step.branches || []).map(([id, branch]) => `in the ${branch} branch of ${id}`), ...(step.loops || []).map((loop) => `once per item of ${loop.step_id}${loop.count != null ? ` (${loop.count} items)` : ""}`)];
  return parts.length ? h("p", { class: "hint" }, `Runs ${parts.join(", ")}.`) : null;
}

function blockCard(step) {
  let text;
  if (step.action === "if") {
    const condition = step.condition || {};
    text = condition.decided ? `Takes the ${condition.branch} branch with these inputs.` : condition.error ? `Condition fails: ${condition.error.message}` : `Branch decided during the run (needs ${(condition.waits_for || []).join(", ")}).`;
  } else {
    const items = step.items || {};
    const count = items.count != null ? `${items.count} items` : `up to ${items.max_items} items (${items.waits_for ? `needs ${items.waits_for.join(", ")}` : "known during the run"})`;
    text = `Runs its steps once per item: ${count}, ${items.concurrency} at a time.`;
  }
  return h(
    "article",
    { class: "preview-step", "data-step": step.step_id },
    h("h4", {}, `${step.step_id} (${step.action})`),
    placeText(step),
    step.error ? h("p", { class: "error", role: "alert" }, `${step.error.code}: ${step.error.message}`) : null,
    h("p", { class: "hint" }, text),
  );
}

function stepCard(step) {
  if (step.action === "if" || step.action === "for_each") return blockCard(step);
  const skipped = step.when.decided && !step.when.value;
  return h(
    "article",
    { class: "preview-step", "data-step": step.step_id },
    h("h4", {}, `${step.phase === "on_failure" ? "On failure: " : ""}${step.step_id} (${step.action})`),
    placeText(step),
    step.when.decided
      ? skipped
        ? h("p", { class: "hint" }, "Skipped: its condition is false.")
        : null
      : h("p", { class: "hint" }, step.when.error ? `Condition fails: ${step.when.error.message}` : `Condition decided during the run (needs ${step.when.waits_for.join(", ")}).`),
    step.error ? h("p", { class: "error", role: "alert" }, `${step.error.code}: ${step.error.message}`) : null,
    step.config
      ? h("details", { open: true }, h("summary", {}, "Rendered config"), pretty(step.config))
      : step.waits_for && step.waits_for.length
        ? h("p", { class: "hint" }, `Config rendered during the run (needs ${step.waits_for.join(", ")}).`)
        : null,
    step.calls.length
      ? h(
          "table",
          { class: "calls" },
          h("caption", {}, `Calls of ${step.step_id}`),
          h("thead", {}, h("tr", {}, ["Capability", "Who calls", "Risk", "Mode now", "Notes"].map((t) => h("th", { scope: "col" }, t)))),
          h("tbody", {}, step.calls.map(callRow)),
        )
      : h("p", { class: "hint" }, "Makes no capability call."),
  );
}

/** @param {import("../../api.js").Schema<"PreviewOut">} answer @param {boolean} edited */
function previewView(answer, edited) {
  // The API publishes the preview's steps and cost as open objects: their fields are not checked here.
  /** @type {any} */
  const cost = answer.cost || {};
  /** @type {any[]} */
  const steps = answer.steps;
  const waiting = steps.flatMap((s) => s.calls).filter((c) => c.mode === "require_approval").length;
  return h(
    "div",
    { class: "preview", id: "preview-result" },
    h("h3", {}, edited ? "Preview of your unsaved edit: nothing ran" : "Preview of the saved version: nothing ran"),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Reaches"),
      h("dd", {}, answer.external_hosts.length ? answer.external_hosts.join(", ") : "no outside host known before the run"),
      h("dt", {}, "Approvals"),
      h("dd", {}, waiting ? `${waiting} call${waiting > 1 ? "s" : ""} would wait for approval` : "none needed"),
      h("dt", {}, "Cost per run"),
      h("dd", {}, cost.per_run_usd != null ? `$${Number(cost.per_run_usd).toFixed(4)} (${(cost.basis || "estimate").replace(/_/g, " ")})` : "—"),
      cost.per_month_usd != null ? [h("dt", {}, "Cost per month"), h("dd", {}, `$${Number(cost.per_month_usd).toFixed(2)} for ${cost.runs_per_month} runs`)] : null,
      answer.schedules.length ? [h("dt", {}, "Next fires"), h("dd", {}, answer.schedules.flatMap((s) => s.next_fires || []).slice(0, 5).map(when).join(", ") || "—")] : null,
    ),
    answer.steps.map(stepCard),
  );
}

// `automation()` answers the page's automation; `onPreview(answer)` hands each preview of the saved
// version on; `unsaved()` answers the editor's definition while it has unsaved changes (else null):
// a preview shows that edit, while dry and verify runs always run a saved version.
/** @param {() => any} automation @param {{ onPreview?: (answer: any) => void, unsaved?: () => any }} [options] */
export function tryoutSection(automation, { onPreview = () => {}, unsaved = () => null } = {}) {
  const inputs = h("textarea", { id: "tryout-inputs", rows: "3", spellcheck: "false", class: "json-input" }, "{}");
  const payload = h("textarea", { id: "tryout-payload", rows: "2", spellcheck: "false", class: "json-input" }, "{}");
  const skipLlm = h("input", { type: "checkbox", id: "tryout-skip-llm" });
  const out = h("div", { "aria-live": "polite", id: "tryout-result" });
  const runBox = h("div", { "aria-live": "polite", id: "tryout-run" });
  let stop = null;

  async function preview() {
    let body;
    try {
      body = { inputs: parseObject(inputs.value, "Inputs"), trigger_payload: parseObject(payload.value, "Trigger payload") };
    } catch (error) {
      out.replaceChildren(errorBox({ code: "invalid_json", message: error.message }));
      return;
    }
    out.replaceChildren(loading("Previewing…"));
    const edited = unsaved();
    try {
      const answer = edited
        ? await call(client.POST("/api/v1/spaces/{space_id}/automations/preview", { params: { path: inSpace() }, body: { ...body, definition: edited } }))
        : await call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/preview", { params: { path: inSpace({ automation_id: automation().id }) }, body: body }));
      out.replaceChildren(previewView(answer, Boolean(edited)));
      if (!edited) onPreview(answer);
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  }

  async function start(mode) {
    let body;
    try {
      /** @type {import("../../api.js").Schema<"RunCreate">} */
      const asked = { inputs: parseObject(inputs.value, "Inputs"), mode, llm: skipLlm.checked ? "skip" : "run" };
      body = asked;
    } catch (error) {
      runBox.replaceChildren(errorBox({ code: "invalid_json", message: error.message }));
      return;
    }
    if (stop) stop();
    stop = null;
    runBox.replaceChildren(loading(`Starting the ${RUN_KINDS[mode].toLowerCase()}…`));
    try {
      const run = await call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/runs", { params: { path: inSpace({ automation_id: automation().id }) }, body: body }));
      const badge = h("span", { id: "tryout-run-status" }, statusBadge(run.status));
      runBox.replaceChildren(
        h(
          "p",
          { class: "ok", "data-run": run.id },
          `${RUN_KINDS[mode]} started: `,
          badge,
          " ",
          h("a", { href: `/runs/${run.id}`, id: "tryout-run-link" }, "open the run"),
          mode === "dry_run" ? " (writes are held back and listed on the run)" : " (only its own state is written)",
          unsaved() ? ` It runs the saved version ${automation().version}, not your unsaved edit.` : "",
        ),
      );
      if (FINISHED.has(run.status)) return;
      // This run's own handle: a status read late for it must never stop a later run's stream.
      let mine = null;
      const show = (status) => {
        badge.replaceChildren(statusBadge(status));
        if (!FINISHED.has(status) || !mine) return;
        mine();
        if (stop === mine) stop = null;
        mine = null;
      };
      mine = stop = listen(
        spacePath("/runs/events"),
        (event, change) => {
          if (event === "run" && change.run_id === run.id) show(change.status);
        },
        {
          // A fast run can end before the stream is open: its status is read once the stream is live.
          onLive: async () => {
            const now = await call(client.GET("/api/v1/spaces/{space_id}/runs/{run_id}", { params: { path: inSpace({ run_id: run.id }) } })).catch(() => null);
            if (now && mine) show(now.status);
          },
        },
      );
    } catch (error) {
      runBox.replaceChildren(errorBox(error));
    }
  }

  return {
    element: h(
      "section",
      { "aria-labelledby": "tryout-title" },
      h("h2", { id: "tryout-title" }, "Try it"),
      h("p", { class: "hint" }, "Preview shows what each step would do without running anything. A dry run runs the reads and holds every write back; a verify run also writes the automation's own state."),
      h("div", { class: "field" }, h("label", { for: "tryout-inputs" }, "Inputs (JSON)"), inputs),
      h("div", { class: "field" }, h("label", { for: "tryout-payload" }, "Trigger payload for the preview (JSON)"), payload),
      h("label", { class: "side" }, skipLlm, " Skip model calls in dry and verify runs"),
      h(
        "div",
        { class: "bar" },
        h("button", { type: "button", id: "preview-button", onclick: preview }, "Preview"),
        h("button", { type: "button", id: "dry-run-button", onclick: () => start("dry_run") }, "Dry run"),
        h("button", { type: "button", id: "verify-run-button", onclick: () => start("verify") }, "Verify run"),
      ),
      runBox,
      out,
    ),
    stop() {
      if (stop) stop();
      stop = null;
    },
  };
}
