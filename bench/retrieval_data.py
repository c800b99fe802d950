"""Datasets for the retrieval benchmark: LoCoMo, FriendsQA and a synthetic corpus, loaded fast.

Turns are written with batched ``UNWIND`` (``bench/cypher/load_messages.cypher``) and
embeddings computed beforehand in batches, so 100k synthetic messages load in minutes.
Message ids keep the dataset's turn ids (``<space>:D1:3`` for LoCoMo, ``<space>:<scene>:<uid>``
for FriendsQA) so gold evidence maps onto stored messages without a lookup table.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.cypher import query
from voxmem.db import Database
from voxmem.embeddings import TextEmbedder, sparse_encoder
from voxmem.ids import name_key, new_id
from voxmem.passages import encode_passages, passage

DATA = Path("/work/shared/data")
LOCOMO = DATA / "locomo" / "locomo_dev.json"
FRIENDSQA = DATA / "friendsqa" / "friendsqa_dev.json"
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_EVIDENCE = re.compile(r"D\d+:\d+")


@dataclass
class Row:
    """One turn to write."""

    turn_id: str
    session: str
    idx: int
    speaker: str
    text: str
    ts: datetime
    addressees: list[str] = field(default_factory=list)


@dataclass
class QA:
    qid: str
    question: str
    answer: str
    category: str
    evidence: list[str]  # turn ids (without the space prefix)
    is_speaker: bool = False  # FriendsQA: the answer is the speaker of the evidence turn


@dataclass
class Corpus:
    name: str
    rows: list[Row]
    qas: list[QA]
    skipped: dict[str, int] = field(default_factory=dict)


def parse_evidence(raw: Iterable[Any], known: set[str]) -> tuple[list[str], int]:
    """Evidence turn ids from LoCoMo's strings, tolerating 'D8:6; D9:17', 'D' and unknown ids.

    Returns the ids that exist in the conversation and the count of tokens dropped.
    """
    found: list[str] = []
    dropped = 0
    for item in raw or []:
        tokens = _EVIDENCE.findall(str(item))
        if not tokens:
            dropped += 1
        for token in tokens:
            if token in known and token not in found:
                found.append(token)
            elif token not in known:
                dropped += 1
    return found, dropped


def _locomo_time(value: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → datetime (UTC)."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def locomo(limit: int | None = None) -> list[Corpus]:
    """One corpus per LoCoMo conversation (each is loaded into its own space)."""
    corpora = []
    for conv in json.loads(LOCOMO.read_text())[:limit]:
        c = conv["conversation"]
        people = (c["speaker_a"], c["speaker_b"])
        rows: list[Row] = []
        n = 1
        while f"session_{n}" in c:
            ts0 = _locomo_time(c[f"session_{n}_date_time"])
            for idx, turn in enumerate(c[f"session_{n}"]):
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                other = [p for p in people if p != turn["speaker"]]
                rows.append(
                    Row(
                        turn["dia_id"],
                        f"session_{n}",
                        idx,
                        turn["speaker"],
                        text,
                        ts0 + timedelta(seconds=30 * idx),
                        other,
                    )
                )
            n += 1
        known = {r.turn_id for r in rows}
        qas, skipped = [], {"no_evidence": 0, "dropped_evidence_tokens": 0}
        for i, qa in enumerate(conv["qa"]):
            evidence, dropped = parse_evidence(qa.get("evidence", []), known)
            skipped["dropped_evidence_tokens"] += dropped
            if not evidence:
                skipped["no_evidence"] += 1
                continue
            cat = int(qa["category"])
            answer = qa.get("answer", qa.get("adversarial_answer", ""))
            qas.append(
                QA(
                    f"{conv['sample_id']}-{i}",
                    qa["question"],
                    str(answer),
                    f"{cat} {LOCOMO_CATEGORIES.get(cat, '?')}",
                    evidence,
                )
            )
        corpora.append(Corpus(conv["sample_id"], rows, qas, skipped))
    return corpora


def friendsqa(limit: int | None = None) -> Corpus:
    """All FriendsQA dev scenes as sessions of one space (questions must find their scene too)."""
    data = json.loads(FRIENDSQA.read_text())["data"][:limit]
    rows: list[Row] = []
    qas: list[QA] = []
    base = datetime(2026, 1, 1, tzinfo=UTC)
    skipped = {"no_evidence": 0, "no_speaker": 0}
    for n, scene in enumerate(data):
        title = scene["title"]
        para = scene["paragraphs"][0]
        utterances = para.get("utterances:") or para.get("utterances") or []
        uids = set()
        for u in utterances:
            speakers = [s for s in u.get("speakers") or [] if s and s.strip()]
            if not speakers or not u.get("utterance", "").strip():
                skipped["no_speaker"] += 1
                continue
            speaker = speakers[0] if speakers[0] != "#ALL#" else "Everyone"
            rows.append(
                Row(
                    f"{title}:{u['uid']}",
                    title,
                    len(uids),
                    speaker,
                    u["utterance"],
                    base + timedelta(days=n, seconds=20 * u["uid"]),
                )
            )
            uids.add(u["uid"])
        for qa in para["qas"]:
            ev = sorted({a["utterance_id"] for a in qa["answers"] if a["utterance_id"] in uids})
            if not ev:
                skipped["no_evidence"] += 1
                continue
            word = qa["question"].split()[0].lower()
            category = word if word in {"what", "who", "where", "why", "how", "when"} else "other"
            first = qa["answers"][0]
            qas.append(
                QA(
                    qa["id"],
                    qa["question"],
                    first["answer_text"],
                    category,
                    [f"{title}:{e}" for e in ev],
                    is_speaker=bool(first.get("is_speaker")),
                )
            )
    # re-number idx per session in row order (uids may skip)
    return Corpus("friendsqa", rows, qas, skipped)


# --- synthetic corpus -------------------------------------------------------------------------
_NAMES = ["Maya", "Tom", "Ana", "Lena", "Omar", "Priya", "Jonas", "Chen", "Sofia", "Marek", "Aiko", "Luis"]
_TOPICS = [
    "the garage door",
    "dinner plans",
    "the dentist appointment",
    "school pickup",
    "the hotel checkout",
    "groceries",
    "the car service",
    "a birthday present",
    "the football match",
    "the piano lesson",
    "the heating bill",
    "the holiday flights",
    "the dog's vet visit",
    "the new laptop",
    "the garden",
]
_VERBS = [
    "we should talk about",
    "don't forget",
    "can you check",
    "I booked",
    "remember",
    "I moved",
    "what about",
    "please cancel",
    "I paid for",
    "let's plan",
]
_WHEN = ["tomorrow", "on Friday", "next week", "tonight", "at 9 am", "after lunch", "on the weekend", "later"]


def synthetic_sentences(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(_VERBS).capitalize()} {rng.choice(_TOPICS)} {rng.choice(_WHEN)}, {rng.choice(_NAMES)}."
        for _ in range(n)
    ]


def synthetic_rows(start: int, count: int, seed: int = 11, per_session: int = 200) -> Iterator[Row]:
    """Turns ``start`` .. ``start+count-1`` of a deterministic household corpus."""
    rng = random.Random(seed + start)
    base = datetime(2025, 1, 1, tzinfo=UTC)
    for i in range(start, start + count):
        speaker = _NAMES[rng.randrange(len(_NAMES))]
        to = _NAMES[rng.randrange(len(_NAMES))]
        yield Row(
            f"syn-{i}",
            f"syn-session-{i // per_session}",
            i % per_session,
            speaker,
            f"{rng.choice(_VERBS).capitalize()} {rng.choice(_TOPICS)} {rng.choice(_WHEN)}, {to}. (#{i})",
            base + timedelta(minutes=i),
            [to] if to != speaker else [],
        )


# --- writer -----------------------------------------------------------------------------------
def product_index(
    embedder: TextEmbedder, rows: list[Row], addressees: bool = True
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """The vectors and index fields ingest would store for these rows: the speaker-aware passage
    ("Speaker to Addressees: text", addressees only when ``addressees``), its MiniLM vector and its
    SPLADE terms, through :func:`voxmem.passages.encode_passages` (the writers' one encoder path).

    Why a benchmark must use it: a space loaded with bare-text vectors and no SPLADE terms is not
    what the product retrieves from (answers_bench did that until 3 December: LoCoMo dev s80
    evidence recall@10 0.581 against 0.657 with the product's indexing, engineer R)."""
    passages = [passage(r.text, r.speaker, sorted(r.addressees) if addressees else []) for r in rows]
    index = encode_passages(embedder, sparse_encoder(), passages)
    return np.asarray([row["embedding"] for row in index], dtype=np.float32), index


def _index_fields(fields: dict[str, Any] | None) -> dict[str, Any]:
    keys = ("passage", "sparse_terms", "sparse_weights")
    return {k: (fields or {}).get(k) for k in keys}


class BatchLoader:
    """Writes rows with precomputed embeddings in batches (one transaction per batch)."""

    def __init__(self, db: Database, batch: int = 1000, addressed_by: str = "given") -> None:
        self.db = db
        self.batch = batch
        self.addressed_by = addressed_by
        self._ids: dict[str, str] = {}

    def _person(self, name: str) -> dict[str, str]:
        key = name_key(name)
        if key not in self._ids:
            self._ids[key] = new_id("p")
        return {"key": key, "id": self._ids[key], "name": name}

    def load(
        self,
        space: str,
        rows: list[Row],
        vectors: np.ndarray,
        progress: Callable[[int], None] | None = None,
        index: list[dict[str, Any]] | None = None,
    ) -> int:
        """Write the rows; ``index`` (one dict per row: passage, sparse_terms, sparse_weights, from
        voxmem.passages.MessageIndexer.encode) adds the speaker-aware passage and SPLADE terms."""
        written = 0
        for start in range(0, len(rows), self.batch):
            chunk = rows[start : start + self.batch]
            payload = [
                {
                    "id": f"{space}:{r.turn_id}",
                    "session": r.session,
                    "idx": r.idx,
                    "text": r.text,
                    "ts": r.ts.isoformat(),
                    "source": "text",
                    "speaker": self._person(r.speaker),
                    "addressees": [
                        self._person(a) for a in r.addressees if name_key(a) != name_key(r.speaker)
                    ],
                    "embedding": vectors[start + i].tolist(),
                    **_index_fields(index[start + i] if index else None),
                }
                for i, r in enumerate(chunk)
            ]
            written += self.db.execute(
                query("load_messages"),
                space=space,
                rows=payload,
                addressed_by=self.addressed_by,
            )[0]["written"]
            if progress:
                progress(len(chunk))
        sessions = sorted({r.session for r in rows})
        for start in range(0, len(sessions), 200):
            self.db.execute(query("link_next"), space=space, sessions=sessions[start : start + 200])
        return written
