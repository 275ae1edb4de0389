// Pieces the Connections sections share: labelled fields, a message slot beside each form, confirmed
// destructive actions, and the space's secret names for the "credential from a secret" pickers.
import { call, client, inSpace } from "../../api.js";
import { errorBox, h } from "../../dom.js";

// A label and its control (and an optional hint linked with aria-describedby).
export function field(id, label, control, hint) {
  control.id = id;
  const parts = [h("label", { for: id }, label), control];
  if (hint) {
    control.setAttribute("aria-describedby", `${id}-hint`);
    parts.push(h("p", { class: "hint field-hint", id: `${id}-hint` }, hint));
  }
  return h("div", { class: "field" }, parts);
}

// The message slot of a form or a row: errors from the API and confirmations appear here, beside the
// controls that caused them, and are announced.
export function messageSlot() {
  const slot = h("div", { class: "slot", "aria-live": "polite" });
  slot.error = (error) => slot.replaceChildren(errorBox(error));
  slot.ok = (text) => slot.replaceChildren(h("p", { class: "ok" }, text));
  slot.clear = () => slot.replaceChildren();
  return slot;
}

// Runs `action` with `button` disabled meanwhile; an error lands in `slot` instead of escaping.
export async function busy(button, slot, action) {
  if (button) button.disabled = true;
  try {
    return await action();
  } catch (error) {
    slot.error(error);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

// Destructive actions ask first; a "no" changes nothing.
export function confirmed(question) {
  return window.confirm(question);
}

export async function secretNames() {
  const page = await call(client.GET("/api/v1/spaces/{space_id}/secrets", { params: { path: inSpace(), query: { limit: 200 } } }));
  return page.items.map((secret) => secret.name);
}

const SECRETS_CHANGED = "connections:secrets-changed";

// Tells the secret pickers on the page that a secret was set or deleted.
export function secretsChanged() {
  document.dispatchEvent(new CustomEvent(SECRETS_CHANGED));
}

function pickerOptions(names, selected) {
  return names.length
    ? [h("option", { value: "" }, "Choose a secret…"), ...names.map((name) => h("option", { value: name, selected: name === selected }, name))]
    : [h("option", { value: "" }, "No secrets yet: set one under Secrets")];
}

// A picker of the space's secrets by name (never their values); it follows secrets set or deleted on
// this page, and stops listening once it is gone from the page.
export function secretPicker(names, selected = "") {
  const select = h("select", { required: true }, pickerOptions(names, selected));
  async function refresh() {
    if (!select.isConnected) return document.removeEventListener(SECRETS_CHANGED, refresh);
    try {
      select.replaceChildren(...pickerOptions(await secretNames(), select.value || selected));
    } catch {
      // The list stays as it was; submitting still reports a missing secret clearly.
    }
  }
  document.addEventListener(SECRETS_CHANGED, refresh);
  return select;
}

export function riskBadge(risk) {
  return h("span", { class: `badge risk-${risk}`, "data-risk": risk }, risk);
}
