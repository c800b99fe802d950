"""Graph-based attribution audits: invariants of who-said-what-to-whom, checked in Cypher.

Each check is one ``cypher/audit_<check>.cypher`` query returning ``violations`` and a
``sample`` of node ids, plus ``cypher/audit_<check>_inspect.cypher`` that shows those nodes
with their relationships. A finding carries the inspect query with the space and the ids
written in as literals, so a person can paste it into Neo4j Browser as it is and look at
the offenders. Checks marked ``must_be_zero`` are invariants the writers promise; the
others are informational (an unresolved voice is normal until someone names it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.errors import NotFound


@dataclass(frozen=True)
class Check:
    name: str
    must_be_zero: bool
    meaning: str


CHECKS: tuple[Check, ...] = (
    Check("audit_cross_space_edges", True, "relationships joining two spaces"),
    Check("audit_message_speakers", True, "messages with more than one speaker"),
    Check("audit_next_chain", True, "broken or forked NEXT chains"),
    Check("audit_memory_provenance", True, "facts/attributes without a source message"),
    Check("audit_speaker_identity", True, "voices identified as two people"),
    Check("audit_speaks_voice", True, "spoken turns attributed to someone other than their voice's person"),
    Check("audit_self_addressed", True, "turns addressed to their own speaker"),
    Check("audit_unattributed_messages", False, "messages whose speaker has no participant yet"),
    Check("audit_open_items", False, "open audit items"),
)


def cypher_literal(value: object) -> str:
    """A Cypher literal for a string, number, bool or list of them (for pasteable queries)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def with_literals(cypher: str, **params: object) -> str:
    """``cypher`` with its ``$name`` parameters replaced by literals and comment lines dropped.

    Longer names are replaced first so ``$ids`` never clobbers a ``$idset``.
    """
    body = "\n".join(line for line in cypher.splitlines() if not line.lstrip().startswith("//"))
    for name in sorted(params, key=len, reverse=True):
        body = body.replace(f"${name}", cypher_literal(params[name]))
    return body.strip() + ";"


@dataclass(frozen=True)
class Finding:
    check: Check
    violations: int
    sample: list[str]
    inspect: str = ""

    @property
    def failed(self) -> bool:
        return self.check.must_be_zero and self.violations > 0

    @property
    def status(self) -> str:
        if self.failed:
            return "fail"
        return "ok" if self.check.must_be_zero or self.violations == 0 else "info"


@dataclass(frozen=True)
class AuditReport:
    space: str
    findings: list[Finding] = field(default_factory=list)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    @property
    def failed(self) -> bool:
        return any(f.failed for f in self.findings)

    def summary(self) -> dict[str, int]:
        """How many checks ended in each status (``ok``, ``fail``, ``info``)."""
        counts = {"ok": 0, "fail": 0, "info": 0}
        for f in self.findings:
            counts[f.status] += 1
        return counts

    def to_dict(self) -> dict:
        """The JSON shape shared by ``voxmem audit --json`` and the admin audit route."""
        return {
            "space": self.space,
            "failed": self.failed,
            "summary": self.summary(),
            "findings": [
                {
                    "check": f.check.name,
                    "must_be_zero": f.check.must_be_zero,
                    "meaning": f.check.meaning,
                    "status": f.status,
                    "violations": f.violations,
                    "sample": f.sample,
                    "inspect": f.inspect,
                }
                for f in self.findings
            ],
        }


def run_audit(db: Database, space: str) -> AuditReport:
    """Run every check for one space; an unknown space is :class:`NotFound`, never a clean audit."""
    if not db.query(query("space_get"), space=space):
        raise NotFound(f"unknown space {space!r}: nothing to audit (check the spelling)")
    findings = []
    for check in CHECKS:
        row = db.query(query(check.name), space=space)[0]
        sample = [str(s) for s in row["sample"]]
        inspect = with_literals(query(f"{check.name}_inspect"), space=space, ids=sample) if sample else ""
        findings.append(Finding(check, int(row["violations"]), sample, inspect))
    return AuditReport(space, findings)


def format_report(report: AuditReport) -> str:
    """Human-readable audit: one line per check, then the ids and the query to inspect them."""
    lines = [f"attribution audit of space {report.space!r}"]
    for f in report.findings:
        lines.append(f"  [{f.status.upper():>4}] {f.violations:>6}  {f.check.meaning}  ({f.check.name})")
        if f.sample:
            more = f" (first {len(f.sample)} of {f.violations})" if f.violations > len(f.sample) else ""
            lines.append(f"           ids{more}: {', '.join(f.sample)}")
            lines.append("           inspect in Browser: " + " ".join(f.inspect.split()))
    s = report.summary()
    lines.append(
        f"summary: {len(report.findings)} checks, {s['ok']} ok, {s['fail']} failed, {s['info']} informational"
    )
    return "\n".join(lines)


def format_json(report: AuditReport) -> str:
    return json.dumps(report.to_dict(), indent=2)
