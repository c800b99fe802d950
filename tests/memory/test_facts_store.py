"""The facts store against the real Neo4j: typed records, evolution candidates, text updates.

Turns go through the HTTP API (so the writer applies the rules through the store, as in
production); the store is then read directly.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from voxmem.core import Voxmem
from voxmem.stores.facts import CurrentFact, FactStore, PersonRef, StoredAttribute, StoredFact

from .test_memory_integration import say

pytestmark = pytest.mark.integration


def test_store_reads_typed_facts_with_history_and_the_rules_candidates(
    app_client, space_headers, space, services: Voxmem
):
    say(app_client, space_headers, space, "s1", "Maya", "My checkout is at 11 am.", 0)
    say(app_client, space_headers, space, "s1", "Maya", "Please change my checkout to noon.", 1)
    say(app_client, space_headers, space, "s1", "Maya", "I love green tea.", 2)
    store = FactStore(services.db)

    current = store.facts(space, slot="checkout_time")
    assert len(current) == 1 and isinstance(current[0], StoredFact)
    now = current[0]
    assert now.value == "noon" and now.current and not now.conflict
    assert [p.name for p in now.stated_by] == ["Maya"] and isinstance(now.stated_by[0], PersonRef)
    maya = now.stated_by[0].id
    assert [p.id for p in now.about] == [maya] and len(now.sources) == 1

    history = store.facts(space, slot="checkout_time", history=True)
    old = next(f for f in history if f.value == "11 am")
    assert not old.current and old.valid_to is not None and now.supersedes == [old.id]
    assert store.facts(space, participant="maya", slot="checkout_time") == current  # by name key

    # what the rule is given inside a transaction: only current facts of the subject and slot
    candidates = services.db.read(
        lambda tx: store.current_facts(tx, space, [(maya, "checkout_time", "Maya checks out at one.")])
    )
    assert list(candidates) == [maya]
    [got] = candidates[maya]
    assert got == CurrentFact(now.id, now.content, "checkout_time", "noon", (maya,), got.valid_from)
    assert got.valid_from == datetime.fromisoformat(str(now.valid_from).replace("Z", "+00:00"))

    attributes = store.attributes(space, participant=maya)
    assert attributes and all(isinstance(a, StoredAttribute) for a in attributes)
    tea = next(a for a in attributes if "green tea" in (a.text or ""))
    assert tea.kind == "preference" and tea.holder == PersonRef(maya, "Maya") and tea.current


def test_store_text_updates_find_and_replace_placeholders(app_client, space_headers, space, services: Voxmem):
    say(app_client, space_headers, space, "s1", "Maya", "My checkout is at 11 am.", 0)
    store = FactStore(services.db)
    fact = store.facts(space)[0]
    assert store.texts_with(space, "{p_nobody}") == []
    vector = services.embedder.embed_one("Maya leaves at 11 am.")
    assert store.set_texts(space, [(fact.id, "Maya leaves at 11 am.", vector)]) == 1
    assert store.facts(space)[0].content == "Maya leaves at 11 am."
    found = store.texts_naming(space, fact.stated_by[0].id, "Maya", message_id="not-this-turn")
    assert [(t.id, t.label, t.text) for t in found] == [(fact.id, "Fact", "Maya leaves at 11 am.")]
