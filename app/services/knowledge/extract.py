"""Turning an upload's bytes into text: the format check at upload, and the extractors the indexer runs.

Libraries, each maintained and pure Python (no system packages): pypdf for PDF (reads the text layer
and tells an encrypted file apart), python-docx for DOCX (paragraphs and tables), BeautifulSoup with
the standard library's HTML parser for HTML (drops scripts and styles, keeps the visible text).
A DOCX is a zip archive: its central directory is read and its uncompressed sizes checked before any
parser inflates a member, so a small file that expands to gigabytes is refused, not unpacked.

The three libraries are imported by the extractor that needs them, on its first call: together they are
about 24 MiB and up to a quarter of a second of start-up in every api and worker process, and only a worker
indexing a document of their format uses them.
"""

from __future__ import annotations

import io
import re
import zipfile

FORMATS = ("text", "markdown", "html", "pdf", "docx")
# A DOCX may expand to at most this much, in at most this many members (real documents are far below).
DOCX_MAX_UNCOMPRESSED = 100 * 1024**2
DOCX_MAX_MEMBERS = 2000
_EXTENSIONS = {
    ".txt": "text",
    ".text": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}
_CONTENT_TYPES = {
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
}
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


class ExtractionFailed(Exception):
    """The bytes are not a readable document of their format; `reason` says why (shown to the user)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def detect_format(filename: str | None, content_type: str | None, head: bytes) -> str | None:
    """The document format of an upload from its name, declared type and first bytes; None if unsupported.

    The bytes have the last word where they can: a `.pdf` that is not `%PDF-` is refused, as is a
    `.docx` that is not a zip archive.
    """
    declared = (content_type or "").split(";")[0].strip().lower()
    by_name = None
    if filename and "." in filename:
        by_name = _EXTENSIONS.get(filename[filename.rfind(".") :].lower())
    chosen = by_name or _CONTENT_TYPES.get(declared)
    if head.startswith(b"%PDF-"):
        return "pdf" if chosen in (None, "pdf") else None
    if head.startswith(b"PK\x03\x04"):
        return "docx" if chosen in (None, "docx") else None
    if chosen in ("pdf", "docx") or chosen is None:
        return None
    return chosen


def archive_problem(data: bytes) -> str | None:
    """Why a DOCX archive is refused before it is opened, or None."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, ValueError):
        return "the file is not a readable DOCX (zip) archive"
    if len(members) > DOCX_MAX_MEMBERS:
        return f"the DOCX archive has {len(members)} members (at most {DOCX_MAX_MEMBERS})"
    expanded = sum(member.file_size for member in members)
    if expanded > DOCX_MAX_UNCOMPRESSED:
        return f"the DOCX archive expands to {expanded} bytes (at most {DOCX_MAX_UNCOMPRESSED})"
    if not any(member.filename == "word/document.xml" for member in members):
        return "the archive is not a Word document (no word/document.xml)"
    return None


def decode_text(data: bytes) -> str:
    """UTF-8 text (a byte-order mark dropped); anything else fails."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ExtractionFailed("the file is not UTF-8 text") from None


def _tidy(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return _BLANK_RUNS.sub("\n\n", text).strip()


def _html(data: bytes) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(data, "html.parser")
    for hidden in soup(["script", "style", "noscript", "template", "head"]):
        hidden.decompose()
    return soup.get_text("\n")


def _pdf(data: bytes, max_chars: int) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ExtractionFailed("the PDF is encrypted; upload a copy without a password")
        parts: list[str] = []
        total = 0
        for page in reader.pages:
            page_text = page.extract_text() or ""
            parts.append(page_text)
            total += len(page_text)
            if total >= max_chars:
                break
    except ExtractionFailed:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ExtractionFailed(f"the PDF could not be read ({type(exc).__name__})") from None
    return "\n\n".join(parts)


def _docx(data: bytes) -> str:
    problem = archive_problem(data)
    if problem is not None:
        raise ExtractionFailed(problem)
    from docx import Document as DocxDocument

    try:
        document = DocxDocument(io.BytesIO(data))
    except (ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise ExtractionFailed(f"the DOCX could not be read ({type(exc).__name__})") from None
    parts = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append(" | ".join(cell.text for cell in row.cells))
    return "\n\n".join(parts)


def extract_text(format: str, data: bytes, *, max_chars: int) -> str:
    """The text of a document of `format`, tidied and cut to `max_chars`; `ExtractionFailed` otherwise."""
    if format in ("text", "markdown"):
        text = decode_text(data)
    elif format == "html":
        text = _html(data)
    elif format == "pdf":
        text = _pdf(data, max_chars)
    elif format == "docx":
        text = _docx(data)
    else:
        raise ExtractionFailed(f"unsupported format {format!r}")
    return _tidy(text)[:max_chars]
