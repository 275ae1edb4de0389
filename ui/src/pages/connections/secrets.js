// Secrets of the space: names and when they changed, never values; set (create or replace) and delete.
import { api, spacePath } from "../../api.js";
import { empty, errorBox, fill, h, loading, when } from "../../dom.js";
import { busy, confirmed, field, messageSlot, secretsChanged } from "./common.js";

export async function secretsSection(box) {
  const slot = messageSlot();
  const list = h("div", {}, loading());
  const name = h("input", { required: true, pattern: "[a-z0-9_]{1,64}", maxlength: "64", autocomplete: "off" });
  const value = h("input", { type: "password", required: true, autocomplete: "off" });
  const button = h("button", { type: "submit" }, "Set");
  fill(
    box,
    list,
    h(
      "form",
      { onsubmit: save, class: "inline", "aria-label": "Set a secret" },
      field("secret-name", "Name", name),
      field("secret-value", "Value", value),
      button,
      slot,
    ),
  );

  async function load() {
    try {
      const page = await api("GET", spacePath("/secrets?limit=200"));
      fill(
        list,
        page.items.length
          ? h(
              "ul",
              { class: "secrets" },
              page.items.map((secret) => {
                const remove = h("button", { type: "button", class: "danger", onclick: () => drop(remove, secret.name), "aria-label": `Delete secret ${secret.name}` }, "Delete");
                return h("li", {}, h("code", {}, secret.name), ` updated ${when(secret.updated_at)} `, remove);
              }),
            )
          : empty('No secrets. Steps refer to one as {"$secret": "name"}.'),
      );
    } catch (error) {
      fill(list, errorBox(error));
    }
  }

  async function save(event) {
    event.preventDefault();
    await busy(button, slot, async () => {
      await api("PUT", spacePath(`/secrets/${encodeURIComponent(name.value)}`), { value: value.value });
      name.value = "";
      value.value = "";
      await load();
      secretsChanged();
      slot.ok("Secret set. Its value is never shown again.");
    });
  }

  async function drop(button, secret) {
    if (!confirmed(`Delete the secret ${secret}? Steps, connections and databases that use it fail until it is set again.`)) return;
    await busy(button, slot, async () => {
      await api("DELETE", spacePath(`/secrets/${encodeURIComponent(secret)}`));
      await load();
      secretsChanged();
    });
  }

  await load();
}
