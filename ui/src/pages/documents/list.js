// The space's documents, newest first, filtered by tag and status (kept in the URL) and paged with
// "Load more". Pending documents are polled one by one, gently and less often as time passes, until
// none is pending or the page is left; delete asks first.
import { call, client, inSpace } from "../../api.js";
import { empty, errorBox, fill, h, loading, when } from "../../dom.js";
import { busy, confirmed, messageSlot } from "../connections/common.js";
import { documentStatus, size, sourceLink, tagChips } from "./common.js";

const PAGE = 50;
const STATUSES = ["", "pending", "indexed", "failed"];
// Where a document came from, as the API names it, and how the page says it.
const SOURCES = { upload: "uploaded file", api: "text (pasted or API)", artifact: "run artifact", http_request: "downloaded by a run" };
const POLL_FIRST_MS = 2000;
const POLL_MAX_MS = 15000;
// One poll asks about this many pending documents at most; the rest wait for the next one.
const POLL_BATCH = 20;

export function listSection(box, onRemoved) {
  const params = new URLSearchParams(location.search);
  const tag = h("input", { id: "filter-tag", autocomplete: "off", value: params.get("tag") || "" });
  const status = h(
    "select",
    { id: "filter-status" },
    STATUSES.map((value) => h("option", { value, selected: value === (params.get("status") || "") }, value || "any status")),
  );
  const source = h(
    "select",
    { id: "filter-source" },
    h("option", { value: "" }, "any source"),
    Object.entries(SOURCES).map(([value, label]) => h("option", { value, selected: value === params.get("source") }, label)),
  );
  const flash = messageSlot();
  const body = h("div", {}, loading());
  // Buttons are styled `display: inline-block`, which beats `hidden`: the slot holds the button or nothing.
  const more = h("button", { type: "button", id: "load-more", onclick: () => load(false) }, "Load more");
  const moreSlot = h("div", {});
  const heading = h("h2", { id: "documents-list-title", tabindex: "-1" }, "All documents");
  box.append(
    heading,
    h(
      "form",
      { class: "filters", "aria-label": "Filter documents", onsubmit: applyFilters },
      h("label", { for: tag.id }, "Tag"),
      tag,
      h("label", { for: status.id }, "Status"),
      status,
      h("label", { for: source.id }, "Source"),
      source,
      h("button", { type: "submit" }, "Apply"),
    ),
    flash,
    body,
    moreSlot,
  );

  let docs = [];
  let cursor = null;
  let generation = 0;
  let alive = true;
  let timer = null;
  let delay = POLL_FIRST_MS;
  const rows = new Map();

  function applyFilters(event) {
    if (event) event.preventDefault();
    const query = new URLSearchParams(location.search);
    for (const [key, control] of [["tag", tag], ["status", status], ["source", source]]) {
      if (control.value.trim()) query.set(key, control.value.trim());
      else query.delete(key);
    }
    history.replaceState(history.state, "", `/documents${query.toString() ? "?" + query : ""}`);
    load(true);
  }

  async function load(reset) {
    const mine = ++generation;
    const query = { limit: PAGE, tag: tag.value.trim() || undefined, status: status.value || undefined, source: source.value || undefined, cursor: !reset && cursor ? cursor : undefined };
    if (reset) fill(body, loading());
    more.disabled = true;
    try {
      const page = await call(client.GET("/api/v1/spaces/{space_id}/documents", { params: { path: inSpace(), query } }));
      if (mine !== generation || !alive) return;
      cursor = page.next_cursor || null;
      const tbody = body.querySelector("tbody");
      if (reset || !tbody) {
        docs = page.items;
        draw();
      } else {
        appendPage(tbody, page.items.filter((doc) => !rows.has(doc.id)));
      }
      watch(true);
    } catch (error) {
      if (mine !== generation || !alive) return;
      if (reset) fill(body, errorBox(error), h("button", { type: "button", onclick: () => load(true) }, "Try again"));
      else flash.error(error);
    } finally {
      more.disabled = false;
    }
  }

  function draw() {
    rows.clear();
    fill(moreSlot, cursor ? more : null);
    if (!docs.length) {
      const filtered = tag.value.trim() || status.value || source.value;
      fill(body, empty(filtered ? "No document matches these filters." : "No documents yet. Drop a file above or paste some text."));
      return;
    }
    fill(
      body,
      h(
        "table",
        { id: "documents-table", "aria-labelledby": heading.id },
        h("thead", {}, h("tr", {}, ["Title", "Status", "Tags", "Size", "Updated", "Actions"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, docs.map(row)),
      ),
    );
  }

  // The next page goes below the rows already shown, and the keyboard focus to its first row (the
  // button may be gone: there is nothing more).
  function appendPage(tbody, fresh) {
    docs = docs.concat(fresh);
    const added = fresh.map(row);
    tbody.append(...added);
    fill(moreSlot, cursor ? more : null);
    if (added.length) {
      added[0].tabIndex = -1;
      added[0].focus();
    }
  }

  /** @param {import("../../api.js").Schema<"DocumentOut">} doc */
  function row(doc) {
    const remove = h("button", { type: "button", class: "danger", "aria-label": `Delete ${doc.title}` }, "Delete");
    remove.addEventListener("click", () => drop(doc, remove));
    const tr = h(
      "tr",
      { "data-document": doc.id, "data-status": doc.status },
      h(
        "td",
        {},
        h("span", { class: "doc-title" }, doc.title),
        h("small", { class: "hint doc-source" }, ` · ${SOURCES[doc.source] || doc.source || "unknown source"}`),
        doc.source_url ? h("br") : null,
        sourceLink(doc.source_url),
      ),
      h("td", { class: "doc-status" }, documentStatus(doc)),
      h("td", {}, tagChips(doc.tags)),
      h("td", {}, size(doc.size_bytes)),
      h("td", {}, when(doc.updated_at)),
      h("td", {}, remove),
    );
    rows.set(doc.id, tr);
    return tr;
  }

  function replace(fresh) {
    const index = docs.findIndex((doc) => doc.id === fresh.id);
    if (index < 0) return;
    const old = docs[index];
    docs[index] = fresh;
    // An unchanged row stays as it is, so a control in it keeps the keyboard focus.
    if (old.status === fresh.status && old.updated_at === fresh.updated_at && old.revision === fresh.revision) return;
    const tr = rows.get(fresh.id);
    if (tr) tr.replaceWith(row(fresh));
  }

  function forget(id) {
    docs = docs.filter((doc) => doc.id !== id);
    const tr = rows.get(id);
    rows.delete(id);
    if (tr) tr.remove();
    if (!docs.length) draw();
  }

  async function drop(doc, button) {
    if (!confirmed(`Delete “${doc.title}”? Its text and its place in search go with it.`)) return;
    await busy(button, flash, async () => {
      await call(client.DELETE("/api/v1/spaces/{space_id}/documents/{document_id}", { params: { path: inSpace({ document_id: doc.id }) } }));
      forget(doc.id);
      flash.ok(`Deleted “${doc.title}”.`);
      heading.focus();
      onRemoved(doc.id);
    });
  }

  // Polling: only while something is pending, sooner right after a change, never after leaving.
  function watch(fresh) {
    if (!alive) return;
    if (fresh) {
      delay = POLL_FIRST_MS;
      clearTimeout(timer);
      timer = null;
    }
    if (timer || !docs.some((doc) => doc.status === "pending")) return;
    timer = setTimeout(poll, delay);
  }

  async function poll() {
    const pending = docs.filter((doc) => doc.status === "pending").slice(0, POLL_BATCH);
    await Promise.all(
      pending.map(async (doc) => {
        try {
          // The answer carries a part of the text too: one character is all a status check needs.
          const fresh = await call(client.GET("/api/v1/spaces/{space_id}/documents/{document_id}", { params: { path: inSpace({ document_id: doc.id }), query: { max_chars: 1 } } }));
          if (alive) replace(fresh);
        } catch (error) {
          if (alive && error.status === 404) forget(doc.id);
        }
      }),
    );
    timer = null;
    delay = Math.min(delay * 1.5, POLL_MAX_MS);
    watch(false);
  }

  function wanted(doc) {
    const tagWanted = tag.value.trim();
    return (
      (!tagWanted || (doc.tags || []).includes(tagWanted)) &&
      (!status.value || doc.status === status.value) &&
      (!source.value || doc.source === source.value)
    );
  }

  status.addEventListener("change", () => applyFilters());
  source.addEventListener("change", () => applyFilters());
  load(true);

  return {
    // A document just added shows at the top (if it fits the filters) and is watched until indexed.
    added(doc) {
      if (!alive || rows.has(doc.id) || !wanted(doc)) return;
      docs.unshift(doc);
      if (docs.length === 1) draw();
      else body.querySelector("tbody").prepend(row(doc));
      watch(true);
    },
    stop() {
      alive = false;
      clearTimeout(timer);
      timer = null;
    },
  };
}
