// Documents: the space's knowledge. Add files (drop, picker) or pasted text, search the indexed text,
// and manage the list; each part lives in ./documents/. The page's polling and its guard against
// files dropped beside the drop zone end when the user leaves.
import { h } from "../dom.js";
import { addSection } from "./documents/add.js";
import { listSection } from "./documents/list.js";
import { searchSection } from "./documents/search.js";

function section(id, title, hint) {
  const box = h("section", { id: `section-${id}`, "aria-labelledby": `section-${id}-title`, class: "documents-section" });
  if (title) box.append(h("h2", { id: `section-${id}-title` }, title));
  if (hint) box.append(h("p", { class: "hint" }, hint));
  return box;
}

export function documentsPage(main) {
  const add = section("add", "Add documents");
  const search = section("search", "Search", "Finds passages in indexed documents, best match first.");
  const list = section("list");
  list.setAttribute("aria-labelledby", "documents-list-title");
  main.append(h("h1", {}, "Documents"), add, search, list);

  const results = searchSection(search);
  const documents = listSection(list, (id) => results.removed(id));
  addSection(add, (doc) => documents.added(doc));

  // A file dropped outside the drop zone would make the browser leave the page for the file. Drags
  // of text (into a field) are left alone.
  const guard = (event) => {
    const files = event.dataTransfer && [...event.dataTransfer.types].includes("Files");
    if (files && !(event.target.closest && event.target.closest("#dropzone"))) event.preventDefault();
  };
  window.addEventListener("dragover", guard);
  window.addEventListener("drop", guard);
  return () => {
    documents.stop();
    window.removeEventListener("dragover", guard);
    window.removeEventListener("drop", guard);
  };
}
