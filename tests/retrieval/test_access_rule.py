"""The access rule lives in one place: the fragments of ``cypher/access/``.

Every retrieval query (any ``cypher/*.cypher`` whose composed text takes ``$access_policy``
(or ``$policy``) or ``$asker``, and every query a registered retrieval tool declares) must
compose the fragments (``@access.asker()`` plus the rule of what it returns) and must not
write any part of the rule itself. A self-check feeds the checker a query with the rule
pasted in (the composed text of a real query), so the test can fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from voxmem import cypher
from voxmem.cypher import compose, includes, query, source
from voxmem.retrieval.tools import TOOLS, Retriever

ROOT = Path(__file__).resolve().parents[2]
CYPHER = ROOT / "cypher"
ACCESS = CYPHER / "access"
QUERIES = sorted(p.stem for p in CYPHER.glob("*.cypher"))

# Queries that take $asker or $policy but return no evidence, with the reason.
NOT_RETRIEVAL = {
    "retrieve_scope": "reads the Space's policy and resolves the asker before any retrieval",
    "space_create": "writes a new Space's policy",
}
# Fragments an exempt query may include: they return no evidence, with the reason.
NO_EVIDENCE = {"layers.present": "two booleans: whether the space holds any fact, any attribute"}
RULES = ("access.message", "access.fact", "access.attribute")
# Pieces of the rule a query must never write itself (only cypher/access/ may).
RULE_TEXT = [
    re.compile(r"\$(access_)?policy\b"),
    re.compile(r"\$asker\b"),
    re.compile(r"PARTICIPATED_IN"),
    re.compile(r"\bIN\s+asker_sessions\b"),
    re.compile(r"\basker\s+IS\s+(NOT\s+)?NULL", re.I),
    re.compile(r"\(asker\)\s*-|->\s*\(asker\)|<-\s*\(asker\)"),
]


def _body(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))


def rule_problems(text: str) -> list[str]:
    """Why a retrieval query's raw text does not apply the access rule from the fragments."""
    body = _body(text)
    found = includes(text)
    problems = []
    if "access.asker" not in found:
        problems.append("does not include @access.asker()")
    if not any(rule in found for rule in RULES):
        problems.append(f"includes none of {', '.join('@' + r for r in RULES)}")
    problems += [f"writes its own access check ({p.pattern})" for p in RULE_TEXT if p.search(body)]
    return problems


def _takes_scope(name: str) -> bool:
    return bool(re.search(r"\$(access_policy|policy|asker)\b", _body(query(name))))


def retrieval_queries() -> set[str]:
    declared = {q for cls in TOOLS.values() for q in cls.queries}
    return ({name for name in QUERIES if _takes_scope(name)} | declared) - set(NOT_RETRIEVAL)


def test_every_retrieval_query_composes_the_access_rule() -> None:
    names = retrieval_queries()
    assert len(names) >= 16, sorted(names)
    bad = {name: rule_problems(source(name)) for name in sorted(names)}
    assert not {n: p for n, p in bad.items() if p}, bad


def test_every_registered_tool_query_is_checked() -> None:
    checked = retrieval_queries()
    for name, cls in TOOLS.items():
        assert cls.queries, f"tool {name} declares no queries"
        assert set(cls.queries) <= checked, f"tool {name}: {set(cls.queries) - checked} escape the check"


def test_exemptions_are_real_and_return_no_evidence() -> None:
    for name in NOT_RETRIEVAL:
        assert name in QUERIES, f"stale exemption {name}"
        assert set(includes(source(name))) <= set(NO_EVIDENCE), name
    assert not any(set(cls.queries) & set(NOT_RETRIEVAL) for cls in TOOLS.values())


def test_the_check_fails_on_a_pasted_rule() -> None:
    """The composed text of a real query carries the whole rule but no include: it must fail."""
    pasted = query("retrieve_facts_fulltext")
    problems = rule_problems(pasted)
    assert "does not include @access.asker()" in problems
    assert any("writes its own access check" in p for p in problems)
    # a query that includes the fragments but adds its own policy test also fails
    sneaky = source("retrieve_messages_vector").replace(
        "WHERE m.space = $space", "WHERE m.space = $space AND ($access_policy = 'open' OR true)"
    )
    assert sneaky != source("retrieve_messages_vector")
    assert rule_problems(sneaky) == ["writes its own access check (\\$(access_)?policy\\b)"]


def test_the_rule_text_exists_once() -> None:
    """Outside cypher/access/ no .cypher or Python file of the product spells the rule."""
    needle = "PARTICIPATED_IN]->(s:Session) | s.id]"
    holders = [
        str(p.relative_to(ROOT))
        for folder in ("cypher", "server", "graph_schema", "extractors", "notebooks")
        for p in (ROOT / folder).rglob("*")
        if p.suffix in (".cypher", ".py", ".ipynb", ".html") and needle in p.read_text(encoding="utf-8")
    ]
    assert holders == ["cypher/access/asker.cypher"]


def test_fragments_compose() -> None:
    """Each fragment declares itself; composition expands every include and is idempotent."""
    for path in sorted(ACCESS.glob("*.cypher")):
        params, body = cypher.fragment("access", path.stem)
        assert body and "//" not in body.splitlines()[0]
        assert all(p.isidentifier() for p in params), (path.name, params)
    for name in QUERIES:
        text = query(name)
        assert "@access." not in _body(text), name
        assert compose(text) == text
    with pytest.raises(ValueError, match="takes 1 argument"):
        compose("MATCH (m) WHERE @access.message(m, x) RETURN m")


def test_tools_run_only_declared_queries() -> None:
    class Sneaky(Retriever):
        name, queries = "sneaky", ("retrieve_messages_vector",)

    with pytest.raises(RuntimeError, match="does not declare"):
        Sneaky(db=None).run("retrieve_messages_fulltext")  # type: ignore[arg-type]
