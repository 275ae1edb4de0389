// Space settings, where approvals reach people: a Slack channel (the bot token and the signing secret are
// space secrets, named here, never shown) and emailed single-use links for every admin and owner.
import { api, spacePath } from "../api.js";
import { errorBox, fill, h } from "../dom.js";
import { mayChange } from "./space_modes.js";

function readOnly(writable) {
  return writable ? null : h("p", { class: "hint read-only" }, "Only admins and owners can change these.");
}

function secretSelect(id, names, value) {
  return h(
    "select",
    { id, required: true },
    h("option", { value: "" }, "choose a secret"),
    names.map((name) => h("option", { value: name, selected: name === value }, name)),
  );
}

export async function loadSlackApprovals(box) {
  const flash = h("div", { "aria-live": "polite" });
  let writable = false;

  async function load() {
    try {
      const [current, allowed, secrets] = await Promise.all([
        api("GET", spacePath("/slack-approvals")),
        mayChange(),
        api("GET", spacePath("/secrets?limit=200")).catch(() => ({ items: [] })),
      ]);
      writable = allowed;
      show(current, secrets.items.map((secret) => secret.name));
    } catch (error) {
      fill(box, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  function show(current, names) {
    const channel = h("input", { id: "slack-channel", required: true, maxlength: "81", placeholder: "C0123ABCD or #approvals", value: current.channel || "" });
    const token = secretSelect("slack-bot-token-secret", names, current.bot_token_secret);
    const signing = secretSelect("slack-signing-secret", names, current.signing_secret_secret);
    const interactivity = new URL(current.interactivity_url, location.origin).href;
    fill(
      box,
      readOnly(writable),
      flash,
      h("p", { id: "slack-status" }, current.enabled ? ["Pending calls are posted to ", h("code", {}, current.channel), " with Approve and Deny buttons."] : "Slack approvals are off."),
      h("p", { class: "hint" }, "In your Slack app, set Interactivity's Request URL to ", h("code", { id: "slack-interactivity-url" }, interactivity), ". The bot needs chat:write and users:read.email; a click counts as the member whose email the Slack profile shows."),
      h(
        "form",
        { onsubmit: (event) => save(event, { channel: channel.value.trim(), bot_token_secret: token.value, signing_secret_secret: signing.value }), "aria-label": "Slack approvals" },
        h("label", { for: "slack-channel" }, "Channel"),
        channel,
        h("label", { for: "slack-bot-token-secret" }, "Secret holding the bot token"),
        token,
        h("label", { for: "slack-signing-secret" }, "Secret holding the signing secret"),
        signing,
        h("div", { class: "bar" }, h("button", { type: "submit", class: "primary", id: "save-slack-approvals" }, "Save Slack approvals"), current.enabled ? h("button", { type: "button", class: "danger", id: "disable-slack-approvals", onclick: disable }, "Turn off") : null),
      ),
    );
    if (!writable) for (const control of box.querySelectorAll("input, select, button")) control.disabled = true;
  }

  async function save(event, body) {
    event.preventDefault();
    try {
      await api("PUT", spacePath("/slack-approvals"), body);
      await load();
      flash.replaceChildren(h("p", { class: "ok", role: "status" }, "Slack approvals saved."));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  async function disable() {
    try {
      await api("DELETE", spacePath("/slack-approvals"));
      await load();
      flash.replaceChildren(h("p", { class: "ok", role: "status" }, "Slack approvals turned off."));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  await load();
}

export async function loadEmailApprovals(box) {
  const flash = h("div", { "aria-live": "polite" });
  const on = h("input", { id: "email-approvals", type: "checkbox" });
  let writable = false;

  async function load() {
    try {
      const [current, allowed] = await Promise.all([api("GET", spacePath("/email-approvals")), mayChange()]);
      writable = allowed;
      on.checked = current.enabled;
      fill(
        box,
        readOnly(writable),
        flash,
        current.mail_configured ? null : h("p", { class: "hint" }, "This server has no SMTP relay (AUTOMATIONS_SMTP_URL), so no email can be sent."),
        h(
          "form",
          { onsubmit: save, "aria-label": "Email approvals" },
          h("div", { class: "check" }, on, h("label", { for: "email-approvals" }, "Email every admin and owner a link to approve or deny each pending call")),
          h("p", { class: "hint" }, "Each link is for one person, works once and expires with the call. Opening it only shows the call; the buttons on that page decide."),
          h("button", { type: "submit", class: "primary", id: "save-email-approvals" }, "Save email approvals"),
        ),
      );
      if (!writable) for (const control of box.querySelectorAll("input, button")) control.disabled = true;
    } catch (error) {
      fill(box, errorBox(error), h("button", { type: "button", onclick: load }, "Try again"));
    }
  }

  async function save(event) {
    event.preventDefault();
    try {
      await api("PUT", spacePath("/email-approvals"), { enabled: on.checked });
      flash.replaceChildren(h("p", { class: "ok", role: "status" }, "Email approvals saved."));
    } catch (error) {
      flash.replaceChildren(errorBox(error));
    }
  }

  await load();
}
