// A change in plain words: the model proposes a new definition, shown as a diff against the current
// version with its flags and problems; nothing is saved until the user applies it, and Discard
// throws the proposal away. Questions the model asks are answered in place.
import { call, client, inSpace } from "../../api.js";
import { errorBox, h, loading } from "../../dom.js";
import { diffView } from "../../diff.js";

const FAILED = "The model could not turn this into a valid change. Say it differently, or edit the definition above by hand.";

function notes(title, items, className, line) {
  if (!items.length) return null;
  return h("div", { class: className }, h("h4", {}, title), h("ul", {}, items.map(line)));
}

// `automation()` answers the automation as the page holds it now; `onSaved(automation)` repaints.
export function changeSection(automation, onSaved) {
  const input = h("input", { id: "change-request", type: "text", maxlength: "4000", placeholder: "also post to #ops" });
  const propose = h("button", { type: "submit", id: "propose-change" }, "Propose");
  const out = h("div", { "aria-live": "polite", id: "change-proposal" });

  /** @param {import("../../api.js").Schema<"DraftOut">} draft */
  function show(draft) {
    const current = automation();
    const ready = draft.status === "ready";
    const answers = draft.clarifications.map((c) => [c, h("input", { id: `change-answer-${c.id}`, type: "text", required: true, "aria-required": "true" })]);
    out.replaceChildren(
      h(
        "div",
        { class: "proposal", "data-status": draft.status },
        draft.summary ? h("p", { class: "review-summary" }, draft.summary) : null,
        draft.status === "failed" ? h("p", { class: "error", role: "alert" }, FAILED) : null,
        draft.definition ? diffView(current.definition, draft.definition, [`version ${current.version}`, "the proposal"]) : null,
        notes("Flags", draft.flags, "flags", (f) => h("li", { class: "mark flag" }, h("span", { class: "mark-kind" }, "⚑ Flag"), " ", h("code", {}, f.path || "/"), " ", f.message)),
        notes("Problems", draft.problems, "problems", (p) => h("li", {}, h("code", {}, p.path || "/"), " ", p.message)),
        draft.notes.length ? h("ul", {}, draft.notes.map((n) => h("li", {}, n))) : null,
        answers.length
          ? h(
              "form",
              { "aria-label": "Questions about the change", onsubmit: (event) => answer(event, draft, answers) },
              h("h4", {}, "Questions before it can be drafted"),
              answers.map(([c, field]) => h("div", { class: "field" }, h("label", { for: field.id }, c.question), field)),
              h("button", { type: "submit" }, "Answer"),
            )
          : null,
        h(
          "div",
          { class: "bar" },
          h("button", { type: "button", class: "primary", id: "apply-change", disabled: !ready, onclick: () => apply(draft) }, "Apply: save as a new version"),
          h("button", { type: "button", id: "discard-change", onclick: () => discard(draft) }, "Discard"),
        ),
        ready ? null : h("p", { class: "hint" }, "Only a ready proposal can be applied."),
      ),
    );
  }

  async function request(makeDraft) {
    out.replaceChildren(loading("Drafting the change…"));
    propose.disabled = true;
    try {
      show(await makeDraft());
    } catch (error) {
      out.replaceChildren(errorBox(error));
    } finally {
      propose.disabled = false;
    }
  }

  function onPropose(event) {
    event.preventDefault();
    if (!input.value.trim()) {
      out.replaceChildren(h("p", { class: "error", role: "alert" }, "Say what should change first."));
      return;
    }
    request(() => call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/drafts", { params: { path: inSpace({ automation_id: automation().id }) }, body: { request: input.value } })));
  }

  function answer(event, draft, answers) {
    event.preventDefault();
    const given = Object.fromEntries(answers.map(([c, field]) => [c.id, field.value]));
    request(() => call(client.POST("/api/v1/spaces/{space_id}/drafts/{draft_id}/messages", { params: { path: inSpace({ draft_id: draft.id }) }, body: { answers: given } })));
  }

  async function apply(draft) {
    try {
      const saved = await call(client.POST("/api/v1/spaces/{space_id}/drafts/{draft_id}/save", { params: { path: inSpace({ draft_id: draft.id }) } }));
      onSaved(saved, `Change saved as version ${saved.version}.`);
    } catch (error) {
      out.append(errorBox(error));
    }
  }

  async function discard(draft) {
    try {
      await call(client.DELETE("/api/v1/spaces/{space_id}/drafts/{draft_id}", { params: { path: inSpace({ draft_id: draft.id }) } }));
    } catch (error) {
      // A draft that expired meanwhile is discarded all the same.
      if (error.status !== 404) {
        out.append(errorBox(error));
        return;
      }
    }
    out.replaceChildren(h("p", { class: "ok" }, "Proposal discarded; nothing changed."));
    input.focus();
  }

  return h(
    "section",
    { "aria-labelledby": "words-title" },
    h("h2", { id: "words-title" }, "Change it in plain words"),
    h("form", { onsubmit: onPropose, class: "refine" }, h("label", { for: "change-request" }, "What should change?"), input, propose),
    out,
  );
}
