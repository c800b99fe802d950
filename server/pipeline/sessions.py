"""Implicit end of a session: reconcile voice fragments when a new session starts.

Why: clients that send single audio turns (the benchmark runner, the demo, real devices)
rarely call ``/speakers/reconcile``; without it, every session can leave a few fragments of
one voice (a run showed 42 speaker entities for 5 voices). A session has no explicit end,
so the first turn of a NEW session in a space is taken as the end of the earlier ones, and
the space's speakers are reconciled before that turn is routed (so it links to the merged
voice). Reconciliation is conservative and idempotent; a concurrent merge that already
happened is not an error for the turn being appended.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from voxmem.errors import Conflict, NotFound
from voxmem.stores.messages import MessageStore

if TYPE_CHECKING:
    from voxmem.voice.identity import IdentityManager

log = logging.getLogger(__name__)


def reconcile_before_new_session(
    messages: MessageStore, identity: IdentityManager | None, space: str, session: str
) -> dict | None:
    """Reconcile the space's speakers if ``session`` has no message yet; returns what merged."""
    if identity is None or not messages.session_is_new(space, session):
        return None
    try:
        return {"merged": identity.reconcile(space, None)["merged"]}  # passes until nothing merges
    except (Conflict, NotFound) as exc:  # a concurrent reconciliation merged first
        log.info("reconciliation before session %s of %s stopped: %s", session, space, exc)
        return {"merged": []}
