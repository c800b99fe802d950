"""Identity mapping: what one piece of name evidence does to the participants (pure logic).

Why pure: the rules decide between naming someone, adding an alias, waiting for more
evidence, folding a name-only placeholder into a speaking person, and raising an audit
item; tests and benchmarks check them without a database, and the writer applies the
decision in Neo4j. The rules never merge two speaking people and never rename silently:
every conflict becomes an ``AuditItem``.

Weights: a self-introduction or correction is decisive on its own; "Thanks, Tom" right
after someone spoke (0.75) and an answer to "Tom, …?" (0.7) are enough alone; any other
reply right after the call (0.3) needs company, because in a group the next speaker is not
always the one who was called (the extractor's weights); that company may be the same weak
link heard again in another session, when the voice holds no vote for any other name. A voice
that calls someone "Tom" gets negative evidence for "Tom" (``NOT_ME``). A name is given when its summed weight
reaches ``NAME_THRESHOLD`` with ``NAME_MARGIN`` over any other name; a ``FIRM`` cue is
measured against the other names' firm cues only, so weak votes cannot veto it. A place phrase
("Westminster Abbey", ``extractors.naming.names_a_place``) names nobody, whichever backend heard it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from voxmem.extractors.name_lexicon import not_a_name
from voxmem.extractors.naming import names_a_place
from voxmem.ids import name_key

STRONG = 0.85
NAME_THRESHOLD = 0.7
NAME_MARGIN = 0.5
FIRM = 0.5  # a cue this strong names on its own (an answered call 0.7, "Thanks, Tom" 0.75)
NOT_ME = -1.0  # weight of "this voice called someone N, so it is not N"


@dataclass
class PersonState:
    """What the writer knows about a participant when evidence arrives."""

    id: str
    name: str | None
    aliases: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # "key|name|weight|kind|session|message_id"
    has_voice: bool = True
    name_source: str | None = None  # None/'given': named by the client; 'extraction'; 'mention'

    def weakly_named(self) -> bool:
        """Named only by accumulated weak evidence: a self-introduction may overrule it."""
        if self.name is None or self.name_source != "extraction":
            return False
        key = name_key(self.name)
        return not any(e.startswith(key + "|") and float(e.split("|")[2]) >= STRONG for e in self.evidence)

    def names(self) -> set[str]:
        keys = {name_key(a) for a in self.aliases}
        if self.name:
            keys.add(name_key(self.name))
        return keys


@dataclass(frozen=True)
class Decision:
    """``action``: none | vote | name | alias | rename | merge_placeholder | conflict_two_names |
    conflict_two_voices. ``other`` is the participant already bearing the name, if any."""

    action: str
    name: str
    key: str
    other: str | None = None
    detail: str = ""
    keep_name: bool = False  # merge_placeholder of a nickname: the target keeps its name


def votes(evidence: list[str], floor: float | None = None) -> dict[str, float]:
    """Summed weight per name key from stored evidence entries (only entries weighing at least
    ``floor`` when given)."""
    total: dict[str, float] = defaultdict(float)
    for parts, weight in _weighed(evidence):
        if floor is None or weight >= floor:
            total[parts[0]] += weight
    return dict(total)


def _weighed(evidence: list[str]) -> Iterator[tuple[list[str], float]]:
    """Each stored evidence entry's fields with its weight; entries without a readable weight
    are skipped (one reading of the entry format for every tally over it)."""
    for entry in evidence:
        parts = entry.split("|")
        if len(parts) >= 3:
            try:
                yield parts, float(parts[2])
            except ValueError:
                continue


def evidence_entry(name: str, weight: float, kind: str, message_id: str, session: str) -> str:
    """One stored piece of name evidence. The message id stays last (the Cypher that dedupes and
    clears entries matches on its suffix); the session comes before it (ids hold no '|'). Entries
    written before the session was kept have five fields."""
    return f"{name_key(name)}|{name}|{weight:.2f}|{kind}|{session}|{message_id}"


def weak_sessions(evidence: list[str], key: str) -> set[str]:
    """Sessions in which a weak vote (above 0, below ``FIRM``) for name ``key`` was heard."""
    return {
        parts[4]
        for parts, weight in _weighed(evidence)
        if len(parts) == 6 and parts[0] == key and 0 < weight < FIRM
    }


def decide(
    name: str,
    kind: str,
    alias: bool,
    confidence: float,
    target: PersonState,
    holders: list[PersonState],
    session: str | None = None,
) -> Decision:
    """What to do with "``target`` is called ``name``" (heard in ``session``), given who else
    bears that name."""
    key = name_key(name)
    if not key or names_a_place(name):  # whichever backend heard it, a place is nobody's name
        return Decision("none", name, key)
    if key in target.names():
        return Decision("none", name, key)
    if kind in ("kinship", "role"):
        return Decision("alias", name.lower(), key)
    others = [h for h in holders if h.id != target.id]
    # A frequent English word or a place that is no given name, heard as a call or a reply and
    # borne by nobody, is no vote, whichever backend heard it ("Passport", "Quartz"); a name a
    # person gives themself is not questioned (name_lexicon: no list covers every language).
    if kind not in ("self_intro", "correction") and not others and not_a_name(name):
        return Decision("none", name, key)
    tally = votes(target.evidence)
    tally[key] = tally.get(key, 0.0) + confidence
    # A firm cue is weighed against other names' firm cues only: weak votes are guesses that
    # need company, and letting them veto an answered call left right names off (generated
    # household case: 72 of 144 turns; docs/memory.md, "Naming, 2026-12-02 pass").
    rivals = votes(target.evidence, floor=FIRM) if confidence >= FIRM else tally
    best_other = max((w for k, w in rivals.items() if k != key), default=0.0)
    strong = confidence >= STRONG and kind in ("self_intro", "correction")
    # The same weak link heard again in another session, and no vote for any other name on this
    # voice: one reply after "Ross, …" is Ross about a third of the time, the same voice replying
    # to "Ross, …" in two scenes was Ross in 4 of 5 such links (FriendsQA tune episodes, gold
    # speakers). Per turn, speakers hidden, FriendsQA tune 173 / 106 right / wrong -> 214 / 138;
    # the household case's audio transcript 35 / 0 -> 72 / 0; the generated sets stay at 0 wrong.
    # Contested (another name voted too) it named a scenario voice wrongly (40 turns).
    again = (
        session is not None
        and 0 < confidence < FIRM
        and kind == "addressed"
        and bool(weak_sessions(target.evidence, key) - {session})
        and tally[key] >= FIRM  # no "not me" against it
        and not any(w > 0 for k, w in tally.items() if k != key)
    )
    accumulated = (tally[key] >= NAME_THRESHOLD or again) and tally[key] - best_other >= NAME_MARGIN
    nickname = bool(target.name) and len(key) >= 3 and name_key(target.name or "").startswith(key)
    voiceless = [h for h in others if not h.has_voice]
    if nickname and voiceless:  # "Hey Mel!" before Melanie spoke made a placeholder "Mel"
        return Decision(
            "merge_placeholder",
            name,
            key,
            other=voiceless[0].id,
            keep_name=True,
            detail=f"{name!r} (heard before they spoke) is a nickname of {target.name!r}",
        )
    if nickname and alias:
        return Decision("alias", name, key)  # "Mel" for Melanie
    if target.name and not strong:
        if target.name_source != "extraction" or confidence < FIRM or any(h.has_voice for h in others):
            return Decision("none", name, key)  # weak hints never touch a named person
        if not _overturned(key, confidence, target, session):
            return Decision("vote", name, key)  # kept: enough of them correct the name later
        why = f"{target.name!r} corrected to {name!r} (others' firm cues in two sessions)"
        if others:  # the name-only person the calls made: folded in, its name taken
            return Decision("merge_placeholder", name, key, other=others[0].id, detail=why)
        return Decision("rename", name, key, detail=why)
    if not (strong or accumulated):
        return Decision("vote", name, key)
    if others:
        holder = others[0]
        if not holder.has_voice:
            return Decision(
                "merge_placeholder",
                name,
                key,
                other=holder.id,
                detail=f"{name!r} was known only by name; now heard as {target.id}",
            )
        return Decision(
            "conflict_two_voices",
            name,
            key,
            other=holder.id,
            detail=f"{name!r} is already {holder.id}; {target.id} was also called {name!r}",
        )
    if target.name is None:
        return Decision("name", name, key)
    if kind == "correction" or (target.weakly_named() and _outweighs(confidence, target)):
        return Decision("rename", name, key, detail=f"{target.name!r} corrected to {name!r} ({kind})")
    if alias:
        return Decision("alias", name, key)
    return Decision(
        "conflict_two_names", name, key, detail=f"{target.id} is {target.name!r} but was also called {name!r}"
    )


def _outweighs(confidence: float, target: PersonState) -> bool:
    """A self-introduction overrules the name a voice was given by others' cues only by
    ``NAME_MARGIN`` over those cues' firm weight: weak votes are guesses, but an answered call by
    the name is what the others call this voice. On FriendsQA (speakers hidden) Chandler's voice,
    named "Chandler" by an answered call, was renamed "Dorf" by "Hi! I'm Dorf!", a persona he
    plays to the people who had just called him Chandler (docs/memory.md, "Naming precision:
    public lexicons and corrections, 2 December"). A correction ("Actually it's …") still renames."""
    return confidence - _firm_hold(target) >= NAME_MARGIN


def _overturned(key: str, confidence: float, target: PersonState, session: str | None) -> bool:
    """A name the rules gave is corrected when others' firm cues for another name (answered
    calls, thanks by name) come from at least two sessions and outweigh, by ``NAME_MARGIN``, the
    firm evidence for the name it bears (issue 11, item 4: a name can be corrected)."""
    firm = [(parts, w) for parts, w in _weighed(target.evidence) if w >= FIRM and parts[0] == key]
    sessions = {parts[4] for parts, _ in firm if len(parts) == 6} | ({session} if session else set())
    return len(sessions) >= 2 and sum(w for _, w in firm) + confidence - _firm_hold(target) >= NAME_MARGIN


def _firm_hold(target: PersonState) -> float:
    """The firm evidence (answered calls, thanks by name) for the name the voice bears now: what a
    self-introduction or another name's calls must outweigh by ``NAME_MARGIN`` to replace it."""
    return votes(target.evidence, floor=FIRM).get(name_key(target.name or ""), 0.0)
