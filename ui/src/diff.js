// A line diff of two JSON documents (longest common subsequence), for conflicts and versions.
import { h } from "./dom.js";

export function lineDiff(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const lines = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      lines.push([" ", a[i]]);
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) lines.push(["+", b[j++]]);
    else lines.push(["-", a[i++]]);
  }
  return lines;
}

// Keys sorted at every level, so two documents that differ only in key order show no difference.
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
  return value;
}

export function diffView(before, after, labels = ["before", "after"]) {
  const text = (value) => JSON.stringify(canonical(value), null, 2);
  const lines = lineDiff(text(before), text(after));
  const changed = lines.some(([mark]) => mark !== " ");
  return h(
    "figure",
    { class: "diff" },
    h("figcaption", {}, `Changes from ${labels[0]} to ${labels[1]}`),
    changed
      ? h(
          "pre",
          { tabindex: "0", "aria-label": `Diff from ${labels[0]} to ${labels[1]}` },
          lines.map(([mark, line]) =>
            h("span", { class: mark === "+" ? "add" : mark === "-" ? "del" : "same" }, `${mark} ${line}\n`),
          ),
        )
      : h("p", {}, "No differences."),
  );
}
