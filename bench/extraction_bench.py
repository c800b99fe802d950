"""Extraction benchmark: addressees, names, fact coverage and throughput, printed as a table.

    python -m bench.extraction_bench [--quick] [--out results/memory]

Measures the offline backend (and says so); the LLM and graphiti backends need a real
model and are not measured here.
- Addressee accuracy on Molweni (the speaker of the message a turn replies to, as a
  proxy for its addressee) next to two baselines: the literal previous speaker and the
  previous *other* speaker.
- Addressee accuracy on generated multi-party sessions with known addressees: the
  scenario cases of ``bench.scenarios`` and this module's own dialogues (which
  also carry naming cues).
- Name resolution with hidden speaker names: every voice starts anonymous; the
  extractor's name evidence goes through the same rules the writer applies
  (``voxmem.memory.identity``); we count speakers named correctly, wrongly, or not at all.
- Fact coverage against LoCoMo's reference ``observation`` facts: an observation is
  covered when some extracted fact of the same session has cosine ≥ threshold with it
  (all-MiniLM-L6-v2), and "aligned" when that fact also comes from the cited turn.
- Throughput: offline extraction turns per second (median of repeats) on LoCoMo turns.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tqdm import tqdm

from voxmem.extractors.offline import OfflineExtractor
from voxmem.extractors.schema import GROUP, ExtractionResult, TurnExtraction, is_label
from voxmem.extractors.window import Window, WindowPerson, WindowTurn
from voxmem.ids import name_key
from voxmem.memory.identity import NOT_ME, PersonState, decide, evidence_entry

DATA = Path(os.environ.get("VOXMEM_DATA_DIR", "/work/shared/data"))
EVERYONE = "everyone"
PLACEHOLDER = "placeholder:"  # id prefix of a name-only person in the hidden-name runs


# --- a session simulator that builds windows the way the Neo4j loader does ---------------------
@dataclass
class Sim:
    """Turns of one session fed one by one; identities known (text path) or hidden (voices)."""

    date: datetime
    context: int = 3
    hidden: bool = False
    names: dict[str, str | None] = field(default_factory=dict)  # speaker id -> current name
    aliases: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    turns: list[tuple[str, str]] = field(default_factory=list)
    roster: list[str] = field(default_factory=list)
    addressed: dict[int, list[str]] = field(default_factory=dict)  # turn index -> speaker ids it addressed
    windows: dict[int, tuple[Window, Any]] = field(default_factory=dict)  # turn index -> (window, record)

    def record(self, window: Window, record) -> set[str]:
        """Remember what the current turn addressed (as the writer's ADDRESSES edges would)."""
        idx = len(self.turns) - 1
        known = self.names
        pred = self._edges(idx, window, record, ("vocative", "group"), lambda n: n if n in known else None)
        self.addressed[idx] = sorted(pred)
        self.windows[idx] = (window, record)
        return pred

    def _edges(self, idx: int, window: Window, record, sources: tuple[str, ...], resolve) -> set[str]:
        """The people turn ``idx`` addresses by its addressees of these ``sources`` (everyone
        present but its speaker for a group call)."""
        kept = record.model_copy(update={"addressees": [a for a in record.addressees if a.source in sources]})
        pred = predicted_addressees(window, kept, resolve)
        if EVERYONE in pred:
            pred = (pred - {EVERYONE}) | {p for p in self.roster if p != self.turns[idx][0]}
        return pred

    def answer(self, record) -> list[int]:
        """Earlier turns this record's answers re-point to the current speaker, as the writer's
        ``memory_addresses_answered`` does; their vocative edges are gone from later windows then
        (the 'answered' edge is not read as a vocative)."""
        out = []
        for call in record.answered:
            idx = int(call.message_id.removeprefix("m"))
            if idx not in self.windows:
                continue
            window, earlier = self.windows[idx]
            self.addressed[idx] = sorted(self._edges(idx, window, earlier, ("group",), lambda name: None))
            out.append(idx)
        return out

    def present(self, sid: str, name: str) -> None:
        """A name-only person joins the session (the writer's placeholder for a name called by a
        vocative that no voice bears: it is in the session's roster, so later windows know it)."""
        self.names[sid] = name
        if sid not in self.roster:
            self.roster.append(sid)

    def leave(self, sid: str) -> None:
        """A placeholder folded into a voice is no longer a person of its own."""
        if sid in self.roster:
            self.roster.remove(sid)

    def window(self, speaker: str, text: str) -> Window:
        self.turns.append((speaker, text))
        if speaker not in self.roster:
            self.roster.append(speaker)
        recent = self.turns[-(self.context + 1) :]
        labels: dict[str, str] = {}
        people: dict[str, WindowPerson] = {}

        def label(sid: str) -> str:
            if sid not in labels:
                labels[sid] = f"S{len(labels) + 1}"
                people[labels[sid]] = WindowPerson(
                    labels[sid], sid, self.names.get(sid), list(self.aliases[sid])
                )
            return labels[sid]

        base = len(self.turns) - len(recent)
        wturns = [
            WindowTurn(
                f"m{base + i}", base + i, label(sid), t, self.date + timedelta(seconds=30 * (base + i))
            )
            for i, (sid, t) in enumerate(recent)
        ]
        for sid in self.roster:
            label(sid)
        for i, turn in enumerate(wturns):
            turn.addressees = [labels[a] for a in self.addressed.get(base + i, []) if a in labels]
        return Window("s", self.date, wturns, people)


def predicted_addressees(window: Window, record, resolve_name) -> set[str]:
    """Speaker ids (or 'everyone') the record addresses."""
    out: set[str] = set()
    for a in record.addressees:
        if a.target == GROUP:
            out.add(EVERYONE)
        elif is_label(a.target):
            person = window.person(a.target)
            if person and person.participant_id:
                out.add(person.participant_id)
        else:
            found = resolve_name(a.target)
            if found:
                out.add(found)
    return out


# --- Molweni ------------------------------------------------------------------------------------
def molweni(extractor: OfflineExtractor, context: int) -> dict[str, Any]:
    data = json.loads((DATA / "molweni" / "molweni_dev.json").read_text())["data"]["dialogues"]
    n = ok = before = prev_lit = prev_other = 0
    for dia in data:
        edus = dia["edus"]
        gold = {r["y"]: r["x"] for r in dia["relations"]}
        sim = Sim(datetime(2020, 1, 1, tzinfo=UTC), context=context)
        preds: dict[int, set[str]] = {}
        firsts: dict[int, set[str]] = {}
        for i, edu in enumerate(edus):
            sid = edu["speaker"]
            sim.names[sid] = sid
            window = sim.window(sid, edu["text"])
            record = extractor.extract(window).record
            sim.record(window, record)
            preds[i] = firsts[i] = predicted_addressees(
                window, record, lambda name, sim=sim: name if name in sim.names else None
            )
            for idx in sim.answer(record):
                preds[idx] = {sid}
        for i, edu in enumerate(edus):
            sid = edu["speaker"]
            if i not in gold or edus[gold[i]]["speaker"] == sid:
                continue
            target = edus[gold[i]]["speaker"]
            n += 1
            ok += preds[i] == {target}
            before += firsts[i] == {target}
            prev_lit += edus[i - 1]["speaker"] == target
            other = next(
                (edus[j]["speaker"] for j in range(i - 1, -1, -1) if edus[j]["speaker"] != sid), None
            )
            prev_other += other == target
    return {
        "n": n,
        "offline": ok / n,
        "offline_without_answered": before / n,
        "previous_speaker": prev_lit / n,
        "previous_other_speaker": prev_other / n,
    }


# --- generated sessions -------------------------------------------------------------------------
def scenario_cases(quick: bool) -> list[Any]:
    from bench.scenarios import SCENARIOS, generate_case

    seeds = [7] if quick else [7, 11, 23]
    return [generate_case(s, seed, 4, 6, 24) for s in SCENARIOS for seed in seeds]


def addressee_accuracy_cases(extractor: OfflineExtractor, cases: list[Any], context: int) -> dict[str, Any]:
    n = ok = ok_before = edges_on_unlabelled = unlabelled = 0
    by_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for case in cases:
        people = {name_key(p.name): p.name for p in case.participants}
        for session in case.sessions:
            sim = Sim(_date(session.date), context=context)
            scored: list[tuple[set[str], set[str], str]] = []  # (predicted, as first written, source)
            for turn in session.turns:
                sim.names[turn.speaker] = turn.speaker
                window = sim.window(turn.speaker, turn.text)
                record = extractor.extract(window).record
                sim.record(window, record)
                pred = predicted_addressees(
                    window, record, lambda name, people=people: people.get(name_key(name))
                )
                src = record.addressees[0].source if record.addressees else "none"
                scored.append((pred, pred, src))
                for idx in sim.answer(record):
                    scored[idx] = ({turn.speaker}, scored[idx][1], "answered")
            for turn, (pred, first, src) in zip(session.turns, scored, strict=True):
                gold = {EVERYONE if a.lower() == EVERYONE else a for a in turn.addressees}
                if not gold:
                    unlabelled += 1
                    edges_on_unlabelled += bool(pred)
                    continue
                n += 1
                hit = pred == gold
                ok += hit
                ok_before += first == gold
                by_source[src][0] += hit
                by_source[src][1] += 1
    return {
        "n": n,
        "accuracy": ok / n if n else 0.0,
        "accuracy_without_answered": ok_before / n if n else 0.0,
        "by_source": {k: {"n": v[1], "accuracy": v[0] / v[1]} for k, v in by_source.items()},
        "unlabelled_turns": unlabelled,
        "unlabelled_with_edge": edges_on_unlabelled / unlabelled if unlabelled else 0.0,
    }


def _date(value: Any) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# --- this module's own dialogues: naming cues and known addressees --------------------------------
FIRST = ["Maya", "Tom", "Nora", "Ben", "Grace", "Leo", "Emma", "Jack", "Lucy", "Peter", "Alice", "Sam"]
STATEMENTS = [
    "I'm vegetarian, so no meat for me.",
    "I grew up in Lisbon.",
    "I love green tea in the morning.",
    "My sister lives in Oslo.",
    "I work as a nurse at the city hospital.",
    "The printer on the second floor is broken again.",
]
REQUESTS = [
    "could you pass me the menu?",
    "can you check the schedule?",
    "are you coming tonight?",
    "did you book the table?",
    "where did you put the keys?",
]
ANSWERS = [
    "Sure, here you go.",
    "Yes, I'll be there at eight.",
    "Not yet, I'll do it now.",
    "On the shelf by the door.",
]


def own_dialogues(seed: int, n_sessions: int) -> list[dict[str, Any]]:
    """Sessions of 3-5 people: (speaker, text, gold addressees, how the speaker is named, if at all)."""
    rng = random.Random(seed)
    sessions = []
    for _ in range(n_sessions):
        people = rng.sample(FIRST, rng.randint(3, 5))
        turns: list[tuple[str, str, list[str]]] = []
        intro, called, thanked = people[0], people[1], people[2]
        turns.append((intro, f"Hi everyone, I'm {intro}.", [EVERYONE]))
        turns.append((people[1], f"Nice to meet you, {intro}.", [intro]))
        other = rng.choice([p for p in people if p != called])
        turns.append((other, f"{called}, {rng.choice(REQUESTS)}", [called]))
        turns.append((called, rng.choice(ANSWERS), [other]))
        turns.append((thanked, rng.choice(STATEMENTS), []))
        turns.append((rng.choice([p for p in people if p != thanked]), f"Thanks, {thanked}.", [thanked]))
        for _ in range(rng.randint(4, 8)):
            kind = rng.random()
            a, b = rng.sample(people, 2)
            if kind < 0.35:
                turns.append((a, f"{b}, {rng.choice(REQUESTS)}", [b]))
                turns.append((b, rng.choice(ANSWERS), [a]))
            elif kind < 0.55:
                turns.append(
                    (a, "Did you book the table for Friday?", [turns[-1][0]] if turns[-1][0] != a else [])
                )
                if turns[-1][2]:
                    turns.append((turns[-1][2][0], "Yes, for seven.", [a]))
            elif kind < 0.7:
                turns.append((a, "Okay everyone, let's get started.", [EVERYONE]))
            else:
                turns.append((a, rng.choice(STATEMENTS), []))
        named = {intro: "self", called: "called_and_answered", thanked: "thanked"}
        sessions.append({"people": people, "turns": turns, "named": named})
    return sessions


def own_addressees(
    extractor: OfflineExtractor, sessions: list[dict[str, Any]], context: int
) -> dict[str, Any]:
    n = ok = ok_before = 0
    for s in sessions:
        sim = Sim(datetime(2026, 11, 2, tzinfo=UTC), context=context)
        names = {name_key(p): p for p in s["people"]}
        scored: list[tuple[set[str], set[str]]] = []
        for speaker, text, _gold in s["turns"]:
            sim.names[speaker] = speaker
            window = sim.window(speaker, text)
            record = extractor.extract(window).record
            sim.record(window, record)
            pred = predicted_addressees(window, record, lambda x, names=names: names.get(name_key(x)))
            scored.append((pred, pred))
            for idx in sim.answer(record):
                scored[idx] = ({speaker}, scored[idx][1])
        for (_speaker, _text, gold), (pred, first) in zip(s["turns"], scored, strict=True):
            if not gold:
                continue
            n += 1
            ok += pred == set(gold)
            ok_before += first == set(gold)
    return {
        "n": n,
        "accuracy": ok / n if n else 0.0,
        "accuracy_without_answered": ok_before / n if n else 0.0,
    }


def resolve_names(
    extractor: OfflineExtractor, sessions: list[tuple[list[tuple[str, str]], datetime]], context: int
) -> dict[str, Any]:
    """Hidden names: apply name evidence with the writer's rules; returns speaker -> name. A
    name called by a vocative that no voice bears joins the session as a name-only person, as
    the writer's placeholder does, until a voice takes the name."""
    state: dict[str, PersonState] = {}
    placeholders: dict[str, str] = {}  # key -> name heard before its voice spoke
    sims = []
    for k, (turns, date) in enumerate(sessions):
        session = f"s{k}"
        sim = Sim(date, context=context, hidden=True)
        sims.append(sim)
        for i, (speaker, text) in enumerate(turns):
            st = state.setdefault(speaker, PersonState(speaker, None, has_voice=True))
            for sid, person in state.items():
                sim.names[sid] = person.name
                sim.aliases[sid] = list(person.aliases)
            window = sim.window(speaker, text)
            record = extractor.extract(window).record
            sim.record(window, record)
            for ev in record.names:
                target = window.person(ev.speaker)
                if target is None or target.participant_id not in state:
                    continue
                tstate = state[target.participant_id]
                key = name_key(ev.name)
                holders = [
                    s for s in state.values() if s.id != tstate.id and s.name and name_key(s.name) == key
                ]
                if key in placeholders and not holders:
                    holders = [PersonState(PLACEHOLDER + key, placeholders[key], has_voice=False)]
                d = decide(ev.name, ev.kind, ev.alias, ev.confidence, tstate, holders, session)
                if d.action == "none":
                    continue
                tstate.evidence.append(evidence_entry(ev.name, ev.confidence, ev.kind, f"t{i}", session))
                if d.action in ("name", "rename", "merge_placeholder"):
                    if tstate.name:
                        tstate.aliases.append(tstate.name)
                    tstate.name = ev.name
                    tstate.name_source = "extraction"
                    placeholders.pop(key, None)
                    for other in sims:  # the placeholder is folded into the voice
                        other.leave(PLACEHOLDER + key)
                elif d.action == "alias":
                    tstate.aliases.append(d.name)
            for a in record.addressees:
                called = window.person(a.target) if is_label(a.target) and a.source == "vocative" else None
                if called is not None and called.name and called.participant_id != speaker:
                    st.evidence.append(evidence_entry(called.name, NOT_ME, "not_me", f"t{i}", session))
                if not is_label(a.target) and a.target != GROUP:
                    st.evidence.append(evidence_entry(a.target, NOT_ME, "not_me", f"t{i}", session))
                    key = name_key(a.target)
                    if not any(s.name and name_key(s.name) == key for s in state.values()):
                        placeholders.setdefault(key, a.target)
                        if a.source == "vocative":  # the writer's placeholder joins the session
                            sim.present(PLACEHOLDER + key, placeholders[key])
            sim.answer(record)
    return {sid: s.name for sid, s in state.items()}


def name_resolution(
    extractor: OfflineExtractor, own: list[dict[str, Any]], cases: list[Any], context: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    # own dialogues: each session is a separate group of people
    resolvable = correct = wrong = total = extra = 0
    for s in own:
        names = resolve_names(
            extractor, [([(p, t) for p, t, _ in s["turns"]], datetime(2026, 11, 2, tzinfo=UTC))], context
        )
        for person in s["people"]:
            total += 1
            got = names.get(person)
            resolvable += person in s["named"]
            correct += person in s["named"] and got is not None and name_key(got) == name_key(person)
            extra += person not in s["named"] and got is not None and name_key(got) == name_key(person)
            wrong += got is not None and name_key(got) != name_key(person)
    out["own"] = {
        "speakers": total,
        "resolvable": resolvable,
        "correct": correct,
        "wrong": wrong,
        "named_from_later_cues": extra,
        "resolved_of_resolvable": correct / resolvable if resolvable else 0.0,
    }
    resolvable = correct = wrong = total = 0
    turns_total = turns_right = turns_wrong = 0
    for case in cases:
        sessions = [([(t.speaker, t.text) for t in s.turns], _date(s.date)) for s in case.sessions]
        names = resolve_names(extractor, sessions, context)
        texts = [t.text for s in case.sessions for t in s.turns]
        for p in case.participants:
            total += 1
            intro = any(f"I'm {p.name}" in t or f"my name is {p.name}" in t.lower() for t in texts)
            got = names.get(p.name)
            resolvable += intro
            correct += got is not None and name_key(got) == name_key(p.name)
            wrong += got is not None and name_key(got) != name_key(p.name)
        for t in (t for s in case.sessions for t in s.turns):  # per turn: the name its voice ends with
            got = names.get(t.speaker)
            turns_total += 1
            turns_right += got is not None and name_key(got) == name_key(t.speaker)
            turns_wrong += got is not None and name_key(got) != name_key(t.speaker)
    out["scenarios"] = {
        "speakers": total,
        "self_introduced": resolvable,
        "correct": correct,
        "wrong": wrong,
        "turns": turns_total,
        "turns_right": turns_right,
        "turns_wrong": turns_wrong,
    }
    return out


# --- FriendsQA with speakers hidden: per-turn naming accuracy --------------------------------------
def _detok(text: str) -> str:
    """FriendsQA's tokenised lines back to written form ("It 's gon na be ok ." → "It's gonna be ok.")."""
    text = re.sub(r" ([,.!?;:])", r"\1", text)
    text = re.sub(r" (n't|'s|'re|'m|'ll|'ve|'d)\b", r"\1", text)
    return text.replace("gon na", "gonna").replace("wan na", "wanna").replace(" - ", "-").strip()


def friendsqa_names(extractor: OfflineExtractor, context: int) -> dict[str, Any]:
    """Speakers hidden on FriendsQA (dev): every speaker of an episode is one anonymous voice
    across that episode's scenes (as a voiceprint would be), the rules name voices from what is
    said, and each single-speaker turn is scored by the name its voice carries at the end.
    Right when the name is the gold speaker's full name or a word of it ("Ross Geller": "Ross",
    "Geller"); a nickname of the gold speaker (``_nickname``: "Rach", "Pheebs") is counted apart,
    neither right nor wrong: it binds the right person under a name her friends use, but a
    question by her name does not find it. Stage directions (``#NOTE#``) are not speech and are
    left out. Every third episode (sorted by title, index 2, 5, 8) is held out of rule tuning;
    ``split`` counts both parts and lists each part's wrongly named voices with their turns, so the
    tune part's wrong names can be read without reading the held-out part's."""
    data = json.loads((DATA / "friendsqa" / "friendsqa_dev.json").read_text())["data"]
    safe = _CountingExtractor(extractor)
    episodes: dict[str, list[Any]] = defaultdict(list)
    for scene in data:
        episodes[scene["title"].rsplit("_", 1)[0]].append(scene)
    turns = right = nick = wrong = 0
    voices = voices_right = voices_nick = voices_wrong = 0
    split: dict[str, dict[str, Any]] = {
        s: {"turns": 0, "right": 0, "nickname": 0, "wrong": 0, "wrong_voices": []}
        for s in ("tune", "heldout")
    }
    for ep_index, (episode, scenes) in enumerate(sorted(episodes.items())):
        part = split["heldout" if ep_index % 3 == 2 else "tune"]
        sessions = []
        gold_turns: list[str] = []
        for k, scene in enumerate(sorted(scenes, key=lambda s: s["title"])):
            rows = []
            for u in scene["paragraphs"][0]["utterances:"]:
                if u["speakers"] == ["#NOTE#"]:  # stage directions, not speech
                    continue
                sid = " + ".join(u["speakers"]) or "?"
                rows.append((sid, _detok(u["utterance"])))
                if len(u["speakers"]) == 1 and u["speakers"][0] != "#ALL#":
                    gold_turns.append(sid)
            sessions.append((rows, datetime(2020, 1, 1, tzinfo=UTC) + timedelta(days=k)))
        names = resolve_names(safe, sessions, context)  # type: ignore[arg-type]
        for sid, got in names.items():
            if " + " in sid or sid == "#ALL#":
                continue
            voices += 1
            ok = got is not None and _right_name(got, sid)
            by_nickname = got is not None and not ok and _nickname(got, sid)
            voices_right += ok
            voices_nick += by_nickname
            voices_wrong += got is not None and not ok and not by_nickname
            if got is not None and not ok and not by_nickname:
                part["wrong_voices"].append(f"{episode}: {sid} named {got!r} ({gold_turns.count(sid)} turns)")
        for sid in gold_turns:
            got = names.get(sid)
            turns += 1
            ok = got is not None and _right_name(got, sid)
            by_nickname = got is not None and not ok and _nickname(got, sid)
            right += ok
            nick += by_nickname
            wrong += got is not None and not ok and not by_nickname
            part["turns"] += 1
            part["right"] += ok
            part["nickname"] += by_nickname
            part["wrong"] += got is not None and not ok and not by_nickname
    return {
        "episodes": len(episodes),
        "turns": turns,
        "turns_right": right,
        "turns_nickname": nick,
        "turns_wrong": wrong,
        "turns_unnamed": turns - right - nick - wrong,
        "turn_accuracy": right / turns if turns else 0.0,
        "voices": voices,
        "voices_right": voices_right,
        "voices_nickname": voices_nick,
        "voices_wrong": voices_wrong,
        "extraction_errors": safe.errors,
        # naming rules are tuned on the "tune" episodes only; every third episode is held out
        "split": split,
    }


def _right_name(got: str, gold: str) -> bool:
    """The full name or one of its words ("Ross Geller": "Ross", "Geller"; "Dr. Johnson": "Johnson")."""
    words = {name_key(w) for w in gold.replace(".", " ").split()} - {"dr", "mr", "mrs", "ms"}
    return name_key(got) in words | {name_key(gold)}


# Nicknames of FriendsQA's people that are no clipped form of their names: what the scorer knows
# of the show's people, not something the product is told ("Pheebs" is how Phoebe's friends call her).
NICKNAMES = {"phoebe buffay": {"pheebs", "phoebs"}}


def _nickname(got: str, gold: str) -> bool:
    """A nickname of the gold speaker: a clipped form of a word of the name, three letters at
    least ("Rach" for Rachel, "Chan" for Chandler), or one of ``NICKNAMES``."""
    key = name_key(got)
    words = [name_key(w) for w in gold.replace(".", " ").split()]
    clipped = len(key) >= 3 and any(w.startswith(key) and w != key for w in words)
    return clipped or key in NICKNAMES.get(name_key(gold), set())


class _CountingExtractor:
    """The extractor, with turns it rejects (e.g. a record over a schema length limit) counted
    and read as saying nothing, so one long line does not end the benchmark."""

    def __init__(self, inner: OfflineExtractor) -> None:
        self.inner = inner
        self.errors = 0

    def extract(self, window: Window) -> ExtractionResult:
        try:
            return self.inner.extract(window)
        except ValueError:
            self.errors += 1
            empty = TurnExtraction()
            return ExtractionResult(message_id=window.current.message_id, extractor="offline", record=empty)


# --- LoCoMo fact coverage -------------------------------------------------------------------------
def locomo_coverage(extractor: OfflineExtractor, thresholds: list[float], quick: bool) -> dict[str, Any]:
    from voxmem.config import Settings
    from voxmem.embeddings import TextEmbedder

    embedder = TextEmbedder(Settings())
    data = json.loads((DATA / "locomo" / "locomo_dev.json").read_text())
    if quick:
        data = data[:2]
    n_obs = 0
    covered = defaultdict(int)
    aligned = defaultdict(int)
    turn_baseline = defaultdict(int)
    n_facts = n_turns = 0
    for sample in tqdm(data, desc="locomo"):
        conv = sample["conversation"]
        names = {conv["speaker_a"]: conv["speaker_a"], conv["speaker_b"]: conv["speaker_b"]}
        k = 1
        while f"session_{k}" in conv:
            turns = conv[f"session_{k}"]
            date = _locomo_date(conv.get(f"session_{k}_date_time"))
            sim = Sim(date)
            facts: list[tuple[str, str]] = []  # (dia_id, content)
            for t in turns:
                sim.names[t["speaker"]] = names.get(t["speaker"], t["speaker"])
                text = t["text"] + (
                    f" [shares a photo of {t['blip_caption']}]" if t.get("blip_caption") else ""
                )
                window = sim.window(t["speaker"], text)
                record = extractor.extract(window).record
                sim.record(window, record)
                facts += [(t["dia_id"], f.content) for f in record.facts]
                n_turns += 1
            obs = [
                (o[0], o[1])
                for items in sample["observation"].get(f"session_{k}_observation", {}).values()
                for o in items
                if isinstance(o, list) and len(o) == 2
            ]
            k += 1
            if not obs:
                continue
            n_obs += len(obs)
            n_facts += len(facts)
            ov = embedder.embed([o[0] for o in obs])
            fv = embedder.embed([f[1] for f in facts]) if facts else None
            tv = embedder.embed([t["speaker"] + ": " + t["text"] for t in turns])
            for i, (_, dia) in enumerate(obs):
                if fv is not None:
                    sims = fv @ ov[i]
                    best = int(sims.argmax())
                    for th in thresholds:
                        if sims[best] >= th:
                            covered[th] += 1
                            cited = {d.strip() for d in str(dia).replace(",", ";").split(";")}
                            aligned[th] += facts[best][0] in cited
                tsims = tv @ ov[i]
                for th in thresholds:
                    turn_baseline[th] += float(tsims.max()) >= th
    return {
        "observations": n_obs,
        "facts": n_facts,
        "turns": n_turns,
        "coverage": {str(th): covered[th] / n_obs for th in thresholds},
        "aligned_coverage": {str(th): aligned[th] / n_obs for th in thresholds},
        "raw_turn_baseline": {str(th): turn_baseline[th] / n_obs for th in thresholds},
    }


def _locomo_date(value: str | None) -> datetime:
    if value:
        try:
            return datetime.strptime(value, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
        except ValueError:
            pass
    return datetime(2023, 1, 1, tzinfo=UTC)


def throughput(extractor: OfflineExtractor, repeats: int) -> dict[str, Any]:
    data = json.loads((DATA / "locomo" / "locomo_dev.json").read_text())
    conv = data[0]["conversation"]
    windows: list[Window] = []
    k = 1
    while f"session_{k}" in conv:
        sim = Sim(_locomo_date(conv.get(f"session_{k}_date_time")))
        for t in conv[f"session_{k}"]:
            sim.names[t["speaker"]] = t["speaker"]
            windows.append(sim.window(t["speaker"], t["text"]))
        k += 1
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        extractor.extract_many(windows)
        rates.append(len(windows) / (time.perf_counter() - start))
    return {
        "turns": len(windows),
        "repeats": repeats,
        "median_turns_per_s": statistics.median(rates),
        "min_turns_per_s": min(rates),
        "cores": os.cpu_count(),
    }


def write_throughput(n_turns: int) -> dict[str, Any]:
    """End to end through Neo4j: append a LoCoMo turn, extract, write memory; per-turn latency."""
    import uuid

    from voxmem.config import Settings
    from voxmem.core import Voxmem
    from voxmem.stores.messages import Turn

    data = json.loads((DATA / "locomo" / "locomo_dev.json").read_text())
    conv = data[1]["conversation"]
    turns = [(k, t) for k in range(1, 40) if f"session_{k}" in conv for t in conv[f"session_{k}"]][:n_turns]
    svc = Voxmem.build(Settings())
    svc.start()
    space = f"bench-{uuid.uuid4().hex[:8]}"
    svc.spaces.create(space, "open")
    append_ms: list[float] = []
    memory_ms: list[float] = []
    try:
        start = datetime(2023, 5, 8, tzinfo=UTC)
        for i, (k, t) in enumerate(tqdm(turns, desc="neo4j write")):
            t0 = time.perf_counter()
            msg = svc.messages.append(
                space,
                Turn(
                    session=f"s{k}",
                    speaker=t["speaker"],
                    text=t["text"],
                    ts=start + timedelta(minutes=i),
                    turn_id=t["dia_id"].replace(":", "-"),
                ),
            )
            t1 = time.perf_counter()
            svc.memory.process_message(space, msg["id"])
            memory_ms.append(1000 * (time.perf_counter() - t1))
            append_ms.append(1000 * (t1 - t0))
        check = svc.memory.check(space)
    finally:
        svc.spaces.delete(space)
        svc.close()
    total = [a + b for a, b in zip(append_ms, memory_ms, strict=True)]
    q = statistics.quantiles(memory_ms, n=20)
    return {
        "turns": len(turns),
        "append_median_ms": statistics.median(append_ms),
        "memory_median_ms": statistics.median(memory_ms),
        "memory_p95_ms": q[-1],
        "turns_per_s": 1000 / statistics.median(total),
        "orphan_check_clean": all(v == 0 for v in check.values()),
        "cores": os.cpu_count(),
    }


# --- report ---------------------------------------------------------------------------------------
def _plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    mol = results["molweni"]
    labels = ["previous\nspeaker", "previous other\nspeaker", "offline\nextractor"]
    axes[0].bar(
        labels,
        [mol["previous_speaker"], mol["previous_other_speaker"], mol["offline"]],
        color=["#bbb", "#999", "#3a7"],
    )
    axes[0].set_ylim(0, 1)
    axes[0].set_title(f"Molweni addressee accuracy (n={mol['n']})")
    cov = results["locomo"]
    ths = list(cov["coverage"])
    x = range(len(ths))
    axes[1].plot(x, [cov["coverage"][t] for t in ths], "o-", label="extracted facts")
    axes[1].plot(x, [cov["aligned_coverage"][t] for t in ths], "s-", label="… from the cited turn")
    axes[1].plot(x, [cov["raw_turn_baseline"][t] for t in ths], "^--", label="raw turns (reference)")
    axes[1].set_xticks(list(x), ths)
    axes[1].set_xlabel("cosine threshold")
    axes[1].set_ylim(0, 1)
    axes[1].set_title(f"LoCoMo observation coverage (n={cov['observations']})")
    axes[1].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="results/memory")
    parser.add_argument("--context", type=int, default=3, help="previous turns in each window")
    parser.add_argument("--quick", action="store_true", help="fewer cases and conversations (CI smoke)")
    parser.add_argument("--no-locomo", action="store_true", help="skip the embedding-based fact coverage")
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=0,
        help="torch.set_num_threads for the text embedder (0: default)",
    )
    parser.add_argument(
        "--neo4j",
        type=int,
        default=0,
        metavar="N",
        help="also time N turns end to end through the dev Neo4j (append + extract + write)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    extractor = OfflineExtractor()
    results: dict[str, Any] = {
        "backend": "offline",
        "context_turns": args.context,
        "cores": os.cpu_count(),
        "torch_threads": args.torch_threads or "default",
        "load_average_at_start": os.getloadavg()[0],
    }
    results["molweni"] = molweni(extractor, args.context)
    results["molweni_full_history"] = molweni(extractor, 1000)
    cases = scenario_cases(args.quick)
    results["scenarios_addressees"] = addressee_accuracy_cases(extractor, cases, args.context)
    own = own_dialogues(seed=5, n_sessions=20 if args.quick else 80)
    results["own_addressees"] = own_addressees(extractor, own, args.context)
    results["names"] = name_resolution(extractor, own, cases, args.context)
    results["friendsqa_names"] = friendsqa_names(extractor, args.context)
    if not args.no_locomo:
        results["locomo"] = locomo_coverage(extractor, [0.5, 0.6, 0.7], args.quick)
    results["throughput"] = throughput(extractor, 3 if args.quick else 7)
    if args.neo4j:
        results["neo4j_write"] = write_throughput(args.neo4j)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "extraction_bench.json").write_text(json.dumps(results, indent=2))
    if "locomo" in results:
        _plot(results, out / "extraction_bench.png")
    _print(results)
    print(
        f"\nwrote {out / 'extraction_bench.json'}"
        + (f" and {out / 'extraction_bench.png'}" if "locomo" in results else "")
    )
    return 0


def _print(r: dict[str, Any]) -> None:
    rows: list[tuple[str, str, str]] = []
    m, mf = r["molweni"], r["molweni_full_history"]
    rows += [
        (
            f"Molweni addressee (reply-to speaker), n={m['n']}",
            f"offline, {r['context_turns']} prev turns",
            f"{m['offline']:.3f}",
        ),
        ("", "without answered calls re-pointed", f"{m['offline_without_answered']:.3f}"),
        ("", "offline, full history", f"{mf['offline']:.3f}"),
        ("", "baseline: previous speaker", f"{m['previous_speaker']:.3f}"),
        ("", "baseline: previous other speaker", f"{m['previous_other_speaker']:.3f}"),
    ]
    s = r["scenarios_addressees"]
    rows.append((f"Generated scenarios addressee, n={s['n']}", "offline", f"{s['accuracy']:.3f}"))
    rows.append(("", "without answered calls re-pointed", f"{s['accuracy_without_answered']:.3f}"))
    rows.append(("", "unlabelled turns given an edge", f"{s['unlabelled_with_edge']:.3f}"))
    o = r["own_addressees"]
    rows.append((f"Generated dialogues (own) addressee, n={o['n']}", "offline", f"{o['accuracy']:.3f}"))
    rows.append(("", "without answered calls re-pointed", f"{o['accuracy_without_answered']:.3f}"))
    n = r["names"]["own"]
    rows.append(
        (
            f"Names hidden (own), {n['speakers']} speakers",
            "resolved / resolvable",
            f"{n['correct']}/{n['resolvable']} = {n['resolved_of_resolvable']:.3f}",
        )
    )
    rows.append(("", "others named from later cues", str(n["named_from_later_cues"])))
    rows.append(("", "wrongly named", str(n["wrong"])))
    sc = r["names"]["scenarios"]
    rows.append(
        (
            f"Names hidden (scenarios), {sc['speakers']} speakers",
            "correct / self-introduced",
            f"{sc['correct']}/{sc['self_introduced']}",
        )
    )
    rows.append(("", "wrongly named", str(sc["wrong"])))
    turns = f"{sc['turns_right']} / {sc['turns_wrong']} of {sc['turns']}"
    rows.append(("", "turns named right / wrong", turns))
    if "friendsqa_names" in r:
        fq = r["friendsqa_names"]
        rows.append(
            (
                f"FriendsQA dev, speakers hidden, {fq['turns']} turns",
                "turns right / nickname / wrong / unnamed",
                f"{fq['turns_right']} / {fq['turns_nickname']} / {fq['turns_wrong']} / {fq['turns_unnamed']}"
                f" (accuracy {fq['turn_accuracy']:.3f})",
            )
        )
        voices = f"{fq['voices_right']} / {fq['voices_nickname']} / {fq['voices_wrong']}"
        rows.append(("", f"voices ({fq['voices']}) right / nickname / wrong", voices))
        for part, c in fq.get("split", {}).items():
            counts = f"{c['right']} / {c['nickname']} / {c['wrong']} of {c['turns']}"
            rows.append(("", f"  {part}: turns right / nickname / wrong of n", counts))
    if "locomo" in r:
        c = r["locomo"]
        for th in c["coverage"]:
            rows.append(
                (
                    f"LoCoMo observation coverage (cos≥{th}), n={c['observations']}"
                    if th == "0.5"
                    else f"  cos≥{th}",
                    "facts / cited-turn / raw turns",
                    f"{c['coverage'][th]:.3f} / {c['aligned_coverage'][th]:.3f}"
                    f" / {c['raw_turn_baseline'][th]:.3f}",
                )
            )
    t = r["throughput"]
    rows.append(
        (
            f"Offline extraction throughput ({t['cores']} cores)",
            f"median of {t['repeats']}, {t['turns']} turns",
            f"{t['median_turns_per_s']:.0f} turns/s",
        )
    )
    if "neo4j_write" in r:
        w = r["neo4j_write"]
        rows.append(
            (
                f"End to end via Neo4j ({w['cores']} cores), {w['turns']} turns",
                "append / memory median ms",
                f"{w['append_median_ms']:.0f} / {w['memory_median_ms']:.0f} (p95 {w['memory_p95_ms']:.0f})",
            )
        )
        rows.append(
            ("", "turns/s (median), orphan check", f"{w['turns_per_s']:.1f}, clean={w['orphan_check_clean']}")
        )
    w1 = max(len(a) for a, _, _ in rows)
    w2 = max(len(b) for _, b, _ in rows)
    print(f"{'measure':<{w1}}  {'system':<{w2}}  value")
    print("-" * (w1 + w2 + 20))
    for a, b, c in rows:
        print(f"{a:<{w1}}  {b:<{w2}}  {c}")


if __name__ == "__main__":
    raise SystemExit(main())
