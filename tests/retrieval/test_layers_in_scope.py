"""The fused round (/retrieve) takes which derived layers hold anything from its access scope, read
in the scope's own query (retrieve_scope), instead of a layers check beside its channels
(docs/retrieval.md "Latency, twelfth pass"). Its rows must be exactly the round's that asks, and
what another process writes must be seen by the next request's scope."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.retrieval.scope import resolve_scope
from voxmem.retrieval.tools import LAYERS, layers_present

pytestmark = pytest.mark.integration

TEXTS = ("garage door code", "Lena peanuts allergy", "checkout time", "who is driving to the dentist")
LAYERS_QUERY = query("retrieve_layers")
FACT_QUERIES = {query(name) for name in ("retrieve_facts_vector", "retrieve_facts_fulltext")}


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The text of every query the database runs during the test."""
    ran: list[str] = []
    real = Database.query

    def spy(self: Database, cypher: str, **params: Any) -> list[dict[str, Any]]:
        ran.append(cypher)
        return real(self, cypher, **params)

    monkeypatch.setattr(Database, "query", spy)
    return ran


@pytest.mark.parametrize("policy", ["open", "participant", "private"])
def test_the_round_takes_the_layers_from_the_scope_and_returns_the_same_rows(
    households, retrieval, services, policy, spied
) -> None:
    """For every asker and several layer choices: the scope read the same layers retrieve_layers
    reports; /retrieve's round with it runs no layers query and returns exactly the rows of the
    round given a scope without them (which asks, as before). Fails if the scope's layers differ
    from retrieve_layers', if the round still asks, or if any row differs."""
    house = households[policy]
    for name in [None, *house.people]:
        scope = resolve_scope(services.db, house.space, None if name is None else house.people[name])
        assert scope.layers == layers_present(services.db, house.space) == set(LAYERS)
        unread = dataclasses.replace(scope, layers=None)
        for text in TEXTS:
            for layers in (None, ["fact", "interaction"], ["profile"]):
                spied.clear()
                rows = retrieval.search(scope, text, layers, None, k=10)
                assert LAYERS_QUERY not in spied, (policy, name, text, layers)
                asked = retrieval.search(unread, text, layers, None, k=10)
                assert rows == asked, (policy, name, text, layers)


@pytest.fixture
def bare_space(services) -> Iterator[str]:
    """An open space with one turn and no facts or attributes yet."""
    space = f"test-layers-{uuid.uuid4().hex[:10]}"
    services.spaces.create(space, "open")
    services.db.execute(
        "CREATE (:Message {space: $space, id: $id, session: 's1', idx: 0, text: 'the boiler code is 4711', "
        "ts: datetime('2026-12-04T10:00:00Z')})",
        space=space,
        id=f"m-{uuid.uuid4().hex[:10]}",
    )
    yield space
    services.spaces.delete(space)


def test_facts_written_elsewhere_reach_the_next_requests_scope(
    bare_space, retrieval, services, spied
) -> None:
    """A space without facts: its scope says so and the round runs no fact tool. A fact and an
    attribute then written straight to the database (as the extraction worker, another process,
    writes them): the scope of the next request reads both layers and its round runs the fact
    tools; the scope read before the write keeps its reading (it lives for one request). Fails if
    a scope reads the layers from anything but the database at its own reading."""
    before = resolve_scope(services.db, bare_space, None)
    assert before.layers == {"interaction"}
    spied.clear()
    retrieval.search(before, "boiler code", None, None, k=10)
    assert not FACT_QUERIES & set(spied) and LAYERS_QUERY not in spied
    services.db.execute(
        "CREATE (:Fact {space: $space, id: $fact, content: 'the boiler code is 4711'}), "
        "(:Attribute {space: $space, id: $attribute, text: 'owns a boiler'})",
        space=bare_space,
        fact=f"f-{uuid.uuid4().hex[:10]}",
        attribute=f"a-{uuid.uuid4().hex[:10]}",
    )
    after = resolve_scope(services.db, bare_space, None)
    assert after.layers == set(LAYERS) and before.layers == {"interaction"}
    spied.clear()
    retrieval.search(after, "boiler code", None, None, k=10)
    assert set(spied) >= FACT_QUERIES
