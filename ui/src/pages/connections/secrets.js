// Secrets of the space: names, hosts and when they changed, never values; set (create or replace),
// bind to hosts, and delete. A secret bound to no host may go to any public host: the page says so.
import { call, client, inSpace } from "../../api.js";
import { empty, errorBox, fill, h, loading, when } from "../../dom.js";
import { busy, confirmed, field, messageSlot, secretsChanged } from "./common.js";

// "a.example.com, *.example.org" -> ["a.example.com", "*.example.org"]; the API checks each one.
function hostList(text) {
  return text
    .split(/[\s,]+/)
    .map((host) => host.trim())
    .filter(Boolean);
}

export async function secretsSection(box) {
  const slot = messageSlot();
  const list = h("div", {}, loading());
  const name = h("input", { required: true, pattern: "[a-z0-9_]{1,64}", maxlength: "64", autocomplete: "off" });
  const value = h("input", { type: "password", required: true, autocomplete: "off" });
  const hosts = h("input", { autocomplete: "off", placeholder: "api.example.com, *.example.org" });
  const button = h("button", { type: "submit" }, "Set");
  fill(
    box,
    list,
    h(
      "form",
      { onsubmit: save, class: "inline", "aria-label": "Set a secret" },
      field("secret-name", "Name", name),
      field("secret-value", "Value", value),
      field("secret-hosts", "Hosts", hosts, "Where the value may be sent. Empty: any public host. Kept when you replace a value."),
      button,
      slot,
    ),
  );

  /** @param {import("../../api.js").Schema<"SecretOut">} secret */
  function item(secret) {
    const rowSlot = messageSlot();
    const remove = h("button", { type: "button", class: "danger", onclick: () => drop(remove, secret.name), "aria-label": `Delete secret ${secret.name}` }, "Delete");
    const input = h("input", { autocomplete: "off", value: secret.hosts.join(", "), "aria-label": `Hosts of secret ${secret.name}` });
    const saveHosts = h("button", { type: "submit", "aria-label": `Save hosts of secret ${secret.name}` }, "Save hosts");
    const binding = h(
      "form",
      { class: "inline hosts", onsubmit: (event) => bind(event, saveHosts, rowSlot, secret.name, hostList(input.value)) },
      input,
      saveHosts,
    );
    const parts = [h("code", {}, secret.name), ` updated ${when(secret.updated_at)} `];
    if (secret.hosts.length) {
      parts.push(h("span", { class: "bound" }, `sent only to ${secret.hosts.join(", ")}`));
    } else {
      const warning = [h("strong", {}, "Any public host: "), "this secret is bound to no host, so a step may send it anywhere."];
      for (const host of secret.suggested_hosts || []) {
        const confirm = h(
          "button",
          { type: "button", "aria-label": `Bind to ${host} (secret ${secret.name})` },
          `Bind to ${host}`,
        );
        confirm.onclick = (event) => bind(event, confirm, rowSlot, secret.name, [host]);
        warning.push(" Its first automation sends it to ", h("code", {}, host), ". ", confirm);
      }
      parts.push(h("p", { class: "waiting unbound", role: "note" }, warning));
    }
    parts.push(binding, remove, rowSlot);
    return h("li", { "data-secret": secret.name }, parts);
  }

  async function load() {
    try {
      const page = await call(client.GET("/api/v1/spaces/{space_id}/secrets", { params: { path: inSpace(), query: { limit: 200 } } }));
      fill(
        list,
        page.items.length
          ? h("ul", { class: "secrets" }, page.items.map(item))
          : empty('No secrets. Steps refer to one as {"$secret": "name"}.'),
      );
    } catch (error) {
      fill(list, errorBox(error));
    }
  }

  async function save(event) {
    event.preventDefault();
    await busy(button, slot, async () => {
      const body = { value: value.value };
      if (hosts.value.trim()) body.hosts = hostList(hosts.value);
      await call(client.PUT("/api/v1/spaces/{space_id}/secrets/{name}", { params: { path: inSpace({ name: name.value }) }, body: body }));
      name.value = "";
      value.value = "";
      hosts.value = "";
      await load();
      secretsChanged();
      slot.ok("Secret set. Its value is never shown again.");
    });
  }

  async function bind(event, control, rowSlot, secret, chosen) {
    event.preventDefault();
    await busy(control, rowSlot, async () => {
      await call(client.PUT("/api/v1/spaces/{space_id}/secrets/{name}/hosts", { params: { path: inSpace({ name: secret }) }, body: { hosts: chosen } }));
      await load();
    });
  }

  async function drop(button, secret) {
    if (!confirmed(`Delete the secret ${secret}? Steps, connections and databases that use it fail until it is set again.`)) return;
    await busy(button, slot, async () => {
      await call(client.DELETE("/api/v1/spaces/{space_id}/secrets/{name}", { params: { path: inSpace({ name: secret }) } }));
      await load();
      secretsChanged();
    });
  }

  await load();
}
