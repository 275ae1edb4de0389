// Sign in with email and password (an 8-hour token), or paste an API token.
import { ApiError, session, call, client } from "../api.js";
import { errorBox, h } from "../dom.js";

export function signInPage(app, done) {
  const next = (history.state && history.state.next) || "/";
  const message = h("div", { "aria-live": "polite" });
  const email = h("input", { id: "email", type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", {
    id: "password",
    type: "password",
    name: "password",
    autocomplete: "current-password",
    required: true,
  });
  const token = h("input", { id: "token", type: "password", name: "token", autocomplete: "off", required: true });

  async function signIn(event) {
    event.preventDefault();
    message.replaceChildren();
    try {
      const answer = await call(client.POST("/api/v1/auth/sessions", { body: { email: email.value, password: password.value } }));
      session.token = answer.token;
      done(next);
    } catch (error) {
      message.replaceChildren(errorBox(error instanceof ApiError ? error : { message: String(error) }));
    }
  }

  async function useToken(event) {
    event.preventDefault();
    message.replaceChildren();
    session.token = token.value.trim();
    try {
      await call(client.GET("/api/v1/me"));
      done(next);
    } catch (error) {
      session.token = null;
      message.replaceChildren(errorBox(error));
    }
  }

  app.append(
    h(
      "main",
      { id: "main", class: "signin" },
      h("h1", {}, "Sign in"),
      message,
      h(
        "form",
        { onsubmit: signIn, "aria-label": "Sign in with password" },
        h("label", { for: "email" }, "Email"),
        email,
        h("label", { for: "password" }, "Password"),
        password,
        h("button", { type: "submit", class: "primary" }, "Sign in"),
      ),
      h(
        "details",
        {},
        h("summary", {}, "Use an API token instead"),
        h(
          "form",
          { onsubmit: useToken, "aria-label": "Sign in with an API token" },
          h("label", { for: "token" }, "API token"),
          token,
          h("button", { type: "submit" }, "Use token"),
        ),
      ),
      h(
        "p",
        { class: "hint" },
        "Added by an admin? Open the invitation link they sent you to set your password. ",
        "No password yet? An operator sets one with ",
        h("code", {}, "automations set-password --email you@example.com"),
        ", or sign in with the token from ",
        h("code", {}, "automations create-admin"),
        " and set one under Settings.",
      ),
    ),
  );
  email.focus();
}
