"""Identifiers, name keys and the stored timestamp spelling shared by every writer and reader."""

from __future__ import annotations

import re
import unicodedata
import uuid
from datetime import UTC, datetime

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")


def new_id(prefix: str) -> str:
    """A globally unique id with a readable type prefix (``msg_…``, ``p_…``)."""
    return f"{prefix}_{uuid.uuid4().hex}"


def is_valid_id(value: str) -> bool:
    """Client-chosen ids (spaces, sessions, turn ids) are short, printable and URL-safe."""
    return bool(_ID_RE.match(value))


def turn_message_id(space: str, turn_id: str) -> str:
    """The message id of a client-chosen turn id: ``<space>~t~<turn_id>``.

    Why '~': it cannot occur in a space or turn id (:func:`is_valid_id`), so the id names its
    space unambiguously, and it is URL-safe (message ids appear in paths). The old
    ``<space>:<turn_id>`` let spaces whose names nest collide
    (space ``nest`` + turn ``t:x`` and space ``nest:t`` + turn ``x``), and message ids are
    unique across spaces, so one tenant could take the other's ids. The ``t`` keeps turn ids
    apart from recording pieces (:func:`recording_message_id`) within one space.
    """
    return f"{space}~t~{turn_id}"


def legacy_turn_message_id(space: str, turn_id: str) -> str:
    """The pre-namespacing id of a turn, still honoured for retries of turns stored before."""
    return f"{space}:{turn_id}"


def recording_message_id(space: str, recording_id: str, index: int) -> str:
    """The message id of a recording's turn starting at piece ``index``: ``<space>~r~<rec>~<i>``."""
    return f"{space}~r~{recording_id}~{index}"


def name_key(name: str) -> str:
    """Normalised form of a person's name for matching, the one key every name lookup uses.

    Unicode-aware: NFKC (full-width and compatibility forms folded) and casefold (ИВАН = иван,
    Straße = strasse), spacing collapsed. Accents are folded on Latin letters only, because ASR
    and keyboards drop them there (José = Jose); every other letter is kept as is, so "Wei 王"
    and "Wei 李" stay two people and "Иван", "محمد" or "李雷" have a key at all (an ASCII fold
    once turned them into one person or into nothing).
    """
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name).casefold().replace("’", "'"))
    kept: list[str] = []
    latin = False
    for ch in text:
        if unicodedata.category(ch) == "Cf":  # zero-width and direction marks: "Ann\u200b" is Ann
            continue
        if unicodedata.combining(ch):
            if latin:
                continue
        else:
            latin = ch.isascii() or unicodedata.name(ch, "").startswith("LATIN ")
        kept.append(ch)
    return " ".join(unicodedata.normalize("NFC", "".join(kept)).split())


def visible(text: str) -> bool:
    """Whether ``text`` shows anything: a character that is not white space, a control or
    format character (zero-width space, BOM, direction marks) or a combining mark.

    Why: a name or a turn of only such characters passed as non-empty (a person named
    "\u200b\u200b", a turn whose text is a BOM) while one of spaces was refused.
    """
    return any(
        not (ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf") or unicodedata.combining(ch))
        for ch in text
    )


def name_as_word(name: str, flags: int = 0) -> re.Pattern[str]:
    """``name`` as a whole word of a text: never inside another word or name ("Dave" is not in
    "Davey", nor "Ann" in "Joann's"), while a possessive ("Dave's") still holds it. One pattern
    for every rewrite of a name in stored texts (a correction, a deletion)."""
    return re.compile(r"(?<![\w'’])" + re.escape(name) + r"(?![\w])", flags)


def participant_ref(value: str | None) -> str | None:
    """A participant named by a caller, as Cypher matches it: an id (``p_…``) as is, else its name key.

    Why one helper: every filter on a person (messages by speaker or addressee, facts about
    someone, a profile) accepts either form, and the queries compare ``p.id`` or ``p.key``.
    """
    if value is None:
        return None
    return value if value.startswith("p_") else name_key(value)


def iso_timestamp(moment: datetime | None) -> str:
    """The ISO-8601 spelling a message's ``ts`` is stored in: timezone-aware (naive is UTC), now if None."""
    moment = moment or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()
