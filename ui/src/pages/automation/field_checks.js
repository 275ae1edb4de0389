// The server's checks of the definition being edited, beside its fields: when the editor opens, the
// saved definition's warnings (a credential written as a literal, with the offer to move it into a
// secret, among them); then each edit's problems and warnings once typing pauses. What was checked last
// is not checked again: the form drops the saved definition's empty values as it paints, and an edit can
// be undone before its check goes out. An answer applies only to the definition the editor holds when
// it comes; a page painted again meanwhile has a new editor, and the answer is left.
import { call, client, inSpace } from "../../api.js";
import { secretKeeper } from "../../secrets.js";
import { sameDefinition } from "./tryout.js";

const PAUSE_MS = 600;

/** @param {() => any} current the page's editor now */
export function fieldChecks(current) {
  let timer = null;
  // The definition the checks last went out for.
  let lastChecked = null;

  /** @param {any} definition */
  function validate(definition) {
    lastChecked = definition;
    return call(client.POST("/api/v1/spaces/{space_id}/automations/validate", { params: { path: inSpace() }, body: { definition } }));
  }

  // A check that failed, or whose answer was left, is not on screen: coming back to its definition
  // checks it again.
  function forget(definition) {
    if (lastChecked === definition) lastChecked = null;
  }

  // Whether an answer for `definition` belongs on `shown` (else it is left, and forgotten).
  function applies(shown, definition) {
    const holds = shown === current() && sameDefinition(definition, shown.getValue());
    if (!holds) forget(definition);
    return holds;
  }

  async function check(shown, definition) {
    // Marks redrawn under an open completion list would close it: the check waits for it to go.
    if (document.querySelector(".cm-tooltip-autocomplete")) {
      clearTimeout(timer);
      timer = setTimeout(() => check(shown, definition), PAUSE_MS);
      return;
    }
    try {
      const result = await validate(definition);
      if (applies(shown, definition)) shown.setMarks([], [...result.errors, ...result.warnings]);
    } catch {
      // The check is a help: saving checks again.
      forget(definition);
    }
  }

  return {
    /** The saved definition `shown` opened with: its warnings, and the offer to move a literal secret. */
    async opened(shown, definition) {
      try {
        const [result, keeper] = await Promise.all([validate(definition), secretKeeper()]);
        if (shown !== current()) return;
        shown.setSecretKeeper(keeper);
        if (applies(shown, definition)) shown.setMarks([], result.warnings);
      } catch {
        // Warnings are a help: the page works without them.
        forget(definition);
      }
    },
    /** An edit in `shown`: checked once typing pauses, unless it is what was checked last. */
    edited(shown, definition) {
      clearTimeout(timer);
      if (lastChecked && sameDefinition(definition, lastChecked)) return;
      timer = setTimeout(() => check(shown, definition), PAUSE_MS);
    },
  };
}
