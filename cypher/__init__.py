"""Cypher queries as ``.cypher`` files, pasteable into Neo4j Browser.

Each file holds one query, with a header comment saying what it does and which
parameters it takes. Python code loads them by name with :func:`query`.

The access rule (MODEL.md "Access scopes"), the project's security rule, is written once,
in the fragments under ``cypher/access/``. A query composes them with an include such as
``@access.asker()`` (a clause) or ``@access.message(m)`` (a boolean expression over ``m``);
:func:`query` expands every include when the file is loaded, so the rule's text exists once
and no query can carry a stale copy of it. ``@`` is not Cypher, so a file with includes
cannot be pasted into Browser as it stands: ``voxmem cypher show NAME`` prints the composed
query (with its ``:param`` header), which can.
"""

from __future__ import annotations

import re
from functools import cache, partial
from importlib import resources
from importlib.abc import Traversable

ROOT: Traversable = resources.files(__name__)
# @<folder>.<fragment>(<arguments>): arguments are variable names (or simple expressions
# without parentheses) substituted for the fragment's declared parameters.
INCLUDE = re.compile(r"@(?P<folder>[a-z_]+)\.(?P<name>[a-z_]+)\((?P<args>[^()]*)\)")
# A fragment file starts with "// @access.message(m): what it means"; the names in
# parentheses are its parameters.
DECLARATION = re.compile(r"^// @(?P<folder>[a-z_]+)\.(?P<name>[a-z_]+)\((?P<params>[^()]*)\)")
MAX_DEPTH = 4


def _read(relative: str) -> str:
    return ROOT.joinpath(relative).read_text(encoding="utf-8")


@cache
def fragment(folder: str, name: str) -> tuple[tuple[str, ...], str]:
    """A fragment's parameter names and its body (its leading comment block dropped)."""
    text = _read(f"{folder}/{name}.cypher")
    lines = text.splitlines()
    declared = DECLARATION.match(lines[0]) if lines else None
    if declared is None or (declared["folder"], declared["name"]) != (folder, name):
        raise ValueError(f"cypher/{folder}/{name}.cypher must start with '// @{folder}.{name}(params): …'")
    params = tuple(p.strip() for p in declared["params"].split(",") if p.strip())
    i = 0
    while i < len(lines) and lines[i].lstrip().startswith("//"):
        i += 1
    body = "\n".join(lines[i:]).strip().rstrip(";")
    return params, body


def _expand(match: re.Match[str], source: str, depth: int) -> str:
    folder, name = match["folder"], match["name"]
    params, body = fragment(folder, name)
    args = [a.strip() for a in match["args"].split(",") if a.strip()]
    if len(args) != len(params):
        raise ValueError(f"@{folder}.{name} takes {len(params)} argument(s) {params}, got {args}")
    for param, arg in zip(params, args, strict=True):
        # whole identifiers only: not $param, not x.param, not a longer name
        body = re.sub(rf"(?<![\w$.]){re.escape(param)}(?!\w)", arg, body)
    body = compose(body, depth + 1)
    # continuation lines line up under the include, so the composed query reads as written
    line_start = source.rfind("\n", 0, match.start()) + 1
    indent = " " * (match.start() - line_start)
    return body.replace("\n", "\n" + indent)


def compose(text: str, depth: int = 0) -> str:
    """``text`` with every ``@folder.fragment(args)`` include expanded (comment lines untouched)."""
    if depth > MAX_DEPTH:
        raise ValueError("cypher fragments nest too deeply (an include cycle?)")
    out = []
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("//"):
            out.append(line)
        else:
            out.append(INCLUDE.sub(partial(_expand, source=line, depth=depth), line))
    return "".join(out)


def includes(text: str) -> list[str]:
    """The fragments a query text includes directly (``folder.name``), comment lines ignored."""
    found = []
    for line in text.splitlines():
        if not line.lstrip().startswith("//"):
            found += [f"{m['folder']}.{m['name']}" for m in INCLUDE.finditer(line)]
    return found


def source(name: str) -> str:
    """The raw text of ``cypher/<name>.cypher``, includes not expanded."""
    return _read(f"{name}.cypher")


@cache
def query(name: str) -> str:
    """Composed text of ``cypher/<name>.cypher`` (comment lines kept: Neo4j ignores ``//`` lines)."""
    return compose(source(name)).strip().rstrip(";")


def show(name: str) -> str:
    """The composed query as a file to paste into Neo4j Browser (``:param`` header first)."""
    return query(name) + ";\n"
