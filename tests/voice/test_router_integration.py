"""Speaker routing stored in the real Neo4j: nodes and edges per MODEL.md, vector-index
candidates, per-space serialisation, identity management. Synthetic vectors, no models."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from voxmem.audit import run_audit
from voxmem.voice.identity import IdentityManager
from voxmem.voice.router import SpeakerRouter
from voxmem.voice.routing import normalise
from voxmem.voice.thresholds import Thresholds

pytestmark = pytest.mark.integration

DIM = 256
T = Thresholds(link=0.8, update=0.9, update_margin=0.05, knn_link=0.75, knn_k=3, merge=0.9, asker_margin=0.02)


def voice(seed: int) -> np.ndarray:
    return normalise(np.random.default_rng(seed).normal(size=DIM))


def near(base: np.ndarray, cos: float, seed: int) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(size=DIM)
    noise = normalise(noise - noise.dot(base) * base)
    return normalise(cos * base + np.sqrt(1 - cos**2) * noise)


def route(services, space: str, router: SpeakerRouter, e: np.ndarray, message_id: str | None = None):
    def work(tx):
        router.lock(tx, space)
        return router.route(tx, space, e, message_id)

    return services.db.write(work)


def test_create_link_and_audit_trail(services, space) -> None:
    router = SpeakerRouter("test-encoder", "gated", T)
    a, b = voice(1), voice(2)
    r1 = route(services, space, router, a)
    r2 = route(services, space, router, near(a, 0.95, 3))
    r3 = route(services, space, router, b)
    r4 = route(services, space, router, near(a, 0.85, 4))  # links, but below the update gate
    assert r1.decision.action == "CREATE" and r3.decision.action == "CREATE"
    assert r2.speaker_id == r1.speaker_id == r4.speaker_id and r3.speaker_id != r1.speaker_id
    assert r2.decision.updated and not r4.decision.updated
    rows = services.db.query(
        "MATCH (s:Speaker {space: $space, id: $id})-[:IDENTIFIED_AS]->(p:Participant) "
        "RETURN s.n_obs AS n, COUNT { (:Voiceprint)-[:OF]->(s) } AS vps, p.key AS key",
        space=space,
        id=r1.speaker_id,
    )
    assert rows == [{"n": 3, "vps": 3, "key": None}]
    decisions = services.db.query(
        "MATCH (r:RoutingDecision {space: $space}) RETURN r.decision AS d, r.policy AS p, r.score AS s "
        "ORDER BY r.ts",
        space=space,
    )
    assert [d["d"] for d in decisions] == ["CREATE", "LINK", "CREATE", "LINK"]
    assert all(d["p"] == "gated" for d in decisions)
    vps = services.db.query(
        "MATCH (v:Voiceprint {space: $space}) WHERE v.updated_centroid RETURN count(v) AS n", space=space
    )
    assert vps[0]["n"] == 3  # two CREATEs + one confident LINK moved a voice state


def test_candidates_come_from_the_vector_index(services, space) -> None:
    router = SpeakerRouter("test-encoder", "ema", T, k=2)
    seeds = [voice(10 + i) for i in range(5)]
    for e in seeds:
        route(services, space, router, e)
    hits = services.db.read(lambda tx: router.candidates(tx, space, near(seeds[3], 0.97, 99).tolist()))
    assert hits and max(hits, key=lambda s: float(s.centroid @ seeds[3])).centroid @ seeds[3] > 0.99
    via_index = services.db.query(
        "CALL db.index.vector.queryNodes('speaker_centroid', 50, $e) YIELD node, score "
        "WHERE node.space = $space RETURN count(node) AS n",
        e=seeds[0].tolist(),
        space=space,
    )
    assert via_index[0]["n"] == 5  # freshly committed speakers are visible to the index


def test_concurrent_turns_of_one_new_voice_create_one_speaker(services, space) -> None:
    router = SpeakerRouter("test-encoder", "gated", T)
    a = voice(42)
    results: list = []
    errors: list = []

    def worker(seed: int) -> None:
        try:
            results.append(route(services, space, router, near(a, 0.97, seed)))
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len({r.speaker_id for r in results}) == 1
    assert sorted(r.decision.action for r in results) == ["CREATE", "LINK", "LINK", "LINK"]


def test_asker_identification_writes_nothing(services, space) -> None:
    router = SpeakerRouter("test-encoder", "gated", T)
    a = voice(7)
    created = route(services, space, router, a)
    count = "MATCH (n {space: $space}) RETURN count(n) AS n"
    before = services.db.query(count, space=space)[0]["n"]
    known = services.db.read(lambda tx: router.identify(tx, space, near(a, 0.95, 8)))
    unknown = services.db.read(lambda tx: router.identify(tx, space, voice(9)))
    assert known["known"] and known["speaker_id"] == created.speaker_id and known["participant_id"]
    assert not unknown["known"] and unknown["participant_id"] is None
    assert services.db.query(count, space=space)[0]["n"] == before


def test_merge_unmerge_split_link_forget(services, space) -> None:
    router = SpeakerRouter("test-encoder", "fixed", T)
    ident = IdentityManager(services.db, T, "test-encoder")
    a = voice(20)
    s1 = route(services, space, router, a, "m1").speaker_id
    s2 = route(services, space, router, near(a, 0.5, 21), "m2").speaker_id  # a fragment (below link)
    route(services, space, router, near(a, 0.98, 22), "m3")
    merged = ident.merge(space, s2, s1, reason="test")
    assert merged["target"] == s1
    listing = {s["id"]: s for s in ident.list(space)}
    assert listing[s2]["merged_into"] == s1 and listing[s1]["voiceprints"] == 3 and listing[s1]["n_obs"] == 3
    ident.unmerge(space, s2)
    listing = {s["id"]: s for s in ident.list(space)}
    assert (
        listing[s2]["merged_into"] is None and listing[s2]["voiceprints"] == 1 and listing[s1]["n_obs"] == 2
    )
    split = ident.split(space, s1, ["m3"])
    listing = {s["id"]: s for s in ident.list(space)}
    assert listing[split["new_speaker_id"]]["voiceprints"] == 1 and listing[s1]["voiceprints"] == 1
    linked = ident.link(space, s1, name="Maya")
    assert linked["participant_name"] == "Maya"
    forgot = ident.forget_voice(space, linked["participant_id"])
    assert forgot["voiceprints"] == 1
    assert {s["id"]: s for s in ident.list(space)}[s1]["forgotten"] is True
    kinds = services.db.query("MATCH (a:AuditItem {space: $space}) RETURN collect(a.kind) AS k", space=space)[
        0
    ]["k"]
    assert {
        "identity_merge",
        "identity_unmerge",
        "identity_split",
        "identity_link",
        "identity_forget_voice",
    } <= set(kinds)
    # every identity change re-points SPEAKS with the voice: the attribution audit stays clean
    assert not run_audit(services.db, space).failed


def test_reconcile_merges_only_close_mutual_fragments(services, space) -> None:
    router = SpeakerRouter("test-encoder", "fixed", T)
    ident = IdentityManager(services.db, T, "test-encoder")
    a, b = voice(30), voice(31)
    sa = route(services, space, router, a).speaker_id
    route(services, space, router, b)
    # A fragment of a: forced to CREATE by routing with a stricter link threshold.
    strict = SpeakerRouter("test-encoder", "fixed", Thresholds(**{**T.__dict__, "link": 0.99}))
    frag = route(services, space, strict, near(a, 0.95, 32)).speaker_id
    assert frag != sa
    out = ident.reconcile(space)
    assert len(out["merged"]) == 1 and {out["merged"][0]["source"], out["merged"][0]["target"]} == {sa, frag}
    assert ident.reconcile(space)["merged"] == []  # idempotent: nothing left to merge


def test_reconcile_uses_sessions_as_cannot_links(services, space) -> None:
    """In Neo4j too: a voice back in a new session merges at ``merge_cross``; a co-speaker of the
    same session at the same distance does not."""
    t = Thresholds(**{**T.__dict__, "link": 0.9, "merge": 0.95, "merge_cross": 0.8})
    router = SpeakerRouter("test-encoder", "fixed", t)
    ident = IdentityManager(services.db, t, "test-encoder")
    a = voice(40)
    heard = [("s1", a), ("s1", near(a, 0.85, 41)), ("s2", near(a, 0.86, 42))]
    ids = []
    for i, (session, e) in enumerate(heard):
        services.db.execute(
            "CREATE (:Message {space: $space, id: $id, session: $session})",
            space=space,
            id=f"m{i}",
            session=session,
        )
        ids.append(route(services, space, router, e, None).speaker_id)
        services.db.execute(
            "MATCH (m:Message {space: $space, id: $m}), (s:Speaker {space: $space, id: $s}) "
            "CREATE (m)-[:SPOKEN_AS]->(s)",
            space=space,
            m=f"m{i}",
            s=ids[-1],
        )
    assert len(set(ids)) == 3
    out = ident.reconcile(space)
    assert [{m["source"], m["target"]} for m in out["merged"]] == [{ids[0], ids[2]}]
    assert out["cross_session_threshold"] == 0.8


def test_reconcile_never_compares_voices_of_another_encoder_tag(services, space) -> None:
    """Voiceprints made under another projection (another tag) are neither candidates nor merged."""
    old = SpeakerRouter("test-encoder", "fixed", T)
    new = SpeakerRouter("test-encoder+nap2", "fixed", T)
    a = voice(50)
    stale = route(services, space, old, a).speaker_id
    fresh = route(services, space, new, near(a, 0.99, 51))
    assert fresh.decision.action == "CREATE" and fresh.speaker_id != stale  # the old one is no candidate
    assert IdentityManager(services.db, T, "test-encoder+nap2").reconcile(space)["merged"] == []
