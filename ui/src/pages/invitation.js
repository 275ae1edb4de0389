// Accept an invitation: the person an admin added sets their first password from the link they were
// given, and is signed in. The invitation's secret travels in the URL fragment (never sent to the
// server with the page) and leaves the address bar as soon as it is read.
import { ApiError, session, call, client } from "../api.js";
import { errorBox, h } from "../dom.js";

// Kept for this tab only, so a reload of the page (whose address no longer holds it) still works.
const INVITATION_KEY = "automations.invitation";

export function invitationPage(app, done) {
  if (location.hash.length > 1) {
    sessionStorage.setItem(INVITATION_KEY, decodeURIComponent(location.hash.slice(1)));
    history.replaceState(history.state, "", "/invitation");
  }
  const pending = sessionStorage.getItem(INVITATION_KEY);
  const message = h("div", { "aria-live": "polite" });
  const password = h("input", {
    id: "invitation-password",
    type: "password",
    autocomplete: "new-password",
    required: true,
    minlength: "12",
  });
  const again = h("input", {
    id: "invitation-password-again",
    type: "password",
    autocomplete: "new-password",
    required: true,
    minlength: "12",
  });

  async function accept(event) {
    event.preventDefault();
    message.replaceChildren();
    if (password.value !== again.value) {
      message.replaceChildren(errorBox({ message: "The two passwords differ." }));
      return;
    }
    // Accepting signs this tab in as the invited user: whoever was signed in here is signed out first,
    // so their token is not sent along and a refused invitation is not taken for their session ending.
    session.token = null;
    try {
      const answer = await call(client.POST("/api/v1/invitations/accept", { body: { token: pending, password: password.value } }));
      sessionStorage.removeItem(INVITATION_KEY);
      session.token = answer.token;
      done("/");
    } catch (error) {
      message.replaceChildren(errorBox(error instanceof ApiError ? error : { message: String(error) }));
    }
  }

  const form = h(
    "form",
    { onsubmit: accept, "aria-label": "Set your password" },
    h("label", { for: "invitation-password" }, "Password (12 or more characters)"),
    password,
    h("label", { for: "invitation-password-again" }, "The same password again"),
    again,
    h("button", { type: "submit", class: "primary" }, "Set password and sign in"),
  );
  app.append(
    h(
      "main",
      { id: "main", class: "signin" },
      h("h1", {}, "Join with your invitation"),
      message,
      pending
        ? form
        : h("p", { class: "error", role: "alert" }, "This link holds no invitation. Ask the admin who added you for a new one."),
      h("p", { class: "hint" }, "The link works once and for a limited time. ", h("a", { href: "/signin" }, "Sign in instead")),
    ),
  );
  if (pending) password.focus();
}
