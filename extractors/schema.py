"""The one record every extractor backend returns for one turn (offline, LLM, graphiti).

Why one schema: the writer in ``voxmem.memory`` must not care which backend ran, and the
LLM backend is asked for exactly this JSON schema, so a model's answer is validated by the
same rules as the offline backend's. People are referred to by the window's local labels
(``S1``, ``S2``… for the speakers in the window, see :mod:`voxmem.extractors.window`) or by
a plain name for people who are only mentioned; the writer maps both to ``Participant``s.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

NameKind = Literal["self_intro", "addressed", "kinship", "role", "correction"]
AddresseeSource = Literal["vocative", "reply", "turn_taking", "group", "llm"]
AttributeKind = Literal["background", "preference", "relationship"]
GROUP = "group"

_LABEL = re.compile(r"^S\d{1,3}$")
_ISO_TIME = re.compile(r"^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2})?)?)?)?$|^\d{4}-W\d{2}$")


def is_label(ref: str) -> bool:
    """True for a window-local speaker label (``S1``), false for a plain name."""
    return bool(_LABEL.match(ref))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class NameEvidence(_Strict):
    """A name or alias for a speaker of the window, with why we believe it."""

    speaker: str = Field(description="Window label of the speaker who bears the name, e.g. 'S2'.")
    name: str = Field(min_length=1, max_length=80, description="The name or alias as said ('Maya', 'Dad').")
    kind: NameKind = Field(description="self_intro | addressed | kinship | role | correction.")
    alias: bool = Field(False, description="True for kinship/role terms: an alias, not the person's name.")
    confidence: float = Field(0.8, ge=0.0, le=1.0)

    @field_validator("speaker")
    @classmethod
    def _speaker_is_label(cls, value: str) -> str:
        if not is_label(value):
            raise ValueError(f"speaker must be a window label like 'S1', got {value!r}")
        return value


class Addressee(_Strict):
    """One person the current turn is said to; ``target`` 'group' means everyone else present."""

    target: str = Field(description="Window label ('S1'), a person's name, or 'group'.")
    source: AddresseeSource
    confidence: float = Field(0.7, ge=0.0, le=1.0)


class AnsweredCall(_Strict):
    """The turn just before called someone by a kinship or role term nobody known bears ("Dad,
    can we …?" with several people present) and the current turn's speaker answered it: that
    earlier turn was said to the current speaker. Its inferred ADDRESSES edge (a turn-taking
    guess) could not know this when it was written, so the answer re-points it (the writer does)."""

    message_id: str = Field(description="The earlier turn that made the call.")
    term: str = Field(min_length=1, max_length=80, description="The call as said ('Dad').")
    confidence: float = Field(0.7, ge=0.0, le=1.0)


class TimeRef(_Strict):
    """A temporal expression normalised against the session date."""

    text: str = Field(description="The expression as said ('last Saturday').")
    value: str = Field(description="ISO date, month ('2023-05'), year, week ('2023-W19') or datetime.")
    granularity: Literal["datetime", "day", "week", "month", "year"] = "day"

    @field_validator("value")
    @classmethod
    def _iso(cls, value: str) -> str:
        if not _ISO_TIME.match(value):
            raise ValueError(f"time value must be ISO-8601 (date, month, year, week), got {value!r}")
        return value


class FactRecord(_Strict):
    """A self-contained third-person statement with first/second person resolved."""

    content: str = Field(min_length=3, max_length=600, description="Third person, names resolved.")
    subject: str = Field(description="Who the fact is about: window label or name.")
    about: list[str] = Field(default_factory=list, description="Other people the fact concerns.")
    slot: str | None = Field(None, description="Updatable slot (checkout_time, room, diet…) or null.")
    value: str | None = Field(None, description="The slot's value, for supersession.")
    time: TimeRef | None = None
    confidence: float = Field(0.7, ge=0.0, le=1.0)


class AttributeRecord(_Strict):
    """A profile attribute of one person (background, preference or relationship)."""

    holder: str = Field(description="Whose attribute: window label or name.")
    kind: AttributeKind
    text: str = Field(min_length=2, max_length=300, description="Third person, e.g. 'Maya is vegetarian.'")
    slot: str | None = Field(None, description="Updatable slot (diet, drink…) or null.")
    confidence: float = Field(0.7, ge=0.0, le=1.0)


class TurnExtraction(_Strict):
    """Everything one turn (read in its window) contributes to memory."""

    names: list[NameEvidence] = Field(default_factory=list)
    addressees: list[Addressee] = Field(default_factory=list)
    facts: list[FactRecord] = Field(default_factory=list)
    attributes: list[AttributeRecord] = Field(default_factory=list)
    # From the rules over the window (voxmem.extractors.offline.answered_calls), never asked of
    # a model: left out of the JSON schema an LLM backend is given.
    answered: SkipJsonSchema[list[AnsweredCall]] = Field(default_factory=list)


class ExtractionResult(BaseModel):
    """A validated record plus bookkeeping the model never writes (who ran, token use)."""

    message_id: str
    extractor: Literal["offline", "llm", "graphiti"]
    record: TurnExtraction
    tokens_in: int = 0
    tokens_out: int = 0
