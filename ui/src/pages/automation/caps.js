// Spending limits in effect: the daily cost cap and the tokens per run, each with where it comes from
// (this automation's execution policy, or the installation's default) and the highest value a
// definition may set; below them, what the stored definition is warned of (e.g. an agent's HTTP grant
// that reaches any host). All of it comes from the preview answer.
import { errorBox, fill, h, loading } from "../../dom.js";

const SOURCE = { automation: "set by this automation", operator_default: "installation default" };

function usd(value) {
  return `$${Number(value).toFixed(2)}`;
}

function tokens(value) {
  return Number(value).toLocaleString("en-US");
}

function capRow(id, label, cap, format) {
  return [
    h("dt", {}, label),
    h(
      "dd",
      { id, "data-source": cap.source },
      h("strong", {}, format(cap.value)),
      ` — ${SOURCE[cap.source] || cap.source}`,
      h("small", {}, ` (at most ${format(cap.maximum)})`),
    ),
  ];
}

// `previewNow()` answers a fresh preview of the saved automation (or throws).
export function capsSection({ previewNow }) {
  const box = h("div", { id: "caps-box" }, loading("Loading spending limits…"));

  function paint(answer) {
    const caps = answer.caps;
    const warnings = answer.warnings || [];
    fill(
      box,
      h(
        "dl",
        { class: "facts" },
        capRow("cap-daily", "Daily cost cap", caps.daily_cost_usd, usd),
        capRow("cap-tokens", "Tokens per run", caps.run_tokens, tokens),
      ),
      warnings.length
        ? h(
            "ul",
            { class: "warnings", id: "caps-warnings" },
            warnings.map((w) => h("li", { class: "warning", "data-code": w.code }, h("code", {}, w.path), ` ${w.message}`)),
          )
        : null,
    );
  }

  async function load() {
    try {
      paint(await previewNow());
    } catch (error) {
      fill(box, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  load();
  return {
    element: h(
      "section",
      { "aria-labelledby": "caps-title" },
      h("h2", { id: "caps-title" }, "Spending limits"),
      h("p", { class: "hint" }, "Once the day's cost is reached, fires are dropped and a running run stops at its next model call. Set cost_cap_daily_usd or max_llm_tokens in the definition's execution policy to change them."),
      box,
    ),
  };
}
