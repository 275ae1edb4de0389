// Searching the space's documents (`POST …/documents/search`): ranked snippets with their document's
// title and score. Snippets are document text, so they are shown as text, never as markup.
import { call, client, inSpace } from "../../api.js";
import { clear, empty, errorBox, h, loading } from "../../dom.js";
import { tagChips, tagList } from "./common.js";

const TOP_K = 10;
const MARK_OPEN = "<b>";
const MARK_CLOSE = "</b>";

// The server marks matched words in a snippet with <b>…</b>. Those two exact strings are the only
// thing read out of it: the words between them become <mark> text, everything else stays text.
export function snippetNodes(snippet) {
  const nodes = [];
  let rest = snippet;
  while (rest) {
    const open = rest.indexOf(MARK_OPEN);
    const close = open < 0 ? -1 : rest.indexOf(MARK_CLOSE, open + MARK_OPEN.length);
    if (open < 0 || close < 0) {
      nodes.push(rest);
      break;
    }
    if (open > 0) nodes.push(rest.slice(0, open));
    nodes.push(h("mark", {}, rest.slice(open + MARK_OPEN.length, close)));
    rest = rest.slice(close + MARK_CLOSE.length);
  }
  return nodes;
}

export function searchSection(box) {
  const query = h("input", { type: "search", id: "document-query", required: true, autocomplete: "off", maxlength: "1000" });
  const tags = h("input", { id: "search-tags", autocomplete: "off" });
  const button = h("button", { type: "submit" }, "Search");
  const results = h("div", { id: "search-results", "aria-live": "polite" });
  let shown = [];
  let mode = null;

  async function search(event) {
    event.preventDefault();
    const text = query.value.trim();
    if (!text) return;
    const filters = {};
    const wanted = tagList(tags.value);
    if (wanted.length) filters.tags = wanted;
    button.disabled = true;
    results.replaceChildren(loading("Searching…"));
    try {
      const answer = await call(client.POST("/api/v1/spaces/{space_id}/documents/search", { params: { path: inSpace() }, body: { query: text, top_k: TOP_K, filters } }));
      shown = answer.items;
      mode = answer.mode;
      draw();
    } catch (error) {
      results.replaceChildren(errorBox(error));
    } finally {
      button.disabled = false;
    }
  }

  function draw() {
    clear(results);
    if (!shown.length) {
      results.append(empty("No passage matches this search."));
      return;
    }
    results.append(
      h("p", { class: "hint" }, `${shown.length} ${shown.length === 1 ? "passage" : "passages"}, best first`, mode ? ` (${mode} search)` : "", "."),
      h(
        "ol",
        { class: "results" },
        shown.map((hit) =>
          h(
            "li",
            { class: "result", "data-document": hit.document_id },
            h("h3", {}, hit.title),
            h(
              "p",
              { class: "result-facts" },
              h("span", { class: "score" }, `score ${Number(hit.score).toFixed(3)}`),
              ` · part ${hit.chunk_index + 1} `,
              tagChips(hit.tags),
            ),
            h("blockquote", { class: "snippet" }, snippetNodes(hit.snippet)),
          ),
        ),
      ),
    );
  }

  box.append(
    h(
      "form",
      { role: "search", "aria-label": "Search documents", class: "inline search", onsubmit: search },
      h("label", { for: query.id }, "Search documents"),
      query,
      h("label", { for: tags.id }, "Only tagged"),
      tags,
      button,
    ),
    results,
  );

  // A deleted document's passages leave the results at once.
  return {
    removed(id) {
      if (!shown.some((hit) => hit.document_id === id)) return;
      shown = shown.filter((hit) => hit.document_id !== id);
      draw();
    },
  };
}
