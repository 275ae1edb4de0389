"""The Connections page in Chromium against the real stack: an MCP server (the `mcp` package's, on
loopback) connected with the keyboard, harvested by the real worker, a tool's risk overridden, a drifted
tool re-confirmed; a database registered, refused, edited and removed; a plugin switched on and off;
webhook endpoints created, edited, rotated and deleted. Errors from the API show beside their form;
destructive actions ask first; axe finds no serious or critical violation."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from app.config import Settings
from tests.support.browser import axe_violations, free_port, shot, start_api
from tests.support.loopback import Loopback
from tests.support.mcp_oauth import OAuthMcpTestServer
from tests.support.mcp_server import McpTestServer
from tests.support.servers import admin_sql
from tests.ui.conftest import Owner
from tests.ui.space_api import new_member_token, space_api
from tests.ui.test_draft_to_run import sign_in

# Browser start-up and the worker's harvests count against a test's time on two shared cores.
pytestmark = pytest.mark.timeout(300)
HARVEST_MS = 60_000


@pytest.fixture(scope="module")
def oauth_base(ui_env: dict[str, str], settings: Settings, ui_base: str) -> Iterator[str]:
    """A second API process whose public URL is its own address: the redirect URI an authorization
    server sends the browser back to."""
    port = free_port()
    env = {**ui_env, "AUTOMATIONS_PUBLIC_URL": f"http://127.0.0.1:{port}"}
    process, base = start_api(env, settings.home, port=port, name="ui-api-oauth")
    yield base
    process.stop()


@pytest.fixture
def oauth_server() -> Iterator[OAuthMcpTestServer]:
    server = OAuthMcpTestServer().start()
    yield server
    server.stop()


@pytest.fixture
def reader_dsn(settings: Settings) -> Iterator[str]:
    """A DSN of a new login role that may read, and change, nothing in the test database; dropped after."""
    admin = settings.resolved_database_url()
    url = make_url(admin)
    if not url.host or url.host.startswith("/"):
        pytest.skip("the test server listens on a Unix socket; database DSNs need a TCP host")
    role = f"automations_ui_{uuid.uuid4().hex[:10]}"
    _sql(admin, f"CREATE ROLE {role} LOGIN PASSWORD 'unused-trust-auth'")
    yield url.set(drivername="postgresql", username=role, password="unused-trust-auth").render_as_string(
        hide_password=False
    )
    _sql(admin, f"DROP ROLE IF EXISTS {role}")


def _sql(url: str, statement: str) -> None:
    """One admin statement, on a thread of its own (the browser's driver runs an event loop here)."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, admin_sql(url, statement)).result(timeout=30)


def _open(page: Any, owner: Owner) -> None:
    sign_in(page, owner)
    page.goto("/connections")
    page.wait_for_selector("main h1:text-is('Connections')")
    page.wait_for_selector(".loading", state="detached")


def _no_violations(page: Any, name: str) -> None:
    violations = axe_violations(page)
    assert not violations, (name, violations)
    shot(page, name)


def _focused_id(page: Any) -> str:
    focused: str = page.evaluate("() => document.activeElement && document.activeElement.id")
    return focused


def _tool(ui_base: str, owner: Owner, connection_id: str, name: str) -> dict[str, Any]:
    listed = space_api(ui_base, owner, "GET", f"/mcp/connections/{connection_id}/tools").json()
    return next(tool for tool in listed if tool["name"] == name)


def test_mcp_server_connected_harvested_risk_changed_and_drift_confirmed(
    page: Any, owner: Owner, ui_base: str, mcp_server: McpTestServer
) -> None:
    _open(page, owner)
    mcp = page.locator("#section-mcp")
    mcp.locator(".empty").wait_for()
    _no_violations(page, "connections-empty")

    # A refused URL: the API's reason shows beside the form, and nothing is added.
    form = page.locator("form[aria-label='Connect an MCP server']")
    page.fill("#mcp-name", "Metadata")
    page.fill("#mcp-url", "http://169.254.169.254/mcp")
    page.fill("#mcp-prefix", "meta")
    form.locator("button[type=submit]").click()
    form.locator(".error[role=alert]").wait_for()
    assert mcp.locator("article.connection").count() == 0

    # Connected with the keyboard alone: type, Tab through the fields, Enter on the button.
    page.fill("#mcp-name", "")
    page.fill("#mcp-url", "")
    page.fill("#mcp-prefix", "")
    page.focus("#mcp-name")
    page.keyboard.type("CRM")
    page.keyboard.press("Tab")
    assert _focused_id(page) == "mcp-url"
    page.keyboard.type(mcp_server.url)
    page.keyboard.press("Tab")
    assert _focused_id(page) == "mcp-prefix"
    page.keyboard.type("crm")
    page.keyboard.press("Tab")
    assert _focused_id(page) == "mcp-auth"
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    card = mcp.locator("article.connection", has_text="CRM")
    card.locator("[data-harvest=ok]").wait_for(timeout=HARVEST_MS)
    connection_id = card.get_attribute("data-connection")
    assert connection_id
    assert "Connected CRM" in form.locator(".slot").inner_text()

    # The tools with their risk, from the server's annotations.
    card.get_by_role("button", name="Tools (5)").click()
    rows = card.locator("tr[data-tool]")
    card.locator("tr[data-tool=echo]").wait_for()
    assert rows.count() == 5
    assert card.locator("tr[data-tool=echo] .badge[data-risk=read]").count() == 1
    assert card.locator("tr[data-tool=fail] .destructive").count() == 1
    _no_violations(page, "connections-mcp-tools")

    # An admin says `slow` only reads: the override is saved and shown; "server's hint" undoes it.
    card.get_by_label("Risk of slow").select_option("read")
    card.locator("tr[data-tool=slow] .badge[data-risk=read]").wait_for()
    card.locator("tr[data-tool=slow] .slot .ok").wait_for()
    assert _focused_id(page).startswith(f"risk-{connection_id}-"), "the keyboard stays on the risk"
    assert _tool(ui_base, owner, connection_id, "slow")["risk_override"] == "read"
    card.get_by_label("Risk of slow").select_option("")
    card.locator("tr[data-tool=slow] .badge[data-risk=write]").wait_for()
    assert _tool(ui_base, owner, connection_id, "slow")["risk_override"] is None

    # The server changes echo's input schema: a new harvest shows it drifted.
    changed = dict(mcp_server.tools["echo"].input_schema)
    changed["required"] = []
    mcp_server.tools["echo"] = mcp_server.tools["echo"].model_copy(update={"input_schema": changed})
    card.get_by_role("button", name="Harvest now").click()
    drifted = card.locator("tr[data-tool=echo] .drifted")
    drifted.wait_for(timeout=HARVEST_MS)
    assert card.locator(".mark.flag").count() == 1
    assert _tool(ui_base, owner, connection_id, "echo")["drifted"] is True
    _no_violations(page, "connections-mcp-drifted")

    # Confirming asks first: "no" changes nothing, "yes" accepts the new schemas.
    page.once("dialog", lambda dialog: dialog.dismiss())
    card.get_by_role("button", name="Confirm echo").click()
    assert _tool(ui_base, owner, connection_id, "echo")["drifted"] is True
    page.once("dialog", lambda dialog: dialog.accept())
    card.get_by_role("button", name="Confirm echo").click()
    drifted.wait_for(state="detached")
    confirmed = _tool(ui_base, owner, connection_id, "echo")
    assert confirmed["drifted"] is False
    assert confirmed["confirmed_hash"] == confirmed["schema_hash"]

    # Edit: a reserved prefix is refused beside the edit form; a new name is saved as it is.
    card.get_by_role("button", name="Edit connection CRM").click()
    editing = card.locator("form[aria-label='Edit connection CRM']")
    assert _focused_id(page) == f"mcp-{connection_id}-name"
    page.fill(f"#mcp-{connection_id}-prefix", "http")
    editing.locator("button[type=submit]").click()
    editing.locator(".error[role=alert]", has_text="/tool_prefix").wait_for()
    page.fill(f"#mcp-{connection_id}-prefix", "crm")
    page.fill(f"#mcp-{connection_id}-name", "CRM tools")
    editing.locator("button[type=submit]").click()
    mcp.locator("article.connection h3", has_text="CRM tools").wait_for()
    shown = space_api(ui_base, owner, "GET", f"/mcp/connections/{connection_id}").json()
    assert (shown["name"], shown["tool_prefix"], shown["url"]) == ("CRM tools", "crm", mcp_server.url)

    # The same prefix again is a conflict, shown beside the form.
    page.fill("#mcp-name", "CRM again")
    page.fill("#mcp-url", mcp_server.url)
    page.fill("#mcp-prefix", "crm")
    form.locator("button[type=submit]").click()
    form.locator(".error[role=alert]").wait_for()
    assert mcp.locator("article.connection").count() == 1

    # Disconnecting asks first.
    page.once("dialog", lambda dialog: dialog.dismiss())
    card.get_by_role("button", name="Delete connection CRM").click()
    assert space_api(ui_base, owner, "GET", "/mcp/connections").json()["items"]
    page.once("dialog", lambda dialog: dialog.accept())
    card.get_by_role("button", name="Delete connection CRM").click()
    mcp.locator(".empty").wait_for()
    assert space_api(ui_base, owner, "GET", "/mcp/connections").json()["items"] == []


def test_a_database_is_registered_refused_edited_and_removed(
    page: Any, owner: Owner, ui_base: str, settings: Settings, reader_dsn: str
) -> None:
    dsn = reader_dsn
    superuser = make_url(settings.resolved_database_url()).set(drivername="postgresql")
    root_dsn = superuser.render_as_string(hide_password=False)
    space_api(ui_base, owner, "PUT", "/secrets/root_dsn", json={"value": root_dsn})
    _open(page, owner)
    databases = page.locator("#section-databases")
    databases.locator(".empty").wait_for()

    # The DSN goes in as a secret, typed with the keyboard; the page never shows it.
    page.focus("#secret-name")
    page.keyboard.type("warehouse_dsn")
    page.keyboard.press("Tab")
    assert _focused_id(page) == "secret-value"
    page.keyboard.type(dsn)
    page.keyboard.press("Enter")
    page.locator("#section-secrets li", has_text="warehouse_dsn").wait_for()
    # The secret picker of the database form follows the new secret.
    page.locator("#database-secret option[value=warehouse_dsn]").wait_for(state="attached")

    form = page.locator("#database-form")
    page.focus("#database-name")
    page.keyboard.type("warehouse")
    page.keyboard.press("Tab")
    assert _focused_id(page) == "database-secret"
    page.select_option("#database-secret", "warehouse_dsn")
    page.keyboard.press("Tab")
    assert _focused_id(page) == "database-prefix"
    page.keyboard.type("warehouse")
    page.keyboard.press("Enter")
    row = databases.locator("tr[data-database=warehouse]")
    row.wait_for()
    assert "warehouse.query" in row.inner_text()
    row.get_by_role("button", name="Test connection of warehouse").click()
    row.locator(".slot .ok", has_text="Reachable").wait_for()
    assert dsn not in page.content()
    # The secret changes behind the page's back: the test says why it no longer connects.
    space_api(
        ui_base, owner, "PUT", "/secrets/warehouse_dsn", json={"value": "postgresql://u:p@127.0.0.1:1/db"}
    )
    row.get_by_role("button", name="Test connection of warehouse").click()
    row.locator(".slot .mark.problem", has_text="database_unavailable").wait_for()
    _no_violations(page, "connections-database")

    # A superuser's DSN: the role check's refusal shows beside the form, naming why.
    page.fill("#database-name", "rooted")
    page.select_option("#database-secret", "root_dsn")
    page.fill("#database-prefix", "rooted")
    form.locator("button[type=submit]").click()
    form.locator(".error[role=alert]", has_text="database_role_unsafe").wait_for()
    assert "superuser" in form.locator(".error[role=alert]").inner_text()
    assert root_dsn not in page.content()

    # The same name again: the conflict shows beside the form.
    page.fill("#database-name", "warehouse")
    page.select_option("#database-secret", "warehouse_dsn")
    page.fill("#database-prefix", "other")
    form.locator("button[type=submit]").click()
    form.locator(".error[role=alert]", has_text="database_exists").wait_for()

    # Edit: a new prefix renames its capabilities.
    row.get_by_role("button", name="Edit database warehouse").click()
    page.locator("form[aria-label='Edit warehouse']").wait_for()
    page.fill("#database-prefix", "sales")
    page.locator("#database-form button[type=submit]").click()
    databases.locator("tr[data-database=warehouse]", has_text="sales.query").wait_for()
    [registered] = space_api(ui_base, owner, "GET", "/databases").json()
    assert registered["tool_prefix"] == "sales"

    # A bad edit is refused beside the form and changes nothing.
    databases.locator("tr[data-database=warehouse]").get_by_role(
        "button", name="Edit database warehouse"
    ).click()
    page.fill("#database-name", "Not Valid!")
    page.evaluate("() => document.getElementById('database-name').removeAttribute('pattern')")
    page.locator("#database-form button[type=submit]").click()
    page.locator("#database-form .error[role=alert]").wait_for()
    assert space_api(ui_base, owner, "GET", "/databases").json()[0]["name"] == "warehouse"

    page.once("dialog", lambda dialog: dialog.accept())
    databases.get_by_role("button", name="Delete database warehouse").click()
    databases.locator(".empty").wait_for()
    assert space_api(ui_base, owner, "GET", "/databases").json() == []


def test_plugins_switch_per_space_and_webhook_endpoints_are_managed(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    _open(page, owner)
    plugins = page.locator("#section-plugins")
    uptime = plugins.locator("article[data-plugin=uptime]")
    uptime.wait_for()
    assert uptime.get_attribute("data-state") == "disabled"
    broken = plugins.locator("article[data-plugin=broken]")
    assert broken.get_attribute("data-state") == "error"
    assert "Load error" in broken.locator(".mark.problem").inner_text()
    assert broken.get_by_role("button").count() == 0

    uptime.get_by_role("button", name="Enable plugin uptime").click()
    plugins.locator("article[data-plugin=uptime][data-state=enabled]").wait_for()
    assert "Actions" in plugins.locator("article[data-plugin=uptime]").inner_text()
    enabled = {p["id"]: p["enabled"] for p in space_api(ui_base, owner, "GET", "/plugins").json()}
    assert enabled["uptime"] is True
    _no_violations(page, "connections-plugins")
    page.once("dialog", lambda dialog: dialog.dismiss())
    plugins.get_by_role("button", name="Disable plugin uptime").click()
    assert {p["id"]: p["enabled"] for p in space_api(ui_base, owner, "GET", "/plugins").json()}["uptime"]
    page.once("dialog", lambda dialog: dialog.accept())
    plugins.get_by_role("button", name="Disable plugin uptime").click()
    plugins.locator("article[data-plugin=uptime][data-state=disabled]").wait_for()

    # Webhook endpoints: a bad URL is refused beside the form; a good one shows its secret once.
    hooks = page.locator("#section-webhooks")
    hooks.locator(".empty", has_text="No endpoints").wait_for()
    page.fill("#endpoint-url", "http://169.254.169.254/hook")
    page.locator("#endpoint-form button[type=submit]").click()
    page.locator("#endpoint-form .error[role=alert]").wait_for()
    target = f"{loopback.url}/hooks/{uuid.uuid4().hex[:6]}"
    page.fill("#endpoint-url", target)
    page.fill("#endpoint-description", "Team alerts")
    page.locator("#endpoint-form button[type=submit]").click()
    first = hooks.locator(".secret", has_text="whsec_")
    first.wait_for()
    first_secret = first.locator("code").inner_text()
    item = hooks.locator("li[data-endpoint]", has_text=target)
    item.wait_for()
    _no_violations(page, "connections-webhooks")

    item.get_by_role("button", name="Edit endpoint Team alerts").click()
    page.locator("form[aria-label='Edit endpoint']").wait_for()
    page.fill("#endpoint-description", "On-call")
    page.fill("#endpoint-events", "automation.run.failed")
    page.uncheck("#endpoint-enabled")
    page.locator("#endpoint-form button[type=submit]").click()
    hooks.locator("li[data-endpoint]", has_text="On-call").wait_for()
    [endpoint] = space_api(ui_base, owner, "GET", "/webhook-endpoints").json()["items"]
    assert (endpoint["description"], endpoint["events"], endpoint["enabled"]) == (
        "On-call",
        ["automation.run.failed"],
        False,
    )
    assert endpoint["url"] == target, "an empty URL field keeps the URL"

    item = hooks.locator("li[data-endpoint]", has_text="On-call")
    page.once("dialog", lambda dialog: dialog.accept())
    item.get_by_role("button", name="Rotate secret of On-call").click()
    rotated = item.locator(".secret", has_text="whsec_")
    rotated.wait_for()
    assert rotated.locator("code").inner_text() != first_secret

    page.once("dialog", lambda dialog: dialog.accept())
    item.get_by_role("button", name="Delete endpoint On-call").click()
    hooks.locator(".empty", has_text="No endpoints").wait_for()
    assert space_api(ui_base, owner, "GET", "/webhook-endpoints").json()["items"] == []

    # The per-run callback secret: created on demand, shown once.
    callbacks = hooks.locator(".callback-secret")
    page.once("dialog", lambda dialog: dialog.accept())
    callbacks.get_by_role("button", name="Create or rotate the callback secret").click()
    callbacks.locator(".secret", has_text="whsec_").wait_for()


def test_bearer_from_a_secret_and_oauth_authorized_and_completed_by_its_starter(
    page: Any,
    owner: Owner,
    oauth_base: str,
    mcp_server: McpTestServer,
    oauth_server: OAuthMcpTestServer,
) -> None:
    token = f"tok-{uuid.uuid4().hex}"
    mcp_server.required_bearer = token
    space_api(oauth_base, owner, "PUT", "/secrets/crm_token", json={"value": token})
    page.goto(f"{oauth_base}/")
    page.fill("#email", owner.email)
    page.fill("#password", owner.password)
    page.click("form[aria-label='Sign in with password'] button[type=submit]")
    page.wait_for_selector("main h1:text-is('Dashboard')")
    page.goto(f"{oauth_base}/connections")
    mcp = page.locator("#section-mcp")
    mcp.locator(".empty").wait_for()
    form = page.locator("form[aria-label='Connect an MCP server']")

    # Bearer: the token comes from a secret picked by name; the server accepts it, the page never shows it.
    page.fill("#mcp-name", "CRM")
    page.fill("#mcp-url", mcp_server.url)
    page.fill("#mcp-prefix", "crm")
    page.select_option("#mcp-auth", "bearer")
    page.locator("#mcp-secret option[value=crm_token]").wait_for(state="attached")
    page.select_option("#mcp-secret", "crm_token")
    form.locator("button[type=submit]").click()
    crm = mcp.locator("article.connection", has_text="CRM")
    crm.locator("[data-harvest=ok]").wait_for(timeout=HARVEST_MS)
    assert "Bearer token from secret crm_token" in crm.inner_text()
    assert token not in page.content()

    # OAuth: the first harvest needs an authorization. Authorize goes to the server's page in this tab
    # (its session token is per tab); the server sends the browser back to the callback, which hands
    # code and state to the UI's completion page, where this user's token completes the flow.
    page.fill("#mcp-name", "Notes")
    page.fill("#mcp-url", oauth_server.url)
    page.fill("#mcp-prefix", "notes")
    page.select_option("#mcp-auth", "oauth")
    form.locator("button[type=submit]").click()
    notes = mcp.locator("article.connection", has_text="Notes")
    notes.locator(".needs-auth").wait_for()
    notes.locator("[data-harvest=error]").wait_for(timeout=HARVEST_MS)
    notes.get_by_role("button", name="Authorize").click()
    page.wait_for_selector("main h1:text-is('Authorizing an MCP server')")
    page.locator(".oauth-result .ok", has_text="Authorized").wait_for()
    assert page.url == f"{oauth_base}/connections/mcp-oauth", "code and state left the address bar"
    shot(page, "connections-oauth-completed")
    _no_violations(page, "connections-oauth-completed")
    page.get_by_role("link", name="Back to Connections").click()
    page.wait_for_selector("main h1:text-is('Connections')")
    notes = page.locator("#section-mcp article.connection", has_text="Notes")
    notes.locator("[data-harvest=ok]").wait_for(timeout=HARVEST_MS)
    assert notes.locator(".needs-auth").count() == 0
    _no_violations(page, "connections-mcp-authorized")


def test_someone_else_following_the_starters_authorization_link_completes_nothing(
    page: Any, owner: Owner, oauth_base: str, oauth_server: OAuthMcpTestServer
) -> None:
    body = {"name": "Notes", "url": oauth_server.url, "tool_prefix": "notes", "auth": {"type": "oauth"}}
    made = space_api(oauth_base, owner, "POST", "/mcp/connections", json=body).json()
    started = space_api(oauth_base, owner, "POST", f"/mcp/connections/{made['id']}/authorize").json()
    colleague_token = new_member_token(oauth_base, owner, role="admin")
    page.goto(f"{oauth_base}/")
    page.locator("summary", has_text="Use an API token instead").click()
    page.fill("#token", colleague_token)
    page.click("form[aria-label='Sign in with an API token'] button[type=submit]")
    page.wait_for_selector("main h1:text-is('Dashboard')")

    # The link the starter sent: the colleague consents, comes back signed in as themselves.
    page.goto(started["authorization_url"])
    page.wait_for_selector("main h1:text-is('Authorizing an MCP server')")
    page.locator(".oauth-result .error", has_text="oauth_started_by_another_user").wait_for()
    assert not oauth_server.provider.access, "no code was exchanged"
    shown = space_api(oauth_base, owner, "GET", f"/mcp/connections/{made['id']}").json()
    assert shown["needs_authorization"] is True


def test_a_member_reads_connections_and_is_refused_changes_beside_the_form(
    page: Any, owner: Owner, ui_base: str, mcp_server: McpTestServer
) -> None:
    space_api(ui_base, owner, "PUT", "/secrets/crm_token", json={"value": "never-shown"})
    token = new_member_token(ui_base, owner)
    page.goto("/")
    page.locator("summary", has_text="Use an API token instead").click()
    page.fill("#token", token)
    page.click("form[aria-label='Sign in with an API token'] button[type=submit]")
    page.wait_for_selector("main h1:text-is('Dashboard')")
    page.goto("/connections")
    page.wait_for_selector(".loading", state="detached")
    page.locator("#section-secrets li", has_text="crm_token").wait_for()
    assert "never-shown" not in page.content()

    form = page.locator("form[aria-label='Connect an MCP server']")
    page.fill("#mcp-name", "CRM")
    page.fill("#mcp-url", mcp_server.url)
    page.fill("#mcp-prefix", "crm")
    form.locator("button[type=submit]").click()
    refused = form.locator(".error[role=alert]")
    refused.wait_for()
    assert "needs admin" in refused.inner_text()
    assert space_api(ui_base, owner, "GET", "/mcp/connections").json()["items"] == []
    _no_violations(page, "connections-member-refused")
