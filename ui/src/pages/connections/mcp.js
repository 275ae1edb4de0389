// MCP connections: connect a server (no auth, a bearer token or header from a secret, or OAuth), harvest
// its tools and watch the harvest finish, authorize OAuth (in this tab: only this signed-in session can
// complete it, see ./mcp_oauth.js), and manage the tools: risk override, drift re-confirmation, removed
// and unusable tools.
import { call, client, inSpace } from "../../api.js";
import { empty, errorBox, fill, h, loading, pretty, when } from "../../dom.js";
import { busy, confirmed, field, messageSlot, riskBadge, secretNames, secretPicker } from "./common.js";

const POLL_MS = 1000;
const POLL_LIMIT = 120;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function mcpSection(box, life) {
  const list = h("div", {}, loading());
  const refresh = h("button", { type: "button", onclick: () => load() }, "Refresh");
  fill(box, h("div", { class: "bar" }, refresh), list, h("h3", {}, "Connect an MCP server"), connectionForm(load));

  // Follows a harvest until it is no longer pending (or the user leaves the page); one watcher a card.
  async function watch(id, card) {
    if (card.watching) return;
    card.watching = true;
    try {
      for (let tries = 0; tries < POLL_LIMIT; tries += 1) {
        await sleep(POLL_MS);
        if (!life.alive) return;
        const connection = await call(client.GET("/api/v1/spaces/{space_id}/mcp/connections/{connection_id}", { params: { path: inSpace({ connection_id: id }) } }));
        card.show(connection);
        if (connection.harvest_status !== "pending") return;
      }
      card.slot.ok("Still harvesting; press Refresh later to see how it went.");
    } catch (error) {
      card.slot.error(error);
    } finally {
      card.watching = false;
    }
  }

  async function load() {
    try {
      const page = await call(client.GET("/api/v1/spaces/{space_id}/mcp/connections", { params: { path: inSpace(), query: { limit: 100 } } }));
      if (!page.items.length) {
        fill(list, empty("No MCP servers connected. Connect one below: its tools become capabilities of this space."));
        return;
      }
      const cards = page.items.map((connection) => connectionCard(connection, load, watch));
      fill(list, cards);
      for (const card of cards) if (card.connection.harvest_status === "pending") watch(card.connection.id, card);
    } catch (error) {
      fill(list, errorBox(error));
    }
  }
  await load();
}

/** @param {import("../../api.js").Schema<"ConnectionOut">} connection */
function harvestState(connection) {
  const state = connection.harvest_status;
  const text = state === "pending" ? "harvesting…" : state === "ok" ? "harvested" : "harvest failed";
  return h("span", { class: `badge harvest-${state}`, "data-harvest": state, role: state === "pending" ? "status" : null }, text);
}

function connectionCard(initial, reload, watch) {
  const slot = messageSlot();
  const body = h("div", {});
  const tools = h("div", { class: "tools" });
  const card = h("article", { class: "connection", dataset: { connection: initial.id } }, body, slot, tools);
  let toolsOpen = false;
  // Kept while open, so a harvest update re-rendering the card never loses what the user typed.
  let editor = null;
  card.slot = slot;
  card.connection = initial;

  card.show = (connection) => {
    const changed = card.connection.harvest_status === "pending" && connection.harvest_status !== "pending";
    card.connection = connection;
    render();
    if (!changed) return;
    if (connection.harvest_status === "ok") slot.ok(`Harvest finished: ${connection.tool_count} tools.`);
    else slot.clear();
    if (toolsOpen) loadTools();
  };

  function render() {
    const c = card.connection;
    const titleId = `mcp-${c.id}-title`;
    card.setAttribute("aria-labelledby", titleId);
    const toggle = h(
      "button",
      { type: "button", "aria-expanded": String(toolsOpen), "aria-controls": `mcp-${c.id}-tools`, onclick: () => setTools(!toolsOpen) },
      toolsOpen ? "Hide tools" : `Tools (${c.tool_count})`,
    );
    const harvest = h("button", { type: "button", onclick: () => harvestNow(harvest) }, "Harvest now");
    const authorize = c.auth.type === "oauth" ? h("button", { type: "button", class: c.needs_authorization ? "primary" : null, onclick: () => startOAuth(authorize) }, c.needs_authorization ? "Authorize" : "Authorize again") : null;
    const edit = c.transport === "http" ? h("button", { type: "button", "aria-expanded": String(Boolean(editor)), onclick: () => setEditing(!editor), "aria-label": `Edit connection ${c.name}` }, "Edit") : null;
    const remove = h("button", { type: "button", class: "danger", onclick: () => removeConnection(remove), "aria-label": `Delete connection ${c.name}` }, "Delete");
    fill(
      body,
      h("h3", { id: titleId }, c.name, " ", harvestState(c), c.needs_authorization ? h("span", { class: "badge needs-auth" }, "needs authorization") : null),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, c.transport === "stdio" ? "Server" : "URL"),
        h("dd", {}, h("code", {}, c.url || c.server || "")),
        h("dt", {}, "Tool prefix"),
        h("dd", {}, h("code", {}, `${c.tool_prefix}.`)),
        h("dt", {}, "Authentication"),
        h("dd", {}, authText(c.auth)),
        h("dt", {}, "Last harvest"),
        h("dd", {}, `${when(c.last_harvested_at)} · ${c.tool_count} tools${c.tools_truncated ? " (truncated)" : ""}`),
      ),
      c.harvest_error ? h("p", { class: "mark problem" }, "Last harvest: ", c.harvest_error) : null,
      c.harvest_notice ? h("p", { class: "hint" }, c.harvest_notice) : null,
      h("div", { class: "bar" }, toggle, harvest, authorize, edit, remove),
      editor,
    );
    tools.id = `mcp-${c.id}-tools`;
    tools.hidden = !toolsOpen;
  }

  async function harvestNow(button) {
    await busy(button, slot, async () => {
      const connection = await call(client.POST("/api/v1/spaces/{space_id}/mcp/connections/{connection_id}/harvest", { params: { path: inSpace({ connection_id: card.connection.id }) } }));
      slot.ok("Harvest started; the status updates when it finishes.");
      card.show(connection);
      watch(connection.id, card);
    });
  }

  async function startOAuth(button) {
    await busy(button, slot, async () => {
      const { authorization_url: url } = await call(client.POST("/api/v1/spaces/{space_id}/mcp/connections/{connection_id}/authorize", { params: { path: inSpace({ connection_id: card.connection.id }) } }));
      // Same tab: the token of this session (kept per tab) must be there when the server sends the
      // browser back, because only the user who started the authorization can complete it.
      slot.ok("Opening the authorization page…");
      location.assign(url);
    });
  }

  async function removeConnection(button) {
    if (!confirmed(`Disconnect ${card.connection.name}? Its tools stop resolving at once; steps that call them fail.`)) return;
    await busy(button, slot, async () => {
      await call(client.DELETE("/api/v1/spaces/{space_id}/mcp/connections/{connection_id}", { params: { path: inSpace({ connection_id: card.connection.id }) } }));
      await reload();
    });
  }

  function setEditing(open) {
    editor = open ? connectionForm(reload, card.connection, () => setEditing(false)) : null;
    render();
    if (editor) editor.querySelector("input").focus();
  }

  function setTools(open) {
    toolsOpen = open;
    render();
    if (open) loadTools();
  }

  async function loadTools() {
    fill(tools, loading("Loading tools…"));
    try {
      const list = await call(client.GET("/api/v1/spaces/{space_id}/mcp/connections/{connection_id}/tools", { params: { path: inSpace({ connection_id: card.connection.id }) } }));
      fill(tools, list.length ? toolTable(card.connection, list, loadTools) : empty(card.connection.harvest_status === "pending" ? "No tools yet: the harvest is still running." : "This server listed no tools."));
    } catch (error) {
      fill(tools, errorBox(error));
    }
  }

  render();
  return card;
}

function authText(auth) {
  if (auth.type === "bearer") return ["Bearer token from secret ", h("code", {}, auth.secret)];
  if (auth.type === "header") return [h("code", {}, auth.header), " from secret ", h("code", {}, auth.secret)];
  if (auth.type === "oauth") return "OAuth";
  return "None";
}

function toolTable(connection, list, reload) {
  const drifted = list.filter((tool) => tool.drifted && !tool.removed).length;
  return [
    drifted ? h("p", { class: "mark flag" }, `${drifted} tool(s) changed their schemas since an admin last accepted them. Review and confirm each.`) : null,
    h(
      "table",
      { class: "tool-table" },
      h("caption", { class: "hint" }, `Tools of ${connection.name}`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Tool"), h("th", { scope: "col" }, "Risk"), h("th", { scope: "col" }, "State"), h("th", { scope: "col" }, "Actions"))),
      h("tbody", {}, list.map((tool, index) => toolRow(connection, tool, index, reload))),
    ),
  ];
}

/** @param {import("../../api.js").Schema<"ConnectionOut">} connection @param {import("../../api.js").Schema<"ToolOut">} tool @param {number} index @param {() => unknown} reload */
function toolRow(connection, tool, index, reload) {
  const slot = messageSlot();
  const path = { params: { path: inSpace({ connection_id: connection.id, name: tool.name }) } };
  const risk = h(
    "select",
    { id: `risk-${connection.id}-${index}`, "aria-label": `Risk of ${tool.name}`, onchange: () => setRisk(risk.value) },
    h("option", { value: "", selected: !tool.risk_override }, `server's hint (${tool.risk_hint})`),
    h("option", { value: "read", selected: tool.risk_override === "read" }, "read"),
    h("option", { value: "write", selected: tool.risk_override === "write" }, "write"),
  );
  const confirm = tool.drifted && !tool.removed ? h("button", { type: "button", class: "primary", onclick: () => accept(confirm) }, `Confirm ${tool.name}`) : null;

  async function setRisk(value) {
    risk.disabled = true;
    try {
      const saved = await call(client.PATCH("/api/v1/spaces/{space_id}/mcp/connections/{connection_id}/tools/{name}", { ...path, body: { risk: value || null } }));
      await reload();
      // The table was rebuilt: announce on the new row and keep the keyboard where it was.
      const row = document.querySelector(`tr[data-tool="${CSS.escape(tool.name)}"][data-connection="${connection.id}"]`);
      if (!row) return;
      row.querySelector(".slot").replaceChildren(h("p", { class: "ok" }, `Risk is now ${saved.risk}.`));
      row.querySelector("select").focus();
    } catch (error) {
      slot.error(error);
      risk.disabled = false;
    }
  }

  async function accept(button) {
    if (!confirmed(`Accept the new schemas of ${tool.name}? Calls will use them from now on.`)) return;
    await busy(button, slot, async () => {
      await call(client.POST("/api/v1/spaces/{space_id}/mcp/connections/{connection_id}/tools/{name}/confirm", path));
      await reload();
    });
  }

  const states = [
    tool.destructive ? h("span", { class: "badge destructive" }, "destructive") : null,
    tool.drifted ? h("span", { class: "badge drifted", title: `since ${when(tool.drifted_at)}` }, "schema changed") : null,
    tool.removed ? h("span", { class: "badge removed" }, "removed") : null,
    tool.unusable_reason ? h("span", { class: "badge unusable" }, "unusable") : null,
    !tool.destructive && !tool.drifted && !tool.removed && !tool.unusable_reason ? h("span", { class: "hint" }, "ok") : null,
  ];
  return h(
    "tr",
    { dataset: { tool: tool.name, connection: connection.id } },
    h(
      "td",
      {},
      h("strong", {}, tool.name),
      " ",
      h("code", {}, tool.capability_id),
      tool.description ? h("p", { class: "hint" }, tool.description) : null,
      h("details", {}, h("summary", {}, "Schemas"), h("p", { class: "hint" }, `hash ${tool.schema_hash.slice(0, 12)}… accepted ${tool.confirmed_hash.slice(0, 12)}…`), pretty({ input: tool.input_schema, output: tool.output_schema })),
    ),
    h("td", {}, riskBadge(tool.risk), " ", risk),
    h("td", {}, states, tool.unusable_reason ? h("p", { class: "problems" }, tool.unusable_reason) : null, tool.drifted ? h("p", { class: "hint" }, `changed ${when(tool.drifted_at)}`) : null),
    h("td", {}, confirm, slot),
  );
}

// The form that connects a server, or edits `existing` (then only changed fields are sent; a new URL,
// prefix or credential makes the server ask for a new harvest).
function connectionForm(reload, existing = null, onCancel = null) {
  const ids = existing ? `mcp-${existing.id}` : "mcp";
  const slot = messageSlot();
  const name = h("input", { required: true, maxlength: "100", autocomplete: "off", value: existing ? existing.name : "" });
  const url = h("input", { type: "url", required: true, maxlength: "2048", placeholder: "https://mcp.example.com/mcp", value: existing ? existing.url : "" });
  const prefix = h("input", { required: true, pattern: "[a-z][a-z0-9_]{0,39}", maxlength: "40", autocomplete: "off", value: existing ? existing.tool_prefix : "" });
  const was = existing ? existing.auth : { type: "none" };
  const auth = h(
    "select",
    { onchange: () => authFields() },
    [
      ["none", "None"],
      ["bearer", "Bearer token from a secret"],
      ["header", "Header from a secret"],
      ["oauth", existing ? "OAuth" : "OAuth (authorize after adding)"],
    ].map(([value, text]) => h("option", { value, selected: value === was.type }, text)),
  );
  const extra = h("div", {});
  let secret = null;
  let header = null;

  async function authFields() {
    secret = null;
    header = null;
    if (auth.value !== "bearer" && auth.value !== "header") return fill(extra);
    fill(extra, loading("Loading secrets…"));
    try {
      secret = secretPicker(await secretNames(), was.secret || "");
      header = auth.value === "header" ? h("input", { required: true, maxlength: "100", placeholder: "X-Api-Key", value: was.header || "" }) : null;
      fill(extra, field(`${ids}-secret`, "Secret", secret, "Its value is read for each session with the server and never shown."), header ? field(`${ids}-header`, "Header name", header) : null);
    } catch (error) {
      fill(extra, errorBox(error));
    }
  }

  function wanted() {
    const body = { name: name.value.trim(), url: url.value.trim(), tool_prefix: prefix.value.trim(), auth: { type: auth.value } };
    if (secret) body.auth.secret = secret.value;
    if (header) body.auth.header = header.value.trim();
    if (!existing) return body;
    const changed = {};
    for (const key of ["name", "url", "tool_prefix"]) if (body[key] !== existing[key]) changed[key] = body[key];
    if (JSON.stringify(body.auth) !== JSON.stringify(was)) changed.auth = body.auth;
    return changed;
  }

  async function submit(event) {
    event.preventDefault();
    const body = wanted();
    if (existing && !Object.keys(body).length) return slot.ok("Nothing changed.");
    await busy(button, slot, async () => {
      if (existing) {
        const saved = await call(client.PATCH("/api/v1/spaces/{space_id}/mcp/connections/{connection_id}", { params: { path: inSpace({ connection_id: existing.id }) }, body: body }));
        await reload();
        const note = document.querySelector(`article[data-connection="${saved.id}"] > .slot`);
        if (note) note.replaceChildren(h("p", { class: "ok" }, saved.harvest_status === "pending" ? "Saved; its tools are being listed again." : "Saved."));
        return;
      }
      const made = await call(client.POST("/api/v1/spaces/{space_id}/mcp/connections", { params: { path: inSpace() }, body: /** @type {import("../../api.js").Schema<"ConnectionCreate">} */ (body) }));
      form.reset();
      fill(extra);
      secret = null;
      header = null;
      slot.ok(made.needs_authorization ? `Connected ${made.name}. Authorize it to list its tools.` : `Connected ${made.name}; listing its tools…`);
      // The list follows every connection whose harvest is pending, this one included.
      await reload();
    });
  }

  const button = h("button", { type: "submit", class: "primary" }, existing ? "Save connection" : "Connect");
  const cancel = onCancel ? h("button", { type: "button", onclick: onCancel }, "Cancel") : null;
  const form = h(
    "form",
    { onsubmit: submit, "aria-label": existing ? `Edit connection ${existing.name}` : "Connect an MCP server", class: "stacked" },
    field(`${ids}-name`, "Name", name),
    field(`${ids}-url`, "Streamable HTTP URL", url, "Checked by the egress guard: private addresses are refused unless the operator allowed them."),
    field(`${ids}-prefix`, "Tool prefix", prefix, "Tools become <prefix>.<tool name>: lower-case letters, digits and _."),
    field(`${ids}-auth`, "Authentication", auth),
    extra,
    button,
    cancel,
    slot,
  );
  if (existing) authFields();
  return form;
}
