// Adding documents: files dropped on the drop zone or chosen with the picker go up one at a time as
// multipart (`POST …/documents/upload`), and text pasted into a form goes as JSON (`POST …/documents`).
// Each file gets a line saying how it went; a refused one shows the API's status, code and message and
// leaves everything else on the page as it was.
import { call, client, inSpace } from "../../api.js";
import { errorBox, h } from "../../dom.js";
import { busy, field, messageSlot } from "../connections/common.js";
import { tagList } from "./common.js";

const ACCEPT = ".txt,.md,.markdown,.html,.htm,.pdf,.docx,text/plain,text/markdown,text/html,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document";

function refusal(error) {
  return [error.status ? h("span", { class: "http-status" }, `HTTP ${error.status} `) : null, errorBox(error)];
}

export function addSection(box, onAdded) {
  const uploadTags = h("input", { autocomplete: "off", placeholder: "handbook, policies" });
  const picker = h("input", { type: "file", multiple: true, accept: ACCEPT });
  const uploads = h("ul", { class: "uploads", id: "upload-log", "aria-live": "polite", "aria-label": "Uploads" });
  const zone = h(
    "div",
    { class: "dropzone", id: "dropzone", role: "group", "aria-labelledby": "dropzone-title", "aria-describedby": "dropzone-hint" },
    h("p", { id: "dropzone-title" }, h("strong", {}, "Drop files here")),
    h("p", { class: "hint", id: "dropzone-hint" }, "Text, Markdown, HTML, PDF or Word (.docx). Each file becomes a document, indexed in the background."),
    h("label", { for: "document-files" }, "Or choose files"),
    picker,
  );
  picker.id = "document-files";

  async function upload(files) {
    const tags = tagList(uploadTags.value);
    for (const file of files) {
      const line = h("li", { class: "upload" }, h("strong", {}, file.name), " uploading…");
      uploads.prepend(line);
      const form = new FormData();
      form.append("file", file, file.name);
      for (const tag of tags) form.append("tags", tag);
      try {
        // A multipart body: FormData goes as it is (the path and the answer stay typed).
        const doc = await call(client.POST("/api/v1/spaces/{space_id}/documents/upload", /** @type {any} */ ({ params: { path: inSpace() }, body: form })));
        line.dataset.result = "added";
        line.replaceChildren(h("strong", {}, file.name), ` added as “${doc.title}”, ${doc.status}.`);
        onAdded(doc);
      } catch (error) {
        line.dataset.result = "refused";
        line.classList.add("refused");
        line.replaceChildren(h("strong", {}, file.name), " refused: ", ...refusal(error));
      }
    }
  }

  picker.addEventListener("change", async () => {
    const files = [...picker.files];
    await upload(files);
    // The same file can be chosen again after a fix.
    picker.value = "";
  });
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    zone.classList.add("over");
  });
  // Moving over the zone's own text and controls is still over the zone.
  zone.addEventListener("dragleave", (event) => {
    if (!zone.contains(event.relatedTarget)) zone.classList.remove("over");
  });
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    const files = [...((event.dataTransfer && event.dataTransfer.files) || [])];
    if (files.length) upload(files);
  });

  box.append(
    h("div", { class: "upload-area" }, field("upload-tags", "Tags for uploaded files", uploadTags, "Separate tags with commas or spaces."), zone),
    uploads,
    pasteForm(onAdded),
  );
}

function pasteForm(onAdded) {
  const slot = messageSlot();
  const title = h("input", { required: true, maxlength: "500", autocomplete: "off" });
  const format = h("select", {}, h("option", { value: "text" }, "Plain text"), h("option", { value: "markdown" }, "Markdown"));
  const text = h("textarea", { required: true, rows: "8" });
  const tags = h("input", { autocomplete: "off" });
  const source = h("input", { type: "url", autocomplete: "off", placeholder: "https://example.com/page" });
  const button = h("button", { type: "submit", class: "primary" }, "Add document");

  async function submit(event) {
    event.preventDefault();
    slot.clear();
    const body = { title: title.value.trim(), text: text.value, format: format.value, tags: tagList(tags.value) };
    if (source.value.trim()) body.source_url = source.value.trim();
    await busy(button, slot, async () => {
      const doc = await call(client.POST("/api/v1/spaces/{space_id}/documents", { params: { path: inSpace() }, body: body }));
      slot.ok(`Added “${doc.title}”, ${doc.status}.`);
      title.value = "";
      text.value = "";
      onAdded(doc);
    });
  }

  return h(
    "details",
    { class: "paste" },
    h("summary", {}, "Paste text instead"),
    h(
      "form",
      { class: "stacked", "aria-label": "Add a document from text", onsubmit: submit },
      field("paste-title", "Title", title),
      field("paste-format", "Format", format),
      field("paste-text", "Text", text),
      field("paste-tags", "Tags", tags, "Separate tags with commas or spaces."),
      field("paste-source", "Source URL (optional)", source),
      button,
      slot,
    ),
  );
}
