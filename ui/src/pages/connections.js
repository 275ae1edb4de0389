// Connections: secrets (names only; set and delete), outbound webhook endpoints with their
// deliveries and redeliver, and the sources that other parts of the service add (MCP servers,
// databases, plugins) when this server offers them.
import { api, ApiError, spacePath } from "../api.js";
import { clear, empty, errorBox, h, loading, statusBadge, when, fill } from "../dom.js";

export function connectionsPage(main) {
  main.append(h("h1", {}, "Connections"));
  const sections = [
    ["Secrets", secrets],
    ["Webhook endpoints", endpoints],
    ["MCP servers", optional("/mcp-connections", (c) => [h("strong", {}, c.name || c.url), ` ${c.status || ""}`])],
    ["Databases", optional("/databases", (d) => [h("strong", {}, d.name), ` ${d.description || ""}`])],
    ["Plugins", optional("/plugins", (p) => [h("strong", {}, p.name || p.id), ` ${p.enabled ? "enabled" : "disabled"}`])],
  ];
  for (const [title, fill] of sections) {
    const box = h("div", {}, loading());
    main.append(h("section", { "aria-label": title }, h("h2", {}, title), box));
    fill(box);
  }
}

function optional(path, describe) {
  return async (box) => {
    try {
      const page = await api("GET", spacePath(`${path}?limit=100`));
      const items = page.items || [];
      fill(box, items.length ? h("ul", {}, items.map((item) => h("li", {}, describe(item)))) : empty("None yet."));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && error.code === "not_found") fill(box, empty("Not available on this server yet."));
      else fill(box, errorBox(error));
    }
  };
}

async function secrets(box) {
  const flash = h("div", { "aria-live": "polite" });
  const name = h("input", { id: "secret-name", required: true, pattern: "[A-Za-z_][A-Za-z0-9_]*", maxlength: "100" });
  const value = h("input", { id: "secret-value", type: "password", required: true, autocomplete: "off" });
  async function load() {
    try {
      const page = await api("GET", spacePath("/secrets?limit=200"));
      fill(box, 
        flash,
        page.items.length
          ? h(
              "ul",
              {},
              page.items.map((s) =>
                h("li", {}, h("code", {}, s.name), ` updated ${when(s.updated_at)} `, h("button", { type: "button", onclick: () => remove(s.name), "aria-label": `Delete secret ${s.name}` }, "Delete")),
              ),
            )
          : empty("No secrets. Steps refer to one as {\"$secret\": \"name\"}."),
        h(
          "form",
          { onsubmit: save, class: "inline", "aria-label": "Set a secret" },
          h("label", { for: "secret-name" }, "Name"),
          name,
          h("label", { for: "secret-value" }, "Value"),
          value,
          h("button", { type: "submit" }, "Set"),
        ),
      );
    } catch (error) {
      fill(box, errorBox(error));
    }
  }
  async function save(event) {
    event.preventDefault();
    try {
      await api("PUT", spacePath(`/secrets/${encodeURIComponent(name.value)}`), { value: value.value });
      name.value = "";
      value.value = "";
      await load();
      flash.replaceChildren(h("p", { class: "ok" }, "Secret set. Its value is never shown again."));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }
  async function remove(secret) {
    try {
      await api("DELETE", spacePath(`/secrets/${encodeURIComponent(secret)}`));
      await load();
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }
  await load();
}

async function endpoints(box) {
  const flash = h("div", { "aria-live": "polite" });
  const url = h("input", { id: "endpoint-url", type: "url", required: true, placeholder: "https://example.com/hooks/automations" });
  async function load() {
    try {
      const [list, deliveries] = await Promise.all([
        api("GET", spacePath("/webhook-endpoints?limit=100")),
        api("GET", spacePath("/webhook-endpoints/deliveries?limit=20")),
      ]);
      fill(box, 
        flash,
        list.items.length
          ? h("ul", {}, list.items.map((e) => h("li", {}, h("code", {}, e.url), ` ${e.enabled ? "enabled" : "disabled"} · events ${(e.events || []).join(", ") || "all"}`)))
          : empty("No endpoints: completion notices go nowhere."),
        h("form", { onsubmit: create, class: "inline", "aria-label": "Add an endpoint" }, h("label", { for: "endpoint-url" }, "URL"), url, h("button", { type: "submit" }, "Add endpoint")),
        h("h3", {}, "Recent deliveries"),
        deliveries.items.length
          ? h(
              "ul",
              {},
              deliveries.items.map((d) =>
                h(
                  "li",
                  {},
                  `${d.event_type} `,
                  statusBadge(d.status),
                  ` ${d.attempts}/${d.max_attempts} · ${when(d.created_at)} `,
                  d.status !== "pending" ? h("button", { type: "button", onclick: () => redeliver(d.id) }, "Redeliver") : null,
                ),
              ),
            )
          : empty("No deliveries yet."),
      );
    } catch (error) {
      fill(box, errorBox(error));
    }
  }
  async function create(event) {
    event.preventDefault();
    try {
      const made = await api("POST", spacePath("/webhook-endpoints"), { url: url.value });
      url.value = "";
      await load();
      flash.replaceChildren(h("div", { class: "secret", role: "alert" }, "Signing secret (shown once): ", h("code", {}, made.secret || "")));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }
  async function redeliver(id) {
    try {
      await api("POST", spacePath(`/webhook-endpoints/deliveries/${id}/redeliver`));
      await load();
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }
  await load();
}
