// Completes an MCP OAuth authorization. The API's callback sends the browser here with what the
// authorization server answered; the flow completes only with the token of the user who started it
// (the API refuses anyone else), so a link sent to someone else collects nothing.
import { session, call, client } from "../../api.js";
import { errorBox, fill, h, loading } from "../../dom.js";

const FIELDS = ["state", "code", "iss", "error"];

export function mcpOAuthPage(main) {
  const query = new URLSearchParams(location.search);
  /** @type {import("../../api.js").Schema<"CompletionBody">} */
  const body = { state: null };
  for (const name of FIELDS) if (query.has(name)) body[name] = query.get(name);
  // The code is for one exchange: it leaves the address bar and this history entry at once.
  history.replaceState(history.state, "", location.pathname);
  const box = h("div", { class: "oauth-result" }, loading("Completing the authorization…"));
  const back = h("p", {}, h("a", { href: "/connections" }, "Back to Connections"));
  main.append(h("h1", {}, "Authorizing an MCP server"), box, back);
  if (!body.state) {
    fill(box, h("p", { class: "error", role: "alert" }, "Nothing to complete here: start the authorization from the Connections page."));
    return;
  }
  complete();

  async function complete() {
    try {
      const done = await call(client.POST("/api/v1/mcp/oauth/complete", { body: body }));
      // The Connections page then shows the space the connection belongs to.
      session.space = done.space_id;
      fill(
        box,
        done.authorized
          ? h("p", { class: "ok", role: "status" }, "Authorized. The MCP server accepted the authorization; its tools are being listed now.")
          : h("p", { class: "error", role: "alert" }, "Not authorized: the authorization was not granted, so the connection still needs authorizing."),
      );
    } catch (error) {
      fill(box, errorBox(error));
    }
  }
}
