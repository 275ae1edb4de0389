// The run's timeline: one bar per step attempt (and one per approval pause) on a time axis, coloured
// by status, with its duration and model spend. A bar is a button: clicking it, or Enter on it,
// shows that attempt's details below, the error first for a failed one. Plain SVG, no library.
import { fill, h, pretty } from "../dom.js";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = {
  succeeded: "#2e7d32",
  failed: "#c62828",
  timed_out: "#ef6c00",
  cancelled: "#6d6d6d",
  skipped: "#9e9e9e",
  running: "#1565c0",
  awaiting_approval: "#6a1b9a",
  waiting: "#00838f",
  suspended: "#00838f",
  approved: "#6a1b9a",
  denied: "#c62828",
  expired: "#9e9e9e",
};
const LABEL = 190;
const ROW = 26;
const TOP = 22;

function svg(tag, attributes = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  for (const child of children) if (child !== null && child !== undefined) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

function span(ms) {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

// Rows: step attempts and approval pauses (a call that asked a human, from
// when it asked until the decision, or until now while it waits).
// How the pause ended: the call's own status moves on once it runs (executed, failed).
function pauseOutcome(call) {
  if (call.status === "pending") return "awaiting_approval";
  if (call.status === "denied" || call.status === "expired") return call.status;
  return "approved";
}

function timelineRows(run, now = Date.now()) {
  const spend = new Map((run.llm_spend || []).map((s) => [s.step_id, s.cost_usd]));
  const last = new Map(run.steps.map((step, index) => [step.step_id, index]));
  const rows = run.steps.map((step, index) => {
    const start = Date.parse(step.started_at);
    const end = step.finished_at ? Date.parse(step.finished_at) : now;
    return {
      kind: "step",
      label: `${step.phase === "on_failure" ? "on_failure " : ""}${step.path || step.step_id}${step.attempt > 1 ? ` #${step.attempt}` : ""}`,
      status: step.status,
      start,
      end,
      duration: step.duration_ms ?? end - start,
      cost: last.get(step.step_id) === index ? spend.get(step.step_id) ?? null : null,
      step,
    };
  });
  for (const call of run.invocations || []) {
    const asked = call.decided_at || call.status === "pending" || call.status === "expired";
    if (!asked || call.mode !== "require_approval") continue;
    const start = Date.parse(call.created_at);
    const end = call.decided_at ? Date.parse(call.decided_at) : call.status === "expired" && call.expires_at ? Date.parse(call.expires_at) : now;
    rows.push({ kind: "approval", label: `approval ${call.step_id}`, status: pauseOutcome(call), start, end, duration: end - start, cost: null, call });
  }
  // In the order things happened: a pause sits beside the step that waited for it.
  return rows.sort((a, b) => a.start - b.start);
}

export function runTimeline(run) {
  const rows = timelineRows(run);
  const details = h("div", { class: "timeline-details", id: "timeline-details", "aria-live": "polite" });
  if (!rows.length) return h("div", {});
  const t0 = Math.min(...rows.map((r) => r.start));
  const t1 = Math.max(...rows.map((r) => r.end), t0 + 1);
  const plot = 520;
  const width = LABEL + plot + 150;
  const height = TOP + rows.length * ROW + 8;
  const x = (t) => LABEL + ((t - t0) / (t1 - t0)) * plot;
  const chart = svg("svg", { class: "run-timeline", width, height, viewBox: `0 0 ${width} ${height}`, role: "group", "aria-label": `Timeline of ${rows.length} step attempts and approval pauses` });
  for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
    const at = LABEL + fraction * plot;
    chart.append(svg("line", { x1: at, x2: at, y1: TOP - 4, y2: height - 4, class: "axis" }), svg("text", { x: at, y: 12, "text-anchor": "middle", class: "tick" }, `+${span(fraction * (t1 - t0))}`));
  }
  rows.forEach((row, index) => {
    const y = TOP + index * ROW;
    const left = x(row.start);
    const barWidth = Math.max(3, x(row.end) - left);
    const text = `${span(row.duration)}${row.cost ? ` · $${row.cost.toFixed(4)}` : ""}`;
    const name = `${row.label}: ${row.status}, ${text}${row.status === "failed" ? ", show the error" : ", show details"}`;
    const bar = svg(
      "g",
      { class: `bar bar-${row.kind}`, tabindex: 0, role: "button", "aria-label": name, "data-status": row.status, "data-row": index },
      svg("rect", { x: left, y: y + 3, width: barWidth, height: ROW - 8, rx: 3, fill: COLOURS[row.status] || "#555", "fill-opacity": row.kind === "approval" ? 0.45 : 0.9 }),
    );
    const show = () => showDetails(details, row);
    bar.addEventListener("click", show);
    bar.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      show();
    });
    chart.append(svg("text", { x: 4, y: y + ROW / 2 + 3 }, row.label.length > 26 ? `${row.label.slice(0, 25)}…` : row.label), bar, svg("text", { x: left + barWidth + 6, y: y + ROW / 2 + 3, class: "tick" }, `${row.status} · ${text}`));
  });
  const scroll = h("div", { class: "plan-scroll timeline-scroll" }, chart);
  return h("section", { "aria-labelledby": "timeline-title", id: "run-timeline" }, h("h2", { id: "timeline-title" }, "Timeline"), scroll, details);
}

function showDetails(box, row) {
  if (row.kind === "approval") {
    const call = row.call;
    fill(box, h("h3", {}, `Approval for ${call.capability} in ${call.step_id}`), h("p", {}, `${row.status}${call.denied_reason ? `: ${call.denied_reason}` : ""} · waited ${span(row.duration)} · the call then: ${call.status}`));
    return;
  }
  const step = row.step;
  fill(
    box,
    h("h3", {}, `${step.path || step.step_id} (${step.action}), attempt ${step.attempt}`),
    h("p", {}, `${step.status} · ${span(row.duration)}${row.cost ? ` · model spend $${row.cost.toFixed(4)}` : ""}`),
    step.error ? h("div", { class: "error", role: "alert", id: "timeline-error" }, h("strong", {}, "Error"), pretty(step.error)) : null,
    step.output !== null && step.output !== undefined ? h("details", {}, h("summary", {}, "Output"), pretty(step.output)) : null,
  );
}
