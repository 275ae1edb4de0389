// Small pieces the Documents sections share: tags typed as text, sizes, a document's status with its
// reason, and its source as a link only when it is a web address.
import { h, statusBadge } from "../../dom.js";

// "alpha, beta  gamma" -> ["alpha", "beta", "gamma"], without repeats; the API checks each one.
export function tagList(text) {
  return [...new Set(text.split(/[\s,]+/).map((tag) => tag.trim()).filter(Boolean))];
}

export function tagChips(tags) {
  if (!tags || !tags.length) return h("span", { class: "hint" }, "—");
  return h("ul", { class: "tags", "aria-label": "Tags" }, tags.map((tag) => h("li", { class: "tag" }, tag)));
}

export function size(bytes) {
  if (bytes === null || bytes === undefined) return "—";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function documentStatus(doc) {
  return [
    statusBadge(doc.status),
    doc.status === "failed" && doc.status_reason ? h("p", { class: "reason" }, doc.status_reason) : null,
    doc.status === "indexed" && doc.chunk_count !== null && doc.chunk_count !== undefined
      ? h("small", { class: "hint" }, ` ${doc.chunk_count} ${doc.chunk_count === 1 ? "chunk" : "chunks"}`)
      : null,
  ];
}

// A source is whatever the uploader typed: only http(s) addresses become links, so a `javascript:`
// source stays inert text.
export function sourceLink(url) {
  if (!url) return null;
  let parsed = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (parsed && (parsed.protocol === "http:" || parsed.protocol === "https:"))
    return h("a", { class: "source", href: parsed.href, rel: "noopener noreferrer", target: "_blank" }, url);
  return h("span", { class: "source" }, url);
}
