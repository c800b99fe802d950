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
from typing import Any

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.errors import Conflict, NotFound

log = logging.getLogger(__name__)


def is_new_session(db: Database, space: str, session: str) -> bool:
    rows = db.query(query("session_has_messages"), space=space, session=session)
    return not (rows and rows[0]["has_messages"])


def reconcile_before_new_session(db: Database, identity: Any, space: str, session: str) -> dict | None:
    """Reconcile the space's speakers if ``session`` has no message yet; returns what merged."""
    if identity is None or not is_new_session(db, space, session):
        return None
    try:
        return {"merged": identity.reconcile(space, None)["merged"]}  # passes until nothing merges
    except (Conflict, NotFound) as exc:  # a concurrent reconciliation merged first
        log.info("reconciliation before session %s of %s stopped: %s", session, space, exc)
        return {"merged": []}
