"""Benchmark cases: the ``voxpoly-web-case.v1`` format, its validator, and dataset loaders.

One case is one group of recurring people talking over several sessions, plus questions
about it. The case keeps the *gold* speaker of every turn; the runner hides those names
from the system under test and only uses them to score. Loaders turn public data
(LoCoMo) into the same shape so one runner measures everything.

Why pydantic: a malformed case must fail loudly at load time (unknown question type,
evidence pointing nowhere, duplicate turn ids), not halfway through a 15-minute run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

SCHEMA_VERSION = "voxpoly-web-case.v1"

QuestionType = Literal[
    "single_hop",
    "multi_hop",
    "temporal",
    "conflict_detection",
    "adversarial",
    "speaker_attribution",
    "addressee_attribution",
    "personalization",
    "personalization_application",
]
QUESTION_TYPES: tuple[str, ...] = QuestionType.__args__  # type: ignore[attr-defined]

# Answer to an unanswerable (adversarial) question; scorers accept any abstention phrase.
NOT_MENTIONED = "Not mentioned in the conversation"

TURN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
EVERYONE = "everyone"


class CaseError(ValueError):
    """A case file is not a valid ``voxpoly-web-case.v1`` case (message says where)."""


class ImageRef(BaseModel):
    """A shared picture; only the caption is indexed when no image model is configured."""

    model_config = ConfigDict(extra="forbid")

    caption: str
    uri: str | None = None


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn_idx: int = Field(ge=0, description="0-based position in its session.")
    turn_id: str = Field(description="Unique in the case; evidence ids point here.")
    speaker: str = Field(min_length=1, description="Gold speaker name (hidden from the system).")
    text: str = Field(min_length=1)
    addressees: list[str] = Field(
        default_factory=list, description="Gold addressees; ['everyone'] for the whole group."
    )
    images: list[ImageRef] = Field(default_factory=list)

    @field_validator("turn_id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not TURN_ID_RE.match(value):
            raise ValueError(f"turn_id {value!r} must be 1-128 of letters, digits, '_', '.', ':' or '-'")
        return value


class Session(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    date: str | None = Field(None, description="ISO-8601 start time of the session, if known.")
    date_text: str | None = Field(None, description="The date as the source wrote it (LoCoMo).")
    turns: list[Turn]

    @model_validator(mode="after")
    def _consecutive(self) -> Session:
        for expected, turn in enumerate(self.turns):
            if turn.turn_idx != expected:
                raise ValueError(
                    f"session {self.session_id}: turn {turn.turn_id} has turn_idx {turn.turn_idx}, "
                    f"expected {expected}"
                )
        return self


class QA(BaseModel):
    model_config = ConfigDict(extra="forbid")

    qa_id: str | None = None
    question: str = Field(min_length=1)
    answer: str = Field(description="Short gold answer; attribution answers are participant names.")
    type: QuestionType
    asker: str | None = Field(None, description="Participant who asks it aloud; none = typed question.")
    evidence_ids: list[str] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict, description="Source details (category, trap answer).")

    @field_validator("answer", mode="before")
    @classmethod
    def _stringify(cls, value: Any) -> str:
        return str(value) if value is not None else ""


class Participant(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    role: str | None = None
    voice: str | None = Field(None, description="Voice id for synthesis; the runner assigns one if absent.")
    named_from_session: str | None = Field(
        None, description="First session in which this person's name is spoken (late introduction)."
    )


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal["voxpoly-web-case.v1"] = SCHEMA_VERSION
    case_id: str
    scenario: str = "conversation"
    source: str = Field("generated", description="generated | locomo | locomo-id | hand-written")
    participants: list[Participant] = Field(default_factory=list)
    sessions: list[Session]
    qa: list[QA]
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _referential_integrity(self) -> Case:
        known = {p.name for p in self.participants}
        seen: set[str] = set()
        session_ids: set[str] = set()
        for session in self.sessions:
            if session.session_id in session_ids:
                raise ValueError(f"duplicate session_id {session.session_id}")
            session_ids.add(session.session_id)
            for turn in session.turns:
                if turn.turn_id in seen:
                    raise ValueError(f"duplicate turn_id {turn.turn_id}")
                seen.add(turn.turn_id)
                if known and turn.speaker not in known:
                    raise ValueError(f"turn {turn.turn_id}: speaker {turn.speaker!r} is not a participant")
                for addressee in turn.addressees:
                    if known and addressee != EVERYONE and addressee not in known:
                        raise ValueError(f"turn {turn.turn_id}: addressee {addressee!r} is not a participant")
        for index, qa in enumerate(self.qa):
            label = qa.qa_id or f"qa[{index}]"
            missing = [e for e in qa.evidence_ids if e not in seen]
            if missing:
                raise ValueError(f"{label}: evidence ids {missing} point to no turn")
            if qa.asker is not None and known and qa.asker not in known:
                raise ValueError(f"{label}: asker {qa.asker!r} is not a participant")
        return self

    # --- convenience views ----------------------------------------------------------------
    def turns(self) -> Iterable[tuple[Session, Turn]]:
        for session in self.sessions:
            for turn in session.turns:
                yield session, turn

    def turn_index(self) -> dict[str, tuple[Session, Turn]]:
        return {turn.turn_id: (session, turn) for session, turn in self.turns()}

    def speakers(self) -> list[str]:
        """Everyone who speaks at least once, in order of first turn."""
        order: dict[str, None] = {}
        for _, turn in self.turns():
            order.setdefault(turn.speaker, None)
        return list(order)

    def n_turns(self) -> int:
        return sum(len(s.turns) for s in self.sessions)


def trim_case(case: Case, n_sessions: int) -> Case:
    """The first ``n_sessions`` sessions and the questions answerable from them alone.

    Questions without evidence ids are dropped too: nothing shows they are answerable.
    """
    sessions = case.sessions[:n_sessions]
    kept = {t.turn_id for s in sessions for t in s.turns}
    qa = [q for q in case.qa if q.evidence_ids and set(q.evidence_ids) <= kept]
    return Case.model_validate(case.model_dump() | {"sessions": sessions, "qa": qa})


def sample_questions(case: Case, n: int) -> Case:
    """At most ``n`` questions, evenly spaced over the case's list (keeps its type mix); the kept
    question ids say which were asked, so a sampled run is reproducible."""
    if n >= len(case.qa):
        return case
    step = len(case.qa) / n
    qa = [case.qa[int(i * step)] for i in range(n)]
    return Case.model_validate(case.model_dump() | {"qa": qa})


def load_paraphrases(path: str | Path) -> dict[str, Any]:
    """A hand-written paraphrase set: ``{"case_id": …, "paraphrases": {qa_id: {"tune": [...],
    "heldout": [...]}}}``. Why two parts: rules are tuned on ``tune`` only, and ``heldout`` is
    scored without ever being read while tuning.

    A third part, ``fresh`` (``bench/paraphrases/fresh/``), is a held-out set written after
    ``heldout`` had been seen by the engineers tuning the reader: NEVER tune on it, never read it
    while changing the reader; it is only ever scored, so ``all`` leaves it out. An entry is a
    question or ``{"text", "asker", "forms"}``: ``asker`` re-asks it as someone else (a
    first-person "who did I ask …?" asked by the person it is about), ``forms`` tags the wording
    (summary, nickname, asr, …) so misses can be counted per form."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CaseError(f"{path}: cannot read paraphrases: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("paraphrases"), dict):
        raise CaseError(f"{path}: paraphrases must be an object of qa_id -> {{tune, heldout}}")
    return data


# The paraphrase splits and the letter each one's question ids carry. ``tune2`` (bench/paraphrases/
# tune2/) is a second tuning set over the in_car, meeting and hotel cases, written by hand for the
# second pass on issue 11 so the reader can be tuned on generated cases other than household's.
_SPLIT_LETTERS = {"tune": "t", "heldout": "h", "fresh": "f", "tune2": "u"}


def with_paraphrases(case: Case, data: dict[str, Any], split: str = "all") -> Case:
    """The case with each question replaced by its paraphrases of ``split`` (tune | heldout |
    all = tune + heldout | fresh | tune2); a paraphrase keeps the original's answer, type, asker
    (unless its entry names one) and evidence, and records the original question, its split and
    its forms in ``meta``. Its id ends with the split's letter and its index (``q3-u1``)."""
    if data.get("case_id") not in (None, case.case_id):
        raise CaseError(f"paraphrases are for {data.get('case_id')!r}, not {case.case_id!r}")
    by_id = {q.qa_id: q for q in case.qa}
    unknown = sorted(set(data["paraphrases"]) - set(by_id))
    if unknown:
        raise CaseError(f"paraphrases name questions the case lacks: {unknown}")
    qa: list[QA] = []
    for qa_id, parts in data["paraphrases"].items():
        original = by_id[qa_id]
        for part, letter in _SPLIT_LETTERS.items():
            if split != part and (split != "all" or part not in ("tune", "heldout")):
                continue
            for i, entry in enumerate(parts.get(part) or []):
                entry = {"text": entry} if isinstance(entry, str) else entry
                meta = original.meta | {"paraphrase_of": original.question, "split": part}
                update = {"qa_id": f"{qa_id}-{letter}{i}", "question": entry["text"], "meta": meta}
                if entry.get("forms") is not None:
                    meta["forms"] = list(entry["forms"])
                if entry.get("asker"):
                    update["asker"] = entry["asker"]
                qa.append(original.model_copy(update=update))
    return Case.model_validate(case.model_dump() | {"qa": [q.model_dump() for q in qa]})


def parse_case(data: dict[str, Any], where: str = "<case>") -> Case:
    """Validate one case dict; raises ``CaseError`` naming the file and the broken field."""
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version != SCHEMA_VERSION:
        raise CaseError(f"{where}: schema_version must be {SCHEMA_VERSION!r}, got {version!r}")
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        raise CaseError(f"{where}: invalid case: {exc}") from exc


def load_case(path: str | Path) -> Case:
    """Read and validate a case JSON file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CaseError(f"{path}: cannot read case: {exc}") from exc
    return parse_case(data, str(path))


def save_case(case: Case, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(case.model_dump_json(indent=1, exclude_none=True) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------
# LoCoMo
# ------------------------------------------------------------------------------------------
DEFAULT_LOCOMO = Path("/work/shared/data/locomo/locomo_dev.json")

# LoCoMo categories (snap-research/LoCoMo): 1 multi-hop, 2 temporal, 3 open-domain
# inference, 4 single-hop, 5 adversarial. Open-domain inference needs several turns plus
# world knowledge, so it is scored as multi_hop; the original category stays in ``meta``.
LOCOMO_TYPES: dict[int, str] = {
    1: "multi_hop",
    2: "temporal",
    3: "multi_hop",
    4: "single_hop",
    5: "adversarial",
}
_EVIDENCE_RE = re.compile(r"D\d+:\d+")


def locomo_evidence(raw: Any) -> list[str]:
    """Evidence ids from LoCoMo's messy field: lists, 'D8:6; D9:17', bare 'D' (dropped)."""
    items = raw if isinstance(raw, list) else [raw] if raw else []
    found: list[str] = []
    for item in items:
        for match in _EVIDENCE_RE.findall(str(item)):
            if match not in found:
                found.append(match)
    return found


def _locomo_sessions(conv: dict[str, Any]) -> list[Session]:
    numbers = sorted(
        int(m.group(1)) for key in conv if (m := re.fullmatch(r"session_(\d+)", key)) and conv[key]
    )
    sessions: list[Session] = []
    for number in numbers:
        turns = []
        for idx, raw in enumerate(conv[f"session_{number}"]):
            text = raw.get("text") or ""
            images = []
            if raw.get("blip_caption"):
                images.append(ImageRef(caption=raw["blip_caption"], uri=(raw.get("img_url") or [None])[0]))
                if not text.strip():
                    text = f"[shares a photo: {raw['blip_caption']}]"
            turns.append(
                Turn(
                    turn_idx=idx,
                    turn_id=raw.get("dia_id") or f"D{number}:{idx + 1}",
                    speaker=raw["speaker"],
                    text=text.strip() or "...",
                    images=images,
                )
            )
        sessions.append(
            Session(
                session_id=f"session_{number}", date_text=conv.get(f"session_{number}_date_time"), turns=turns
            )
        )
    return sessions


def locomo_case(sample: dict[str, Any]) -> tuple[Case, dict[str, int]]:
    """One LoCoMo conversation as a case, plus counts of what had to be repaired or dropped."""
    conv = sample["conversation"]
    sessions = _locomo_sessions(conv)
    known = {t.turn_id for s in sessions for t in s.turns}
    stats = {"qa": 0, "evidence_repaired": 0, "evidence_dropped": 0, "qa_without_evidence": 0}
    qa: list[QA] = []
    for index, item in enumerate(sample.get("qa", [])):
        category = int(item.get("category", 0))
        raw_evidence = item.get("evidence", [])
        evidence = locomo_evidence(raw_evidence)
        if any(not isinstance(e, str) or not _EVIDENCE_RE.fullmatch(e) for e in (raw_evidence or [])):
            stats["evidence_repaired"] += 1
        kept = [e for e in evidence if e in known]
        stats["evidence_dropped"] += len(evidence) - len(kept)
        if not kept:
            stats["qa_without_evidence"] += 1
        meta: dict[str, Any] = {"locomo_category": category}
        if category == 5:
            # The question presupposes something never said (often about the other person);
            # the right response is to abstain. The trap answer is kept for scoring.
            answer = NOT_MENTIONED
            meta["trap_answer"] = str(item.get("adversarial_answer", item.get("answer", "")))
        else:
            answer = str(item.get("answer", ""))
        qa.append(
            QA(
                qa_id=f"{sample['sample_id']}-q{index}",
                question=item["question"],
                answer=answer,
                type=LOCOMO_TYPES.get(category, "single_hop"),  # type: ignore[arg-type]
                evidence_ids=kept,
                meta=meta,
            )
        )
        stats["qa"] += 1
    names = [conv["speaker_a"], conv["speaker_b"]]
    case = Case(
        case_id=f"locomo-{sample['sample_id']}",
        scenario="two-person chat",
        source="locomo",
        participants=[Participant(name=n) for n in names],
        sessions=sessions,
        qa=qa,
        meta={"source_file": "locomo_dev.json", "repairs": stats},
    )
    return case, stats


def load_locomo(path: str | Path = DEFAULT_LOCOMO) -> list[Case]:
    """Every conversation of a LoCoMo JSON file as a case (malformed evidence tolerated)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return [locomo_case(sample)[0] for sample in data]


# --- LoCoMo-ID: questions about one speaker, asked by that speaker in first person -------
_OBJECT_FOLLOWERS = (
    r"to|and|or|about|in|on|with|for|from|at|by|up|out|off|back|again|that|when|if|so|as|because|"
    r"feel|think|do|go|get|want|like|most|more|during|after|before"
)
_PRONOUNS = [
    (r"\bhe\b|\bshe\b|\bHe\b|\bShe\b", "I"),
    (r"\bhim\b", "me"),
    (r"\bhimself\b|\bherself\b", "myself"),
    # "her" as an object ("for her?", "to her and") is "me"; before a noun it is "my".
    (rf"\bher\b(?=\s*(?:[?.!,;:]|$)|\s+(?:{_OBJECT_FOLLOWERS})\b)", "me"),
    (r"\bhis\b|\bher\b", "my"),
]
_FIRST_PERSON_VERBS = {"is": "am", "was": "was", "has": "have", "does": "do"}
_AUX = r"did|do|does|is|was|has|had|have|would|will|can|could|should|might|may|must|are|were"


def first_person(question: str, name: str) -> str | None:
    """Rewrite a third-person question about ``name`` into first person, or None if unsafe.

    Why so conservative: a wrong rewrite changes the question's meaning, and the gold
    answer would no longer fit. Only questions naming that person are rewritten (the
    caller also drops questions naming both speakers). The name becomes "I" as a subject
    (sentence start or after an auxiliary: "did Caroline go" → "did I go") and "me"
    elsewhere ("What motivated Caroline to" → "What motivated me to").
    """
    escaped = re.escape(name)
    if not re.search(rf"\b{escaped}\b", question):
        return None
    text = re.sub(rf"\b{escaped}'s\b", "my", question)

    def verb(match: re.Match[str]) -> str:
        word = match.group(1)
        mapped = _FIRST_PERSON_VERBS[word.lower()]
        return f"{mapped.capitalize() if word[0].isupper() else mapped} I"

    text = re.sub(rf"\b(is|was|has|does|Is|Was|Has|Does)\s+{escaped}\b", verb, text)
    text = re.sub(rf"(?i)\b({_AUX})\s+{escaped}\b", lambda m: f"{m.group(1)} I", text)
    text = re.sub(rf"^{escaped}\b", "I", text)
    text = re.sub(rf"\b{escaped}\b", "me", text)
    for pattern, repl in _PRONOUNS:
        text = re.sub(pattern, repl, text)
    # subject-verb agreement after a plain subject substitution
    text = re.sub(
        r"\bI (has|does|is)\b", lambda m: {"has": "I have", "does": "I do", "is": "I am"}[m.group(1)], text
    )
    if text.startswith("my"):
        text = "M" + text[1:]
    return text


def locomo_id_case(case: Case) -> Case:
    """The LoCoMo-ID view of a LoCoMo case: first-person questions asked by their subject."""
    names = [p.name for p in case.participants]
    qa: list[QA] = []
    for item in case.qa:
        mentioned = [n for n in names if re.search(rf"\b{re.escape(n)}\b", item.question)]
        if len(mentioned) != 1 or item.type == "adversarial":
            continue
        subject = mentioned[0]
        rewritten = first_person(item.question, subject)
        if rewritten is None:
            continue
        qa.append(
            item.model_copy(
                update={
                    "qa_id": f"{item.qa_id}-id",
                    "question": rewritten,
                    "asker": subject,
                    "meta": {**item.meta, "original_question": item.question},
                }
            )
        )
    return case.model_copy(
        update={"case_id": f"{case.case_id}-id", "source": "locomo-id", "qa": qa}, deep=True
    )
