"""Fault test: kill -9 Neo4j in the middle of the two folds, retry, and the space equals a clean run.

The folds (memory.fold.fold_person) are the writes that move the most at once: a spoken turn's
memory transaction folding a placeholder into the voice that took its name, and a voice linked
by hand folding its unnamed person, each re-deciding the slots it brought together; the link
then re-renders and re-indexes after its commit. Neo4j is killed at three points, each where a
half-done write would show: inside the spoken turn's transaction right after its fold; inside the
link's transaction right after its fold; between the link's commit and its after-commit step.
Each time the caller gets ``DatabaseUnavailable``, Neo4j is started again on the same home and
the same call is retried. Then the space must equal one where the same turns and link ran without
a fault (facts with their evolution, attributes, addressee edges, people, audit items, passages
and captions), and the memory check must be clean.

Its own Neo4j (home under the cache dir, Bolt 27737 / HTTP 27524) and its own in-process
services; the shared servers are never touched. The kills are placed by wrapping the fold and the
after-commit step (so they land at those points every run, not by timing).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from own_stack import own_neo4j, wait_for

from tests.ingest.test_batch_memory_equivalence import memory
from tests.memory.test_memory_integration import T0, voice
from voxmem import neo4j_local
from voxmem.config import Settings
from voxmem.core import Voxmem
from voxmem.errors import DatabaseUnavailable, NotFound
from voxmem.memory import fold, writer
from voxmem.stores.messages import Turn
from voxmem.voice import identity

pytestmark = pytest.mark.integration

BOLT, HTTP = 27737, 27524
HALL = [
    ("spk_ann", "Tom, your room is 14."),
    ("spk_tom", "My room is 12."),
    ("spk_tom", "Thanks. I'm Tom, by the way."),  # the writer folds the placeholder 'Tom' here
    ("spk_leo", "I prefer coffee."),  # Leo's voice, unnamed; Leo types later that he prefers tea
    ("spk_leo", "Tom, I moved to Berlin last year."),
]
FOLD_TURN = 2
UNNAMED = re.compile(r"unnamed voice [0-9a-f]+")  # the caption of an unnamed person shows its random id


def message_id(space: str, i: int) -> str:  # (speaker ids are unique across spaces here: prefixed too)
    return f"{space}~t~{i}"  # the API's id shape, so the comparison strips the space the same way


def whole(svc: Voxmem, space: str) -> dict[str, Any]:
    """Everything the comparison covers, ids replaced by what they stand for."""
    state = memory(svc, space)
    rows = svc.db.query(
        "MATCH (n {space: $space}) WHERE n:Message OR n:Fact OR n:Attribute OR n:Participant "
        "RETURN labels(n)[0] AS label, n.passage AS passage, n.display AS display, "
        "coalesce(n.text, n.content, n.name) AS text",
        space=space,
    )
    for item in state["audit"]:  # the speaker ids hold the space's name
        item["detail"] = item["detail"].replace(space, "<space>")
    state["texts"] = sorted(
        (r["label"], str(r["text"]), str(r["passage"]), UNNAMED.sub("unnamed voice …", str(r["display"])))
        for r in rows
    )
    return state


class Killer:
    """Kills our Neo4j once, when armed, at the point a wrapped function marks."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.kills = 0
        self.armed = False

    def kill(self) -> None:
        if not self.armed:
            return
        self.armed = False
        pid = neo4j_local.status(self.settings).pid
        assert pid is not None, "our Neo4j reports no pid"
        os.kill(pid, signal.SIGKILL)
        wait_for("Neo4j gone", lambda: neo4j_local.status(self.settings).pid is None, 60)
        self.kills += 1

    def after(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            out = fn(*args, **kwargs)
            self.kill()
            return out

        return wrapped

    def before(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self.kill()
            return fn(*args, **kwargs)

        return wrapped


def until(what: str, call: Callable[[], Any], done: Callable[[], bool] | None = None) -> None:
    """``call`` until it returns (or until ``done``, which a call that raises may also bring
    about); DatabaseUnavailable while the driver reconnects is one more try."""

    def attempt() -> bool:
        try:
            call()
        except DatabaseUnavailable:
            return done is not None and done()
        return done is None or done()

    wait_for(what, attempt, 180, every_s=1.0)


def ingest(svc: Voxmem, space: str, killer: Killer | None = None) -> None:
    """The hall's spoken turns, then Leo's typed one; with ``killer``, Neo4j dies inside the
    memory transaction of the turn whose fold names Tom, and the turn is derived again."""
    for i, (speaker, text) in enumerate(HALL):
        mid = message_id(space, i)
        if killer is None or i != FOLD_TURN:
            voice(svc, space, "hall", f"{space}-{speaker}", text, i, mid)
            continue
        killer.armed = True
        with pytest.raises(DatabaseUnavailable):
            voice(svc, space, "hall", f"{space}-{speaker}", text, i, mid)
        assert killer.kills == 1  # killed after the fold, before the commit
        neo4j_local.up(killer.settings)
        until("the fold's turn derived again", lambda mid=mid: svc.memory.process_message(space, mid))
    turn = Turn(
        session="notes",
        speaker="Leo",
        text="I prefer green tea now.",
        ts=T0 + timedelta(minutes=10),
        turn_id="notes0",
    )
    svc.pipeline.append_text(space, turn)


def test_kill_neo4j_mid_fold_and_mid_link_then_retry_equals_a_clean_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = own_neo4j("fault-fold-home", BOLT, HTTP, db_unavailable_timeout_s=3.0)
    neo4j_local.up(settings)
    svc = Voxmem.build(settings)
    try:
        svc.start()
        clean, killed = "fold-clean", "fold-killed"
        for space in (clean, killed):
            with contextlib.suppress(NotFound):  # a rerun's leftovers
                svc.spaces.delete(space)
            svc.spaces.create(space, "participant")
        ingest(svc, clean)
        leo = svc.db.query(
            "MATCH (p:Participant {space: $space, name: 'Leo'}) RETURN p.id AS id", space=clean
        )[0]["id"]
        svc.identity.link(clean, f"{clean}-spk_leo", participant_id=leo)

        started = time.monotonic()
        killer = Killer(settings)
        monkeypatch.setattr(writer, "fold_person", killer.after(fold.fold_person))
        monkeypatch.setattr(identity, "fold_person", killer.after(fold.fold_person))
        monkeypatch.setattr(svc.identity, "follow", killer.before(svc.identity.follow))
        ingest(svc, killed, killer)
        leo = svc.db.query(
            "MATCH (p:Participant {space: $space, name: 'Leo'}) RETURN p.id AS id", space=killed
        )[0]["id"]

        def link() -> None:
            svc.identity.link(killed, f"{killed}-spk_leo", participant_id=leo)

        killer.armed = True  # killed after the link's fold, before its commit
        with pytest.raises(DatabaseUnavailable):
            link()
        assert killer.kills == 2
        neo4j_local.up(settings)
        killer.armed = True  # then killed after the link's commit, before its after-commit step
        until("the link committed", link, lambda: killer.kills == 3)
        neo4j_local.up(settings)
        until("the link retried", link)
        print(f"three kills and restarts in {time.monotonic() - started:.0f} s")

        after, reference = whole(svc, killed), whole(svc, clean)
        differ = {
            key: (
                [x for x in after[key] if x not in reference[key]],
                [x for x in reference[key] if x not in after[key]],
            )
            for key in reference
            if after[key] != reference[key]
        }
        assert not differ, differ
        for space in (clean, killed):
            check = svc.memory.check(space)
            assert not any(check.values()), (space, check)
            svc.spaces.delete(space)
    finally:
        svc.close()
        neo4j_local.down(settings)
