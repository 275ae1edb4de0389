// New from plain language: a request (with starter examples) becomes a draft to review: summary,
// flags beside their fields, clarifications as required fields, the generated form and JSON view in
// sync, problems inline as you edit, cost and impact, refine in words, and Save (creates it paused).
import { api, call, client, inSpace, spacePath } from "../api.js";
import { arrangeControls } from "../arrange.js";
import { clear, errorBox, h, loading, fill } from "../dom.js";
import { definitionEditor } from "../editor.js";
import { navigate } from "../main.js";
import { loadSchemas } from "../schema.js";
import { impactOf } from "./impact.js";
import { planSection } from "./plan_section.js";
import { secretKeeper } from "../secrets.js";

export function newAutomationPage(main) {
  const params = new URLSearchParams(location.search);
  const draftId = params.get("draft");
  main.append(h("h1", {}, "New automation"));
  const body = h("div", {});
  main.append(body);
  if (draftId) openDraft(body, draftId);
  else requestForm(body);
}

function requestForm(body) {
  const status = h("div", { "aria-live": "polite" });
  const request = h("textarea", {
    id: "request",
    rows: "4",
    maxlength: "4000",
    required: true,
    placeholder: "Every weekday at 9, summarise new GitHub issues and post them to Slack",
  });
  const examples = h("div", { class: "examples" }, loading("Loading examples…"));
  const form = h(
    "form",
    { "aria-label": "Describe the automation", onsubmit: submit },
    h("label", { for: "request" }, "Describe what it should do, in plain words"),
    request,
    h("button", { type: "submit", class: "primary", id: "draft-button" }, "Draft it"),
  );
  fill(body, form, status, h("h2", {}, "Start from an example"), examples);
  request.focus();

  call(client.GET("/api/v1/drafts/examples"))
    .then((items) =>
      fill(examples, 
        items.length
          ? h(
              "ul",
              { class: "example-list" },
              items.map((item) =>
                h("li", {}, h("button", { type: "button", class: "link", onclick: () => { request.value = item.request; request.focus(); } }, item.request)),
              ),
            )
          : h("p", {}, "No examples."),
      ),
    )
    .catch((error) => fill(examples, errorBox(error)));

  async function submit(event) {
    event.preventDefault();
    status.replaceChildren(loading("Drafting… this asks the model and can take a few seconds."));
    form.querySelector("button").disabled = true;
    try {
      const draft = await call(client.POST("/api/v1/spaces/{space_id}/drafts", { params: { path: inSpace() }, body: { request: request.value } }));
      history.replaceState(null, "", `/automations/new?draft=${encodeURIComponent(draft.id)}`);
      review(body, draft);
    } catch (error) {
      status.replaceChildren(errorBox(error));
      form.querySelector("button").disabled = false;
    }
  }
}

async function openDraft(body, id) {
  body.append(loading("Loading the draft…"));
  try {
    review(body, await call(client.GET("/api/v1/spaces/{space_id}/drafts/{draft_id}", { params: { path: inSpace({ draft_id: id }) } })));
  } catch (error) {
    fill(body, errorBox(error), h("p", {}, h("a", { href: "/automations/new" }, "Start a new draft")));
  }
}

async function review(body, initial) {
  fill(body, loading("Loading the form…"));
  let schemas;
  try {
    schemas = await loadSchemas();
  } catch (error) {
    fill(body, errorBox(error));
    return;
  }
  let draft = initial;
  let edited = false;
  let validateTimer = null;
  // Counts edits: a check answering for an earlier edit than the last is left.
  let edits = 0;
  const status = h("div", { "aria-live": "polite", id: "draft-status" });
  const summary = h("section", { class: "summary", "aria-labelledby": "summary-title" });
  const impact = h("section", { class: "impact", "aria-labelledby": "impact-title" });
  const writes = h("section", { class: "write-policy", "aria-labelledby": "write-policy-title" });
  const clarifications = h("section", { class: "clarifications" });
  const problems = h("div", { id: "problems", "aria-live": "polite" });
  const editorBox = h("section", { class: "editor", "aria-label": "Definition" });
  const plan = planSection({ id: "draft-plan" });
  const refineInput = h("input", { id: "refine", type: "text", maxlength: "4000", placeholder: "only on weekdays" });
  const refine = h(
    "form",
    { class: "refine", "aria-label": "Refine in plain words", onsubmit: onRefine },
    h("label", { for: "refine" }, "Refine in plain words"),
    refineInput,
    h("button", { type: "submit" }, "Refine"),
  );
  const save = h("button", { type: "button", class: "primary", id: "save-draft", onclick: onSave }, "Save (paused)");
  const discard = h("button", { type: "button", onclick: onDiscard }, "Discard draft");
  fill(body, status, summary, writes, clarifications, impact, plan.element, h("h2", {}, "Definition"), problems, editorBox, refine, h("div", { class: "bar" }, save, discard));
  let editor = null;

  function paint() {
    fill(summary, 
      h("h2", { id: "summary-title" }, "What it will do"),
      h("p", { class: "review-summary" }, draft.summary || "No summary yet."),
      draft.notes.length ? h("ul", {}, draft.notes.map((n) => h("li", {}, n))) : null,
      draft.flags.length
        ? h("p", {}, `${draft.flags.length} flag${draft.flags.length > 1 ? "s" : ""} to look at, shown beside their fields below.`)
        : h("p", {}, "No flags."),
    );
    fill(impact, h("h2", { id: "impact-title" }, "Cost and impact"), impactOf(draft.definition, draft.estimate));
    paintWritePolicy();
    paintClarifications();
    save.disabled = draft.status !== "ready";
    if (draft.status === "failed") status.replaceChildren(h("p", { class: "error", role: "alert" }, "The model could not produce a valid definition. Refine the request, or fix the JSON by hand."));
    if (!draft.definition) {
      fill(editorBox, h("p", {}, "No definition yet: answer the questions above."));
      editor = null;
    } else if (!editor) {
      clear(editorBox);
      editor = definitionEditor(editorBox, schemas, draft.definition, { onChange, arrange: arrangeControls(schemas) });
      const shown = editor;
      secretKeeper().then((keeper) => shown.setSecretKeeper(keeper));
    } else {
      editor.setValue(draft.definition);
    }
    if (editor) editor.setMarks(draft.flags, draft.problems);
    paintProblems(draft.problems);
    drawPlan(draft.definition);
  }

  // The diagram of the definition as it stands, with the modes an unsaved preview gives its calls.
  async function drawPlan(definition) {
    plan.element.hidden = !definition;
    if (!definition) return;
    try {
      plan.update(definition, await api("POST", spacePath("/automations/preview"), { definition }));
    } catch (error) {
      plan.update(definition, null, error);
    }
  }

  // The write policy the draft proposes (or a person chose), in plain words, and a switch that keeps
  // the choice for later proposals of this draft.
  function paintWritePolicy() {
    const note = draft.write_policy;
    if (!note || !draft.definition) {
      clear(writes);
      return;
    }
    const choice = h(
      "select",
      { id: "write-policy", onchange: () => apply(async () => {
        if (edited && editor) await call(client.PUT("/api/v1/spaces/{space_id}/drafts/{draft_id}", { params: { path: inSpace({ draft_id: draft.id }) }, body: { definition: editor.getValue() } }));
        return call(client.PUT("/api/v1/spaces/{space_id}/drafts/{draft_id}/write-policy", { params: { path: inSpace({ draft_id: draft.id }) }, body: { write_policy: choice.value } }));
      }) },
      h("option", { value: "always_draft" }, "always_draft: each write waits for approval"),
      h("option", { value: "auto_confirm_safe" }, "auto_confirm_safe: saved writes run without asking"),
    );
    choice.value = note.value;
    fill(
      writes,
      h("h2", { id: "write-policy-title" }, "Writes"),
      h("p", { class: "write-policy-explanation" }, note.explanation),
      h("div", { class: "field" }, h("label", { for: "write-policy" }, note.chosen_by === "human" ? "Write policy (your choice)" : "Write policy (proposed)"), choice),
    );
  }

  function paintProblems(list) {
    clear(problems);
    if (list.length)
      problems.append(
        h("div", { class: "problems", role: "status" }, h("strong", {}, `${list.length} problem${list.length > 1 ? "s" : ""}`), h("ul", {}, list.map((p) => h("li", {}, h("code", {}, p.path || "/"), " ", p.message)))),
      );
  }

  function paintClarifications() {
    clear(clarifications);
    if (!draft.clarifications.length) return;
    const inputs = draft.clarifications.map((c) => {
      const id = `answer-${c.id}`;
      return [c, h("input", { id, required: true, "aria-required": "true", type: "text" })];
    });
    clarifications.append(
      h(
        "form",
        { onsubmit: (event) => answer(event, inputs), "aria-label": "Questions" },
        h("h2", {}, "Questions before it can be drafted"),
        inputs.map(([c, input]) => h("div", { class: "field" }, h("label", { for: input.id }, c.question, " ", h("abbr", { title: "required" }, "*")), input)),
        h("button", { type: "submit", class: "primary" }, "Answer"),
      ),
    );
  }

  function onChange(definition) {
    edited = true;
    status.replaceChildren(h("p", { class: "hint" }, "Edited — checking…"));
    const mine = ++edits;
    clearTimeout(validateTimer);
    validateTimer = setTimeout(async () => {
      try {
        const result = await call(client.POST("/api/v1/spaces/{space_id}/automations/validate", { params: { path: inSpace() }, body: { definition } }));
        if (mine !== edits) return;
        const found = [...result.errors, ...result.warnings];
        editor.setMarks(draft.flags, found);
        paintProblems(result.errors);
        fill(impact, h("h2", { id: "impact-title" }, "Cost and impact"), impactOf(definition, draft.estimate));
        save.disabled = !result.valid;
        if (result.valid) drawPlan(definition);
        status.replaceChildren(h("p", { class: "hint" }, result.valid ? "Edited — valid. Save checks the flags again." : "Edited — fix the problems to save."));
      } catch (error) {
        if (mine === edits) status.replaceChildren(errorBox(error));
      }
    }, 400);
  }

  async function apply(request) {
    status.replaceChildren(loading("Working…"));
    try {
      draft = await request();
      edited = false;
      edits += 1;
      status.replaceChildren();
      paint();
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  }

  async function answer(event, inputs) {
    event.preventDefault();
    const answers = Object.fromEntries(inputs.map(([c, input]) => [c.id, input.value]));
    await apply(() => call(client.POST("/api/v1/spaces/{space_id}/drafts/{draft_id}/messages", { params: { path: inSpace({ draft_id: draft.id }) }, body: { answers } })));
  }

  async function onRefine(event) {
    event.preventDefault();
    const message = refineInput.value.trim();
    if (!message) return;
    await apply(async () => {
      if (edited && editor) await call(client.PUT("/api/v1/spaces/{space_id}/drafts/{draft_id}", { params: { path: inSpace({ draft_id: draft.id }) }, body: { definition: editor.getValue() } }));
      return call(client.POST("/api/v1/spaces/{space_id}/drafts/{draft_id}/messages", { params: { path: inSpace({ draft_id: draft.id }) }, body: { message } }));
    });
    refineInput.value = "";
  }

  async function onSave() {
    status.replaceChildren(loading("Saving…"));
    try {
      if (edited && editor) {
        draft = await call(client.PUT("/api/v1/spaces/{space_id}/drafts/{draft_id}", { params: { path: inSpace({ draft_id: draft.id }) }, body: { definition: editor.getValue() } }));
        if (draft.status !== "ready") {
          paint();
          status.replaceChildren(h("p", { class: "error", role: "alert" }, "Not saved: the edited definition has problems."));
          return;
        }
      }
      const saved = await call(client.POST("/api/v1/spaces/{space_id}/drafts/{draft_id}/save", { params: { path: inSpace({ draft_id: draft.id }) } }));
      navigate(`/automations/${saved.id}?saved=1`);
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  }

  async function onDiscard() {
    try {
      await call(client.DELETE("/api/v1/spaces/{space_id}/drafts/{draft_id}", { params: { path: inSpace({ draft_id: draft.id }) } }));
    } catch {
      // An expired draft is gone already.
    }
    navigate("/automations/new", true);
  }

  paint();
}
