// One automation: overview and status, triggers (webhook URL, rotate and revoke the token, shown
// once), preview and dry / verify runs, action modes, the definition editor with save (a version
// conflict shows what changed meanwhile; steps and triggers added, removed and reordered in the
// form), a change in plain words shown as a diff before saving, versions with diff and restore, the
// spending limits in effect, and run now.
import { ApiError, api, call, client, inSpace, spacePath } from "../api.js";
import { arrangeControls } from "../arrange.js";
import { errorBox, h, loading, statusBadge, when, fill } from "../dom.js";
import { diffView } from "../diff.js";
import { definitionEditor } from "../editor.js";
import { navigate } from "../main.js";
import { loadSchemas } from "../schema.js";
import { changeStatus as statusAction, triggerToken } from "./automation/status_actions.js";
import { changeSection } from "./automation/change.js";
import { modesSection } from "./automation/modes.js";
import { grantsSection } from "./automation/grants.js";
import { capsSection } from "./automation/caps.js";
import { fieldChecks } from "./automation/field_checks.js";
import { sameDefinition, tryoutSection } from "./automation/tryout.js";
import { planSection } from "./plan_section.js";
import { statsSection } from "./stats_section.js";

const STATUS_ACTIONS = { active: ["pause", "archive"], paused: ["activate", "archive"], archived: ["unarchive"] };

export function automationPage(main, id) {
  const body = h("div", {}, loading());
  main.append(body);
  let automation = null;
  let schemas = null;
  let editor = null;
  let dirty = false;
  let tryout = null;
  let plan = null;
  let stats = null;
  let lastPreview = null;
  let redrawTimer = null;
  const checks = fieldChecks(() => editor);
  const flash = h("div", { "aria-live": "polite", id: "flash" });

  async function load() {
    try {
      [automation, schemas] = await Promise.all([call(client.GET("/api/v1/spaces/{space_id}/automations/{automation_id}", { params: { path: inSpace({ automation_id: id }) } })), loadSchemas()]);
      paint();
    } catch (error) {
      fill(body, errorBox(error), h("p", {}, h("a", { href: "/automations" }, "Back to automations")));
    }
  }

  function paint() {
    dirty = false;
    if (tryout) tryout.stop();
    if (stats) stats.stop();
    const current = () => automation;
    plan = planSection();
    stats = statsSection({ path: `/automations/${automation.id}/stats`, id: "automation-stats", title: "Runs over time" });
    // The modes section asks for a preview on load and after each save of modes: the diagram shows
    // the same modes.
    const previewForDiagram = () => {
      const asked = api("POST", spacePath(`/automations/${automation.id}/preview`), {});
      asked.then(
        (answer) => {
          lastPreview = answer;
          plan.update(edited() ? editor.getValue() : automation.definition, answer);
        },
        (error) => plan.update(automation.definition, null, error),
      );
      return asked;
    };
    const modes = modesSection(current, {
      onSaved: (saved) => {
        automation = { ...automation, action_modes: saved };
      },
      previewNow: previewForDiagram,
    });
    const caps = capsSection({
      previewNow: () => call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/preview", { params: { path: inSpace({ automation_id: automation.id }) }, body: {} })),
    });
    tryout = tryoutSection(current, {
      onPreview: (answer) => modes.update(answer),
      unsaved: () => (edited() ? editor.getValue() : null),
    });
    const saved = new URLSearchParams(location.search).get("saved");
    fill(body, 
      h(
        "div",
        { class: "heading" },
        h("h1", {}, automation.name),
        statusBadge(automation.status),
        h("span", { class: "version", id: "version" }, `version ${automation.version}`),
      ),
      flash,
      saved ? h("p", { class: "ok" }, "Saved, paused. Activate it when you are ready.") : null,
      h(
        "div",
        { class: "bar" },
        (STATUS_ACTIONS[automation.status] || []).map((action) =>
          h("button", { type: "button", id: `do-${action}`, onclick: () => changeStatus(action) }, action),
        ),
        automation.status !== "archived" ? h("button", { type: "button", id: "run-now", class: "primary", onclick: runNow }, "Run now") : null,
        h("a", { class: "button", href: `/runs?automation=${automation.id}` }, "Runs"),
      ),
      sectionLinks(),
      overview(),
      plan.element,
      stats.element,
      recentRuns(),
      caps.element,
      triggersSection(),
      tryout.element,
      modes.element,
      grantsSection(current).element,
      editorSection(),
      changeSection(current, (saved, message) => {
        automation = saved;
        paint();
        flash.replaceChildren(h("p", { class: "ok" }, message));
      }),
      versionsSection(),
    );
  }

  // Every part of this long page one click away.
  function sectionLinks() {
    const parts = [
      ["plan-diagram", "Plan"],
      ["automation-stats", "Runs over time"],
      ["recent-runs-title", "Last runs"],
      ["caps-title", "Spending limits"],
      ["triggers-title", "Triggers"],
      ["tryout-title", "Try it"],
      ["modes-title", "Action modes"],
      ["grants-title", "Standing approvals"],
      ["definition-title", "Definition"],
      ["words-title", "Change in words"],
      ["versions-title", "Versions"],
    ];
    return h(
      "nav",
      { class: "section-links", "aria-label": "Sections of this page" },
      parts.map(([target, label]) =>
        h("a", { href: `#${target}`, onclick: (event) => jumpTo(event, target) }, label),
      ),
    );
  }

  function jumpTo(event, target) {
    event.preventDefault();
    const found = document.getElementById(target);
    if (!found) return;
    const heading = found.matches("h2") ? found : found.querySelector("h2") || found;
    heading.setAttribute("tabindex", "-1");
    heading.scrollIntoView({ block: "start" });
    heading.focus();
  }

  function recentRuns() {
    const list = h("div", { id: "recent-runs" }, loading("Loading the last runs…"));
    api("GET", spacePath(`/runs?automation_id=${automation.id}&limit=5`))
      .then((page) =>
        fill(
          list,
          page.items.length
            ? h(
                "ul",
                { class: "recent-runs" },
                page.items.map((run) =>
                  h("li", {}, h("a", { href: `/runs/${run.id}` }, `Run ${run.id.slice(0, 8)}`), " ", statusBadge(run.status), ` · ${when(run.created_at)}`),
                ),
              )
            : h("p", {}, "No runs yet."),
        ),
      )
      .catch((error) => fill(list, errorBox(error)));
    return h("section", { "aria-labelledby": "recent-runs-title" }, h("h2", { id: "recent-runs-title" }, "Last runs"), list);
  }

  function overview() {
    const def = automation.definition;
    return h(
      "section",
      { "aria-labelledby": "overview-title" },
      h("h2", { id: "overview-title" }, "Overview"),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "Goal"),
        h("dd", {}, def.goal || def.description || "—"),
        h("dt", {}, "Steps"),
        h("dd", {}, def.plan.map((s) => `${s.step_id} (${s.action})`).join(" → ")),
        h("dt", {}, "Updated"),
        h("dd", {}, when(automation.updated_at)),
        h("dt", {}, "MCP tool"),
        h("dd", { id: "mcp-tool" }, mcpTool(def)),
      ),
    );
  }

  // An automation exposed as a tool of the space's MCP server, for agents whose token is scoped to it.
  function mcpTool(def) {
    const mcp = def.expose && def.expose.mcp;
    if (!mcp) return "not exposed (add expose.mcp to the definition to offer it to agents)";
    const state = automation.status === "active" ? "" : " (listed once the automation is active)";
    return h(
      "span",
      {},
      h("code", {}, mcp.tool_name),
      ` at ${location.origin}/api/v1/spaces/${automation.space_id}/mcp${state}`,
    );
  }

  function triggersSection() {
    const list = automation.triggers;
    return h(
      "section",
      { "aria-labelledby": "triggers-title" },
      h("h2", { id: "triggers-title" }, "Triggers"),
      list.length
        ? h(
            "ul",
            { class: "triggers" },
            list.map((t) =>
              h(
                "li",
                { "data-trigger": t.id },
                h("strong", {}, t.name || t.type),
                ` ${t.enabled ? "enabled" : "disabled"}`,
                t.type === "schedule" ? ` · next fire ${automation.status === "active" ? when(t.next_fire_at) : "(paused)"}` : "",
                t.last_fired_at ? ` · last fired ${when(t.last_fired_at)}` : "",
                t.type === "webhook"
                  ? h(
                      "div",
                      { class: "webhook" },
                      h("code", {}, `POST ${location.origin}/api/v1/automations/${automation.id}/fire`),
                      ` token ${t.token_prefix ? t.token_prefix + "…" : "none (revoked)"} `,
                      h("button", { type: "button", onclick: () => token(t, "rotate") }, "Rotate token"),
                      h("button", { type: "button", onclick: () => token(t, "revoke") }, "Revoke token"),
                    )
                  : null,
              ),
            ),
          )
        : h("p", {}, "No triggers: it runs when you press Run now or call the API."),
    );
  }

  async function token(trigger, action) {
    try {
      const answer = await triggerToken(automation.id, trigger.id, action);
      automation = await call(client.GET("/api/v1/spaces/{space_id}/automations/{automation_id}", { params: { path: inSpace({ automation_id: id }) } }));
      paint();
      if (answer.token)
        flash.replaceChildren(
          h("div", { class: "secret", role: "alert" }, "New webhook token (shown once, copy it now): ", h("code", { id: "new-token" }, answer.token)),
        );
      else flash.replaceChildren(h("p", { class: "ok" }, "Token revoked: fires answer 401 until you rotate."));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  function editorSection() {
    const box = h("div", {});
    const problems = h("div", { "aria-live": "polite", id: "save-result" });
    const save = h("button", { type: "button", class: "primary", id: "save-definition", onclick: () => saveDefinition(problems) }, "Save new version");
    const section = h(
      "section",
      { "aria-labelledby": "definition-title" },
      h("h2", { id: "definition-title" }, "Definition"),
      box,
      problems,
      h("div", { class: "bar" }, save),
    );
    editor = definitionEditor(box, schemas, automation.definition, {
      onChange: (definition) => {
        dirty = true;
        // The diagram follows the edit (modes of steps the last preview knew).
        clearTimeout(redrawTimer);
        redrawTimer = setTimeout(() => plan.update(definition, lastPreview), 300);
        // The server's checks (templates, references, schemas) beside the fields, as the edit goes.
        checks.edited(editor, definition);
      },
      readOnly: automation.status === "archived",
      arrange: arrangeControls(schemas),
    });
    checks.opened(editor, automation.definition);
    return section;
  }

  async function saveDefinition(problems) {
    const mine = editor.getValue();
    editor.forgetRefusal();
    problems.replaceChildren(loading("Saving…"));
    try {
      const saved = await call(client.PUT("/api/v1/spaces/{space_id}/automations/{automation_id}", { params: { path: inSpace({ automation_id: automation.id }) }, body: { definition: mine }, headers: { "If-Match": `"${automation.version}"` } }));
      automation = saved;
      paint();
      flash.replaceChildren(h("p", { class: "ok" }, `Saved as version ${saved.version}.`));
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) return conflict(problems, mine);
      // Shown until the user edits what it names. The answer's pointers start at the request body;
      // the editor's start at the definition.
      editor.refuse(problems, error, (path) => (path || "").replace(/^\/definition(?=\/|$)/, "") || "/");
    }
  }

  async function conflict(problems, mine) {
    const current = await call(client.GET("/api/v1/spaces/{space_id}/automations/{automation_id}", { params: { path: inSpace({ automation_id: automation.id }) } }));
    problems.replaceChildren(
      h(
        "div",
        { class: "conflict", role: "alert", id: "conflict" },
        h("h3", {}, "Someone saved a newer version meanwhile"),
        h("p", {}, `You edited version ${automation.version}; the current one is version ${current.version}. Your changes are not saved. Below: what differs between the current version and yours.`),
        diffView(current.definition, mine, [`current version ${current.version}`, "your edit"]),
        h(
          "div",
          { class: "bar" },
          h("button", { type: "button", onclick: () => { automation = { ...current }; paint(); } }, "Discard mine, load the current version"),
          h(
            "button",
            {
              type: "button",
              class: "primary",
              onclick: async () => {
                automation = { ...automation, version: current.version };
                await saveDefinition(problems);
              },
            },
            "Overwrite with mine",
          ),
        ),
      ),
    );
  }

  function versionsSection() {
    const list = h("div", {}, loading("Loading versions…"));
    call(client.GET("/api/v1/spaces/{space_id}/automations/{automation_id}/versions", { params: { path: inSpace({ automation_id: automation.id }), query: { limit: 50 } } }))
      .then((page) =>
        fill(list, 
          h(
            "ul",
            { class: "versions" },
            page.items.map((v) => {
              const shown = h("div", {});
              return h(
                "li",
                {},
                `Version ${v.version} · ${when(v.created_at)}`,
                v.restored_from ? ` · restored from ${v.restored_from}` : "",
                " ",
                v.version !== automation.version
                  ? [
                      h("button", { type: "button", onclick: () => shown.replaceChildren(diffView(v.definition, automation.definition, [`version ${v.version}`, `current ${automation.version}`])) }, "Diff with current"),
                      h("button", { type: "button", onclick: () => restore(v.version) }, "Restore"),
                    ]
                  : h("em", {}, "current"),
                shown,
              );
            }),
          ),
        ),
      )
      .catch((error) => fill(list, errorBox(error)));
    return h("section", { "aria-labelledby": "versions-title" }, h("h2", { id: "versions-title" }, "Versions"), list);
  }

  async function restore(version) {
    try {
      automation = await call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/versions/{version}/restore", { params: { path: inSpace({ automation_id: automation.id, version }) }, body: { version: automation.version } }));
      paint();
      flash.replaceChildren(h("p", { class: "ok" }, `Version ${version} restored as version ${automation.version}.`));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  async function changeStatus(action) {
    try {
      automation = await statusAction(automation.id, action);
      paint();
      flash.replaceChildren(h("p", { class: "ok" }, `Now ${automation.status}.`));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  async function runNow() {
    try {
      const run = await call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/runs", { params: { path: inSpace({ automation_id: automation.id }) }, body: { inputs: {} } }));
      navigate(`/runs?automation=${automation.id}&started=${run.id}`);
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  load();
  // The forms report a change when they first fill in; only a real difference counts as an edit.
  function edited() {
    return dirty && editor !== null && !sameDefinition(editor.getValue(), automation.definition);
  }
  const beforeUnload = (event) => {
    if (edited()) event.preventDefault();
  };
  window.addEventListener("beforeunload", beforeUnload);
  return () => {
    window.removeEventListener("beforeunload", beforeUnload);
    clearTimeout(redrawTimer);
    if (tryout) tryout.stop();
    if (stats) stats.stop();
  };
}
