// The single-page app: a router over page modules, the navigation with the space switcher, and the
// sign-in gate. Every page is a function (params, main) that renders into `main` and may return a
// cleanup function (to stop a live stream when the user leaves).
import { session, setUnauthorizedHandler, call, client } from "./api.js";
import { clear, h, fill } from "./dom.js";
import { approvalsPage } from "./pages/approvals.js";
import { invitationPage } from "./pages/invitation.js";
import { approvalEmailPage } from "./pages/approval_email.js";
import { automationPage } from "./pages/automation.js";
import { automationsPage } from "./pages/automations.js";
import { connectionsPage } from "./pages/connections.js";
import { dashboardPage } from "./pages/dashboard.js";
import { documentsPage } from "./pages/documents.js";
import { mcpOAuthPage } from "./pages/connections/mcp_oauth.js";
import { newAutomationPage } from "./pages/new.js";
import { queuePage } from "./pages/queue.js";
import { runPage } from "./pages/run.js";
import { runsPage } from "./pages/runs.js";
import { settingsPage } from "./pages/settings.js";
import { signInPage } from "./pages/signin.js";
import { startApprovalBadge } from "./pages/approvals.js";
import { approvalPage } from "./pages/approvals/detail.js";

/** @type {[RegExp, (main?: HTMLElement, ...params: string[]) => any, string?][]} */
const routes = [
  [/^\/$/, dashboardPage, "Dashboard"],
  [/^\/automations$/, automationsPage, "Automations"],
  [/^\/automations\/new$/, newAutomationPage, "New automation"],
  [/^\/automations\/([0-9a-f-]{36})$/, automationPage, "Automation"],
  [/^\/runs$/, runsPage, "Runs"],
  [/^\/runs\/([0-9a-f-]{36})$/, runPage, "Run"],
  [/^\/approvals$/, approvalsPage, "Approvals"],
  [/^\/approvals\/([0-9a-f-]{36})$/, approvalPage, "Approval"],
  [/^\/connections$/, connectionsPage, "Connections"],
  [/^\/documents$/, documentsPage, "Documents"],
  [/^\/connections\/mcp-oauth$/, mcpOAuthPage, "Authorizing an MCP server"],
  [/^\/queue$/, queuePage, "Queue"],
  [/^\/settings$/, settingsPage, "Space settings"],
];

const NAV = [
  ["/", "Dashboard"],
  ["/automations", "Automations"],
  ["/runs", "Runs"],
  ["/approvals", "Approvals"],
  ["/connections", "Connections"],
  ["/documents", "Documents"],
  ["/queue", "Queue"],
  ["/settings", "Settings"],
];

let cleanup = null;
let spaces = null;
let stopBadge = null;

export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  render();
}

function signedOut() {
  spaces = null;
  if (stopBadge) stopBadge();
  stopBadge = null;
  // The query goes along: an OAuth completion page needs its code and state after signing in. Signed
  // out twice (a revoked stream and the button), the page to return to is the one first left.
  const kept = location.pathname === "/signin" && history.state && history.state.next;
  const next = kept || (location.pathname === "/signin" ? "/" : location.pathname + location.search);
  history.replaceState({ next }, "", "/signin");
  render();
}

async function ensureSpace() {
  if (spaces) return;
  spaces = (await call(client.GET("/api/v1/spaces", { params: { query: { limit: 200 } } }))).items;
  if (!spaces.some((space) => space.id === session.space)) session.space = spaces.length ? spaces[0].id : null;
}

function layout(title) {
  const app = document.getElementById("app");
  clear(app);
  const switcher = h(
    "select",
    {
      "aria-label": "Space",
      onchange: (event) => {
        session.space = event.target.value;
        render();
      },
    },
    spaces.map((space) => h("option", { value: space.id, selected: space.id === session.space }, space.name)),
  );
  const links = NAV.map(([path, label]) =>
    h(
      "a",
      {
        href: path,
        "aria-current": (path === "/" ? location.pathname === "/" : location.pathname.startsWith(path)) ? "page" : null,
        id: path === "/approvals" ? "nav-approvals" : null,
      },
      label,
      path === "/approvals" ? h("span", { class: "count", id: "approval-count", hidden: true }) : null,
    ),
  );
  const signOut = h("button", { class: "link", type: "button", onclick: doSignOut }, "Sign out");
  const header = h(
    "header",
    { class: "top" },
    h("a", { class: "brand", href: "/" }, "Automations"),
    h("nav", { "aria-label": "Main" }, links),
    h("div", { class: "who" }, switcher, signOut),
  );
  const main = h("main", { id: "main", tabindex: "-1" });
  app.append(header, main);
  document.title = `${title} · Automations`;
  return main;
}

async function doSignOut() {
  try {
    await call(client.DELETE("/api/v1/auth/sessions/current"));
  } catch {
    // Signing out of an expired session is still signing out.
  }
  session.token = null;
  signedOut();
}

async function render() {
  if (cleanup) cleanup();
  cleanup = null;
  const path = location.pathname;
  // Earlier links to an entry of the inbox (`/approvals?approval=<id>`) open that approval's own page.
  const linked = path === "/approvals" && new URLSearchParams(location.search).get("approval");
  if (linked && /^[0-9a-f-]{36}$/.test(linked)) return navigate(`/approvals/${linked}`, true);
  if (path === "/invitation") {
    // Open with or without a session: accepting signs in as the invited user.
    spaces = null;
    if (stopBadge) stopBadge();
    stopBadge = null;
    const app = document.getElementById("app");
    clear(app);
    document.title = "Join · Automations";
    invitationPage(app, (next) => navigate(next, true));
    return;
  }
  if (path === "/approval-email") {
    // Open with or without a session: the emailed link is the credential.
    const app = document.getElementById("app");
    clear(app);
    document.title = "Decide an approval · Automations";
    approvalEmailPage(app);
    return;
  }
  if (!session.token || path === "/signin") {
    if (!session.token && path !== "/signin") return signedOut();
    if (session.token && path === "/signin") return navigate("/", true);
    const app = document.getElementById("app");
    clear(app);
    document.title = "Sign in · Automations";
    signInPage(app, (next) => navigate(next || "/", true));
    return;
  }
  try {
    await ensureSpace();
  } catch (error) {
    if (!session.token) return;
    const app = document.getElementById("app");
    fill(app, h("main", { id: "main" }, h("p", { class: "error", role: "alert" }, error.message)));
    return;
  }
  if (!session.space) {
    const main = layout("No space");
    main.append(h("h1", {}, "No space"), h("p", {}, "You are not a member of any space yet. Ask an admin to add you."));
    return;
  }
  for (const [pattern, page, title] of routes) {
    const match = path.match(pattern);
    if (!match) continue;
    if (!title) return page();
    const main = layout(title);
    if (!stopBadge) stopBadge = startApprovalBadge();
    cleanup = page(main, ...match.slice(1)) || null;
    return;
  }
  const main = layout("Not found");
  main.append(h("h1", {}, "Page not found"), h("p", {}, h("a", { href: "/automations" }, "Go to automations")));
}

// Links inside the app navigate without a reload; modified clicks keep the browser's behaviour.
document.addEventListener("click", (event) => {
  const link = /** @type {HTMLAnchorElement | null} */ (/** @type {Element} */ (event.target).closest("a[href]"));
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/api/") || url.pathname.startsWith("/docs")) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener("popstate", render);
setUnauthorizedHandler(signedOut);
render();
