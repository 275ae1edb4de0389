// Charts of run statistics with uPlot: runs per day stacked by status, and model spend per day.
// Loaded only by pages that draw them. Both charts get a fixed x range of whole days, so a range
// of one day, or days without runs, still draw as bars in their place.
import uPlot from "uplot";

const STATUS_COLOURS = {
  succeeded: "#2e7d32",
  failed: "#c62828",
  timed_out: "#ef6c00",
  cancelled: "#6d6d6d",
  dropped: "#9e9e9e",
  awaiting_approval: "#6a1b9a",
  running: "#1565c0",
  pending: "#42a5f5",
  queued: "#90caf9",
};

const DAY = 86400;

function seconds(day) {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}

function xScale(xs) {
  return { time: true, range: () => [xs[0] - DAY / 2, xs[xs.length - 1] + DAY / 2] };
}

const DAY_SERIES = { label: "Day (UTC)", value: (u, v) => (v === null || v === undefined ? "—" : new Date(v * 1000).toISOString().slice(0, 10)) };

// Enough decimals that neighbouring ticks never read the same.
function dollars(ticks) {
  const step = ticks.length > 1 ? Math.abs(ticks[1] - ticks[0]) : 1;
  const decimals = Math.min(6, Math.max(2, Math.ceil(-Math.log10(step || 1))));
  return ticks.map((t) => `$${t.toFixed(decimals)}`);
}

function width(container) {
  return Math.max(280, Math.min(container.clientWidth || 640, 760));
}

// Stacked bars: each series is drawn as the running total of itself and the statuses after it, the
// tallest first, so each status shows as its own band; the legend shows each status's own count.
export function runsChart(container, stats) {
  const xs = stats.per_day.map((day) => seconds(day.day));
  const statuses = stats.statuses.filter((status) => stats.totals.by_status[status]);
  const own = statuses.map((status) => stats.per_day.map((day) => day.by_status[status] || 0));
  const stacked = own.map((_, index) => stats.per_day.map((__, di) => own.slice(index).reduce((sum, series) => sum + series[di], 0)));
  const bars = uPlot.paths.bars({ size: [0.7, 60] });
  /** @type {any} uPlot's option types are stricter than the shapes it accepts */
  const options = {
    width: width(container),
    height: 220,
    scales: { x: xScale(xs), y: { range: (u, min, max) => [0, Math.max(1, max)] } },
    axes: [{}, { label: "runs", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000] }],
    series: [
      DAY_SERIES,
      ...statuses.map((status, index) => ({
        label: status,
        stroke: STATUS_COLOURS[status] || "#555",
        fill: STATUS_COLOURS[status] || "#555",
        paths: bars,
        points: { show: false },
        value: (u, value, si, di) => (di === null || di === undefined ? "—" : String(own[index][di])),
      })),
    ],
  };
  return new uPlot(options, [xs, ...stacked], container);
}

export function costChart(container, stats) {
  const xs = stats.per_day.map((day) => seconds(day.day));
  /** @type {any} uPlot's option types are stricter than the shapes it accepts */
  const options = {
    width: width(container),
    height: 160,
    scales: { x: xScale(xs), y: { range: (u, min, max) => [0, max > 0 ? max * 1.15 : 0.01] } },
    axes: [{}, { label: "USD", size: 70, values: (u, ticks) => dollars(ticks) }],
    series: [
      DAY_SERIES,
      { label: "model spend", stroke: "#00695c", fill: "rgba(0,105,92,0.45)", paths: uPlot.paths.bars({ size: [0.7, 60] }), points: { show: false }, value: (u, v) => (v === null || v === undefined ? "—" : `$${v.toFixed(4)}`) },
    ],
  };
  return new uPlot(options, [xs, stats.per_day.map((day) => day.cost_usd)], container);
}

const QUEUE_COLOURS = ["#1565c0", "#ef6c00", "#6a1b9a", "#2e7d32", "#c62828"];
const MINUTE_SERIES = { label: "Minute (UTC)", value: (u, v) => (v === null || v === undefined ? "—" : new Date(v * 1000).toISOString().slice(11, 16)) };

// Lines of waiting runs (queued and pending together) per worker queue, minute by minute. A range
// with no waiting run still draws its axis from 0 to 1.
export function queueChart(container, depth) {
  const first = Date.parse(depth.first_minute) / 1000;
  const xs = Array.from({ length: depth.minutes }, (_, index) => first + index * 60);
  const lines = depth.queues.map((series) => series.queued.map((queued, index) => queued + series.pending[index]));
  /** @type {any} uPlot's option types are stricter than the shapes it accepts */
  const options = {
    width: width(container),
    height: 200,
    scales: { x: { time: true, range: () => [xs[0] - 30, xs[xs.length - 1] + 30] }, y: { range: (u, min, max) => [0, Math.max(1, max)] } },
    axes: [{}, { label: "waiting runs", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000] }],
    series: [
      MINUTE_SERIES,
      ...depth.queues.map((series, index) => ({
        label: series.queue,
        stroke: QUEUE_COLOURS[index % QUEUE_COLOURS.length],
        width: 2,
        points: { show: xs.length === 1 },
        value: (u, v) => (v === null || v === undefined ? "—" : String(v)),
      })),
    ],
  };
  return new uPlot(options, [xs, ...lines], container);
}
