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


def name_key(name: str) -> str:
    """Normalised form of a person's name for matching: case, accents and spacing folded."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return " ".join(folded.lower().split())
