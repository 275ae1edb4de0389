// Connections: what a space's automations reach the outside world with. Secrets (names only), MCP
// servers and their tools, registered databases, plugins, and outbound webhook endpoints; each section
// lives in ./connections/ and has its own loading, empty and error states.
import { h } from "../dom.js";
import { databasesSection } from "./connections/databases.js";
import { mcpSection } from "./connections/mcp.js";
import { pluginsSection } from "./connections/plugins.js";
import { secretsSection } from "./connections/secrets.js";
import { webhooksSection } from "./connections/webhooks.js";

/** @type {[string, string, (box: HTMLElement, life: { alive: boolean }) => unknown][]} */
const SECTIONS = [
  ["secrets", "Secrets", secretsSection],
  ["mcp", "MCP servers", mcpSection],
  ["databases", "Databases", databasesSection],
  ["plugins", "Plugins", pluginsSection],
  ["webhooks", "Webhook endpoints", webhooksSection],
];

export function connectionsPage(main) {
  // Harvest watchers stop when the user leaves the page.
  const life = { alive: true };
  main.append(h("h1", {}, "Connections"));
  for (const [id, title, fill] of SECTIONS) {
    const box = h("div", {});
    main.append(h("section", { id: `section-${id}`, "aria-labelledby": `section-${id}-title`, class: "connections-section" }, h("h2", { id: `section-${id}-title` }, title), box));
    fill(box, life);
  }
  return () => {
    life.alive = false;
  };
}
