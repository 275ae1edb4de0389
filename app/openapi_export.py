"""Write the API's OpenAPI document to `ui/openapi.json`, the source the web UI's client is generated from.

`python -m app.openapi_export` (or `make ui-client`, which also regenerates the UI's types). The
document is built from the application itself, without a database or broker: routes and schemas only.
Keys are sorted and the text ends with a newline, so the same API always writes the same bytes and a
diff of the file is a diff of the API.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.config import Settings
from app.main import create_app

DEFAULT_TARGET = Path(__file__).resolve().parent.parent / "ui" / "openapi.json"


def openapi_document() -> dict[str, Any]:
    """The completed OpenAPI document of the application, as `/openapi.json` serves it."""
    return create_app(Settings()).openapi()


def openapi_text() -> str:
    """The document as stable text: sorted keys, two-space indent, a final newline."""
    return json.dumps(openapi_document(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the document to `--out` (default `ui/openapi.json`) when it changed."""
    parser = argparse.ArgumentParser(description="Write the API's OpenAPI document for the web UI.")
    parser.add_argument("--out", type=Path, default=DEFAULT_TARGET)
    args = parser.parse_args(argv)
    text = openapi_text()
    if not args.out.is_file() or args.out.read_text(encoding="utf-8") != text:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
