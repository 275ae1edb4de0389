// Databases registered for queries: register one with its DSN in a secret (chosen by name, never
// shown) and its access (read, or write for a role that changes data), test its connection and role,
// rename, re-point or change it, and remove it.
import { call, client, inSpace } from "../../api.js";
import { empty, errorBox, fill, h, loading, when } from "../../dom.js";
import { busy, confirmed, field, messageSlot, riskBadge, secretNames, secretPicker } from "./common.js";


export async function databasesSection(box) {
  const list = h("div", {}, loading());
  const editor = h("div", {});
  fill(box, list, editor);

  async function load() {
    try {
      const [rows, names] = await Promise.all([call(client.GET("/api/v1/spaces/{space_id}/databases", { params: { path: inSpace() } })), secretNames()]);
      fill(
        list,
        rows.length
          ? h(
              "table",
              { class: "databases" },
              h("caption", { class: "hint" }, "Each database gives the space <prefix>.query and <prefix>.tables; its role is checked before each run's first query."),
              h("thead", {}, h("tr", {}, ["Name", "DSN secret", "Access", "Capabilities", "Registered", "Actions"].map((title) => h("th", { scope: "col" }, title)))),
              h("tbody", {}, rows.map((row) => databaseRow(row, names))),
            )
          : empty("No databases registered. Store a DSN as a secret, then register it below."),
      );
      showForm(null, names);
    } catch (error) {
      fill(list, errorBox(error));
    }
  }

  /** @param {import("../../api.js").Schema<"DatabaseOut">} row @param {string[]} names */
  function databaseRow(row, names) {
    const slot = messageSlot();
    const test = h("button", { type: "button", onclick: () => check(test), "aria-label": `Test connection of ${row.name}` }, "Test connection");
    const edit = h("button", { type: "button", onclick: () => showForm(row, names), "aria-label": `Edit database ${row.name}` }, "Edit");
    async function check(button) {
      slot.replaceChildren(loading("Connecting…"));
      await busy(button, slot, async () => {
        const result = await call(client.POST("/api/v1/spaces/{space_id}/databases/{database_id}/check", { params: { path: inSpace({ database_id: row.id }) } }));
        if (result.reachable) slot.ok(`Reachable, role accepted for ${row.access}: it sees ${result.tables} table(s).`);
        else slot.replaceChildren(h("p", { class: "mark problem", role: "alert" }, h("strong", {}, `${result.code}: `), result.message));
      });
    }
    const remove = h("button", { type: "button", class: "danger", "aria-label": `Delete database ${row.name}`, onclick: () => drop(remove) }, "Delete");
    async function drop(button) {
      if (!confirmed(`Remove the database ${row.name}? Steps that use ${row.tool_prefix}.query or ${row.tool_prefix}.tables fail from then on.`)) return;
      await busy(button, slot, async () => {
        await call(client.DELETE("/api/v1/spaces/{space_id}/databases/{database_id}", { params: { path: inSpace({ database_id: row.id }) } }));
        await load();
      });
    }
    return h(
      "tr",
      { dataset: { database: row.name } },
      h("td", {}, h("strong", {}, row.name)),
      h("td", {}, h("code", {}, row.dsn_secret)),
      h("td", {}, riskBadge(row.access)),
      h("td", {}, row.capabilities.map((id) => h("code", { class: "cap" }, id))),
      h("td", {}, when(row.created_at)),
      h("td", {}, test, edit, remove, slot),
    );
  }

  // One form for both: register a new database, or edit `row` (only changed fields are sent).
  function showForm(row, names) {
    const slot = messageSlot();
    const name = h("input", { required: true, pattern: "[a-z0-9_]{1,64}", maxlength: "64", autocomplete: "off", value: row ? row.name : "" });
    const secret = secretPicker(names, row ? row.dsn_secret : "");
    const prefix = h("input", { required: true, pattern: "[a-z][a-z0-9_]{0,39}", maxlength: "40", autocomplete: "off", value: row ? row.tool_prefix : "" });
    const access = h("select", {}, ["read", "write"].map((level) => h("option", { value: level, selected: (row ? row.access : "read") === level }, level)));
    const button = h("button", { type: "submit", class: "primary" }, row ? "Save changes" : "Register database");
    const cancel = row ? h("button", { type: "button", onclick: () => showForm(null, names) }, "Cancel") : null;
    async function submit(event) {
      event.preventDefault();
      const wanted = { name: name.value.trim(), dsn_secret: secret.value, tool_prefix: prefix.value.trim(), access: access.value };
      const body = row ? Object.fromEntries(Object.entries(wanted).filter(([key, value]) => value !== row[key])) : wanted;
      if (row && !Object.keys(body).length) return slot.ok("Nothing changed.");
      await busy(button, slot, async () => {
        const saved = row
          ? await call(client.PATCH("/api/v1/spaces/{space_id}/databases/{database_id}", { params: { path: inSpace({ database_id: row.id }) }, body }))
          : await call(client.POST("/api/v1/spaces/{space_id}/databases", { params: { path: inSpace() }, body: wanted }));
        await load();
        editor.querySelector(".slot").replaceChildren(h("p", { class: "ok" }, `${row ? "Saved" : "Registered"} ${saved.name}: ${saved.capabilities.join(", ")}.`));
      });
    }
    const title = row ? `Edit ${row.name}` : "Register a database";
    fill(
      editor,
      h(
        "form",
        { onsubmit: submit, "aria-label": title, class: "stacked", id: "database-form" },
        h("h3", {}, title),
        field("database-name", "Name", name, "Lower-case letters, digits and _."),
        field("database-secret", "Secret holding the DSN", secret, "postgresql://user:password@host:port/database; checked when saved, never shown."),
        field("database-prefix", "Tool prefix", prefix, "Capabilities become <prefix>.query and <prefix>.tables."),
        field("database-access", "Access", access, "read: the role must change nothing (no superuser, no INSERT/UPDATE/DELETE, no CREATE). write: accept a role that writes; <prefix>.query then asks like any write."),
        button,
        cancel,
        slot,
      ),
    );
    if (row) name.focus();
  }

  await load();
}
