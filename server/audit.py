"""Graph-based attribution audits: invariants of who-said-what-to-whom, checked in Cypher.

Each check is one ``cypher/audit_*.cypher`` query returning ``violations`` and a small
``sample`` of ids, so a person can paste it into Neo4j Browser and look at the offenders.
Checks marked ``must_be_zero`` are invariants the writers promise; the others are
informational (an unresolved voice is normal until someone names it).
"""

from __future__ import annotations

from dataclasses import dataclass

from voxmem.cypher import query
from voxmem.db import Database


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
    Check("audit_unattributed_messages", False, "messages whose speaker has no participant yet"),
    Check("audit_open_items", False, "open audit items"),
)


@dataclass(frozen=True)
class Finding:
    check: Check
    violations: int
    sample: list[str]

    @property
    def failed(self) -> bool:
        return self.check.must_be_zero and self.violations > 0


def run_audit(db: Database, space: str) -> list[Finding]:
    """Run every check for one space."""
    findings = []
    for check in CHECKS:
        row = db.query(query(check.name), space=space)[0]
        findings.append(Finding(check, int(row["violations"]), [str(s) for s in row["sample"]]))
    return findings


def format_findings(space: str, findings: list[Finding]) -> str:
    lines = [f"attribution audit of space {space!r}"]
    for f in findings:
        status = "FAIL" if f.failed else ("ok" if f.check.must_be_zero else "info")
        sample = f"  e.g. {', '.join(f.sample)}" if f.violations else ""
        lines.append(f"  [{status:>4}] {f.violations:>6}  {f.check.meaning}{sample}")
    return "\n".join(lines)
