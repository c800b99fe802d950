"""Versioned, idempotent schema migrations, applied one after another at start-up.

Migrations are ``migrations/NNNN_name.cypher`` files of schema statements separated by
``;``. Each applied migration is recorded as a ``(:SchemaMigration)`` node with a checksum;
``(:SchemaVersion {id: 'voxmem'}).version`` holds the newest. A lease node serialises
concurrent start-ups (several server processes, tests in parallel), because Neo4j runs
schema commands outside data transactions and two writers would race.

Vector index dimensions come from configuration. ``CREATE ... IF NOT EXISTS`` silently
keeps an existing index of another size, so after migrating we compare and fail loudly.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from voxmem.config import Settings
from voxmem.db import Database
from voxmem.errors import SchemaMismatch

log = logging.getLogger(__name__)

LEASE_SECONDS = 120.0

# Which configured dimension each vector index must have.
VECTOR_INDEX_DIMS = {
    "message_embedding": "text_embedding_dim",
    "fact_embedding": "text_embedding_dim",
    "attribute_embedding": "text_embedding_dim",
    "voiceprint_embedding": "voice_embedding_dim",
    "speaker_centroid": "voice_embedding_dim",
}


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    text: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]

    def statements(self, settings: Settings, legacy: bool = False) -> list[str]:
        """Statements with the dimension placeholders filled in (they are validated ints).

        ``legacy`` (a Neo4j 5.x server): a vector index's filter properties (``WITH [...]``, 2026.x)
        and the ``CYPHER 25`` prefix are dropped, so the same migration gives 5.26 a plain index
        (retrieval then runs the ``*_legacy`` queries, docs/scaling.md).
        """
        body = "\n".join(line for line in self.text.splitlines() if not line.strip().startswith("//"))
        body = body.replace("$text_dim", str(int(settings.text_embedding_dim)))
        body = body.replace("$voice_dim", str(int(settings.voice_embedding_dim)))
        found = [s.strip() for s in body.split(";") if s.strip()]
        if legacy:
            found = [re.sub(r"^CYPHER 25\s+", "", s) for s in found]
            found = [
                re.sub(r"\s+WITH\s+\[[^\]]*\]", "", s) if s.startswith("CREATE VECTOR INDEX") else s
                for s in found
            ]
        return found


def available_migrations() -> list[Migration]:
    """All migration files shipped with the package, in version order."""
    folder = resources.files("voxmem.graph_schema").joinpath("migrations")
    found: list[Migration] = []
    for entry in folder.iterdir():
        match = re.fullmatch(r"(\d{4})_([a-z0-9_]+)\.cypher", entry.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise SchemaMismatch(f"migration versions must be 1..n without gaps, found {versions}")
    return found


def _acquire_lease(db: Database, holder: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        rows = db.execute(
            """
            MERGE (l:SchemaLease {id: 'voxmem'})
            WITH l, timestamp() AS now
            SET l.holder = CASE WHEN l.holder IS NULL OR l.expires < now OR l.holder = $holder
                                THEN $holder ELSE l.holder END,
                l.expires = CASE WHEN l.holder = $holder THEN now + $lease_ms ELSE l.expires END
            RETURN l.holder = $holder AS mine
            """,
            holder=holder,
            lease_ms=int(LEASE_SECONDS * 1000),
        )
        if rows and rows[0]["mine"]:
            return
        if time.monotonic() > deadline:
            raise SchemaMismatch("another process holds the schema lease; gave up waiting")
        time.sleep(0.5)


def _release_lease(db: Database, holder: str) -> None:
    db.execute("MATCH (l:SchemaLease {id: 'voxmem', holder: $holder}) SET l.holder = null", holder=holder)


def applied_migrations(db: Database) -> dict[int, dict[str, Any]]:
    rows = db.query("MATCH (m:SchemaMigration) RETURN m.version AS version, m.checksum AS checksum")
    return {row["version"]: row for row in rows}


def refuse_newer_schema(applied: Iterable[int], shipped: Iterable[int]) -> None:
    """Stop a build from writing to a database a newer build has migrated.

    Why: an older build skips the migrations it does not know and then writes and queries the old
    shape (a property the newer indexes filter on is missing), which surfaced as 500s mid-question
    instead of one clear refusal at start-up.
    """
    newest_applied, newest_shipped = max(applied, default=0), max(shipped, default=0)
    if newest_applied > newest_shipped:
        raise SchemaMismatch(
            f"the database is at schema v{newest_applied}, newer than this build's v{newest_shipped}; "
            "run a voxmem build that ships its migrations (schema changes are never rolled back)"
        )


def schema_version(db: Database) -> int:
    rows = db.query("MATCH (v:SchemaVersion {id: 'voxmem'}) RETURN v.version AS version")
    return int(rows[0]["version"]) if rows else 0


def check_vector_dimensions(db: Database, settings: Settings) -> None:
    """Raise SchemaMismatch when an existing vector index has another size than configured."""
    rows = db.query("SHOW VECTOR INDEXES YIELD name, options RETURN name, options")
    problems = []
    for row in rows:
        field = VECTOR_INDEX_DIMS.get(row["name"])
        if field is None:
            continue
        actual = int((row["options"] or {}).get("indexConfig", {}).get("vector.dimensions", -1))
        wanted = int(getattr(settings, field))
        if actual != wanted:
            problems.append(f"{row['name']}: index has {actual} dimensions, configuration says {wanted}")
    if problems:
        raise SchemaMismatch(
            "vector index dimensions differ from configuration ("
            + "; ".join(problems)
            + "). Re-embed into a new database, or set VOXMEM_TEXT_EMBEDDING_DIM / "
            "VOXMEM_VOICE_EMBEDDING_DIM to match."
        )


def run_statements(db: Database, migration: Migration, settings: Settings) -> None:
    """Run one migration's statements in order (without recording it: :func:`migrate` does). A
    statement holding ``IN TRANSACTIONS`` (a batched data migration, e.g. 0010's back-fill of every
    message) runs in an auto-commit transaction, the only kind that allows it."""
    for statement in migration.statements(settings, legacy=not db.cypher25):
        if "IN TRANSACTIONS" in statement:
            db.execute_batched(statement)
        else:
            db.execute(statement)


def migrate(db: Database, settings: Settings, await_online_s: int = 300) -> int:
    """Apply every pending migration in order; return the schema version now in force."""
    holder = uuid.uuid4().hex
    _acquire_lease(db, holder, timeout_s=await_online_s)
    try:
        done = applied_migrations(db)
        shipped = available_migrations()
        refuse_newer_schema(done, (m.version for m in shipped))
        for migration in shipped:
            if migration.version in done:
                if done[migration.version]["checksum"] != migration.checksum:
                    raise SchemaMismatch(
                        f"migration {migration.version:04d}_{migration.name} changed after it was applied; "
                        "add a new migration instead of editing an applied one"
                    )
                continue
            log.info("applying migration %04d_%s", migration.version, migration.name)
            run_statements(db, migration, settings)
            db.execute(
                """
                CREATE (m:SchemaMigration {version: $version, name: $name, checksum: $checksum,
                                           applied_at: datetime()})
                MERGE (v:SchemaVersion {id: 'voxmem'})
                SET v.version = $version, v.updated_at = datetime()
                """,
                version=migration.version,
                name=migration.name,
                checksum=migration.checksum,
            )
        db.execute(f"CALL db.awaitIndexes({int(await_online_s)})")
        check_vector_dimensions(db, settings)
        return schema_version(db)
    finally:
        _release_lease(db, holder)
