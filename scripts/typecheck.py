"""Type-check the product (``server/``, ``extractors/``, ``graph_schema/``, ``cypher/``) with mypy.

Why this script: setup.py maps the design card's folders onto one import package (``server/`` is
``voxmem``, ``extractors/`` is ``voxmem.extractors``, ...). Python finds that layout through the
editable install's import hook, which mypy cannot run, and mypy has no ``package_dir`` option. So
this script builds the layout as a tree of symlinks in a cache folder (``voxmem/`` with one link
per entry of ``server/`` plus one per mapped sub-package, read from setup.py's ``ROOTS``), runs
``mypy -p voxmem`` on it with the settings in pyproject.toml, and prints paths as they are in the
repository. ``bench/`` is not part of the package (setup.py does not map it): an import of it from
the product fails the check.

Usage: ``python scripts/typecheck.py [extra mypy arguments]``; exit status is mypy's.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def roots() -> dict[str, str]:
    """setup.py's ``ROOTS`` (package -> folder), read without running setup()."""
    tree = ast.parse((REPO / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ROOTS" for t in node.targets):
            return dict(ast.literal_eval(node.value))
    raise SystemExit("setup.py has no ROOTS mapping")


def build_layout(target: Path) -> dict[str, str]:
    """Symlink tree at ``target``; returns {layout path prefix: repository folder} for the output."""
    mapping = roots()
    top = next(pkg for pkg in mapping if "." not in pkg)
    base = target / top
    if target.exists():
        shutil.rmtree(target)  # unlinks the symlinks, never follows them into the repository
    base.mkdir(parents=True)
    prefixes = {}
    for pkg, folder in sorted(mapping.items()):
        if pkg == top:
            for entry in (REPO / folder).iterdir():
                if entry.name != "__pycache__":
                    (base / entry.name).symlink_to(entry)
        else:
            link = target.joinpath(*pkg.split("."))
            link.symlink_to(REPO / folder)
        prefixes[str(target.joinpath(*pkg.split(".")))] = folder
    return prefixes


def main(argv: list[str]) -> int:
    cache = Path(os.environ.get("VOXMEM_CACHE_DIR", Path.home() / ".cache" / "voxmem"))
    layout = cache / "typecheck-layout"
    prefixes = build_layout(layout)
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(REPO / "pyproject.toml"),
        "--cache-dir",
        str(cache / "mypy-cache"),
        "-p",
        "voxmem",
        *argv,
    ]
    env = {**os.environ, "MYPYPATH": str(layout)}
    result = subprocess.run(command, cwd=layout, env=env, capture_output=True, text=True)
    # longest prefix first, so voxmem/extractors maps to extractors/, not server/extractors
    pattern = re.compile("|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True)))
    relative = {str(Path(p).relative_to(layout)): f for p, f in prefixes.items()}
    alternatives = "|".join(re.escape(p) for p in sorted(relative, key=len, reverse=True))
    rel_pattern = re.compile(rf"^({alternatives})(?=/)", re.M)
    out = pattern.sub(lambda m: str(REPO / prefixes[m.group(0)]), result.stdout)
    out = rel_pattern.sub(lambda m: relative[m.group(1)], out)
    sys.stdout.write(out)
    sys.stderr.write(result.stderr)
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
