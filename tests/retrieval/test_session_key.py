"""The session key (issue 17, migration 0011): `<space>~<session>` on every Message, the filter
property the vector index searches participant and private scopes by (@access.session_key,
@access.message_search). A message without it, or with another space's key, is invisible to those
searches, so every writer must set it from the one fragment, the migration must back-fill it with
the same expression, and an imported space must get its own keys."""

from __future__ import annotations

import io
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from voxmem.cypher import compose, query
from voxmem.graph_schema.migrate import available_migrations
from voxmem.portability import export_space, import_space
from voxmem.stores.messages import Turn

ROOT = Path(__file__).resolve().parents[2]
KEY = re.compile(r"session_key\s*[:=]\s*@access\.session_key\(")


def _body(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))


def test_every_writer_of_a_message_writes_its_session_key() -> None:
    """Each product and benchmark Cypher file that creates a Message sets `session_key` from the
    fragment, and migration 0011 back-fills older messages with the fragment's expression."""
    writers = []
    for path in sorted([*(ROOT / "cypher").glob("*.cypher"), *(ROOT / "bench" / "cypher").glob("*.cypher")]):
        body = _body(path.read_text(encoding="utf-8"))
        if re.search(r"CREATE\s*\(\s*\w+\s*:\s*Message\b", body):
            writers.append(path.stem)
            assert KEY.search(body), f"{path.name} creates a Message without @access.session_key"
    expected = {"message_append", "message_batch_append", "message_audio_append", "load_messages"}
    assert expected <= set(writers)
    # the import creates nodes of any label, a Message among them, and sets the key for its space
    importer = _body((ROOT / "cypher" / "space_import_nodes.cypher").read_text(encoding="utf-8"))
    assert re.search(r"n\.session_key\s*=.*@access\.session_key\(n\.space, n\.session\)", importer)
    migration = next(m for m in available_migrations() if m.version == 11)
    squash = lambda s: re.sub(r"\s+", "", s)  # noqa: E731
    assert squash(compose("@access.session_key(m.space, m.session)")) in squash(migration.text)


def test_migration_0011_filters_the_vector_index_on_the_key_and_drops_it_for_neo4j_5(settings) -> None:
    migration = next(m for m in available_migrations() if m.version == 11)
    modern = migration.statements(settings)
    legacy = migration.statements(settings, legacy=True)
    assert any("WITH [m.space, m.session_key]" in s and s.startswith("CYPHER 25") for s in modern)
    assert not any("WITH [" in s or "CYPHER 25" in s for s in legacy)
    assert any(s.startswith("CREATE VECTOR INDEX message_embedding") for s in legacy)
    # the participant and private search filters on the key, never on the bare session id
    search = _body(query("retrieve_messages_vector"))
    assert "m.session_key IN" in search and "WHERE m.session IN" not in search


def _keys(services: Any, space: str) -> dict[str, Any]:
    rows = services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.id AS id, m.session_key AS key", space=space
    )
    return {r["id"]: r["key"] for r in rows}


@pytest.mark.integration
def test_backfill_gives_the_key_the_writers_give(services, space) -> None:
    """A store from before 0011: messages without a key. The migration's back-fill statement (the
    index statements are not rerun here: other tests share the server's index) gives each the key
    the writers give, and a second run changes nothing."""
    for session, speaker, text, turn_id in (
        ("kitchen-mon", "Maya", "Milk is out.", "a"),
        ("hall-tue", "Tom", "Keys on the hook.", "b"),
    ):
        services.messages.append(space, Turn(session=session, speaker=speaker, text=text, turn_id=turn_id))
    written = _keys(services, space)
    assert sorted(written.values()) == [f"{space}~hall-tue", f"{space}~kitchen-mon"]
    services.db.execute("MATCH (m:Message {space: $space}) REMOVE m.session_key", space=space)
    migration = next(m for m in available_migrations() if m.version == 11)
    backfill = next(s for s in migration.statements(services.settings) if "IN TRANSACTIONS" in s)
    services.db.execute_batched(backfill)
    assert _keys(services, space) == written
    services.db.execute_batched(backfill)
    assert _keys(services, space) == written


@pytest.mark.integration
def test_an_imported_space_gets_its_own_session_keys(services, space) -> None:
    """An export carries each message's key; the import sets the key of the space it creates, or
    the copy's messages would be invisible to its participant and private vector searches."""
    services.messages.append(space, Turn(session="kitchen-mon", speaker="Maya", text="Milk.", turn_id="a"))
    copy = f"{space}-copy"
    lines = list(export_space(services.db, services.spaces, space))
    try:
        import_space(services.db, io.StringIO("".join(lines)), copy)
        assert list(_keys(services, copy).values()) == [f"{copy}~kitchen-mon"]
    finally:
        services.spaces.delete(copy)


def _plan_operators(services: Any, scope_params: dict[str, Any]) -> list[tuple[str, str]]:
    params = {**scope_params, "embedding": [0.05] * 384, "k": 5}
    params |= {key: None for key in ("speaker", "addressee", "session", "ts_from", "ts_to")}

    def work(tx: Any) -> Any:
        result = tx.run("EXPLAIN " + query("retrieve_messages_vector_exact"), params)
        return result.consume().plan

    out, stack = [], [services.db.read(work)]
    while stack:
        op = stack.pop()
        stack += op.get("children", [])
        out.append((op.get("operatorType", ""), str(op.get("args", {}).get("Details", ""))))
    return out


@pytest.mark.integration
def test_the_participant_exact_scan_seeks_the_asker_sessions(services) -> None:
    """The exact scan's participant candidates come from the (space, session, idx) index, one seek
    per session of the asker, not from a scan of every Message per session (17.6 s p50 at 1M
    messages; fails without `m.idx IS NOT NULL` in @access.message_candidates: the session test
    is then a Filter over NodeByLabelScan)."""
    name = f"test-exact-seek-{uuid.uuid4().hex[:8]}"
    services.spaces.create(name, "participant")
    try:
        services.messages.append(name, Turn(session="s1", speaker="Maya", text="Milk is out.", turn_id="a"))
        maya = services.db.query(
            "MATCH (p:Participant {space: $space, key: 'maya'}) RETURN p.id AS id", space=name
        )[0]["id"]
        plan = _plan_operators(services, {"space": name, "access_policy": "participant", "asker": maya})
        by_session = [op for op, details in plan if "session = sid" in details]
        assert by_session and all("IndexSeek" in op for op in by_session), by_session
    finally:
        services.spaces.delete(name)
