// The code editor of a template field (CodeMirror 6), in its own chunk: see template_editor.js.
import { acceptCompletion, autocompletion, closeCompletion, completionStatus } from "@codemirror/autocomplete";
import { StreamLanguage, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { Annotation, EditorState, Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { h } from "./dom.js";
import FILTERS from "./template_filters.json";

const KEYWORDS = new Set(["if", "elif", "else", "endif", "for", "in", "endfor", "and", "or", "not", "is", "set", "endset", "filter", "endfilter", "true", "false", "none", "True", "False", "None"]);
const CLOSERS = { "{{": "}}", "{%": "%}", "{#": "#}" };

// The run's namespaces (docs/templates.md, "What a template can read").
const RUN_KEYS = ["id", "started_at", "automation_id", "automation_name", "automation_version", "trigger_type", "trigger_id", "space_id", "creator_id", "attempt", "failed_step_id", "error"];

// Text outside the delimiters is plain; inside, the expression language's tokens.
const templateLanguage = StreamLanguage.define({
  name: "template",
  startState: () => ({ closer: null, after: null }),
  token(stream, state) {
    if (!state.closer) {
      for (const opener of Object.keys(CLOSERS))
        if (stream.match(opener)) {
          state.closer = CLOSERS[opener];
          state.after = null;
          return opener === "{#" ? "comment" : "meta";
        }
      stream.next();
      while (!stream.eol() && stream.peek() !== "{") stream.next();
      return null;
    }
    if (state.closer === "#}") {
      if (stream.match("#}")) state.closer = null;
      else if (!stream.skipTo("#}")) stream.skipToEnd();
      return "comment";
    }
    if (stream.eatSpace()) return null;
    if (stream.match(state.closer)) {
      state.closer = null;
      return "meta";
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/) || stream.match(/^'(?:[^'\\]|\\.)*'?/)) return "string";
    if (stream.match(/^\d+(?:\.\d+)?/)) return "number";
    const word = stream.match(/^[A-Za-z_]\w*/);
    if (word) {
      const after = state.after;
      state.after = null;
      if (after === "|") return "variableName.special";
      if (after === ".") return "propertyName";
      return KEYWORDS.has(word[0]) ? "keyword" : "variableName";
    }
    const sign = stream.next();
    state.after = sign === "|" || sign === "." ? sign : null;
    return "operator";
  },
});

// Whether `pos` is inside `{{ … }}` or `{% … %}`.
function insideExpression(text, pos) {
  const before = text.slice(0, pos);
  const open = Math.max(before.lastIndexOf("{{"), before.lastIndexOf("{%"));
  const close = Math.max(before.lastIndexOf("}}"), before.lastIndexOf("%}"));
  return open >= 0 && open > close;
}

function filterOption(filter) {
  return {
    label: filter.name,
    type: "function",
    detail: filter.signature,
    info: filter.summary,
    apply: filter.required ? `${filter.name}(` : filter.name,
  };
}

function property(field) {
  return { label: field.name, type: "property", detail: field.detail };
}

function completionSource(context) {
  return (completion) => {
    const text = completion.state.doc.toString();
    if (!insideExpression(text, completion.pos)) return null;
    const filter = completion.matchBefore(/\|\s*\w*$/);
    if (filter) {
      const from = filter.from + filter.text.length - /\w*$/.exec(filter.text)[0].length;
      return { from, options: FILTERS.map(filterOption), validFor: /^\w*$/ };
    }
    const path = completion.matchBefore(/[A-Za-z_][\w.]*$/);
    if (!path && !completion.explicit) return null;
    const typed = path ? path.text : "";
    const dot = typed.lastIndexOf(".");
    const from = (path ? path.from : completion.pos) + dot + 1;
    const names = context();
    let options;
    if (dot < 0) {
      options = [
        { label: "inputs", type: "namespace", detail: "the run's inputs" },
        { label: "run", type: "namespace", detail: "facts about the run" },
        { label: "trigger", type: "namespace", detail: "what fired the run" },
        ...names.outputs.map((o) => ({ label: o.name, type: "variable", detail: o.detail })),
      ];
    } else {
      const head = typed.slice(0, dot);
      const output = names.outputs.find((o) => o.name === head);
      if (head === "inputs") options = names.inputs.map(property);
      else if (head === "run") options = RUN_KEYS.map((key) => ({ label: key, type: "property" }));
      else if (head === "trigger") options = [{ label: "payload", type: "property", detail: "the trigger's data" }];
      else if (head === "trigger.payload") options = names.payload.map(property);
      else if (output) options = output.fields.map(property);
      else return null;
    }
    return { from, options, validFor: /^\w*$/ };
  };
}

// A change made to show the field's value: not written back into the field.
const external = Annotation.define();
const views = new WeakMap();

function labelOf(input) {
  const label = input.id && input.ownerDocument.querySelector(`label[for="${CSS.escape(input.id)}"]`);
  const described = input.getAttribute("aria-describedby");
  const names = described ? { "aria-describedby": described } : {};
  if (!label) return names;
  label.id ||= `${input.id}-label`;
  return { ...names, "aria-labelledby": label.id };
}

// Replaces `input` (hidden, kept as the value's holder) by an editor; `focus` puts the caret at the end.
export function attach(input, context, focus = false) {
  const singleLine = input.tagName === "INPUT";
  const readOnly = input.disabled || input.readOnly;
  let palette = null;
  const leave = (view) => {
    view.contentDOM.blur();
    if (palette) palette.querySelector("summary").focus();
    return true;
  };
  const view = new EditorView({
    state: EditorState.create({
      doc: input.value,
      extensions: [
        templateLanguage,
        syntaxHighlighting(defaultHighlightStyle),
        // Escape closes open suggestions, else leaves the editor. Placed before the completion's own
        // keys, so a query still pending (typed a moment ago, nothing shown) does not hold the caret.
        Prec.highest(keymap.of([{ key: "Escape", run: (v) => completionStatus(v.state) !== "active" && leave(v) }])),
        autocompletion({ override: [completionSource(context)], icons: false }),
        // A query still pending when the editor loses focus would open its list afterwards, in an editor
        // no one is typing in (and the checks beside the fields wait for open lists to go).
        EditorView.domEventHandlers({ blur: (_event, v) => completionStatus(v.state) === "pending" && closeCompletion(v) }),
        keymap.of([
          { key: "Tab", run: (v) => completionStatus(v.state) === "active" && acceptCompletion(v) },
          // The field holds one line: Enter only accepts a completion (handled before this).
          ...(singleLine ? [{ key: "Enter", run: () => true }] : []),
        ]),
        EditorView.lineWrapping,
        EditorView.editorAttributes.of({ class: "template-editor" }),
        EditorState.readOnly.of(readOnly),
        EditorView.editable.of(!readOnly),
        EditorView.contentAttributes.of({ ...labelOf(input), "aria-multiline": String(!singleLine) }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged || update.transactions.some((t) => t.annotation(external))) return;
          input.value = update.state.doc.toString();
          input.dispatchEvent(new Event("change", { bubbles: true }));
        }),
      ],
    }),
  });
  input.hidden = true;
  input.dataset.template = "ready";
  views.set(input, view);
  if (!readOnly) palette = filterPalette(view);
  input.after(view.dom, ...(palette ? [palette] : []));
  if (focus) {
    view.dispatch({ selection: { anchor: view.state.doc.length } });
    view.focus();
  }
}

// The filters with their signatures; a click inserts `|name` at the caret and returns to the editor.
function filterPalette(view) {
  const insert = (filter) => {
    const { from, to } = view.state.selection.main;
    const text = `|${filter.name}${filter.required ? "()" : ""}`;
    const caret = from + text.length - (filter.required ? 1 : 0);
    view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: caret } });
    view.focus();
  };
  return h(
    "details",
    { class: "filter-palette" },
    h("summary", {}, "Insert a filter"),
    h(
      "ul",
      {},
      FILTERS.map((filter) =>
        h("li", {}, h("button", { type: "button", "data-filter": filter.name, onclick: () => insert(filter) }, h("code", {}, filter.signature)), " ", filter.summary),
      ),
    ),
  );
}

// Shows the field's current value (set by the form from elsewhere) in its editor.
export function refresh(input) {
  const view = views.get(input);
  if (!view || view.state.doc.toString() === input.value) return;
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: input.value }, annotations: external.of(true) });
}
