"""Forgetting a voice removes every copy (finding 2): merge records, centroids, voiceprints,
routing pointers; unmerge cannot bring it back; the asker match no longer knows the person."""

from __future__ import annotations

import pytest
from voice.test_router_integration import T, near, route, voice

from voxmem.errors import Conflict
from voxmem.voice.identity import IdentityManager
from voxmem.voice.router import SpeakerRouter

from .vectors import max_cosine

pytestmark = pytest.mark.integration


def test_forgotten_voice_has_no_copy_and_cannot_be_unmerged(services, space) -> None:
    router = SpeakerRouter("test-encoder", "fixed", T)
    ident = IdentityManager(services.db, T, "test-encoder")
    dave, eve = voice(501), voice(502)
    s_dave = route(services, space, router, dave, "m1").speaker_id
    route(services, space, router, near(dave, 0.97, 503), "m2")
    fragment = route(services, space, router, near(dave, 0.5, 504), "m3").speaker_id  # below link
    route(services, space, router, eve, "m4")
    assert fragment != s_dave
    # The fragment absorbs Dave's speaker: the merge record keeps Dave's centroid for unmerge.
    ident.merge(space, s_dave, fragment, reason="test")
    linked = ident.link(space, fragment, name="Dave")
    assert max_cosine(services.db, space, dave) > 0.95

    out = ident.forget_voice(space, linked["participant_id"])
    assert out["speakers"] == 2 and out["voiceprints"] == 3

    assert max_cosine(services.db, space, dave) < 0.6, "a copy of the forgotten voice is still stored"
    with pytest.raises(Conflict):
        ident.unmerge(space, s_dave)
    assert max_cosine(services.db, space, dave) < 0.6
    asked = services.db.read(lambda tx: router.identify(tx, space, dave))
    assert not asked["known"]
    dangling = services.db.query(
        "MATCH (r:RoutingDecision {space: $space}) WHERE r.voiceprint_id IS NOT NULL "
        "AND NOT EXISTS { MATCH (v:Voiceprint {space: $space, id: r.voiceprint_id}) } RETURN count(r) AS n",
        space=space,
    )[0]["n"]
    assert dangling == 0
    # Eve is untouched.
    assert services.db.read(lambda tx: router.identify(tx, space, eve))["known"]
