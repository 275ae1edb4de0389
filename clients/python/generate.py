"""Generate the Python client (`clients/python/automations_client/`) from the API's OpenAPI document.

`make python-client` runs it after an API change; tests/contract/test_python_client.py checks that the
committed package is what the current document generates. The generator (openapi-python-client, pinned
in pyproject.toml) reads a copy of the document in which the recursive `StorableJson` value is an open
JSON value: it cannot build a type from a recursive union, and the server checks those values anyway.
Its formatting hooks are off, so the output depends on the document and the generator's version only.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PACKAGE = "automations_client"
CONFIG = HERE / "generator.yaml"
RECURSIVE_VALUES = ("StorableJson",)


def generator_document(document: dict[str, object]) -> dict[str, object]:
    """`document` with each recursive value schema read as an open JSON value."""
    reduced = json.loads(json.dumps(document))
    schemas = reduced.get("components", {}).get("schemas", {})
    for name in RECURSIVE_VALUES:
        if name in schemas:
            schemas[name] = {"description": schemas[name].get("description", "Any JSON value.")}
    return reduced


def generate(document_text: str, target: Path) -> None:
    """Write the generated package for `document_text` to `target` (replacing it)."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "openapi.json"
        source.write_text(json.dumps(generator_document(json.loads(document_text))), encoding="utf-8")
        out = Path(folder) / "out"
        done = subprocess.run(
            [
                str(Path(sys.executable).with_name("openapi-python-client")),
                "generate",
                "--path",
                str(source),
                "--output-path",
                str(out),
                "--meta",
                "none",
                "--config",
                str(CONFIG),
                "--fail-on-warning",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"openapi-python-client failed:\n{done.stdout}\n{done.stderr}")
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(out, target)
    # The package's annotations are its types (PEP 561).
    (target / "py.typed").write_text("", encoding="utf-8")


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from app.openapi_export import openapi_text

    generate(openapi_text(), HERE / PACKAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
