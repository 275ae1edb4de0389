// Outbound webhook endpoints: create (the signing secret shown once), edit, send a test, rotate the
// signing secret (shown once), delete; and the space's recent deliveries with redeliver.
import { call, client, inSpace } from "../../api.js";
import { empty, errorBox, fill, h, loading, statusBadge, when } from "../../dom.js";
import { busy, confirmed, field, messageSlot } from "./common.js";

const DEFAULT_EVENTS = "automation.run.*";

function shownOnce(label, secret) {
  return h("div", { class: "secret", role: "alert" }, `${label} (shown once; store it now): `, h("code", {}, secret));
}

const eventList = (text) => text.split(/[\s,]+/).filter(Boolean);

export async function webhooksSection(box) {
  const flash = messageSlot();
  const list = h("div", {}, loading());
  const editor = h("div", {});
  const deliveries = h("div", {}, loading());
  fill(box, flash, list, editor, callbackSecret(), h("h3", {}, "Recent deliveries"), deliveries);

  async function load() {
    await Promise.all([loadEndpoints(), loadDeliveries()]);
  }

  async function loadEndpoints() {
    try {
      const page = await call(client.GET("/api/v1/spaces/{space_id}/webhook-endpoints", { params: { path: inSpace(), query: { limit: 100 } } }));
      fill(list, page.items.length ? h("ul", { class: "endpoints" }, page.items.map(endpointItem)) : empty("No endpoints: run completion notices go nowhere."));
      showForm(null);
    } catch (error) {
      fill(list, errorBox(error));
    }
  }

  /** @param {import("../../api.js").Schema<"WebhookEndpointOut">} endpoint */
  function endpointItem(endpoint) {
    const slot = messageSlot();
    const label = endpoint.description || endpoint.url;
    const edit = h("button", { type: "button", onclick: () => showForm(endpoint), "aria-label": `Edit endpoint ${label}` }, "Edit");
    const test = h("button", { type: "button", onclick: () => sendTest(test) }, "Send test");
    const rotate = h("button", { type: "button", onclick: () => rotateSecret(rotate), "aria-label": `Rotate secret of ${label}` }, "Rotate secret");
    const remove = h("button", { type: "button", class: "danger", onclick: () => drop(remove), "aria-label": `Delete endpoint ${label}` }, "Delete");
    async function sendTest(button) {
      await busy(button, slot, async () => {
        await call(client.POST("/api/v1/spaces/{space_id}/webhook-endpoints/{endpoint_id}/test", { params: { path: inSpace({ endpoint_id: endpoint.id }) } }));
        slot.ok("Test event queued; see Recent deliveries.");
        await loadDeliveries();
      });
    }
    async function rotateSecret(button) {
      if (!confirmed("Rotate the signing secret? The old one keeps signing for 24 hours; update the receiver before then.")) return;
      await busy(button, slot, async () => {
        const rotated = await call(client.POST("/api/v1/spaces/{space_id}/webhook-endpoints/{endpoint_id}/rotate-secret", { params: { path: inSpace({ endpoint_id: endpoint.id }) } }));
        slot.replaceChildren(shownOnce("New signing secret", rotated.secret));
      });
    }
    async function drop(button) {
      if (!confirmed(`Delete the endpoint ${endpoint.url}? It receives nothing from then on.`)) return;
      await busy(button, slot, async () => {
        await call(client.DELETE("/api/v1/spaces/{space_id}/webhook-endpoints/{endpoint_id}", { params: { path: inSpace({ endpoint_id: endpoint.id }) } }));
        await loadEndpoints();
      });
    }
    return h(
      "li",
      { dataset: { endpoint: endpoint.id } },
      h("code", {}, endpoint.url),
      " ",
      h("span", { class: `badge ${endpoint.enabled ? "status-active" : "status-paused"}` }, endpoint.enabled ? "enabled" : "disabled"),
      endpoint.description ? ` ${endpoint.description}` : "",
      h("div", { class: "hint" }, `events ${endpoint.events.join(", ") || "none"}${endpoint.consecutive_failures ? ` · ${endpoint.consecutive_failures} failures in a row` : ""}${endpoint.previous_secret_expires_at ? ` · previous secret signs until ${when(endpoint.previous_secret_expires_at)}` : ""}`),
      endpoint.disabled_reason ? h("p", { class: "problems" }, endpoint.disabled_reason) : null,
      h("div", { class: "bar" }, edit, test, rotate, remove),
      slot,
    );
  }

  // Create a new endpoint, or edit `endpoint` (only changed fields are sent).
  function showForm(endpoint) {
    const slot = messageSlot();
    const url = h("input", { type: "url", required: true, maxlength: "2048", placeholder: "https://example.com/hooks/automations" });
    const events = h("input", { required: true, value: endpoint ? endpoint.events.join(", ") : DEFAULT_EVENTS });
    const description = h("input", { maxlength: "500", value: endpoint && endpoint.description ? endpoint.description : "" });
    const enabled = endpoint ? h("input", { type: "checkbox", checked: endpoint.enabled }) : null;
    if (endpoint) {
      // Query values are masked in answers: the URL is only sent when it is typed again.
      url.required = false;
      url.placeholder = endpoint.url;
    }
    const button = h("button", { type: "submit", class: "primary" }, endpoint ? "Save endpoint" : "Add endpoint");
    const cancel = endpoint ? h("button", { type: "button", onclick: () => showForm(null) }, "Cancel") : null;
    async function submit(event) {
      event.preventDefault();
      const body = { events: eventList(events.value), description: description.value.trim() || null };
      if (url.value.trim()) body.url = url.value.trim();
      if (enabled) body.enabled = enabled.checked;
      await busy(button, slot, async () => {
        if (endpoint) {
          await call(client.PATCH("/api/v1/spaces/{space_id}/webhook-endpoints/{endpoint_id}", { params: { path: inSpace({ endpoint_id: endpoint.id }) }, body: body }));
          await loadEndpoints();
          flash.ok("Endpoint saved.");
        } else {
          const made = await call(client.POST("/api/v1/spaces/{space_id}/webhook-endpoints", { params: { path: inSpace() }, body: /** @type {import("../../api.js").Schema<"WebhookEndpointCreate">} */ (body) }));
          await loadEndpoints();
          flash.replaceChildren(shownOnce("Signing secret", made.secret));
        }
      });
    }
    const title = endpoint ? "Edit endpoint" : "Add an endpoint";
    fill(
      editor,
      h(
        "form",
        { onsubmit: submit, "aria-label": title, class: "stacked", id: "endpoint-form" },
        h("h3", {}, title),
        field("endpoint-url", "URL", url, endpoint ? "Leave empty to keep the current URL." : "https only, unless the operator allows otherwise."),
        field("endpoint-events", "Events", events, "Comma-separated, e.g. automation.run.failed or automation.run.*"),
        field("endpoint-description", "Description", description),
        enabled ? h("div", { class: "field" }, h("label", { for: "endpoint-enabled", class: "check" }, enabled, " Enabled")) : null,
        button,
        cancel,
        slot,
      ),
    );
    if (enabled) enabled.id = "endpoint-enabled";
    if (endpoint) url.focus();
  }

  async function loadDeliveries() {
    try {
      const page = await call(client.GET("/api/v1/spaces/{space_id}/webhook-endpoints/deliveries", { params: { path: inSpace(), query: { limit: 20 } } }));
      fill(
        deliveries,
        page.items.length
          ? h(
              "ul",
              { class: "deliveries" },
              page.items.map((d) => {
                const slot = messageSlot();
                const again = d.status !== "pending" ? h("button", { type: "button", onclick: () => redeliver(again, slot, d.id) }, "Redeliver") : null;
                return h("li", {}, `${d.event_type} `, statusBadge(d.status), ` ${d.attempts}/${d.max_attempts} · ${when(d.created_at)} `, d.last_error ? h("span", { class: "problems" }, d.last_error) : null, again, slot);
              }),
            )
          : empty("No deliveries yet."),
      );
    } catch (error) {
      fill(deliveries, errorBox(error));
    }
  }

  async function redeliver(button, slot, id) {
    await busy(button, slot, async () => {
      await call(client.POST("/api/v1/spaces/{space_id}/webhook-endpoints/deliveries/{delivery_id}/redeliver", { params: { path: inSpace({ delivery_id: id }) } }));
      await loadDeliveries();
    });
  }

  await load();
}

// The secret that signs per-run callbacks (a run's own `callback_url`), created or rotated on demand.
function callbackSecret() {
  const slot = messageSlot();
  const button = h("button", { type: "button", onclick: () => rotate() }, "Create or rotate the callback secret");
  async function rotate() {
    if (!confirmed("Create or rotate the secret that signs per-run callbacks? A previous one keeps signing for 24 hours.")) return;
    await busy(button, slot, async () => {
      const made = await call(client.POST("/api/v1/spaces/{space_id}/webhook-endpoints/callback-secret", { params: { path: inSpace() } }));
      slot.replaceChildren(shownOnce("Callback signing secret", made.secret));
    });
  }
  return h("div", { class: "callback-secret" }, h("h3", {}, "Per-run callbacks"), h("p", { class: "hint" }, "Runs started with a callback_url are signed with this space's callback secret."), button, slot);
}
