// Space settings, input defaults: the value an automation's input takes when its inputs schema says
// "default": "$space_default" and a fire leaves the input out. Members read them; admins and owners
// set and remove them. Credentials never go here (the API refuses them): they belong in secrets.
import { call, client, inSpace } from "../api.js";
import { empty, errorBox, h, fill } from "../dom.js";
import { mayChange } from "./space_modes.js";

// What the value field holds: JSON when it parses ("C0123", 5, ["a"]), else the text as a string.
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function loadInputDefaults(box) {
  const flash = h("div", { "aria-live": "polite" });
  const name = h("input", { id: "input-default-name", required: true, maxlength: "64", placeholder: "channel", autocomplete: "off" });
  const value = h("input", { id: "input-default-value", required: true, placeholder: '"C0123"', autocomplete: "off" });
  let writable = false;

  async function load() {
    try {
      const [defaults, allowed] = await Promise.all([call(client.GET("/api/v1/spaces/{space_id}/input-defaults", { params: { path: inSpace() } })), mayChange()]);
      writable = allowed;
      paint(defaults.items);
    } catch (error) {
      fill(box, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  function paint(items) {
    fill(
      box,
      h("p", { class: "hint" }, 'An input whose default is "$space_default" takes the value of the same name here when a fire leaves it out. Keep credentials in secrets: they are refused here.'),
      writable ? null : h("p", { class: "hint read-only" }, "Only admins and owners can change these."),
      flash,
      items.length
        ? h(
            "table",
            { class: "input-defaults" },
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Input"), h("th", { scope: "col" }, "Value"), h("th", { scope: "col" }, "Remove"))),
            h(
              "tbody",
              {},
              items.map((item) =>
                h(
                  "tr",
                  { "data-default": item.name },
                  h("td", {}, h("code", {}, item.name)),
                  h("td", {}, h("code", {}, JSON.stringify(item.value))),
                  h("td", {}, h("button", { type: "button", onclick: () => remove(item.name), "aria-label": `Remove the default ${item.name}` }, "Remove")),
                ),
              ),
            ),
          )
        : empty("No input defaults yet."),
      h(
        "form",
        { class: "inline", onsubmit: save, "aria-label": "Set an input default" },
        h("label", { for: "input-default-name" }, "Input"),
        name,
        h("label", { for: "input-default-value" }, "Value (JSON, or plain text)"),
        value,
        h("button", { type: "submit", class: "primary", id: "save-input-default" }, "Save default"),
      ),
    );
    if (!writable) for (const control of box.querySelectorAll("input, button")) control.disabled = true;
  }

  async function save(event) {
    event.preventDefault();
    try {
      const saved = await call(client.PUT("/api/v1/spaces/{space_id}/input-defaults/{name}", { params: { path: inSpace({ name: name.value.trim() }) }, body: { value: parsed(value.value) } }));
      name.value = "";
      value.value = "";
      await load();
      flash.replaceChildren(h("p", { class: "ok", role: "status" }, `Input default ${saved.name} saved.`));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  async function remove(key) {
    try {
      await call(client.DELETE("/api/v1/spaces/{space_id}/input-defaults/{name}", { params: { path: inSpace({ name: key }) } }));
      await load();
      flash.replaceChildren(h("p", { class: "ok", role: "status" }, `Input default ${key} removed.`));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  await load();
}
