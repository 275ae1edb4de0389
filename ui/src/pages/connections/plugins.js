// Installed plugins as this space sees them: state, version, what they register (actions, tools and
// event triggers with their risk), errors; admins switch each on or off for the space.
import { call, client, inSpace } from "../../api.js";
import { empty, errorBox, fill, h, loading, when } from "../../dom.js";
import { busy, confirmed, messageSlot, riskBadge } from "./common.js";

const STATES = {
  enabled: "enabled in this space",
  disabled: "off in this space",
  error: "failed to load",
  not_allowed: "not allowed by the operator",
};

export async function pluginsSection(box) {
  fill(box, loading());
  async function load() {
    try {
      const plugins = await call(client.GET("/api/v1/spaces/{space_id}/plugins", { params: { path: inSpace() } }));
      fill(box, plugins.length ? h("div", { class: "plugins" }, plugins.map((plugin) => pluginCard(plugin, load))) : empty("No plugins are installed on this server."));
    } catch (error) {
      fill(box, errorBox(error));
    }
  }
  await load();
}

function entries(title, items, describe) {
  if (!items.length) return null;
  return [h("h4", {}, title), h("ul", { class: "plugin-entries" }, items.map((item) => h("li", {}, describe(item))))];
}

/** @param {import("../../api.js").Schema<"PluginOut">} plugin @param {() => unknown} reload */
function pluginCard(plugin, reload) {
  const slot = messageSlot();
  const titleId = `plugin-${plugin.id}-title`;
  const switchable = plugin.state === "enabled" || plugin.state === "disabled";
  const toggle = switchable
    ? h("button", { type: "button", class: plugin.enabled ? "danger" : "primary", onclick: () => flip(toggle), "aria-label": `${plugin.enabled ? "Disable" : "Enable"} plugin ${plugin.id}` }, plugin.enabled ? "Disable" : "Enable")
    : null;

  async function flip(button) {
    if (plugin.enabled && !confirmed(`Disable ${plugin.id} in this space? Steps and triggers that use its names stop working.`)) return;
    await busy(button, slot, async () => {
      await call(client.PUT("/api/v1/spaces/{space_id}/plugins/{plugin_id}", { params: { path: inSpace({ plugin_id: plugin.id }) }, body: { enabled: !plugin.enabled } }));
      await reload();
    });
  }

  const registered = plugin.registrations;
  return h(
    "article",
    { class: "plugin", "aria-labelledby": titleId, dataset: { plugin: plugin.id, state: plugin.state } },
    h("h3", { id: titleId }, plugin.id, plugin.version ? h("span", { class: "hint" }, ` ${plugin.version}`) : null, " ", h("span", { class: `badge plugin-${plugin.state}` }, STATES[plugin.state] || plugin.state)),
    plugin.error ? h("p", { class: "mark problem" }, "Load error: ", plugin.error) : null,
    h(
      "p",
      { class: "hint" },
      plugin.namespace ? ["Names start with ", h("code", {}, `${plugin.namespace}.`), " · tier plugin"] : "Tier plugin",
      plugin.packages.length ? ` · from ${plugin.packages.join(", ")}` : "",
      plugin.updated_at ? ` · switched ${when(plugin.updated_at)}` : "",
    ),
    entries("Actions", registered.actions, (a) => [h("code", {}, a.id), " ", riskBadge(a.risk), ` ${a.description}`]),
    entries("Tools", registered.tools, (t) => [h("code", {}, t.id), " ", riskBadge(t.risk), ` ${t.description}`]),
    entries("Event triggers", registered.triggers, (t) => [h("code", {}, t.type), ` ${t.description}`]),
    h("div", { class: "bar" }, toggle),
    slot,
  );
}
