"""The deterministic offline extractor: the default backend, and the one CI runs.

Reads one window and writes one :class:`TurnExtraction`: names (self-introductions,
corrections, people addressed by name or kinship/role term), addressees (vocatives,
group words, replies, turn-taking), facts (informative sentences in third person with
names resolved, slots for updates, times normalised) and profile attributes. Every
decision is a rule a reader can check; no model is loaded unless an embedder is given
for reply scoring.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from voxmem.extractors.naming import sounds_like
from voxmem.extractors.offline.facts import drafts
from voxmem.extractors.offline.lexicon import KINSHIP, ROLES
from voxmem.extractors.offline.names import Vocative, addresses_group, self_names, sentences, vocatives
from voxmem.extractors.offline.temporal import normalise_times
from voxmem.extractors.schema import (
    GROUP,
    Addressee,
    AnsweredCall,
    AttributeRecord,
    ExtractionResult,
    FactRecord,
    NameEvidence,
    TurnExtraction,
)
from voxmem.extractors.window import Window, WindowTurn

FACT_MAX_CHARS = 600  # FactRecord.content's limit: a longer fact failed the turn on every retry
ATTRIBUTE_MAX_CHARS = 300  # AttributeRecord.text's limit


def bounded_content(text: str, limit: int = FACT_MAX_CHARS) -> str:
    """Text cut at a word boundary to fit ``limit`` (a 771-character sentence once drafted a
    600+ character fact whose validation error failed the turn, on every retry)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:")
    return cut + "…"


_WORD = re.compile(r"[a-z][a-z0-9'_-]{2,}")
_FUNCTION = set(
    [
        "the",
        "and",
        "you",
        "your",
        "for",
        "are",
        "was",
        "were",
        "that",
        "this",
        "with",
        "have",
        "has",
        "had",
        "not",
        "but",
        "what",
        "how",
        "why",
        "when",
        "where",
        "who",
        "can",
        "could",
        "would",
        "should",
        "will",
        "just",
        "like",
        "it's",
        "i'm",
        "there",
        "their",
        "they",
        "them",
        "then",
        "than",
        "from",
        "into",
        "out",
        "about",
        "yes",
        "yeah",
        "okay",
    ]
)

# Weight of "the voice that answered right after someone asked 'Tom, …?' is Tom" (an
# answer-shaped reply to a question); any other reply after a call by name weighs 0.4.
ANSWERED_CALL = 0.7
_ANSWER = re.compile(
    r"^(?:yes|yeah|yep|no|nope|sure|ok|okay|of course|not yet|i will|i'll|i did|i have|i've|i am|i'm|"
    r"i can|it's|it is|they're|on the|in the|at the|sorry|maybe|right|definitely|absolutely|nah|done|here)\b",
    re.I,
)


# Any other reply right after a call by name: a vote that needs company. Three such replies
# (not two: 2 x 0.4 named Ben's voice "Sophie" in the household audio run) or one more cue.
LOOSE_REPLY = 0.3
# Weight of "someone asked a question, and the next voice answered it saying 'Leo'": the
# asker is Leo ("Can we have pizza?" → "Only if it is vegetarian, Leo.").
ANSWERED_BY_NAME = 0.7


# A question that asks for a person ("Who is it?", "Who's seven?", "What's your friend's name?"):
# names in the reply are its answer, not calls.
_ASKS_WHO = re.compile(r"\b(?:who|who's|whom|whose)\b|\bname\b", re.I)


def asks_who(text: str) -> bool:
    """The turn ends with a question asking for a person or a name."""
    last = sentences(text)[-1:] or [""]
    return last[0].rstrip().endswith("?") and bool(_ASKS_WHO.search(last[0]))


def _answers(call: str, reply: str) -> bool:
    """A question followed by an answer-shaped reply. (A reaction such as "Great, …" to a
    statement by name was tried as equally strong: on the generated group scenarios a third
    person reacts often enough that it named one voice wrongly and gained nothing.)"""
    return call.rstrip().endswith("?") and bool(_ANSWER.match(reply.strip()))


Similarity = Callable[[str, list[str]], list[float]]


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _FUNCTION}


class OfflineExtractor:
    """Rules over the window; ``similarity`` (optional) scores reply candidates by meaning."""

    name = "offline"

    def __init__(self, similarity: Similarity | None = None, partner_bonus: float = 0.0) -> None:
        self.similarity = similarity
        self.partner_bonus = partner_bonus

    # --- public interface ----------------------------------------------------------------
    def extract(self, window: Window) -> ExtractionResult:
        record = TurnExtraction()
        cur = window.current
        known = self._known(window)
        said = vocatives(cur.text, self._expected(cur, known))
        voc = self._named_in_answer(window, self._heard(window, cur, said, known))
        record.names = self._names(window, voc, known)
        record.addressees = [] if cur.given_addressees else self._addressees(window, voc, known)
        record.answered = self._answered_calls(window, voc, known)
        self._facts(window, record, [v.term for v in said])  # a misheard call is no content either
        return ExtractionResult(message_id=cur.message_id, extractor="offline", record=record)

    def extract_many(self, windows: Sequence[Window]) -> list[ExtractionResult]:
        return [self.extract(w) for w in windows]

    # --- names ---------------------------------------------------------------------------
    @staticmethod
    def _known(window: Window) -> dict[str, str]:
        """lower-case name or alias → label, for everyone the window knows."""
        known: dict[str, str] = {}
        for label, person in window.people.items():
            for n in person.all_names():
                known.setdefault(n.lower(), label)
                first = n.split()[0].lower()
                known.setdefault(first, label)
        return known

    @staticmethod
    def _resolve(term: str, known: dict[str, str]) -> tuple[str | None, bool]:
        """(label, by_prefix) for a vocative term, or (None, False)."""
        low = term.lower()
        if low in known:
            return known[low], False
        matches = {label for name, label in known.items() if len(low) >= 3 and name.startswith(low)}
        if len(matches) == 1:
            return matches.pop(), True
        # A name the ASR spelt another way ("Pria" for a known "Priya") is that person, not a
        # new one; only when exactly one known name sounds like it.
        alike = {label for name, label in known.items() if sounds_like(low, name)}
        if len(alike) == 1:
            return alike.pop(), False
        return None, False

    def _named_in_answer(self, window: Window, voc: list[Vocative]) -> list[Vocative]:
        """``voc`` less the names that answer the question just before when it asked for a
        person: "What's your friend's name?" → "Oh, Chandler." and "Who's seven?" → "Y'know,
        me, Rachel, the birds…" name people as the answer; read as calls of the asker they named
        the asker "Chandler" and "Rachel" (FriendsQA tune episodes, speakers hidden)."""
        prev = self._previous_other(window)
        if prev is None or window.previous[-1] is not prev or not asks_who(prev.text):
            return voc
        return [v for v in voc if v.kind != "name" or v.position == "start"]

    def _calls(self, window: Window, turn: WindowTurn, known: dict[str, str]) -> list[Vocative]:
        """The calls of a window turn as the rules read them (:meth:`_heard`)."""
        return self._heard(window, turn, vocatives(turn.text, self._expected(turn, known)), known)

    @staticmethod
    def _expected(turn: WindowTurn, known: dict[str, str]) -> set[str]:
        """Lower-case names a turn's vocatives are read against: the window's people and the words
        of the turn's ASR vocabulary. A name the client said to expect is a name even when the
        public lexicons call it a common word or a place (``name_lexicon.not_a_name``)."""
        return set(known) | {w.lower() for entry in turn.vocabulary or [] for w in entry.split()}

    def _heard(
        self, window: Window, turn: WindowTurn, found: list[Vocative], known: dict[str, str]
    ) -> list[Vocative]:
        """``found`` less the calls the ASR made up. A spoken turn whose ASR was told which
        names to expect (its ``vocabulary``) and that opens a sentence with a name nobody in the
        window bears and that is not in that list (nor sounds like an entry) was misheard: a
        sentence-initial capital is the ASR's casing, not a sign of a name, and tiny.en writes
        Maya's "Dad, the match moved …" as "Mad, the match moved …", which made a participant
        "Mad" the turn's addressee (docs/memory.md, "Naming heard through ASR, 2 December second
        pass"). A name inside or at the end of a sentence keeps the ASR's own capital, and a turn
        without a vocabulary (typed text, or audio sent without hints) is read as before.

        A vocabulary is a spelling hint, never a roster: a guest the household's list lacks is
        called by a name outside it ("Sam, could you …"). So such a name is dropped only while it is
        heard once: written with its capital in another turn of the window (called again, named
        mid-sentence, introduced), it is a name someone keeps saying, not one slip of the ASR."""
        if not turn.vocabulary:
            return found
        expected = {w.lower() for entry in turn.vocabulary for w in entry.split()}
        others = [t.text for t in window.turns if t is not turn]

        def heard_again(first: str) -> bool:
            pattern = re.compile(rf"\b{re.escape(first)}\b")
            return any(pattern.search(text) for text in others)

        def misheard(v: Vocative) -> bool:
            first = v.term.split()[0]
            return (
                v.kind == "name"
                and v.position == "start"
                and self._resolve(v.term, known)[0] is None
                and first.lower() not in expected
                and not any(sounds_like(first.lower(), w) for w in expected)
                and not heard_again(first)
            )

        return [v for v in found if not misheard(v)]

    @staticmethod
    def _previous_other(window: Window, before: int | None = None) -> WindowTurn | None:
        """The latest window turn before ``before`` (default: current) by someone else."""
        cur = window.current
        turns = window.previous if before is None else window.turns[:before]
        for turn in reversed(turns):
            if turn.speaker != cur.speaker:
                return turn
        return None

    def _names(self, window: Window, voc: list[Vocative], known: dict[str, str]) -> list[NameEvidence]:
        cur = window.current
        out: list[NameEvidence] = []
        for found in self_names(cur.text):
            out.append(
                NameEvidence(
                    speaker=cur.speaker,
                    name=found.name,
                    kind=found.kind,
                    alias=found.alias,
                    confidence=found.confidence,
                )
            )
        prev = self._previous_other(window)
        spoke = {t.speaker for t in window.turns}
        back = self._names_asker(window, voc, known, spoke)  # "…, Leo." to the asker: no turn away
        turned_away = any(
            v.cue != "thanks"
            and v not in back
            and (prev is None or self._resolve(v.term, known)[0] != prev.speaker)
            for v in voc
        )
        for v in voc:
            if v.kind == "group":
                continue
            label, by_prefix = self._resolve(v.term, known)
            kind = {"kinship": "kinship", "role": "role"}.get(v.kind, "addressed")
            alias = v.kind in ("kinship", "role")
            thanked_placeholder = (
                label is not None
                and v.cue == "thanks"
                and prev is not None
                and self._voiceless(window, label, spoke, prev.speaker)
            )
            if label is not None and not thanked_placeholder:
                if by_prefix and label != cur.speaker:  # "Mel" for Melanie: a nickname, kept as alias
                    out.append(
                        NameEvidence(speaker=label, name=v.term, kind="addressed", alias=True, confidence=0.7)
                    )
                continue
            if v.cue == "thanks" and prev is not None:
                out.append(
                    NameEvidence(speaker=prev.speaker, name=v.term, kind=kind, alias=alias, confidence=0.75)
                )
        # A question or call by name in the previous turn that the current speaker answers.
        # Through an ASR told which names to expect (a vocabulary), a reply that is no answer
        # gives a name no vote: such an ASR writes expected names into turns that never said them
        # and drops calls that did ("Let me think about it." heard as "Leo, me thing come out
        # it."). A kinship or role call keeps its vote: it only ever makes an alias ("Dad").
        heard = bool(cur.vocabulary or (prev is not None and prev.vocabulary))
        if prev is not None and window.previous and window.previous[-1] is prev:
            for v in self._calls(window, prev, known):
                if v.kind == "group" or v.cue == "thanks":
                    continue
                me = window.people[cur.speaker].name or ""
                term = v.term.lower()
                if len(term) >= 3 and me.lower().startswith(term) and me.lower() != term:
                    # "Hey Mel!" answered by Melanie: a nickname (even if "Mel" became a placeholder)
                    out.append(
                        NameEvidence(
                            speaker=cur.speaker, name=v.term, kind="addressed", alias=True, confidence=0.7
                        )
                    )
                    continue
                label, _ = self._resolve(v.term, known)
                answered = _answers(prev.text, cur.text)
                unborne = label is None or self._voiceless(window, label, spoke, cur.speaker)
                if answered and not unborne and label not in spoke and label != cur.speaker:
                    # a named voice answering a call by a name nobody who spoke bears: a firm vote
                    # the identity rules keep, so that enough of them correct a wrong name
                    unborne = True
                # the caller turned to someone present; every other voice bears another name
                last_unnamed = v.kind == "name" and unborne and self._last_unnamed(window, cur.speaker)
                # A reply that is no answer votes weakly (LOOSE_REPLY), also through the name-only
                # placeholder the call left (the audio path), unless it calls someone other than
                # the caller ("Everyone, …", "Sam, …"): then it turns to them and answers nobody
                # ("Dad, …?" → "Only if …, Leo." still makes Dad the answerer's alias). Weak votes
                # need company and never veto a firm cue (memory.identity.FIRM); docs/memory.md,
                # "Naming, 2026-12-02 pass", has what each part does on the naming benchmark.
                firm = answered or last_unnamed or v.kind != "name"
                if ((unborne and (answered or not turned_away)) or last_unnamed) and (firm or not heard):
                    kind = {"kinship": "kinship", "role": "role"}.get(v.kind, "addressed")
                    out.append(
                        NameEvidence(
                            speaker=cur.speaker,
                            name=v.term,
                            kind=kind,
                            alias=v.kind in ("kinship", "role"),
                            confidence=ANSWERED_CALL if answered or last_unnamed else LOOSE_REPLY,
                        )
                    )
        out.extend(self._answered_by_name(window, back))
        return _dedupe_names(out)

    @staticmethod
    def _last_unnamed(window: Window, target: str) -> bool:
        """``target`` is the one person of the session without a name, and at least two other
        voices spoke in the window (all people named): whoever a call by a name nobody bears
        turned to, it can only be ``target`` (or someone who never speaks). The two must be
        voices heard, not name-only people: the placeholder a call leaves in the roster is named
        but is nobody who could answer, and counting it fired the rule with one other voice
        present (FriendsQA tune episodes, speakers hidden: 74 more wrong turns, none more right;
        docs/memory.md, "Naming, 2026-12-02 pass")."""
        others = [label for label in window.people if label != target]
        voices = {turn.speaker for turn in window.turns} - {target}
        return (
            not window.people[target].name
            and len(voices) >= 2
            and all(window.people[label].name for label in others)
        )

    @staticmethod
    def _voiceless(window: Window, label: str, spoke: set[str], target: str) -> bool:
        """The name belongs to nobody who spoke in the window (a session participant known only
        by that name, e.g. the placeholder made when "Tom, …?" was said), and ``target``, who
        would get it, has no name yet: so the evidence still counts."""
        return label not in spoke and label != target and not window.people[target].name

    @staticmethod
    def _answered_by_name(window: Window, named: list[Vocative]) -> list[NameEvidence]:
        """ "Can we have pizza?" → "Only if it is vegetarian, Leo.": the voice that asked the
        question just before is the one the answer calls by name (``named``: the calls
        :meth:`_names_asker` found)."""
        if not window.previous or window.people[window.previous[-1].speaker].name:
            return []
        asked = window.previous[-1]
        return [
            NameEvidence(speaker=asked.speaker, name=v.term, kind="addressed", confidence=ANSWERED_BY_NAME)
            for v in named
        ]

    def _names_asker(
        self, window: Window, voc: list[Vocative], known: dict[str, str], spoke: set[str]
    ) -> list[Vocative]:
        """The current turn answers the question just before by another voice and calls its
        asker by a name (unknown, or the asker's own): "…, Leo." / "…, Leo, …" later in a
        sentence that is not itself a question ("Tom, what do you think?" asks a third person);
        a name opening the reply ("Olivia, the printer is broken") more often turns to someone
        new, so it is not taken."""
        cur = window.current
        if not window.previous:
            return []
        asked = window.previous[-1]
        if asked.speaker == cur.speaker or not asked.text.rstrip().endswith("?"):
            return []
        out = []
        for v in voc:
            if v.kind != "name" or v.cue in ("question", "thanks") or v.position == "start":
                continue
            label, _ = self._resolve(v.term, known)
            if label in (None, asked.speaker) or self._voiceless(window, label, spoke, asked.speaker):
                out.append(v)
        return out

    def answered_calls(self, window: Window) -> list[AnsweredCall]:
        """The turn just before called one person by a kinship or role term nobody in the
        window bears ("Dad, can we …?" with several people present), and the current voice
        answered it: an answer-shaped reply ("Sure, …") or one that calls the asker back by name
        ("Only if it is vegetarian, Leo."). The call was said to the current speaker; the writer
        re-points the earlier turn's inferred ADDRESSES edge, written before the answer existed.
        Not for names: on FriendsQA (speakers' names known) the voice that answers a call by a
        name nobody bears was the person called in 3 of 12 cases, and a name call already
        names its addressee (docs/memory.md, "Answered calls"). A rule over the window whatever
        the backend: the LLM extractor adds it to the model's record too."""
        known = self._known(window)
        return self._answered_calls(window, self._calls(window, window.current, known), known)

    def _answered_calls(
        self, window: Window, voc: list[Vocative], known: dict[str, str]
    ) -> list[AnsweredCall]:
        """:meth:`answered_calls` given the current turn's vocatives and the window's names, which
        :meth:`extract` has computed already."""
        cur = window.current
        if not window.previous:
            return []
        call = window.previous[-1]
        if call.speaker == cur.speaker or call.given_addressees:
            return []
        spoke = {t.speaker for t in window.turns}
        replied = _answers(call.text, cur.text) or bool(self._names_asker(window, voc, known, spoke))
        calls = [v for v in self._calls(window, call, known) if v.kind != "group" and v.cue != "thanks"]
        if not replied or len(calls) != 1 or calls[0].kind not in ("kinship", "role"):
            return []
        if self._resolve(calls[0].term, known)[0] is not None:  # "Dad" is someone's alias already
            return []
        return [AnsweredCall(message_id=call.message_id, term=calls[0].term, confidence=ANSWERED_CALL)]

    # --- addressees ----------------------------------------------------------------------
    def _addressees(self, window: Window, voc: list[Vocative], known: dict[str, str]) -> list[Addressee]:
        cur = window.current
        out: list[Addressee] = []
        prev = self._previous_other(window)
        for v in voc:
            if v.kind == "group":
                out.append(Addressee(target=GROUP, source="group", confidence=0.8))
                continue
            label, _ = self._resolve(v.term, known)
            if label == cur.speaker:
                continue
            if label is not None:
                out.append(Addressee(target=label, source="vocative", confidence=0.9))
            elif v.cue == "thanks" and prev is not None:
                out.append(Addressee(target=prev.speaker, source="vocative", confidence=0.65))
            elif v.kind == "name":
                out.append(Addressee(target=v.term, source="vocative", confidence=0.6))
            elif v.kind in KINSHIP.values() or v.term.lower() in KINSHIP or v.term.lower() in ROLES:
                # an unknown "Dad": the one other person present, if there is exactly one
                others = {t.speaker for t in window.turns if t.speaker != cur.speaker}
                if len(others) == 1:
                    out.append(Addressee(target=others.pop(), source="vocative", confidence=0.6))
        if not out and addresses_group(cur.text):
            out.append(Addressee(target=GROUP, source="group", confidence=0.7))
        if out:
            return _dedupe_addressees(out)
        return self._by_context(window, known)

    def _by_context(self, window: Window, known: dict[str, str]) -> list[Addressee]:
        """No vocative: a reply to whoever called the speaker or asked last, else turn-taking."""
        cur = window.current
        candidates: dict[str, float] = {}
        recency = 1.0
        names = [n for n in window.people[cur.speaker].all_names() if len(n) >= 2]
        my_names = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b") if names else None
        seen_self_after: set[str] = set()
        for pos in range(len(window.previous) - 1, -1, -1):
            turn = window.previous[pos]
            if turn.speaker == cur.speaker:
                seen_self_after.add("self")
                continue
            if turn.speaker in candidates:
                continue
            score = recency
            called = cur.speaker in turn.addressees or any(
                self._resolve(v.term, known)[0] == cur.speaker for v in self._calls(window, turn, known)
            )
            if called:
                score += 2.0
            elif my_names and my_names.search(turn.text):
                score += 1.0  # they talked about me: I answer them ("Maya loves curry." "I don't!")
            if "self" not in seen_self_after and turn.text.rstrip().endswith("?"):
                score += 0.5
            candidates[turn.speaker] = score
            recency *= 0.5
        if not candidates:
            return []
        own = next((t for t in reversed(window.previous) if t.speaker == cur.speaker), None)
        if own is not None:  # continuing a conversation with the one we spoke to last
            for label in own.addressees:
                if label in candidates:
                    candidates[label] += self.partner_bonus
        if self.similarity is not None and len(candidates) > 1:
            latest = {}
            for turn in window.previous:
                if turn.speaker in candidates:
                    latest[turn.speaker] = turn.text
            labels = list(latest)
            sims = self.similarity(cur.text, [latest[label] for label in labels])
            for label, sim in zip(labels, sims, strict=True):
                candidates[label] += 1.2 * sim
        else:
            mine = _words(cur.text)
            for turn in window.previous:
                if turn.speaker in candidates and mine:
                    candidates[turn.speaker] += 0.3 * len(mine & _words(turn.text)) / len(mine)
        best = max(candidates, key=lambda label: candidates[label])
        top = window.previous[-1]
        source = "reply" if candidates[best] >= 1.5 or top.text.rstrip().endswith("?") else "turn_taking"
        return [Addressee(target=best, source=source, confidence=0.75 if source == "reply" else 0.6)]

    # --- facts and attributes ------------------------------------------------------------
    def _facts(self, window: Window, record: TurnExtraction, terms: list[str]) -> None:
        cur = window.current
        speaker = window.people[cur.speaker]
        targets = [a.target for a in record.addressees if a.target != GROUP] or list(cur.given_addressees)
        labels = [t for t in targets if t in window.people]
        if labels:
            addressee_name: str | None = " and ".join(window.people[t].display for t in labels)
        elif any(a.target == GROUP for a in record.addressees):
            addressee_name = "everyone present"
        else:
            addressee_name = next((t for t in targets if t not in window.people), None)
        for caption in cur.captions:  # a shared image: its caption is what memory can index
            record.facts.append(
                FactRecord(
                    content=bounded_content(f"{speaker.display} shared an image: {caption.rstrip('.')}."),
                    subject=cur.speaker,
                    confidence=0.6,
                )
            )
        known = [n for person in window.people.values() for n in person.all_names()]
        for d in drafts(cur.text, speaker.display, addressee_name, terms, known):
            refs = labels or [t for t in targets if t != GROUP]
            subject = refs[0] if d.subject == "addressee" and refs else cur.speaker
            if d.named is not None:
                subject = window.label_for_name(d.named) or subject
            about = [t for t in refs if t != subject] if d.mentions_you else []
            if d.relation and d.relation[1]:
                about.append(d.relation[1])
            times = normalise_times(d.source, window.reference_time)
            record.facts.append(
                FactRecord(
                    content=bounded_content(d.content),
                    subject=subject,
                    about=about,
                    slot=d.slot,
                    value=d.value,
                    time=times[0] if times else None,
                    confidence=0.6,
                )
            )
            for kind in dict.fromkeys(d.kinds):
                record.attributes.append(
                    AttributeRecord(
                        holder=subject,
                        kind=kind,
                        text=bounded_content(d.content, ATTRIBUTE_MAX_CHARS),
                        slot=d.slot if kind != "relationship" else None,
                        confidence=0.6,
                    )
                )
        for ev in record.names:  # "Dad, …": the addressed person is the speaker's dad
            if ev.kind == "kinship" and ev.speaker != cur.speaker:
                record.attributes.append(
                    AttributeRecord(
                        holder=cur.speaker,
                        kind="relationship",
                        text=f"{window.people[ev.speaker].display} is {speaker.display}'s "
                        f"{KINSHIP[ev.name.lower()]}.",
                        confidence=ev.confidence,
                    )
                )


def _dedupe_names(items: list[NameEvidence]) -> list[NameEvidence]:
    best: dict[tuple[str, str], NameEvidence] = {}
    for item in items:
        key = (item.speaker, item.name.lower())
        if key not in best or item.confidence > best[key].confidence:
            best[key] = item
    return list(best.values())


def _dedupe_addressees(items: list[Addressee]) -> list[Addressee]:
    best: dict[str, Addressee] = {}
    for item in items:
        if item.target not in best or item.confidence > best[item.target].confidence:
            best[item.target] = item
    return list(best.values())
