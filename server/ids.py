"""Identifiers and name keys shared by every writer."""

from __future__ import annotations

import re
import unicodedata
import uuid

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")


def new_id(prefix: str) -> str:
    """A globally unique id with a readable type prefix (``msg_…``, ``p_…``)."""
    return f"{prefix}_{uuid.uuid4().hex}"


def is_valid_id(value: str) -> bool:
    """Client-chosen ids (spaces, sessions, turn ids) are short, printable and URL-safe."""
    return bool(_ID_RE.match(value))


def turn_message_id(space: str, turn_id: str) -> str:
    """The message id of a client-chosen turn id: ``<space>/t/<turn_id>``.

    Why '/': it cannot occur in a space or turn id (:func:`is_valid_id`), so the id names its
    space unambiguously. The old ``<space>:<turn_id>`` let spaces whose names nest collide
    (space ``nest`` + turn ``t:x`` and space ``nest:t`` + turn ``x``), and message ids are
    unique across spaces, so one tenant could take the other's ids. The ``t`` keeps turn ids
    apart from recording pieces (:func:`recording_message_id`) within one space.
    """
    return f"{space}/t/{turn_id}"


def legacy_turn_message_id(space: str, turn_id: str) -> str:
    """The pre-namespacing id of a turn, still honoured for retries of turns stored before."""
    return f"{space}:{turn_id}"


def recording_message_id(space: str, recording_id: str, index: int) -> str:
    """The message id of a recording's turn starting at piece ``index``: ``<space>/r/<rec>/<i>``."""
    return f"{space}/r/{recording_id}/{index}"


def name_key(name: str) -> str:
    """Normalised form of a person's name for matching: case, accents and spacing folded."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return " ".join(folded.lower().split())
