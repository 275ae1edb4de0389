"""The Documents page in Chromium against the real API and worker: a text file dropped on the page is
indexed, found by a search and deleted; a file chosen with the picker is added; refused uploads show
their status, code and message and leave the rest of the page as it was; document text that looks like
markup stays text; the paste form works from the keyboard."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)

# Indexing runs on the worker's system queue; on two busy cores that can take a while.
INDEXED_MS = 90_000


def drop_files(page: Any, files: list[tuple[str, str, str]]) -> None:
    """Drop (name, type, text) files on the drop zone, as a drag from the desktop does."""
    transfer = page.evaluate_handle(
        """(files) => {
            const transfer = new DataTransfer();
            for (const [name, type, text] of files) transfer.items.add(new File([text], name, { type }));
            return transfer;
        }""",
        files,
    )
    page.dispatch_event("#dropzone", "dragover", {"dataTransfer": transfer})
    page.dispatch_event("#dropzone", "drop", {"dataTransfer": transfer})


def drop_large_file(page: Any, name: str, size: int) -> None:
    """Drop a file of `size` zero bytes, built in the page rather than sent over the test's wire."""
    transfer = page.evaluate_handle(
        """([name, size]) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([new Uint8Array(size)], name, { type: "text/plain" }));
            return transfer;
        }""",
        [name, size],
    )
    page.dispatch_event("#dropzone", "drop", {"dataTransfer": transfer})


def row(page: Any, title: str) -> Any:
    return page.locator("#documents-table tbody tr", has=page.locator(".doc-title", has_text=title))


def open_documents(page: Any, owner: Owner) -> None:
    sign_in(page, owner)
    page.click("nav[aria-label='Main'] a:text-is('Documents')")
    page.wait_for_selector("main h1:text-is('Documents')")
    page.wait_for_selector("main .loading", state="detached")


def test_a_dropped_file_is_indexed_found_by_search_and_deleted(page: Any, owner: Owner, ui_base: str) -> None:
    word = f"zebrafish{uuid.uuid4().hex[:6]}"
    open_documents(page, owner)
    page.wait_for_selector("main .empty:has-text('No documents yet')")
    page.fill("#upload-tags", "handbook, ops")
    drop_files(
        page,
        [
            ("field-notes.txt", "text/plain", f"Field notes.\n\nThe {word} swims in the north tank."),
            # Accepted (it starts like a PDF), then the worker cannot read it.
            ("broken.pdf", "application/pdf", "%PDF-1.4 not really a PDF"),
        ],
    )
    page.wait_for_selector("#upload-log .upload[data-result='added']:has-text('field-notes.txt')")
    page.wait_for_selector("#upload-log .upload[data-result='added']:has-text('broken.pdf')")
    notes = row(page, "field-notes")
    notes.wait_for()
    # The rows follow the worker's indexing without a reload.
    notes.locator(".badge[data-status='indexed']").wait_for(timeout=INDEXED_MS)
    broken = row(page, "broken")
    broken.locator(".badge[data-status='failed']").wait_for(timeout=INDEXED_MS)
    assert "PDF" in broken.locator(".doc-status .reason").inner_text()
    assert notes.locator(".tag").all_inner_texts() == ["handbook", "ops"]
    assert "chunk" in notes.locator(".doc-status").inner_text()
    assert not axe_violations(page), axe_violations(page)

    page.fill("#document-query", word)
    page.press("#document-query", "Enter")
    hit = page.locator("#search-results .result").first
    hit.wait_for()
    assert hit.locator("h3").inner_text() == "field-notes"
    assert hit.locator(".score").inner_text().startswith("score ")
    assert word in hit.locator(".snippet").inner_text()
    assert not axe_violations(page), axe_violations(page)
    shot(page, "documents")

    document_id = notes.get_attribute("data-document")
    page.once("dialog", lambda dialog: dialog.accept())
    notes.locator("button:text-is('Delete')").click()
    page.wait_for_selector("main .ok:has-text('Deleted “field-notes”.')")
    notes.wait_for(state="detached")
    page.wait_for_selector("#search-results .result", state="detached")
    gone = space_api(ui_base, owner, "GET", f"/documents/{document_id}", check=False)
    assert gone.status_code == 404, gone.text


def test_declining_the_confirmation_deletes_nothing(page: Any, owner: Owner, ui_base: str) -> None:
    kept = space_api(
        ui_base, owner, "POST", "/documents", json={"title": "Keep me", "text": "Stays.", "tags": []}
    ).json()
    open_documents(page, owner)
    page.once("dialog", lambda dialog: dialog.dismiss())
    row(page, "Keep me").locator("button:text-is('Delete')").click()
    assert row(page, "Keep me").count() == 1
    assert space_api(ui_base, owner, "GET", f"/documents/{kept['id']}").status_code == 200


def test_refused_uploads_show_their_error_and_lose_nothing(page: Any, owner: Owner, ui_base: str) -> None:
    space_api(
        ui_base,
        owner,
        "POST",
        "/documents",
        json={"title": "Already here", "text": "Old text.", "tags": ["x"]},
    )
    open_documents(page, owner)
    row(page, "Already here").wait_for()
    # Work in progress elsewhere on the page.
    page.fill("#upload-tags", "drafts")
    page.click("summary:text-is('Paste text instead')")
    page.fill("#paste-title", "Half written")
    page.fill("#paste-text", "A note I am still typing.")
    page.fill("#document-query", "old")

    page.set_input_files(
        "#document-files",
        files=[
            {"name": "tool.bin", "mimeType": "application/octet-stream", "buffer": b"\x00\x01\x02binary"},
            {
                "name": "readme.md",
                "mimeType": "text/markdown",
                "buffer": b"# Readme\n\nPicked with the picker.",
            },
        ],
    )
    refused = page.locator("#upload-log .upload[data-result='refused']:has-text('tool.bin')")
    refused.wait_for()
    assert "HTTP 415" in refused.inner_text()
    assert "unsupported_document_type" in refused.inner_text()
    # The next file of the same choice still goes up.
    page.wait_for_selector("#upload-log .upload[data-result='added']:has-text('readme.md')")
    row(page, "readme").wait_for()

    drop_large_file(page, "huge.txt", 21 * 1024 * 1024)
    too_big = page.locator("#upload-log .upload[data-result='refused']:has-text('huge.txt')")
    too_big.wait_for()
    assert "HTTP 413" in too_big.inner_text()
    assert "document_too_large" in too_big.inner_text()
    assert not axe_violations(page), axe_violations(page)
    shot(page, "documents-refused")

    assert page.input_value("#upload-tags") == "drafts"
    assert page.input_value("#paste-title") == "Half written"
    assert page.input_value("#paste-text") == "A note I am still typing."
    assert page.input_value("#document-query") == "old"
    assert row(page, "Already here").count() == 1
    assert refused.count() == 1
    titles = {d["title"] for d in space_api(ui_base, owner, "GET", "/documents").json()["items"]}
    assert titles == {"Already here", "readme"}

    # The filters narrow the list and stay in the URL across a reload.
    page.select_option("#filter-source", "upload")
    row(page, "readme").wait_for()
    assert row(page, "Already here").count() == 0
    page.reload()
    row(page, "readme").wait_for()
    assert page.input_value("#filter-source") == "upload"
    assert row(page, "Already here").count() == 0


def test_markup_in_a_document_stays_text(page: Any, owner: Owner) -> None:
    # PostgreSQL's text parser reads this as words, not as a tag, so the search snippet keeps it whole.
    payload = "<img src=x onerror=alert(1)>"
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    open_documents(page, owner)
    # The paste form from the keyboard alone.
    page.focus("summary:text-is('Paste text instead')")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.type(f"Trap {payload}")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.type(f"Walrus census. {payload} The walrus count rose again.")
    page.keyboard.press("Tab")
    page.keyboard.type("security")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector("main .ok:has-text('Added “Trap')")
    trap = row(page, "Trap")
    trap.locator(".badge[data-status='indexed']").wait_for(timeout=INDEXED_MS)
    assert trap.locator(".doc-title").inner_text() == f"Trap {payload}"

    page.fill("#document-query", "walrus")
    page.click("form[role='search'] button[type='submit']")
    hit = page.locator("#search-results .result").first
    hit.wait_for()
    assert hit.locator("h3").inner_text() == f"Trap {payload}"
    snippet = hit.locator(".snippet")
    assert payload in snippet.inner_text()
    # The server's marks around the matched words are the only thing read out of a snippet.
    assert {text.lower() for text in snippet.locator("mark").all_inner_texts()} == {"walrus"}
    assert page.locator("main img").count() == 0
    assert not dialogs
