"""Pure logic of the foundation: ids, name keys, Lucene escaping, RRF, settings, migrations."""

from __future__ import annotations

import os

import pytest

from voxmem.config import Settings, _load_config_file
from voxmem.errors import InvalidInput
from voxmem.graph_schema import available_migrations
from voxmem.ids import is_valid_id, name_key, new_id
from voxmem.stores.messages import lucene_query, rrf


def test_name_key_folds_case_accents_and_spacing() -> None:
    assert name_key("  José   Álvarez ") == "jose alvarez"
    assert name_key("MAYA") == name_key("maya")
    assert name_key("   ") == ""


def test_ids() -> None:
    a, b = new_id("msg"), new_id("msg")
    assert a != b and a.startswith("msg_")
    assert is_valid_id("kitchen-monday:1.2")
    assert not is_valid_id("../etc/passwd")
    assert not is_valid_id("")
    assert not is_valid_id("x" * 129)


def test_lucene_query_escapes_operators_and_specials() -> None:
    assert lucene_query('pizza AND "friday" (dinner)?') == "pizza OR friday OR dinner"
    assert lucene_query("x:y z*") == "x OR y OR z"
    assert lucene_query("who fixes the pipes") == "fixes OR pipes"
    assert lucene_query("who is it") == "who OR is OR it"  # only stop words: keep them
    with pytest.raises(InvalidInput):
        lucene_query("+-!()")


def test_rrf_rewards_agreement_and_rank() -> None:
    scores = rrf([["a", "b", "c"], ["b", "a"]], k=60)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["c"] == pytest.approx(1 / 63)
    assert max(scores, key=scores.get) in {"a", "b"} and scores["c"] < scores["a"]


def test_settings_read_env_and_config_file(tmp_path, monkeypatch) -> None:
    cfg = tmp_path / "voxmem.env"
    cfg.write_text("VOXMEM_PORT=9999\nVOXMEM_NEO4J_USER='alice'\n# comment\n")
    monkeypatch.setattr(os, "environ", dict(os.environ))  # the file loader writes into os.environ
    monkeypatch.setenv("VOXMEM_CONFIG_FILE", str(cfg))
    monkeypatch.setenv("VOXMEM_PORT", "8000")  # the environment wins over the file
    monkeypatch.delenv("VOXMEM_NEO4J_USER", raising=False)
    _load_config_file()
    s = Settings()
    assert s.port == 8000
    assert s.neo4j_user == "alice"


def test_migrations_are_ordered_and_fill_dimensions() -> None:
    migrations = available_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    statements = migrations[0].statements(Settings(text_embedding_dim=768, voice_embedding_dim=192))
    vector = [s for s in statements if "VECTOR INDEX" in s]
    assert len(vector) == 5
    assert sum("768" in s for s in vector) == 3 and sum("192" in s for s in vector) == 2
    assert not any("$text_dim" in s or "$voice_dim" in s for s in statements)


def test_a_build_refuses_a_database_migrated_by_a_newer_build() -> None:
    from voxmem.errors import SchemaMismatch
    from voxmem.graph_schema.migrate import refuse_newer_schema

    shipped = [m.version for m in available_migrations()]
    refuse_newer_schema(shipped, shipped)  # up to date
    refuse_newer_schema(shipped[:-1], shipped)  # pending migrations are applied, not refused
    refuse_newer_schema([], shipped)  # an empty database
    newest = len(shipped)
    with pytest.raises(SchemaMismatch, match=rf"v{newest + 1}, newer than this build's v{newest}"):
        refuse_newer_schema([*shipped, newest + 1], shipped)


def test_every_setting_is_documented_in_the_configuration_doc() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [name for name in Settings.model_fields if f"`VOXMEM_{name.upper()}`" not in doc]
    assert not missing, f"run `python scripts/settings_table.py`; undocumented: {missing}"
