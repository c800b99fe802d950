"""End-to-end benchmark runner: feed a case to the server, ask every question, score, report.

The system under test never sees gold speaker names:
* ``--mode audio`` (the real benchmark): every turn is synthesised in its speaker's voice
  (``bench.voices``) and posted as audio only; questions with an asker are asked
  aloud in the asker's voice. Needs the audio ingestion route.
* ``--mode text`` (oracle identity): turns go to the text-turn route under stable
  pseudonyms (``person-3f2a1c``), never the names; answers still have to come from memory.
  This isolates memory and retrieval from speaker identification.

Questions go to ``POST /spaces/{space}/query`` when the server has it; before that route
exists the runner falls back to ``GET /search`` with an extractive answer (top turns) and
the report says so. Results land in ``results/bench/<run>/`` (report.md, results.json, PNGs).

    python -m bench.runner --case bench/cases/household.json --mode audio --condition clean
    python -m bench.runner --generate meeting --speakers 5 --sessions 8 --turns 60 --condition shifted
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bench import scoring
from bench.cases import (
    QUESTION_TYPES,
    Case,
    Session,
    load_case,
    load_locomo,
    load_paraphrases,
    locomo_id_case,
    sample_questions,
    trim_case,
    with_paraphrases,
)
from bench.target import AskResult, Target, TargetError
from voxmem.config import Settings, get_settings
from voxmem.ids import turn_message_id
from voxmem.voice.routing import follow_merges

SHIFT_ROTATION = ("clean", "reverb", "tempo", "telephone")
RECALL_KS = (5, 10, 30)


# --- pure helpers (unit-tested) ---------------------------------------------------------------
def pseudonym(name: str, salt: str) -> str:
    """A stable label for a person that carries no part of their name."""
    return "person-" + hashlib.sha1(f"{salt}:{name}".encode()).hexdigest()[:6]


def assign_voices(case: Case, voice_ids: Sequence[str] | None = None) -> dict[str, str]:
    """Participant → synthetic voice: the case's choice, else the next unused of the chosen set."""
    from bench.voices import CHOSEN_6, VOICES

    pool = list(voice_ids or CHOSEN_6) + [v for v in VOICES if v not in (voice_ids or CHOSEN_6)]
    people = [p.name for p in case.participants] or case.speakers()
    fixed = {p.name: p.voice for p in case.participants if p.voice}
    free = [v for v in pool if v not in fixed.values()]
    out: dict[str, str] = {}
    for name in people:
        if name in fixed:
            out[name] = fixed[name]  # type: ignore[assignment]
        elif free:
            out[name] = free.pop(0)
        else:
            raise ValueError(f"more speakers ({len(people)}) than synthetic voices ({len(pool)})")
    return out


def session_condition(condition: str, index: int) -> str:
    """Recording condition of session ``index``: fixed, or rotating for ``shifted``."""
    return SHIFT_ROTATION[index % len(SHIFT_ROTATION)] if condition == "shifted" else condition


def question_condition(condition: str) -> str:
    return "reverb" if condition == "shifted" else condition


_LOCOMO_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)


def session_start(session: Session, index: int) -> datetime:
    """When a session started: its ISO date, a LoCoMo date string, or day ``index`` of 2026."""
    if session.date:
        moment = datetime.fromisoformat(session.date)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    if session.date_text and (m := _LOCOMO_DATE.search(session.date_text)):
        hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
        parsed = datetime.strptime(f"{m.group(4)} {m.group(5)} {m.group(6)}", "%d %B %Y")
        return parsed.replace(hour=hour, minute=int(m.group(2)), tzinfo=UTC)
    return datetime(2026, 1, 1, 9, tzinfo=UTC) + timedelta(days=index)


def visible_turns(case: Case, asker: str, policy: str) -> set[str] | None:
    """Turn ids an asker may read under a policy (None = everything), from the gold labels.

    participant: every turn of sessions the asker spoke in; private: turns the asker said
    or that were addressed to them (by name or to everyone).
    """
    if policy == "open":
        return None
    visible: set[str] = set()
    for session in case.sessions:
        spoke = any(t.speaker == asker for t in session.turns)
        for turn in session.turns:
            said_or_heard = turn.speaker == asker or asker in turn.addressees
            to_all = "everyone" in turn.addressees and spoke
            if (policy == "participant" and spoke) or (policy == "private" and (said_or_heard or to_all)):
                visible.add(turn.turn_id)
    return visible


def auto_policy(case: Case) -> str:
    """participant as soon as any question has an asker, else open (LoCoMo).

    Why not "most questions": under ``open`` every turn is visible to everyone, so a case where
    only some questions are asked by a participant could never count a wrong authorization.
    Questions without an asker are answered from everything under either policy.
    """
    return "participant" if any(q.asker is not None for q in case.qa) else "open"


def majority_owner(gold: Sequence[str], pred: Sequence[str | None]) -> dict[str, str]:
    """System entity → the gold speaker most of its turns belong to."""
    held: dict[str, Counter] = defaultdict(Counter)
    for g, p in zip(gold, pred, strict=True):
        if p is not None:
            held[p][g] += 1
    return {p: c.most_common(1)[0][0] for p, c in held.items()}


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


# --- the run ------------------------------------------------------------------------------------
class Run:
    """One case against one target: ingest, ask, score. ``results`` is JSON-ready."""

    def __init__(
        self,
        target: Target,
        case: Case,
        mode: str,
        condition: str,
        policy: str,
        judge: Any = None,
        k: int = 30,
        max_questions: int | None = None,
        progress: bool = True,
        names: str = "hidden",
        asr_vocabulary: bool = False,
    ) -> None:
        if mode == "audio" and target.audio_route is None:
            raise TargetError(
                "--mode audio needs the audio ingestion route, which this server does not have yet; "
                "use --mode text (oracle identity) until it lands"
            )
        self.target = target
        self.case = case
        self.mode = mode
        self.condition = condition
        self.policy = policy
        self.judge = judge
        self.k = k
        self.max_questions = max_questions
        self.progress = progress
        if names == "visible" and mode != "text":
            raise ValueError("--names visible only applies to --mode text")
        self.names = names
        if asr_vocabulary and mode != "audio":
            raise ValueError("--asr-vocabulary only applies to --mode audio")
        # The case's names as the ASR's expected names on every audio turn, as the demo's client
        # sends them; off by default, so runs stay comparable with the canonical ones (no hints).
        self.vocabulary = [p.name for p in case.participants] if asr_vocabulary else None
        self.space = f"bench-{re.sub(r'[^A-Za-z0-9]+', '-', case.case_id)[:60]}-{uuid.uuid4().hex[:6]}"
        self.salt = uuid.uuid4().hex[:8]
        self.voices = assign_voices(case) if mode == "audio" else {}
        self.turn_log: list[dict[str, Any]] = []
        self.skipped_no_speech: list[dict[str, Any]] = []
        self.participant_ids: dict[str, str] = {}  # text mode: gold name → the server's participant id
        self.question_log: list[dict[str, Any]] = []

    # --- ingestion ----------------------------------------------------------------------------
    def ingest(self) -> dict[str, Any]:
        from bench.voices import synthesize

        total = self.case.n_turns()
        bar = tqdm(total=total, desc="ingest", unit="turn", disable=not self.progress)
        started = time.perf_counter()
        cpu_start = _cpu_seconds()
        synth_s = 0.0
        audio_s = 0.0
        for index, session in enumerate(self.case.sessions):
            start = session_start(session, index)
            cond = session_condition(self.condition, index)
            for turn in session.turns:
                ts = start + timedelta(seconds=15 * turn.turn_idx)
                record: dict[str, Any] = {
                    "turn_id": turn.turn_id,
                    "session": session.session_id,
                    "gold": turn.speaker,
                }
                if self.mode == "audio":
                    t0 = time.perf_counter()
                    wav = synthesize(turn.text, self.voices[turn.speaker], cond)
                    synth_s += time.perf_counter() - t0
                    duration = _wav_seconds(wav)
                    audio_s += duration
                    try:
                        result = self.target.audio_turn(
                            self.space, session.session_id, wav, ts, turn.turn_id, self.vocabulary
                        )
                    except TargetError as exc:
                        if "no_speech" not in str(exc):
                            raise
                        # the server's noise rule (422 no_speech, issue 16): ASR heard no words in the
                        # synthesised turn; nothing is stored, so the run goes on without it (counted)
                        self.skipped_no_speech.append({**record, "text": turn.text, "error": str(exc)[:200]})
                        bar.update(1)
                        continue
                    record |= {"duration_s": duration, "condition": cond, "transcript": result.transcript}
                    record["text"] = turn.text
                else:
                    label = turn.speaker if self.names == "visible" else pseudonym(turn.speaker, self.salt)
                    result = self.target.text_turn(
                        self.space, session.session_id, label, turn.text, ts, turn.turn_id
                    )
                    if result.speaker_entity:
                        self.participant_ids[turn.speaker] = result.speaker_entity
                for image in turn.images:
                    self.target.attach_image(self.space, result.message_id, image.caption)
                record |= {
                    "message_id": result.message_id,
                    "entity": result.speaker_entity,
                    "decision": result.decision,
                    "latency_s": result.latency_s,
                }
                self.turn_log.append(record)
                bar.update(1)
        bar.close()
        if self.mode == "audio" and self.case.sessions:
            # The conversation is over: the device ends the last session, which reconciles its
            # voice fragments (earlier sessions were reconciled when the next one started).
            self.target.end_session(self.space, self.case.sessions[-1].session_id)
            merged = self.target.merged_speakers(self.space)
            for record in self.turn_log:
                record["final_entity"] = follow_merges(record["entity"], merged)
        wall = time.perf_counter() - started
        latencies = [r["latency_s"] for r in self.turn_log]
        out: dict[str, Any] = {
            "turns": total,
            "skipped_no_speech": self.skipped_no_speech,
            "wall_s": wall,
            "process_cpu_s": _cpu_seconds() - cpu_start,
            "server_s": sum(latencies),
            "synthesis_s": synth_s,
            "turn_latency_p50_s": scoring.percentile(latencies, 50),
            "turn_latency_p95_s": scoring.percentile(latencies, 95),
        }
        if self.mode == "audio":
            out["audio_s"] = audio_s
            out["rtf"] = sum(latencies) / audio_s if audio_s else None
        return out

    # --- identity -------------------------------------------------------------------------------
    def identity(self) -> dict[str, Any] | None:
        """Speaker routing against gold labels, for the final identities (after reconciliation
        merged fragments: what memory holds when questions are asked) and, as ``online_*``, for
        the decision each turn got when it arrived."""
        if self.mode != "audio":
            return None
        gold = [r["gold"] for r in self.turn_log]
        out: dict[str, Any] = {}
        for prefix, key in (("", "final_entity"), ("online_", "entity")):
            pred = [r.get(key) or f"none-{i}" for i, r in enumerate(self.turn_log)]
            p, r, f1 = scoring.b_cubed_f1(gold, pred)
            out |= {
                f"{prefix}routing_accuracy": scoring.routing_accuracy(gold, pred),
                f"{prefix}b3_precision": p,
                f"{prefix}b3_recall": r,
                f"{prefix}b3_f1": f1,
                f"{prefix}entities": len(set(pred)),
            }
        out |= {
            "gold_speakers": len(set(gold)),
            "turns_without_entity": sum(1 for x in self.turn_log if not x["entity"]),
        }
        transcripts = [(x["text"], x["transcript"]) for x in self.turn_log if x.get("transcript")]
        if transcripts:
            import jiwer

            refs = [scoring.normalize(a) for a, _ in transcripts]
            hyps = [scoring.normalize(b) or "-" for _, b in transcripts]
            out["asr_wer"] = jiwer.wer(refs, hyps)
        return out

    # --- questions ----------------------------------------------------------------------------
    def ask_all(self) -> None:
        from bench.voices import synthesize

        roster = [p.name for p in self.case.participants] or self.case.speakers()
        owners = majority_owner(
            [r["gold"] for r in self.turn_log], [r.get("final_entity", r["entity"]) for r in self.turn_log]
        )
        prefix = turn_message_id(self.space, "")
        conversation = " ".join(turn.text for _, turn in self.case.turns())
        questions = self.case.qa if self.max_questions is None else self.case.qa[: self.max_questions]
        for qa in tqdm(questions, desc="ask", unit="q", disable=not self.progress):
            audio = None
            asker_label = None
            if qa.asker is not None:
                if self.mode == "audio":
                    audio = synthesize(qa.question, self.voices[qa.asker], question_condition(self.condition))
                else:
                    # /query names the asker by participant id (the search fallback ignores it).
                    asker_label = self.participant_ids.get(qa.asker)
            try:
                result = self.target.ask(self.space, qa.question, asker=asker_label, audio=audio, k=self.k)
                error = None
            except TargetError as exc:
                result = AskResult("", [], 0.0, mode="error")
                error = str(exc)
            turn_ids = [e[len(prefix) :] if e.startswith(prefix) else e for e in result.evidence]
            score = scoring.score_answer(qa, result.answer, roster, conversation)
            record: dict[str, Any] = {
                "qa_id": qa.qa_id,
                "type": qa.type,
                "question": qa.question,
                "gold": qa.answer,
                "asker": qa.asker,
                "answer": result.answer,
                "mode": result.mode,
                "latency_s": result.latency_s,
                "evidence": turn_ids[: self.k],
                "gold_evidence": qa.evidence_ids,
                **{key: value for key, value in asdict(score).items()},
                "error": error,
            }
            for k in RECALL_KS:
                record[f"recall@{k}"] = scoring.recall_at_k(qa.evidence_ids, turn_ids, k)
            if qa.asker is not None:
                allowed = visible_turns(self.case, qa.asker, self.policy)
                outside = [] if allowed is None else [t for t in turn_ids if t not in allowed]
                record["unauthorized_evidence"] = outside
                if result.asker_checked:
                    record["asker_identified_as"] = (
                        owners.get(result.asker_entity, "(voice never routed)")
                        if result.asker_entity
                        else "(unknown)"
                    )
            if self.judge is not None:
                record["judge"] = self.judge.grade(qa.question, qa.answer, result.answer)
            self.question_log.append(record)

    # --- whole run ------------------------------------------------------------------------------
    def run(self, keep_space: bool = False, state: Path | None = None) -> dict[str, Any]:
        """Ingest (or, with ``state`` from an earlier ``save_state``, reuse that ingested space),
        then ask and score."""
        started = time.perf_counter()
        # Other work on the machine slows every timing; the report shows how busy it was.
        self.load_start = os.getloadavg()[0]
        if state is not None:
            ingestion = self.load_state(state)
        else:
            self.target.create_space(self.space, self.policy)
        try:
            if state is None:
                ingestion = self.ingest()
            t0 = time.perf_counter()
            self.ask_all()
            asking_wall = time.perf_counter() - t0
        finally:
            if not keep_space:
                self.target.delete_space(self.space)
        return self.summarise(ingestion, asking_wall, time.perf_counter() - started)

    def save_state(self, path: Path, ingestion: dict[str, Any]) -> Path:
        """What asking needs from an ingestion (space, pseudonym → participant ids, turn log), so
        a reader can be re-measured on the same memory without ingesting again (``--reuse``)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        state = {
            "case_id": self.case.case_id,
            "space": self.space,
            "mode": self.mode,
            "names": self.names,
            "asr_vocabulary": self.vocabulary,
            "policy": self.policy,
            "voices": self.voices,
            "participant_ids": self.participant_ids,
            "turn_log": self.turn_log,
            "ingestion": ingestion,
        }
        path.write_text(json.dumps(state, indent=1))
        return path

    def load_state(self, path: Path) -> dict[str, Any]:
        state = json.loads(path.read_text())
        if state["case_id"] != self.case.case_id or state["mode"] != self.mode:
            raise ValueError(f"{path} holds {state['case_id']} ({state['mode']}), not this case and mode")
        self.space, self.voices = state["space"], state["voices"] or self.voices
        self.participant_ids, self.turn_log = state["participant_ids"], state["turn_log"]
        if state["policy"] != self.policy:
            raise ValueError(f"{path} was ingested under policy {state['policy']}, not {self.policy}")
        self.target.attach_space(self.space)
        return state["ingestion"]

    def summarise(self, ingestion: dict[str, Any], asking_wall: float, total_wall: float) -> dict[str, Any]:
        questions = self.question_log
        latencies = [q["latency_s"] for q in questions if q["error"] is None]
        by_type: dict[str, dict[str, Any]] = {}
        for qtype in QUESTION_TYPES:
            rows = [q for q in questions if q["type"] == qtype]
            if rows:
                by_type[qtype] = _aggregate(rows)
        with_asker = [q for q in questions if q["asker"] is not None]
        identified = [q for q in with_asker if "asker_identified_as" in q]
        modes = Counter(q["mode"] for q in questions)
        return {
            "run": {
                "case_id": self.case.case_id,
                "case_source": self.case.source,
                "scenario": self.case.scenario,
                "mode": self.mode,
                "names": self.names,
                "asr_vocabulary": self.vocabulary,
                "condition": self.condition,
                "policy": self.policy,
                "space": self.space,
                "target": self.target.description,
                "routes": {
                    "audio": self.target.audio_route,
                    "query": self.target.has_query,
                    "search": self.target.has_search,
                },
                "answer_modes": dict(modes),
                "judge": getattr(self.judge, "name", None),
                "voices": self.voices,
                "speakers": len(self.case.speakers()),
                "sessions": len(self.case.sessions),
                "turns": self.case.n_turns(),
                "questions": len(questions),
                "cores": os.cpu_count(),
                "load_average_1m": {"start": self.load_start, "end": os.getloadavg()[0]},
                "git": _git_commit(),
                "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
            },
            "timings": {
                **{f"ingest_{k}": v for k, v in ingestion.items()},
                "asking_wall_s": asking_wall,
                "query_latency_p50_s": scoring.percentile(latencies, 50),
                "query_latency_p95_s": scoring.percentile(latencies, 95),
                "query_latency_mean_s": scoring.mean(latencies),
                "total_wall_s": total_wall,
            },
            "identity": self.identity(),
            "authorization": {
                "questions_with_asker": len(with_asker),
                "wrong_authorizations": sum(len(q.get("unauthorized_evidence", [])) for q in with_asker),
                "questions_with_wrong_authorization": sum(
                    1 for q in with_asker if q.get("unauthorized_evidence")
                ),
                "asker_identification_accuracy": (
                    sum(q["asker_identified_as"] == q["asker"] for q in identified) / len(identified)
                    if identified
                    else None
                ),
                "askers_checked": len(identified),
            },
            "scores": {"overall": _aggregate(questions), "by_type": by_type},
            "questions": questions,
            "turn_log": self.turn_log,
        }


def _aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "n": len(rows),
        "correct": scoring.mean(r["correct"] for r in rows),
        "correct_first_name": scoring.mean(r.get("correct_first_name") for r in rows),
        "exact": scoring.mean(r["exact"] for r in rows),
        "contains": scoring.mean(r["contains"] for r in rows),
        "f1": scoring.mean(r["f1"] for r in rows),
        "judge": scoring.mean(r.get("judge") for r in rows),
        "errors": sum(1 for r in rows if r["error"]),
    }
    for k in RECALL_KS:
        out[f"recall@{k}"] = scoring.mean(r[f"recall@{k}"] for r in rows)
    return out


def _cpu_seconds() -> float:
    """CPU time of this process and its children (with the in-process app: models and API, not Neo4j).

    Why: other work on a shared 2-core machine stretches wall times; CPU seconds do not stretch.
    """
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _wav_seconds(path: Path) -> float:
    import soundfile as sf

    info = sf.info(str(path))
    return info.frames / info.samplerate


# --- command line -------------------------------------------------------------------------------
def _load_cases(args: argparse.Namespace) -> list[Case]:
    if args.generate:
        from bench.scenarios import generate_case

        cases = [generate_case(args.generate, args.seed, args.speakers, args.sessions, args.turns)]
    elif args.locomo:
        cases = load_locomo(args.locomo)
        if args.locomo_select:
            wanted = args.locomo_select.split(",")
            cases = [c for c in cases if any(c.case_id.endswith(w) for w in wanted)]
        else:
            cases = cases[: args.locomo_conversations]
        cases = [locomo_id_case(c) for c in cases] if args.locomo_id else cases
    elif args.case:
        cases = [load_case(path) for path in args.case]
    else:
        raise SystemExit("give --case FILE, --generate SCENARIO or --locomo FILE")
    if args.max_sessions:
        cases = [trim_case(c, args.max_sessions) for c in cases]
    if args.paraphrases:
        cases = [
            with_paraphrases(c, load_paraphrases(args.paraphrases), args.paraphrase_split) for c in cases
        ]
    if args.sample_questions:
        cases = [sample_questions(c, args.sample_questions) for c in cases]
    return cases


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="voxmem end-to-end benchmark",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    source = parser.add_argument_group("case")
    source.add_argument("--case", nargs="*", help="voxpoly-web-case.v1 JSON file(s)")
    source.add_argument(
        "--generate", help="generate a scenario case: household|in_car|meeting|hotel_front_desk"
    )
    source.add_argument("--seed", type=int, default=0)
    source.add_argument("--speakers", type=int, default=5)
    source.add_argument("--sessions", type=int, default=8)
    source.add_argument("--turns", type=int, default=60, help="turns per session")
    source.add_argument("--locomo", help="LoCoMo JSON (e.g. /work/shared/data/locomo/locomo_dev.json)")
    source.add_argument("--locomo-conversations", type=int, default=1)
    source.add_argument("--locomo-select", help="comma-separated conversation ids, e.g. conv-26,conv-30")
    source.add_argument(
        "--paraphrases", help="hand-written paraphrase set (bench/paraphrases/*.json) replacing the questions"
    )
    source.add_argument("--paraphrase-split", choices=("tune", "heldout", "all"), default="all")
    source.add_argument(
        "--sample-questions",
        type=int,
        help="at most N questions per case, evenly spaced (keeps the type mix)",
    )
    source.add_argument(
        "--locomo-id", action="store_true", help="LoCoMo-ID view: first-person questions by voice"
    )
    parser.add_argument("--mode", choices=("audio", "text"), default="audio")
    parser.add_argument(
        "--names",
        choices=("hidden", "visible"),
        default="hidden",
        help="text mode only: 'visible' posts real speaker names (diagnostic: memory without name learning)",
    )
    parser.add_argument(
        "--asr-vocabulary",
        action="store_true",
        help="audio mode: send the case's participant names as the ASR vocabulary of every turn, as the "
        "demo's client does (default: no hints, as in the canonical runs)",
    )
    parser.add_argument(
        "--condition",
        default="clean",
        help="clean | shifted (sessions rotate clean/reverb/tempo/telephone) | reverb | telephone | tempo",
    )
    parser.add_argument("--policy", choices=("auto", "open", "participant", "private"), default="auto")
    parser.add_argument("--k", type=int, default=30, help="evidence items requested per question")
    parser.add_argument("--max-questions", type=int, default=None)
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=None,
        help="only the first N sessions and the questions they answer",
    )
    parser.add_argument(
        "--url", help="running voxmem server; default: the app in-process on the configured Neo4j"
    )
    parser.add_argument("--out", default="results/bench", help="results root; the run gets its own folder")
    parser.add_argument("--run-name", help="folder name (default: <case>-<mode>-<condition>-<time>)")
    parser.add_argument(
        "--no-judge", action="store_true", help="skip the LLM judge even if an LLM is configured"
    )
    parser.add_argument(
        "--keep-space", action="store_true", help="leave the benchmark space in Neo4j to inspect it"
    )
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--ingest-only",
        metavar="STATE_DIR",
        help="ingest, keep the space, save what asking needs to STATE_DIR/<case>.json; ask nothing",
    )
    parser.add_argument(
        "--reuse", metavar="STATE_DIR", help="ask against spaces saved by --ingest-only (no ingestion)"
    )
    args = parser.parse_args(argv)

    from bench.report import write_report
    from bench.voices import CONDITIONS

    if args.condition not in (*CONDITIONS, "shifted"):
        parser.error(f"--condition must be shifted or one of {', '.join(CONDITIONS)}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    # Neo4j's per-query notifications (e.g. "relationship type does not exist yet") would bury the bars.
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    settings: Settings = get_settings()
    cases = _load_cases(args)
    judge = None
    if not args.no_judge:
        from bench.judge import maybe_judge

        judge = maybe_judge(settings)
    context = (
        Target.remote(args.url, settings.admin_key.get_secret_value())
        if args.url
        else Target.in_process(settings)
    )
    with context as target:
        for case in cases:
            policy = auto_policy(case) if args.policy == "auto" else args.policy
            stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            name = args.run_name or f"{case.case_id}-{args.mode}-{args.condition}-{stamp}"
            if len(cases) > 1 and args.run_name:
                name = f"{args.run_name}-{case.case_id}"
            print(
                f"[bench] {case.case_id}: {len(case.speakers())} speakers, {len(case.sessions)} sessions, "
                f"{case.n_turns()} turns, {len(case.qa)} questions; mode={args.mode} "
                f"condition={args.condition} policy={policy}; target={target.description}; "
                f"cores={os.cpu_count()}",
                file=sys.stderr,
            )
            if not target.has_query:
                print(
                    "[bench] no /query route yet: answers fall back to /search (extractive)", file=sys.stderr
                )
            run = Run(
                target,
                case,
                args.mode,
                args.condition,
                policy,
                judge=judge,
                k=args.k,
                max_questions=args.max_questions,
                progress=not args.no_progress,
                names=args.names,
                asr_vocabulary=args.asr_vocabulary,
            )
            if args.ingest_only:
                run.load_start = os.getloadavg()[0]
                run.target.create_space(run.space, policy)
                path = run.save_state(Path(args.ingest_only) / f"{case.case_id}.json", run.ingest())
                print(f"[bench] ingested {case.case_id} into {run.space}; state in {path}", file=sys.stderr)
                continue
            state = Path(args.reuse) / f"{case.case_id}.json" if args.reuse else None
            results = run.run(keep_space=args.keep_space or state is not None, state=state)
            folder = write_report(results, Path(args.out) / name)
            print(_headline(results, folder))
    return 0


def _headline(results: dict[str, Any], folder: Path) -> str:
    t = results["timings"]
    s = results["scores"]["overall"]
    ident = results["identity"] or {}
    parts = [
        f"results: {folder}",
        f"score (exact/containment) {_f(s['correct'])} (first names accepted {_f(s['correct_first_name'])})"
        f"  token F1 {_f(s['f1'])}  judge {_f(s['judge'])}  "
        f"recall@30 {_f(s['recall@30'])}",
        f"ingest {t['ingest_turns']} turns in {t['ingest_wall_s']:.1f} s wall"
        + (f", RTF {_f(t.get('ingest_rtf'))}" if t.get("ingest_rtf") is not None else ""),
        f"query latency p50 {_ms(t['query_latency_p50_s'])} p95 {_ms(t['query_latency_p95_s'])}",
        f"wrong authorizations {results['authorization']['wrong_authorizations']}",
        f"total {t['total_wall_s'] / 60:.1f} min on {results['run']['cores']} cores "
        f"(1-min load average {results['run']['load_average_1m']['start']:.1f} at start)",
    ]
    if ident:
        parts.insert(
            2,
            f"routing accuracy {_f(ident['routing_accuracy'])}  B3 F1 {_f(ident['b3_f1'])} (final; online "
            f"{_f(ident.get('online_routing_accuracy'))} / {_f(ident.get('online_b3_f1'))})",
        )
    return "\n".join(parts)


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:.0f} ms"


if __name__ == "__main__":
    raise SystemExit(main())
