"""Deterministic generator of labelled multi-party scenario cases (``voxpoly-web-case.v1``).

Why generate: public data has two speakers (LoCoMo) or no recurring people, while voxmem
is for households, cars, meetings and front desks, where 3-6 people come back session
after session, talk *to* each other by name, change their minds and contradict each
other, and someone's name is only said weeks after they first spoke. Every such event
is planted on purpose, so every question has a known answer and known evidence turns.

Same ``(scenario, seed, sizes)`` → byte-identical case: only ``random.Random(seed)`` is
used and nothing iterates over a set.

    python -m bench.scenarios --scenario household --speakers 4 --sessions 6 \
        --turns 24 --seed 7 --out bench/cases/household.json
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bench.cases import (
    EVERYONE,
    NOT_MENTIONED,
    QA,
    Case,
    Participant,
    Session,
    Turn,
    save_case,
)

# Short, common names that Whisper tiny.en transcribes reliably and no two of which rhyme.
NAMES = [
    "Tom", "Maya", "Sam", "Nora", "Ben", "Grace", "Leo", "Emma",
    "Jack", "Olivia", "Daniel", "Sophie", "Henry", "Lucy", "Peter", "Alice",
]  # fmt: skip


@dataclass(frozen=True)
class Slot:
    """A preference kind: how people state it, change it, get it wrong, and ask about it."""

    key: str
    values: tuple[str, ...]
    state: str  # first person, {v}
    update: str  # first person, {v} new, {old} previous
    claim: str  # third person by someone else, {name} {v}
    rebut: str  # owner's correction, {v} true, {claim} wrong
    ask: str  # third person question, {name}
    ask_me: str  # first-person question by the owner
    apply: str  # request that needs the preference applied
    ask_before: str  # temporal: value before the change, {name}


@dataclass(frozen=True)
class Task:
    """Something one person asks another to do; the other agrees."""

    do: str  # infinitive phrase: "pick up the dry cleaning"
    did: str  # agreement phrase in first person future: "I'll pick up the dry cleaning"


@dataclass(frozen=True)
class Event:
    """A dated past event someone mentions ("yesterday"), for temporal questions."""

    said: str  # first person past: "I went to the dentist"
    ask: str  # "When did {name} go to the dentist?"


@dataclass(frozen=True)
class ScenarioSpec:
    name: str
    roles: tuple[str, ...]
    slots: tuple[Slot, ...]
    tasks: tuple[Task, ...]
    announcements: tuple[tuple[str, str], ...]  # (announcement text, topic noun phrase)
    events: tuple[Event, ...]
    filler: tuple[str, ...]
    greeting: tuple[str, ...]


DRINK = Slot(
    "drink",
    ("green tea", "black coffee", "hot chocolate", "sparkling water", "orange juice", "ginger ale"),
    "For me it's always {v}, that's my favourite drink.",
    "Actually I've switched, I don't drink {old} any more, my favourite now is {v}.",
    "Oh, {name} loves {v}, I'm sure of it.",
    "No, that's wrong, I never liked {claim}. My favourite drink is {v}.",
    "What is {name}'s favourite drink?",
    "What's my favourite drink?",
    "Could you get me my favourite drink?",
    "What was {name}'s favourite drink before they switched?",
)
MUSIC = Slot(
    "music",
    ("jazz", "classical music", "country music", "hip hop", "reggae", "old rock and roll"),
    "Honestly, the music I like best is {v}.",
    "I've changed my mind about music, I'm tired of {old}, these days I only want {v}.",
    "{name} only listens to {v}, everybody knows that.",
    "That's not true, I can't stand {claim}. I like {v}.",
    "What kind of music does {name} like?",
    "What kind of music do I like?",
    "Put on some music I would enjoy.",
    "What music did {name} like before changing their mind?",
)
FOOD = Slot(
    "food",
    ("Thai food", "Italian food", "Mexican food", "sushi", "Indian curry", "Greek food"),
    "If it were up to me we'd have {v} every night, it's my favourite.",
    "I used to love {old}, but now my favourite is {v}.",
    "Let's order {v}, {name} loves it.",
    "Wait, I don't love {claim} at all. My favourite food is {v}.",
    "What is {name}'s favourite food?",
    "What's my favourite food?",
    "Order dinner for me, something I like.",
    "What was {name}'s favourite food before it changed?",
)
TEMPERATURE = Slot(
    "temperature",
    ("eighteen degrees", "nineteen degrees", "twenty one degrees", "twenty three degrees"),
    "I like the temperature at {v}, not warmer.",
    "Forget what I said before about {old}, I want it at {v} from now on.",
    "{name} wants it at {v}, set it to that.",
    "No, I never asked for {claim}. I like it at {v}.",
    "What temperature does {name} like?",
    "What temperature do I like?",
    "Set the temperature the way I like it.",
    "What temperature did {name} like before the change?",
)
SEAT = Slot(
    "seat",
    ("the window seat", "the aisle seat", "the seat by the door", "the front row"),
    "Whenever we travel I want {v}, please remember that.",
    "I know I always asked for {old}, but from now on I want {v}.",
    "Give {name} {v}, that's what they like.",
    "Actually no, I don't want {claim}. I prefer {v}.",
    "Which seat does {name} prefer?",
    "Which seat do I prefer?",
    "Book a seat for me, the kind I like.",
    "Which seat did {name} prefer before changing?",
)
ROOM = Slot(
    "room",
    (
        "a quiet room far from the elevator",
        "a room on a high floor",
        "a room with a bathtub",
        "a garden view room",
    ),
    "When I stay here I always want {v}.",
    "Last time I asked for {old}, but now I'd rather have {v}.",
    "{name} always asks for {v}.",
    "That's not right, I never want {claim}. I like {v}.",
    "What kind of room does {name} want?",
    "What kind of room do I want?",
    "Give me the kind of room I like.",
    "What kind of room did {name} want before?",
)
PILLOW = Slot(
    "pillow",
    ("feather pillows", "foam pillows", "a very firm pillow", "no pillow at all"),
    "For sleeping I need {v}, otherwise my back hurts.",
    "Please note I've changed from {old} to {v}.",
    "{name} needs {v}, I remember that.",
    "No, I don't use {claim}. I need {v}.",
    "What pillow does {name} need?",
    "What pillow do I need?",
    "Make up my bed the way I like it.",
    "What pillow did {name} use before?",
)
MEETING_TIME = Slot(
    "meeting_time",
    ("early mornings", "right after lunch", "late afternoons", "Friday mornings"),
    "For meetings, {v} work best for me.",
    "My schedule changed, {old} don't work any more, {v} are better for me now.",
    "Put it in {v}, that's when {name} prefers to meet.",
    "No, {claim} are bad for me. I prefer {v}.",
    "When does {name} prefer to have meetings?",
    "When do I prefer to have meetings?",
    "Schedule my next meeting at a time that suits me.",
    "When did {name} prefer meetings before the schedule change?",
)
REPORT = Slot(
    "report_format",
    ("a one page summary", "a detailed spreadsheet", "a short slide deck", "a voice memo"),
    "When you send me updates, I want {v}.",
    "I'm done with {old}, please send me {v} instead.",
    "Just send {name} {v}, that's what they want.",
    "No, I don't want {claim}. Send me {v}.",
    "How does {name} want to receive updates?",
    "How do I want to receive updates?",
    "Prepare my weekly update in the format I like.",
    "How did {name} want updates before?",
)

SPECS: dict[str, ScenarioSpec] = {
    "household": ScenarioSpec(
        "household",
        ("parent", "parent", "teenager", "grandparent", "child", "lodger"),
        (DRINK, MUSIC, FOOD, TEMPERATURE),
        (
            Task("pick up the dry cleaning", "I'll pick up the dry cleaning"),
            Task("walk the dog tonight", "I'll walk the dog tonight"),
            Task("call the plumber", "I'll call the plumber"),
            Task("buy birthday candles", "I'll buy birthday candles"),
            Task("water the tomato plants", "I'll water the tomato plants"),
            Task("fix the bathroom light", "I'll fix the bathroom light"),
            Task("take out the recycling", "I'll take out the recycling"),
            Task("feed the cat in the morning", "I'll feed the cat in the morning"),
        ),
        (
            ("the family dinner is on Sunday at grandma's house", "the family dinner"),
            ("the internet will be down on Tuesday for repairs", "the internet repairs"),
            ("we're painting the hallway this weekend", "painting the hallway"),
            ("the car goes to the garage on Monday", "the car going to the garage"),
        ),
        (
            Event("I went to the dentist", "When did {name} go to the dentist?"),
            Event("I ran my first half marathon", "When did {name} run a half marathon?"),
            Event("I repainted the garden fence", "When did {name} repaint the garden fence?"),
            Event("I adopted a kitten from the shelter", "When did {name} adopt a kitten?"),
            Event("I passed my driving test", "When did {name} pass the driving test?"),
        ),
        (
            "Has anyone seen my keys?",
            "I'm going to make some toast, does anyone want some?",
            "The washing machine is making that noise again.",
            "Can somebody turn the lights off in the kitchen?",
            "I think it's going to rain later.",
            "Don't forget we're out of milk.",
            "Where did you put the remote control?",
            "I'll be home late on Thursday.",
            "That sounds fine to me.",
            "Okay, no problem.",
            "Let me think about it.",
            "The neighbours are having a party again.",
            "I left the umbrella in the hallway.",
            "Did somebody leave the back door open?",
            "I'm so tired today.",
            "Good idea.",
            "We should clean the garage sometime.",
            "The post just arrived.",
            "Can you keep it down a little?",
            "I found the charger under the sofa.",
        ),
        ("Good morning everyone.", "Hi all, how's everybody doing?", "Morning, everybody."),
    ),
    "in_car": ScenarioSpec(
        "in_car",
        ("driver", "front passenger", "back seat passenger", "back seat passenger", "child", "friend"),
        (MUSIC, TEMPERATURE, SEAT, DRINK),
        (
            Task("look up a petrol station on the way", "I'll look up a petrol station on the way"),
            Task("text grandma that we're running late", "I'll text grandma that we're running late"),
            Task("find parking near the stadium", "I'll find parking near the stadium"),
            Task("check the tyre pressure at the next stop", "I'll check the tyre pressure at the next stop"),
            Task("pay the toll", "I'll pay the toll"),
            Task("navigate to the bakery", "I'll navigate to the bakery"),
            Task("book the car wash", "I'll book the car wash"),
        ),
        (
            ("we're stopping for lunch in half an hour", "the lunch stop"),
            ("we're taking the coastal road back home", "the route home"),
            ("seat belts on, we're leaving now", "seat belts"),
            ("the road trip to the lake is next Saturday", "the road trip to the lake"),
        ),
        (
            Event("I got a speeding ticket", "When did {name} get a speeding ticket?"),
            Event("I bought new winter tyres", "When did {name} buy new winter tyres?"),
            Event("I drove to the airport", "When did {name} drive to the airport?"),
            Event("I had the car serviced", "When did {name} have the car serviced?"),
        ),
        (
            "Are we there yet?",
            "Watch out for that cyclist.",
            "The traffic is terrible today.",
            "Can you turn the volume down a bit?",
            "I think we missed the exit.",
            "There's a lot of construction on this road.",
            "How long until we arrive?",
            "Let's keep going straight.",
            "Okay, sounds good.",
            "Look at that sunset.",
            "I need a quick break soon.",
            "The satnav says twenty minutes.",
            "Did anyone bring snacks?",
            "It's really bright, where are my sunglasses?",
            "That lorry is driving way too close.",
            "Fine by me.",
            "We should leave earlier next time.",
            "The windscreen needs cleaning.",
        ),
        ("Right, everyone in?", "Hi everyone, ready to go?", "Okay everybody, let's get moving."),
    ),
    "meeting": ScenarioSpec(
        "meeting",
        ("manager", "engineer", "designer", "analyst", "intern", "sales lead"),
        (MEETING_TIME, REPORT, DRINK, FOOD),
        (
            Task("send the budget summary", "I'll send the budget summary"),
            Task("book the large conference room", "I'll book the large conference room"),
            Task("update the project timeline", "I'll update the project timeline"),
            Task("call the supplier about the delay", "I'll call the supplier about the delay"),
            Task("review the hiring plan", "I'll review the hiring plan"),
            Task("draft the press release", "I'll draft the press release"),
            Task("fix the login bug", "I'll fix the login bug"),
        ),
        (
            ("the quarterly review moves to next Wednesday", "the quarterly review"),
            ("the office is closed on Friday", "the office closure"),
            ("we have a new client demo next month", "the client demo"),
            ("the team lunch is on Thursday", "the team lunch"),
        ),
        (
            Event("I finished the security training", "When did {name} finish the security training?"),
            Event(
                "I presented at the customer workshop", "When did {name} present at the customer workshop?"
            ),
            Event("I signed the contract with the vendor", "When did {name} sign the vendor contract?"),
            Event("I moved to the new desk upstairs", "When did {name} move to the new desk?"),
        ),
        (
            "Let's get started.",
            "Can everyone see my screen?",
            "I think we're running a bit over time.",
            "Let's take that offline.",
            "Good point.",
            "I agree with that.",
            "Can we come back to this later?",
            "Sorry, I was on mute.",
            "The numbers look better than last week.",
            "Do we have any blockers?",
            "I'll have to check my notes.",
            "That makes sense.",
            "Any other business?",
            "The printer is broken again.",
            "Let's move on to the next item.",
            "I'll share the link in the chat.",
            "We need more data on that.",
            "Okay, noted.",
        ),
        ("Morning everyone, let's begin.", "Hi all, thanks for joining.", "Hello everyone, shall we start?"),
    ),
    "hotel_front_desk": ScenarioSpec(
        "hotel_front_desk",
        ("receptionist", "guest", "guest", "concierge", "guest", "night manager"),
        (ROOM, PILLOW, DRINK, SEAT),
        (
            Task("arrange a taxi to the airport", "I'll arrange a taxi to the airport"),
            Task(
                "reserve a table at the rooftop restaurant", "I'll reserve a table at the rooftop restaurant"
            ),
            Task("print the boarding passes", "I'll print the boarding passes"),
            Task("fix the air conditioning", "I'll fix the air conditioning"),
            Task("arrange a late checkout", "I'll arrange a late checkout"),
            Task("bring extra towels", "I'll bring extra towels"),
            Task("book a museum tour", "I'll book a museum tour"),
        ),
        (
            ("breakfast is served until ten thirty", "breakfast hours"),
            ("the pool is closed for cleaning tomorrow", "the pool closure"),
            ("there's live music in the lobby tonight", "the live music"),
            ("the fire alarm test is at noon", "the fire alarm test"),
        ),
        (
            Event("I lost my room key card", "When did {name} lose the room key card?"),
            Event("I arrived from the airport", "When did {name} arrive from the airport?"),
            Event("I visited the old town", "When did {name} visit the old town?"),
            Event("I had dinner at the harbour", "When did {name} have dinner at the harbour?"),
        ),
        (
            "Welcome back.",
            "Could I see some identification, please?",
            "Your room is ready.",
            "The lift is just around the corner.",
            "Is the wifi password on the card?",
            "Thank you very much.",
            "Do you have a map of the city?",
            "Let me check that in the system.",
            "One moment, please.",
            "The weather is lovely today.",
            "Is there a pharmacy nearby?",
            "Certainly.",
            "Could I leave my luggage here?",
            "Enjoy your stay.",
            "The restaurant opens at seven.",
            "That's perfect, thanks.",
            "Could you repeat that, please?",
        ),
        ("Good evening everyone.", "Hello, welcome everyone.", "Good morning, everybody."),
    ),
}
SCENARIOS: tuple[str, ...] = tuple(SPECS)

Line = tuple[str, str, list[str]]  # speaker, text, gold addressees


@dataclass
class _Plan:
    """Planted events of one session: blocks of consecutive turns with tags for QA."""

    blocks: list[tuple[str, list[Line]]] = field(default_factory=list)


def _lower_first(line: str) -> str:
    """'Let me think' → 'let me think' after a vocative; 'I'll' stays 'I'll'."""
    first = line.split(" ", 1)[0]
    return line if first == "I" or first.startswith("I'") else line[0].lower() + line[1:]


def _fmt_date(moment: datetime) -> str:
    return f"{moment.day} {moment.strftime('%B %Y')}"


class _Builder:
    """Plans facts over sessions, lays out turns, then writes QA pointing at turn ids."""

    def __init__(self, spec: ScenarioSpec, rng: random.Random, n_people: int, n_sessions: int, turns: int):
        self.spec = spec
        self.rng = rng
        self.n_sessions = n_sessions
        self.turns_per_session = turns
        names = rng.sample(NAMES, n_people)
        self.people = names
        self.roles = {n: spec.roles[i % len(spec.roles)] for i, n in enumerate(names)}
        # One person (never the first, who often leads) is only named part-way through.
        self.late = names[rng.randrange(1, n_people)]
        self.late_session = max(1, n_sessions // 2 - 1 + rng.randrange(0, 2))
        self.start = datetime(2026, 3, 2, 9, 0) + timedelta(days=rng.randrange(0, 60))
        self.dates: list[datetime] = []
        moment = self.start
        for _ in range(n_sessions):
            self.dates.append(
                moment.replace(hour=rng.choice([8, 9, 12, 17, 19]), minute=rng.choice([0, 15, 30]))
            )
            moment += timedelta(days=rng.randrange(2, 8))
        self.present = [self._attendance(s) for s in range(n_sessions)]
        self.plans = [_Plan() for _ in range(n_sessions)]
        self.facts: list[dict] = []  # planted facts with their block keys, resolved to turn ids later

    # --- who is there ---------------------------------------------------------------------
    def _attendance(self, s: int) -> list[str]:
        """Everyone usually; now and then one person (not the late one) misses a session."""
        people = list(self.people)
        if len(people) > 3 and s not in (0, self.late_session) and self.rng.random() < 0.35:
            people.remove(self.rng.choice([p for p in people if p != self.late]))
        return people

    def named(self, person: str, s: int) -> bool:
        """May others call this person by name in session ``s``?"""
        return person != self.late or s > self.late_session

    def _key(self) -> str:
        return f"b{len(self.facts)}"

    def _add(self, s: int, kind: str, lines: list[Line], **info) -> dict:
        key = self._key()
        self.plans[s].blocks.append((key, lines))
        fact = {"key": key, "kind": kind, "session": s, **info}
        self.facts.append(fact)
        return fact

    def _sessions_with(self, *people: str, after: int = -1) -> list[int]:
        return [s for s in range(after + 1, self.n_sessions) if all(p in self.present[s] for p in people)]

    # --- planting ---------------------------------------------------------------------------
    def plant(self) -> None:
        rng = self.rng
        s_late = self.late_session
        # Late name introduction: someone asks, the late person answers with their name.
        asker = rng.choice([p for p in self.present[s_late] if p != self.late])
        self._add(
            s_late,
            "intro",
            [
                (asker, "Sorry, I don't think I ever caught your name.", [self.late]),
                (self.late, f"Oh, sorry! I'm {self.late}. Nice to meet you properly.", [asker]),
            ],
            person=self.late,
        )
        slots = list(self.spec.slots)
        # Preferences: each person states two kinds; the late person states one before being named.
        slot_owner: list[tuple[Slot, str]] = []
        for person in self.people:
            for slot in rng.sample(slots, 2):
                slot_owner.append((slot, person))
        values_used: dict[str, list[str]] = {}
        for slot, person in slot_owner:
            pool = [v for v in slot.values if v not in values_used.get(slot.key, [])] or list(slot.values)
            value = rng.choice(pool)
            values_used.setdefault(slot.key, []).append(value)
            early = [s for s in range(self.n_sessions) if person in self.present[s]]
            if person == self.late:
                before = [s for s in early if s < s_late]
                early = before or early
            s0 = rng.choice(early[: max(1, len(early) // 2)])
            self._add(
                s0, "pref", [(person, slot.state.format(v=value), [])], person=person, slot=slot, value=value
            )
        # Updates for two preferences, contradictions for two others (owner present to rebut).
        prefs = [f for f in self.facts if f["kind"] == "pref"]
        rng.shuffle(prefs)
        updated = 0
        contradicted = 0
        for fact in prefs:
            person, slot, value, s0 = fact["person"], fact["slot"], fact["value"], fact["session"]
            later = self._sessions_with(person, after=s0)
            if not later:
                continue
            others = [v for v in slot.values if v != value]
            fresh = [v for v in others if v not in values_used[slot.key]] or others
            if updated < 2:
                new = rng.choice(fresh)
                values_used[slot.key].append(new)
                s1 = rng.choice(later)
                self._add(
                    s1,
                    "update",
                    [(person, slot.update.format(v=new, old=value), [])],
                    person=person,
                    slot=slot,
                    value=new,
                    old=value,
                    ref=fact["key"],
                )
                fact["superseded"] = True
                updated += 1
            elif contradicted < 2:
                claim = rng.choice(others)
                s1 = rng.choice(later)
                claimer = rng.choice([p for p in self.present[s1] if p != person])
                self._add(
                    s1,
                    "contradiction",
                    [
                        (claimer, slot.claim.format(name=self._call(person, s1), v=claim), []),
                        (person, slot.rebut.format(v=value, claim=claim), [claimer]),
                    ],
                    person=person,
                    claimer=claimer,
                    slot=slot,
                    value=value,
                    claim=claim,
                    ref=fact["key"],
                )
                contradicted += 1
        # Requests with vocatives, agreed to by the addressee.
        for task in rng.sample(
            list(self.spec.tasks), min(len(self.spec.tasks), max(3, self.n_sessions // 2 + 1))
        ):
            s = rng.randrange(self.n_sessions)
            named = [p for p in self.present[s] if self.named(p, s)]
            requester = rng.choice(self.present[s])
            targets = [p for p in named if p != requester]
            if not targets:
                continue
            doer = rng.choice(targets)
            self._add(
                s,
                "task",
                [
                    (requester, f"{doer}, could you {task.do}?", [doer]),
                    (doer, f"Sure, {task.did}.", [requester]),
                ],
                requester=requester,
                doer=doer,
                task=task,
            )
        # Announcements to everyone.
        for text, topic in rng.sample(list(self.spec.announcements), 2):
            s = rng.randrange(self.n_sessions)
            speaker = rng.choice(self.present[s])
            self._add(
                s, "announce", [(speaker, f"Everyone, {text}.", [EVERYONE])], speaker=speaker, topic=topic
            )
        # Dated events mentioned the day after.
        for event in rng.sample(list(self.spec.events), 3):
            s = rng.randrange(self.n_sessions)
            person = rng.choice(self.present[s])
            when = self.dates[s] - timedelta(days=1)
            self._add(
                s, "event", [(person, f"{event.said} yesterday.", [])], person=person, event=event, when=when
            )

    def _call(self, person: str, s: int) -> str:
        """How others refer to a person in session s: the name once known, else a role."""
        return person if self.named(person, s) else f"our {self.roles[person]}"

    # --- layout -----------------------------------------------------------------------------
    def layout(self) -> tuple[list[Session], dict[str, list[str]]]:
        """Turn plans into sessions; returns the sessions and block key → turn ids."""
        rng = self.rng
        sessions: list[Session] = []
        where: dict[str, list[str]] = {}
        for s in range(self.n_sessions):
            present = self.present[s]
            blocks = list(self.plans[s].blocks)
            rng.shuffle(blocks)
            planted = sum(len(lines) for _, lines in blocks)
            n_filler = max(len(blocks) + 1, self.turns_per_session - planted - 1)
            filler: list[Line] = []
            last = None
            for _ in range(n_filler):
                speaker = rng.choice([p for p in present if p != last])
                last = speaker
                line = rng.choice(self.spec.filler)
                addressed = [p for p in present if p != speaker and self.named(p, s)]
                if addressed and rng.random() < 0.3:
                    to = rng.choice(addressed)
                    filler.append((speaker, f"{to}, {_lower_first(line)}", [to]))
                else:
                    filler.append((speaker, line, []))
            # Interleave planted blocks at distinct random gaps of the filler sequence.
            gaps = sorted(rng.sample(range(1, len(filler) + 1), len(blocks)))
            sequence: list[tuple[str | None, Line]] = []
            opener = rng.choice(present)
            sequence.append((None, (opener, rng.choice(self.spec.greeting), [EVERYONE])))
            block_iter = iter(zip(gaps, blocks, strict=True))
            pending = next(block_iter, None)
            for i, line in enumerate(filler, start=1):
                sequence.append((None, line))
                while pending is not None and pending[0] == i:
                    key, lines = pending[1]
                    sequence.extend((key, ln) for ln in lines)
                    pending = next(block_iter, None)
            turns = []
            sid = f"s{s + 1}"
            for idx, (key, (speaker, text, addressees)) in enumerate(sequence):
                turn_id = f"{sid}-t{idx}"
                turns.append(
                    Turn(turn_idx=idx, turn_id=turn_id, speaker=speaker, text=text, addressees=addressees)
                )
                if key is not None:
                    where.setdefault(key, []).append(turn_id)
            sessions.append(Session(session_id=sid, date=self.dates[s].isoformat(), turns=turns))
        return sessions, where

    # --- questions --------------------------------------------------------------------------
    def questions(self, where: dict[str, list[str]]) -> list[QA]:
        rng = self.rng
        qa: list[QA] = []
        by_key = {f["key"]: f for f in self.facts}

        def asker_for(evidence_sessions: Sequence[int], exclude: Sequence[str] = ()) -> str | None:
            """Someone present at every evidence session (so any access policy lets them see it)."""
            ok = [
                p
                for p in self.people
                if p not in exclude and all(p in self.present[s] for s in evidence_sessions)
            ]
            return rng.choice(ok) if ok else None

        def add(
            question: str, answer: str, qtype: str, evidence: list[str], asker: str | None, **meta
        ) -> None:
            qa.append(
                QA(
                    qa_id=f"q{len(qa)}",
                    question=question,
                    answer=answer,
                    type=qtype,  # type: ignore[arg-type]
                    asker=asker,
                    evidence_ids=evidence,
                    meta=meta,
                )
            )

        prefs = [f for f in self.facts if f["kind"] == "pref"]
        updates = [f for f in self.facts if f["kind"] == "update"]
        contradictions = [f for f in self.facts if f["kind"] == "contradiction"]
        tasks = [f for f in self.facts if f["kind"] == "task"]
        announces = [f for f in self.facts if f["kind"] == "announce"]
        events = [f for f in self.facts if f["kind"] == "event"]
        intro = next(f for f in self.facts if f["kind"] == "intro")

        def current(person: str, slot: Slot) -> tuple[str, list[str], list[int]]:
            """Current value of a preference, its evidence turns and sessions."""
            base = next(f for f in prefs if f["person"] == person and f["slot"] is slot)
            upd = [u for u in updates if u["ref"] == base["key"]]
            if upd:
                return (
                    upd[-1]["value"],
                    where[base["key"]] + where[upd[-1]["key"]],
                    [base["session"], upd[-1]["session"]],
                )
            return base["value"], list(where[base["key"]]), [base["session"]]

        # single_hop: stable preferences asked in the third person.
        stable = [f for f in prefs if not f.get("superseded")]
        for fact in rng.sample(stable, min(4, len(stable))):
            add(
                fact["slot"].ask.format(name=fact["person"]),
                fact["value"],
                "single_hop",
                list(where[fact["key"]]),
                asker_for([fact["session"]]),
            )
        # personalization: each person asks about one of their own preferences (current value).
        # personalization_application: a request that only makes sense with the preference applied.
        for person in self.people:
            own = [f for f in prefs if f["person"] == person]
            if not own:
                continue
            fact = rng.choice(own)
            value, evidence, _ = current(person, fact["slot"])
            add(fact["slot"].ask_me, value, "personalization", evidence, person, subject=person)
            other = [f for f in own if f is not fact] or own
            fact2 = rng.choice(other)
            value2, evidence2, _ = current(person, fact2["slot"])
            add(fact2["slot"].apply, value2, "personalization_application", evidence2, person, subject=person)
        # conflict_detection: updated values (current one wins) and contradicted claims (owner wins).
        for upd in updates:
            base = by_key[upd["ref"]]
            add(
                f"{upd['slot'].ask.format(name=upd['person'])} Note that it may have changed.",
                upd["value"],
                "conflict_detection",
                where[base["key"]] + where[upd["key"]],
                asker_for([base["session"], upd["session"]]),
                kind="update",
                stale_answer=upd["old"],
            )
            # temporal: the value before the change.
            add(
                upd["slot"].ask_before.format(name=upd["person"]),
                upd["old"],
                "temporal",
                where[base["key"]] + where[upd["key"]],
                asker_for([base["session"], upd["session"]]),
            )
        for con in contradictions:
            base = by_key[con["ref"]]
            add(
                f"{con['claimer']} said {con['person']} likes {con['claim']}. "
                f"Is that right? {con['slot'].ask.format(name=con['person'])}",
                con["value"],
                "conflict_detection",
                where[base["key"]] + where[con["key"]],
                asker_for([base["session"], con["session"]]),
                kind="contradiction",
                trap_answer=con["claim"],
            )
        # temporal: dated events ("yesterday" relative to the session date).
        for ev in events:
            add(
                ev["event"].ask.format(name=ev["person"]),
                _fmt_date(ev["when"]),
                "temporal",
                list(where[ev["key"]]),
                asker_for([ev["session"]]),
            )
        # speaker / addressee attribution.
        for task in tasks:
            ids = where[task["key"]]
            s = task["session"]
            pair = [task["doer"], task["requester"]]
            add(
                f"Who agreed to {task['task'].do}?",
                task["doer"],
                "speaker_attribution",
                ids,
                asker_for([s], exclude=pair),
            )
            add(
                f"Who did {task['requester']} ask to {task['task'].do}?",
                task["doer"],
                "addressee_attribution",
                ids[:1],
                asker_for([s], exclude=pair),
            )
            add(
                f"Who asked {task['doer']} to {task['task'].do}?",
                task["requester"],
                "speaker_attribution",
                ids[:1],
                asker_for([s], exclude=pair),
            )
        for ann in announces:
            add(
                f"Who announced {ann['topic']}?",
                ann["speaker"],
                "speaker_attribution",
                list(where[ann["key"]]),
                asker_for([ann["session"]], exclude=[ann["speaker"]]),
            )
            add(
                f"Who was {ann['speaker']}'s announcement about {ann['topic']} addressed to?",
                EVERYONE,
                "addressee_attribution",
                list(where[ann["key"]]),
                asker_for([ann["session"]], exclude=[ann["speaker"]]),
            )
        # The late-named person's early preference: only answerable by linking voice to name.
        stated = [f["value"] for f in prefs + updates]
        early = [
            f
            for f in prefs
            if f["person"] == self.late and f["session"] < intro["session"] and stated.count(f["value"]) == 1
        ]
        for fact in early[:1]:
            add(
                f"Who said they like {fact['value']}?",
                self.late,
                "speaker_attribution",
                list(where[fact["key"]]) + where[intro["key"]][1:],
                asker_for([fact["session"], intro["session"]], exclude=[self.late]),
                late_name=True,
            )
        # multi_hop: preference of the person who agreed to a task.
        for task in tasks[:2]:
            own = [f for f in prefs if f["person"] == task["doer"]]
            if not own:
                continue
            fact = rng.choice(own)
            value, evidence, sessions = current(task["doer"], fact["slot"])
            ask = f"Think of the person who agreed to {task['task'].do}. " + fact["slot"].ask.format(
                name="that person"
            )
            add(
                ask,
                value,
                "multi_hop",
                where[task["key"]] + evidence,
                asker_for([task["session"], *sessions]),
            )
        # adversarial: a preference kind someone never stated (trap: another person's value),
        # and a task attributed to someone who never agreed to it.
        for slot in self.spec.slots:
            owners = [f["person"] for f in prefs if f["slot"] is slot]
            silent = [p for p in self.people if p not in owners]
            if not owners or not silent:
                continue
            person = rng.choice(silent)
            trap = next(f for f in prefs if f["slot"] is slot)
            add(
                slot.ask.format(name=person),
                NOT_MENTIONED,
                "adversarial",
                list(where[trap["key"]]),
                asker_for([trap["session"]], exclude=[person]),
                trap_answer=trap["value"],
            )
            if sum(q.type == "adversarial" for q in qa) >= 2:
                break
        for task in tasks[:1]:
            wrong = [p for p in self.people if p not in (task["doer"], task["requester"])]
            if wrong:
                who = rng.choice(wrong)
                add(
                    f"When did {who} agree to {task['task'].do}?",
                    NOT_MENTIONED,
                    "adversarial",
                    list(where[task["key"]]),
                    None,
                    trap_answer=task["doer"],
                )
        return qa


def generate_case(
    scenario: str = "household",
    seed: int = 0,
    n_speakers: int = 4,
    n_sessions: int = 6,
    turns_per_session: int = 30,
) -> Case:
    """Build one labelled case. Same arguments → the same case, byte for byte."""
    if scenario not in SPECS:
        raise ValueError(f"unknown scenario {scenario!r}; choose one of {', '.join(SCENARIOS)}")
    if not 3 <= n_speakers <= 6:
        raise ValueError("n_speakers must be 3-6")
    if not 6 <= n_sessions <= 12:
        raise ValueError("n_sessions must be 6-12")
    if not 12 <= turns_per_session <= 200:
        raise ValueError("turns_per_session must be 12-200")
    rng = random.Random(f"{scenario}:{seed}:{n_speakers}:{n_sessions}:{turns_per_session}")
    builder = _Builder(SPECS[scenario], rng, n_speakers, n_sessions, turns_per_session)
    builder.plant()
    sessions, where = builder.layout()
    qa = builder.questions(where)
    participants = [
        Participant(
            name=p,
            role=builder.roles[p],
            named_from_session=f"s{builder.late_session + 1}" if p == builder.late else None,
        )
        for p in builder.people
    ]
    return Case(
        case_id=f"{scenario}-seed{seed}-{n_speakers}p{n_sessions}s{turns_per_session}t",
        scenario=scenario,
        source="generated",
        participants=participants,
        sessions=sessions,
        qa=qa,
        meta={
            "generator": "bench.scenarios",
            "seed": seed,
            "late_named": builder.late,
            "sessions_present": {f"s{i + 1}": present for i, present in enumerate(builder.present)},
        },
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=SCENARIOS, default="household")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--speakers", type=int, default=4)
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--turns", type=int, default=30, help="turns per session (approximate)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    case = generate_case(args.scenario, args.seed, args.speakers, args.sessions, args.turns)
    path = save_case(case, args.out)
    counts: dict[str, int] = {}
    for item in case.qa:
        counts[item.type] = counts.get(item.type, 0) + 1
    print(f"{path}: {len(case.participants)} people, {len(case.sessions)} sessions, {case.n_turns()} turns")
    print("qa: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
