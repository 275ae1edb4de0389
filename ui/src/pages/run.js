// One run: status and timings, the step timeline with rendered configs, outputs and errors, model
// spend per step, the capability calls with their modes and outcomes, artifacts, deliveries, cancel
// and replay. Refreshes live while the run is not finished.
import { headers, spacePath, call, client, inSpace } from "../api.js";
import { errorBox, fill, h, lastPainted, loading, pretty, statusBadge, when } from "../dom.js";
import { listen } from "../sse.js";
import { runTimeline } from "./run_timeline.js";

const FINISHED = new Set(["succeeded", "failed", "cancelled", "timed_out", "dropped"]);

// What each invocation status means to someone reading the run.
const CALL_STATUS = {
  pending: "approval pending",
  approved: "approved, not run yet",
  executing: "running",
  executed: "executed",
  denied: "denied",
  expired: "approval expired",
  failed: "failed",
  suppressed: "suppressed (dry or verify run)",
};

export function runPage(main, id) {
  const body = h("div", {}, loading());
  const flash = h("div", { "aria-live": "polite" });
  main.append(body);
  let stop = null;
  let stale = false;
  let finished = false;
  const painted = lastPainted();

  async function load() {
    try {
      const [run, artifacts, children] = await Promise.all([
        call(client.GET("/api/v1/spaces/{space_id}/runs/{run_id}", { params: { path: inSpace({ run_id: id }) } })),
        call(client.GET("/api/v1/spaces/{space_id}/runs/{run_id}/artifacts", { params: { path: inSpace({ run_id: id }) } })).catch((error) => ({ error })),
        // The runs its call_automation steps started: a help, so the page works without them.
        call(client.GET("/api/v1/spaces/{space_id}/runs", { params: { path: inSpace(), query: { parent_run_id: id, limit: 50 } } })).catch(() => null),
      ]);
      if (stale || painted.same([run, artifacts, children])) return;
      finished = FINISHED.has(run.status);
      paint(run, artifacts, children ? children.items : []);
    } catch (error) {
      painted.forget();
      fill(body, errorBox(error), h("p", {}, h("a", { href: "/runs" }, "Back to runs")));
    }
  }

  /** @param {import("../api.js").Schema<"RunDetailWithInvocationsOut">} run @param {any} artifacts @param {any[]} children */
  function paint(run, artifacts, children = []) {
    const spend = run.llm_spend || [];
    const spendOf = new Map(spend.map((s) => [s.step_id, s]));
    const lastAttempt = new Map(run.steps.map((step, index) => [step.step_id, index]));
    fill(
      body,
      h("div", { class: "heading" }, h("h1", {}, `Run ${run.id.slice(0, 8)}`), statusBadge(run.status)),
      waiting(run),
      flash,
      h(
        "div",
        { class: "bar" },
        h("a", { class: "button", href: `/automations/${run.automation_id}` }, "Automation"),
        FINISHED.has(run.status) ? null : h("button", { type: "button", id: "cancel-run", onclick: cancel }, run.cancel_requested ? "Cancel requested" : "Cancel"),
        replayForm(),
      ),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "Automation version"),
        h("dd", {}, String(run.automation_version)),
        h("dt", {}, "Trigger"),
        h("dd", {}, run.trigger_type),
        h("dt", {}, "Ran as"),
        h("dd", { id: "ran-as" }, ranAs(run.ran_as)),
        h("dt", {}, "Mode"),
        h("dd", {}, run.mode === "live" ? "live" : `${run.mode} (side effects held back)`, run.llm_mode && run.llm_mode !== "run" ? ` · models: ${run.llm_mode}` : ""),
        run.replay_of ? [h("dt", {}, "Replay of"), h("dd", {}, h("a", { href: `/runs/${run.replay_of}` }, `run ${run.replay_of.slice(0, 8)}`))] : null,
        run.parent_run_id
          ? [h("dt", {}, "Started by"), h("dd", {}, h("a", { href: `/runs/${run.parent_run_id}` }, `run ${run.parent_run_id.slice(0, 8)}`), ` (step ${run.parent_path})`)]
          : null,
        children.length
          ? [
              h("dt", {}, "Child runs"),
              h(
                "dd",
                { id: "child-runs" },
                children.map((child, index) => [index ? ", " : "", h("a", { href: `/runs/${child.id}` }, `run ${child.id.slice(0, 8)}`), ` (${child.parent_path}: ${child.status})`]),
              ),
            ]
          : null,
        run.children_cost_usd ? [h("dt", {}, "Child runs' model spend"), h("dd", {}, `$${run.children_cost_usd.toFixed(4)} (counted against this run's budget)`)] : null,
        h("dt", {}, "Queue"),
        h("dd", {}, run.queue),
        h("dt", {}, "Created"),
        h("dd", {}, when(run.created_at)),
        h("dt", {}, "Started"),
        h("dd", {}, when(run.started_at)),
        h("dt", {}, "Finished"),
        h("dd", {}, when(run.finished_at)),
        h("dt", {}, "Model spend"),
        h("dd", { id: "run-spend" }, dollars(run.cost_usd)),
        run.reason ? [h("dt", {}, "Reason"), h("dd", {}, run.reason)] : null,
        h("dt", {}, "Priority"),
        h("dd", {}, String(run.priority ?? 0)),
        run.promoted_at ? [h("dt", {}, "Promoted"), h("dd", { id: "run-promotion" }, promotion(run))] : null,
      ),
      run.error ? h("section", { class: "error", role: "alert" }, h("h2", {}, "Error"), pretty(run.error)) : null,
      runTimeline(run),
      h("h2", {}, "Steps"),
      run.steps.length
        ? h(
            "ol",
            { class: "timeline" },
            run.steps.map((step, index) => {
              const stepSpend = lastAttempt.get(step.step_id) === index ? spendOf.get(step.step_id) : null;
              return h(
                "li",
                { class: `step status-${step.status}` },
                h(
                  "div",
                  { class: "step-head" },
                  h("strong", {}, step.path || step.step_id),
                  ` ${step.action} · attempt ${step.attempt} · `,
                  statusBadge(step.status),
                  step.duration_ms !== null ? ` · ${step.duration_ms} ms` : "",
                  stepSpend ? h("span", { class: "step-spend" }, ` · models ${dollars(stepSpend.cost_usd)}`) : null,
                ),
                h("details", {}, h("summary", {}, "Rendered config"), pretty(step.config)),
                step.output !== null ? h("details", { open: true }, h("summary", {}, "Output"), pretty(step.output)) : null,
                step.error ? h("div", { class: "error" }, pretty(step.error)) : null,
              );
            }),
          )
        : h("p", {}, FINISHED.has(run.status) ? "No steps ran." : "No step has started yet."),
      run.output !== null && run.output !== undefined ? [h("h2", {}, "Output"), pretty(run.output)] : null,
      h("section", { "aria-labelledby": "calls-title" }, h("h2", { id: "calls-title" }, "Capability calls"), invocations(run.invocations || [])),
      h("section", { "aria-labelledby": "spend-title" }, h("h2", { id: "spend-title" }, "Model spend by step"), spendTable(spend)),
      h("section", { "aria-labelledby": "artifacts-title" }, h("h2", { id: "artifacts-title" }, "Artifacts"), artifactList(artifacts)),
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

  // "promoted: slot freed by run <id>", the run named as a link, and when.
  /** @param {import("../api.js").Schema<"RunDetailWithInvocationsOut">} run */
  function promotion(run) {
    const reason = run.promotion_reason || "";
    const freed = /^slot freed by run ([0-9a-f-]{36})$/.exec(reason);
    const why = freed ? ["slot freed by run ", h("a", { href: `/runs/${freed[1]}` }, freed[1].slice(0, 8))] : [reason];
    return ["promoted: ", ...why, ` · ${when(run.promoted_at)}`];
  }

  function replayForm() {
    const version = h(
      "select",
      { id: "replay-version" },
      h("option", { value: "snapshot" }, "the version it ran"),
      h("option", { value: "current" }, "the current version"),
    );
    async function replay(event) {
      event.preventDefault();
      try {
        const made = await call(client.POST("/api/v1/spaces/{space_id}/runs/{run_id}/replay", { params: { path: inSpace({ run_id: id }) }, body: { version: version.value } }));
        // The router re-renders on popstate: the new run's page opens as if its link was followed.
        history.pushState(null, "", `/runs/${made.id}`);
        window.dispatchEvent(new PopStateEvent("popstate"));
      } catch (error) {
        flash.replaceChildren(errorBox(error));
      }
    }
    return h(
      "form",
      { class: "inline", onsubmit: replay, "aria-label": "Replay this run" },
      h("label", { for: "replay-version" }, "Replay on"),
      version,
      h("button", { type: "submit", id: "replay-run" }, "Replay"),
    );
  }

  async function cancel() {
    try {
      await call(client.POST("/api/v1/spaces/{space_id}/runs/{run_id}/cancel", { params: { path: inSpace({ run_id: id }) } }));
      await load();
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  /** @param {import("../api.js").Schema<"ArtifactOut">} artifact @param {HTMLButtonElement} button */
  async function download(artifact, button) {
    button.disabled = true;
    try {
      const link = await call(client.POST("/api/v1/spaces/{space_id}/artifacts/{artifact_id}/link", { params: { path: inSpace({ artifact_id: artifact.id }) }, body: {} }));
      if (link.served_by === "store") {
        h("a", { href: link.url, rel: "noopener" }).click();
        return;
      }
      // The API's link needs the member's token for private and space artifacts, which a plain
      // link cannot send: fetch it with the token, then hand the bytes to the browser as a file.
      const response = await fetch(link.url, { headers: headers({ Accept: "*/*" }) });
      if (!response.ok) throw new Error(`The download answered HTTP ${response.status}.`);
      const url = URL.createObjectURL(await response.blob());
      h("a", { href: url, download: artifact.name }).click();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    } finally {
      button.disabled = false;
    }
  }

  function artifactList(artifacts) {
    if (artifacts.error) return errorBox(artifacts.error);
    if (!artifacts.items.length) return h("p", {}, "This run kept no files.");
    return h(
      "table",
      { class: "artifacts" },
      h("thead", {}, h("tr", {}, ["Name", "Type", "Size", "Step", "Visibility", "Expires", ""].map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        artifacts.items.map((artifact) => {
          const button = h("button", { type: "button", "aria-label": `Download ${artifact.name}` }, "Download");
          button.addEventListener("click", () => download(artifact, button));
          return h(
            "tr",
            { "data-artifact": artifact.id },
            h("td", {}, artifact.name),
            h("td", {}, `${artifact.content_type} (${artifact.kind})`),
            h("td", {}, bytes(artifact.size)),
            h("td", {}, artifact.step_id || "—"),
            h("td", {}, artifact.visibility),
            h("td", {}, artifact.expires_at ? when(artifact.expires_at) : "never"),
            h("td", {}, button),
          );
        }),
      ),
    );
  }

  load();
  stop = listen(
    spacePath("/runs/events"),
    (event, change) => {
      if (event === "run" && change.run_id === id) load();
    },
    {
      onLive: () => {
        if (!finished) load();
      },
    },
  );
  return () => {
    stale = true;
    if (stop) stop();
  };
}

/** @param {import("../api.js").Schema<"RunDetailWithInvocationsOut">} run */
function waiting(run) {
  if (run.status === "waiting") {
    return h(
      "div",
      { class: "waiting", role: "status" },
      h("strong", {}, "This run waits "),
      "for a time, an event or a child run; it holds no worker and resumes by itself. ",
      h("a", { href: `/runs?parent_run_id=${run.id}` }, "Its child runs"),
    );
  }
  if (run.status !== "awaiting_approval") return null;
  const pending = (run.invocations || []).filter((call) => call.status === "pending");
  return h(
    "div",
    { class: "waiting", role: "status" },
    h("strong", {}, "This run waits for a decision. "),
    pending.length
      ? pending.map((call) => h("a", { href: `/approvals/${call.id}`, class: "button" }, `Decide on ${call.capability}`))
      : h("a", { href: "/approvals", class: "button" }, "Open the approvals inbox"),
  );
}

/** @param {import("../api.js").Schema<"InvocationOut">[]} calls */
function invocations(calls) {
  if (!calls.length) return h("p", {}, "No capability was called.");
  return h(
    "table",
    { class: "invocations" },
    h("thead", {}, h("tr", {}, ["Step", "Capability", "Chosen by", "Mode", "Status", "Duration", "Details"].map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      {},
      calls.map((call) =>
        h(
          "tr",
          { "data-invocation": call.id, "data-status": call.status },
          h("td", {}, call.step_id),
          h("td", {}, h("code", {}, call.capability), call.destructive ? " (destructive)" : ""),
          h("td", {}, call.chosen_by),
          h("td", {}, h("span", { class: `mode mode-${call.mode}` }, call.mode), h("span", { class: "hint" }, ` from ${call.mode_source.replace(/_/g, " ")}`)),
          h(
            "td",
            {},
            h("span", { class: `badge status-${call.status}`, "data-status": call.status }, CALL_STATUS[call.status] || call.status),
            call.status === "pending" ? [" ", h("a", { href: `/approvals/${call.id}`, "aria-label": `Decide on ${call.capability}` }, "decide"), h("div", { class: "hint" }, `expires ${when(call.expires_at)}`)] : null,
            call.decided_at ? h("div", { class: "hint" }, `decided ${when(call.decided_at)}${call.decision_scope ? ` (${call.decision_scope})` : ""}`) : null,
            call.denied_reason ? h("div", { class: "hint" }, `reason: ${call.denied_reason}`) : null,
          ),
          h("td", {}, call.duration_ms !== null ? `${call.duration_ms} ms` : "—"),
          h(
            "td",
            {},
            h(
              "details",
              {},
              h("summary", {}, "Parameters and result"),
              pretty({ params: call.params, result: call.result, error: call.error }),
            ),
          ),
        ),
      ),
    ),
  );
}

function spendTable(spend) {
  if (!spend.length) return h("p", {}, "No step called a model.");
  return h(
    "table",
    { class: "spend" },
    h("thead", {}, h("tr", {}, ["Step", "Calls", "Input tokens", "Output tokens", "Cost"].map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      {},
      spend.map((s) => h("tr", { "data-step": s.step_id }, h("td", {}, s.step_id), h("td", {}, String(s.calls)), h("td", {}, String(s.input_tokens)), h("td", {}, String(s.output_tokens)), h("td", {}, dollars(s.cost_usd)))),
    ),
  );
}

function dollars(value) {
  return `$${Number(value).toFixed(6)}`;
}

function bytes(size) {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MB`;
}

// Who the run acts as: whoever started it by hand, else the automation's creator.
function ranAs(identity) {
  if (!identity) return "not recorded";
  return identity.name ? `${identity.name} <${identity.email}>` : identity.email;
}
