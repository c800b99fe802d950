"""A small household memory with known ground truth: who spoke, to whom, in which session.

Messages are written through the real MessageStore; facts and attributes with plain
Cypher that follows MODEL.md exactly (Fact: STATED_BY / ADDRESSED_TO / ABOUT /
DERIVED_FROM / SUPERSEDES; Attribute: HAS_ATTRIBUTE / DERIVED_FROM), standing in for
the memory writer. Visibility per asker is computed here in Python from the ground
truth, independently of the Cypher under test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from voxmem.core import Voxmem
from voxmem.ids import turn_message_id
from voxmem.stores.messages import Turn

PEOPLE = ("Maya", "Tom", "Ana", "Lena")
T0 = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)

# (turn_id, session, speaker, addressees, text)
TURNS = [
    ("car-1", "car", "Maya", ["Tom"], "Dad, can we stop for pizza on the way home?"),
    ("car-2", "car", "Tom", ["Maya"], "Only if you finish your homework first."),
    ("car-3", "car", "Lena", ["Tom"], "I'm allergic to peanuts, remember that for the restaurant."),
    ("car-4", "car", "Tom", ["Lena"], "Noted, no peanuts for you Lena."),
    ("kitchen-1", "kitchen", "Tom", ["Ana"], "The garage door code is 4417, don't tell the kids."),
    ("kitchen-2", "kitchen", "Ana", ["Tom"], "My checkout time at the hotel is 11 am now, not 10."),
    ("kitchen-3", "kitchen", "Tom", [], "I will book the blue room for the anniversary dinner."),
    ("hall-1", "hall", "Ana", ["Lena"], "Lena, your dentist appointment moved to Friday."),
    ("hall-2", "hall", "Lena", ["Ana"], "Thanks Ana, Friday works for me."),
]

# (key, content, stated_by, addressed_to, about, [turn ids], current, slot)
FACTS = [
    ("lena_peanuts", "Lena is allergic to peanuts.", "Lena", "Tom", "Lena", ["car-3"], True, "allergy"),
    ("garage_code", "The garage door code is 4417.", "Tom", "Ana", None, ["kitchen-1"], True, "garage_code"),
    (
        "ana_checkout_old",
        "Ana's hotel checkout time is 10 am.",
        "Ana",
        "Tom",
        "Ana",
        ["kitchen-2"],
        False,
        "checkout_time",
    ),
    (
        "ana_checkout",
        "Ana's hotel checkout time is 11 am.",
        "Ana",
        "Tom",
        "Ana",
        ["kitchen-2"],
        True,
        "checkout_time",
    ),
    (
        "lena_dentist",
        "Lena's dentist appointment is on Friday.",
        "Ana",
        "Lena",
        "Lena",
        ["hall-1", "hall-2"],
        True,
        "dentist",
    ),
    (
        "pizza_wish",
        "Maya wants to stop for pizza on the way home.",
        "Maya",
        "Tom",
        "Maya",
        ["car-1"],
        True,
        None,
    ),
]

# (key, owner, kind, text, [turn ids])
ATTRIBUTES = [
    ("lena_allergy", "Lena", "background", "allergic to peanuts", ["car-3"]),
    ("ana_hotel", "Ana", "background", "staying at a hotel, checks out at 11 am", ["kitchen-2"]),
    ("tom_garage", "Tom", "relationship", "knows the garage door code", ["kitchen-1"]),
    ("maya_pizza", "Maya", "preference", "likes pizza", ["car-1"]),
]

FIXTURE_CYPHER = """
UNWIND $facts AS f
MATCH (st:Participant {space: $space, key: f.stated_by})
CREATE (fact:Fact {space: $space, id: f.id, content: f.content, subject_key: f.about, slot: f.slot,
                   valid_from: datetime(f.valid_from),
                   valid_to: CASE WHEN f.current THEN null ELSE datetime(f.valid_to) END,
                   current: f.current, conflict: false, extractor: 'offline', created_at: datetime()})
CREATE (fact)-[:STATED_BY]->(st)
WITH fact, f
CALL db.create.setNodeVectorProperty(fact, 'embedding', f.embedding)
WITH fact, f
CALL (fact, f) {
  MATCH (ad:Participant {space: $space, key: f.addressed_to}) CREATE (fact)-[:ADDRESSED_TO]->(ad)
}
CALL (fact, f) {
  MATCH (ab:Participant {space: $space, key: f.about}) CREATE (fact)-[:ABOUT]->(ab)
}
CALL (fact, f) {
  UNWIND f.sources AS sid
  MATCH (m:Message {space: $space, id: sid}) CREATE (fact)-[:DERIVED_FROM]->(m)
}
RETURN count(fact) AS n
"""

ATTRIBUTE_CYPHER = """
UNWIND $attributes AS a
MATCH (o:Participant {space: $space, key: a.owner})
CREATE (at:Attribute {space: $space, id: a.id, kind: a.kind, text: a.text, current: true,
                      extractor: 'offline', created_at: datetime()})
CREATE (o)-[:HAS_ATTRIBUTE]->(at)
WITH at, a
CALL db.create.setNodeVectorProperty(at, 'embedding', a.embedding)
WITH at, a
UNWIND a.sources AS sid
MATCH (m:Message {space: $space, id: sid})
CREATE (at)-[:DERIVED_FROM]->(m)
RETURN count(DISTINCT at) AS n
"""

SUPERSEDE_CYPHER = """
MATCH (new:Fact {space: $space, id: $new}), (old:Fact {space: $space, id: $old})
CREATE (new)-[:SUPERSEDES]->(old)
"""


@dataclass
class Household:
    space: str
    policy: str
    people: dict[str, str] = field(default_factory=dict)  # name → participant id
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)  # turn id → message view
    facts: dict[str, str] = field(default_factory=dict)  # key → fact id
    attributes: dict[str, str] = field(default_factory=dict)  # key → attribute id

    def mid(self, turn: str) -> str:
        return turn_message_id(self.space, turn)

    # --- ground truth, computed without the Cypher under test ------------------------------------
    def visible_messages(self, asker: str | None) -> set[str]:
        if self.policy == "open":
            return {self.mid(t[0]) for t in TURNS}
        if asker is None:
            return set()
        if self.policy == "participant":
            sessions = {t[1] for t in TURNS if t[2] == asker or asker in t[3]}
            return {self.mid(t[0]) for t in TURNS if t[1] in sessions}
        return {self.mid(t[0]) for t in TURNS if t[2] == asker or asker in t[3]}

    def visible_facts(self, asker: str | None) -> set[str]:
        seen = self.visible_messages(asker)
        out = set()
        for key, _content, stated, to, about, sources, _cur, _slot in FACTS:
            if self.policy == "open":
                out.add(self.facts[key])
                continue
            if asker is None or not all(self.mid(s) in seen for s in sources):
                continue
            if self.policy == "private" and asker not in (stated, to, about):
                continue
            out.add(self.facts[key])
        return out

    def visible_attributes(self, asker: str | None) -> set[str]:
        seen = self.visible_messages(asker)
        out = set()
        for key, owner, _kind, _text, sources in ATTRIBUTES:
            if self.policy == "open":
                out.add(self.attributes[key])
            elif asker is None:
                continue
            elif (self.policy == "private" and owner == asker) or (
                self.policy == "participant" and all(self.mid(s) in seen for s in sources)
            ):
                out.add(self.attributes[key])
        return out


def build_household(services: Voxmem, space: str, policy: str) -> Household:
    services.spaces.create(space, policy)
    house = Household(space=space, policy=policy)
    for i, (turn_id, session, speaker, to, text) in enumerate(TURNS):
        view = services.messages.append(
            space,
            Turn(
                session=session,
                speaker=speaker,
                text=text,
                addressees=to,
                ts=T0 + timedelta(minutes=i),
                turn_id=turn_id,
            ),
        )
        house.messages[turn_id] = view
        # this fixture stands in for the memory writer (facts below): without clearing the mark,
        # any process's Voxmem.start would derive extra memory into the space (ground truth off)
        services.messages.memory_done(space, view["id"])
        house.people[speaker] = view["speaker"]["id"]
    embed = services.embedder.embed
    fact_vectors = embed([f[1] for f in FACTS])
    facts = []
    for (key, content, stated, to, about, sources, current, slot), vec in zip(
        FACTS, fact_vectors, strict=True
    ):
        house.facts[key] = f"fact_{space}_{key}"
        facts.append(
            {
                "id": house.facts[key],
                "content": content,
                "stated_by": stated.lower(),
                "addressed_to": to.lower() if to else None,
                "about": about.lower() if about else None,
                "sources": [house.mid(s) for s in sources],
                "current": current,
                "slot": slot,
                "valid_from": (T0 - timedelta(days=1 if not current else 0)).isoformat(),
                "valid_to": T0.isoformat(),
                "embedding": vec.tolist(),
            }
        )
    services.db.execute(FIXTURE_CYPHER, space=space, facts=facts)
    services.db.execute(
        SUPERSEDE_CYPHER, space=space, new=house.facts["ana_checkout"], old=house.facts["ana_checkout_old"]
    )
    attr_vectors = embed([a[3] for a in ATTRIBUTES])
    attributes = []
    for (key, owner, kind, text, sources), vec in zip(ATTRIBUTES, attr_vectors, strict=True):
        house.attributes[key] = f"attr_{space}_{key}"
        attributes.append(
            {
                "id": house.attributes[key],
                "owner": owner.lower(),
                "kind": kind,
                "text": text,
                "sources": [house.mid(s) for s in sources],
                "embedding": vec.tolist(),
            }
        )
    services.db.execute(ATTRIBUTE_CYPHER, space=space, attributes=attributes)
    return house
