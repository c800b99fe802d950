"""Fusion study: why one fused round barely beats SPLADE alone, and what fusion reaches the target.

Collects once, through the product's tools on the real Neo4j, each channel's ranking (MiniLM
vector, keyword BM25, SPLADE) at a deep cut for every question, with each turn's speaker and
position, then scores fusion variants offline on those rankings (no model or database in the
loop): equal and weighted RRF, RRF k, per-channel depth, score-level fusion (min-max CombSUM),
adjacent-turn expansion and a boost for turns spoken by a person the question names.

LoCoMo conversations are split into **tune** (conv-26, conv-30, conv-41, conv-42, the learned
policy's training split too) and **held-out** (conv-43, conv-44, conv-47): variants are chosen
on tune only, then reported on held-out and on FriendsQA (never tuned on).

    python -m bench.fusion_study --collect            # load, run the tools, cache the rankings
    python -m bench.fusion_study                      # grid on tune, report tune / held-out / FriendsQA

Writes results/retrieval/fusion_study.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

from tqdm import tqdm

TUNE = ("conv-26", "conv-30", "conv-41", "conv-42")
HELD_OUT = ("conv-43", "conv-44", "conv-47")
CHANNELS = ("vector", "keyword", "splade")
TOOL = {"vector": "message_vector", "keyword": "message_fulltext", "splade": "message_sparse"}
CACHE = Path(os.environ.get("VOXMEM_CACHE_DIR", str(Path.home() / ".cache/voxmem"))) / "fusion_study.json"


def collect(locomo_n: int, friendsqa_n: int, max_questions: int | None, depth: int) -> dict[str, Any]:
    """Run each channel at ``depth`` for every question; keep ids, scores, speakers, turn order."""
    import numpy as np

    from bench.retrieval_bench import subsample
    from bench.retrieval_data import BatchLoader, friendsqa, locomo
    from voxmem.config import Settings
    from voxmem.core import Voxmem
    from voxmem.embeddings import sparse_encoder
    from voxmem.passages import MessageIndexer, passage
    from voxmem.retrieval.scope import resolve_scope
    from voxmem.retrieval.service import RetrievalService
    from voxmem.retrieval.tools import Filters

    settings = Settings()
    services = Voxmem.build(settings)
    services.start()
    retrieval = RetrievalService(settings, services.db, services.embedder, chat_model=None)
    indexer = MessageIndexer(services.db, services.embedder, sparse_encoder())
    out: dict[str, Any] = {
        "cores": os.cpu_count(),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "depth": depth,
        "corpora": {},
    }
    corpora = [(c, "turn_taking") for c in locomo(locomo_n)] if locomo_n else []
    if friendsqa_n:
        corpora.append((friendsqa(friendsqa_n), "given"))
    try:
        for corpus, addressed_by in corpora:
            # the retrieval benchmark's loading (speaker-aware passages, batched), without its
            # offline bare-text encodings, which this study does not use
            space = f"bench-fus-{corpus.name}-{uuid.uuid4().hex[:6]}"
            services.spaces.create(space, "open")
            given = addressed_by == "given"
            index = indexer.encode(
                [passage(r.text, r.speaker, sorted(r.addressees) if given else []) for r in corpus.rows]
            )
            vectors = np.asarray([row["embedding"] for row in index], dtype=np.float32)
            BatchLoader(services.db, addressed_by=addressed_by).load(space, corpus.rows, vectors, index=index)
            try:
                scope = resolve_scope(services.db, space, None)
                questions = []
                for qa in tqdm(subsample(corpus.qas, max_questions), desc=corpus.name):
                    ranks = {}
                    for ch in CHANNELS:
                        hits = retrieval.tools[TOOL[ch]].search(scope, qa.question, Filters(), k=depth)
                        ranks[ch] = [[h.id.split(":", 1)[1], round(h.score, 5)] for h in hits]
                    questions.append(
                        {
                            "qid": qa.qid,
                            "category": qa.category,
                            "question": qa.question,
                            "gold": sorted(qa.evidence),
                            "ranks": ranks,
                        }
                    )
            finally:
                services.spaces.delete(space)
            out["corpora"][corpus.name] = {
                "turns": [[r.turn_id, r.session, r.idx, r.speaker] for r in corpus.rows],
                "questions": questions,
            }
    finally:
        services.close()
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    return out


# --- offline fusion ---------------------------------------------------------------------------
class Corpus:
    """One corpus's turn order and speakers, for adjacency and speaker boosts."""

    def __init__(self, turns: list[list[Any]]) -> None:
        self.speaker = {t[0]: t[3] for t in turns}
        self.position = {t[0]: (t[1], t[2]) for t in turns}  # the product's tie-break: session, idx
        order = sorted(turns, key=lambda t: (t[1], t[2]))
        self.neighbours: dict[str, list[str]] = defaultdict(list)
        self.before: dict[str, str] = {}
        self.after: dict[str, str] = {}
        for a, b in itertools.pairwise(order):
            if a[1] == b[1]:
                self.neighbours[a[0]].append(b[0])
                self.neighbours[b[0]].append(a[0])
                self.after[a[0]], self.before[b[0]] = b[0], a[0]
        self.people = sorted({t[3] for t in turns if t[3]})
        self.asks = {t[0] for t in turns if len(t) > 4 and str(t[4]).rstrip().endswith("?")}

    def around(self, tid: str, side: str) -> list[str]:
        if side == "qa":  # a question's reply, or the question a turn answers
            if tid in self.asks:
                return [self.after[tid]] if tid in self.after else []
            return [self.before[tid]] if self.before.get(tid) in self.asks else []
        if side == "after":
            return [self.after[tid]] if tid in self.after else []
        if side == "before":
            return [self.before[tid]] if tid in self.before else []
        return self.neighbours.get(tid, [])


def fuse(q: dict[str, Any], corpus: Corpus, cfg: dict[str, Any]) -> list[str]:
    """One fusion variant over a question's cached channel rankings, best first."""
    scores: dict[str, float] = defaultdict(float)
    for ch in CHANNELS:
        weight = cfg["w"][ch]
        ranking = q["ranks"][ch][: cfg["depth"]]
        if not weight or not ranking:
            continue
        if cfg["mode"] == "rrf":
            for rank, (tid, _) in enumerate(ranking, start=1):
                scores[tid] += weight / (cfg["k"] + rank)
        else:  # min-max normalised score, summed (CombSUM)
            values = [s for _, s in ranking]
            lo, hi = min(values), max(values)
            for tid, s in ranking:
                scores[tid] += weight * ((s - lo) / (hi - lo) if hi > lo else 1.0)
    boost = cfg.get("speaker", 0.0)
    if boost:
        named = [p for p in corpus.people if p.split()[0].lower() in q["question"].lower()]
        if len(named) == 1:
            for tid in scores:
                if corpus.speaker.get(tid) == named[0]:
                    scores[tid] *= 1 + boost

    def order(items: dict[str, float]) -> list[str]:
        if cfg.get("product_order"):  # RetrievalService.search's order: score, then session, idx
            return sorted(items, key=lambda t: (-items[t], *corpus.position.get(t, ("", 0))))
        return [tid for tid, _ in sorted(items.items(), key=lambda kv: (-kv[1], kv[0]))]

    expand = cfg.get("next", 0.0)
    if expand:
        top = [(tid, scores[tid]) for tid in order(scores)[: cfg.get("next_top", 5)]]
        side, how = cfg.get("next_side", "both"), cfg.get("next_mode", "max")
        for tid, s in top:
            for nb in corpus.around(tid, side):
                if how == "add":  # a neighbour the channels also found gains; a bare one gets s * expand
                    scores[nb] = scores.get(nb, 0.0) + s * expand
                else:
                    scores[nb] = max(scores.get(nb, 0.0), s * expand)
    return order(scores)


def recall(ranked: list[str], gold: list[str], k: int = 10) -> float:
    return len(set(ranked[:k]) & set(gold)) / len(gold)


def evaluate(data: dict[str, Any], names: tuple[str, ...], cfg: dict[str, Any]) -> dict[str, Any]:
    """Recall@10 of one variant over the named corpora: all questions and per category."""
    per_cat: dict[str, list[float]] = defaultdict(list)
    for name in names:
        block = data["corpora"].get(name)
        if block is None:
            continue
        corpus = Corpus(block["turns"])
        for q in block["questions"]:
            r = recall(fuse(q, corpus, cfg), q["gold"])
            per_cat[str(q["category"])].append(r)
            per_cat["ALL"].append(r)
    return {c: {"n": len(v), "r@10": round(statistics.fmean(v), 4)} for c, v in sorted(per_cat.items())}


def base(**changes: Any) -> dict[str, Any]:
    cfg = {"mode": "rrf", "k": 60, "depth": 30, "w": {"vector": 1.0, "keyword": 1.0, "splade": 1.0}}
    cfg.update(changes)
    return cfg


def grid() -> list[dict[str, Any]]:
    """The variants tried on the tune split (singles to see each channel, then the fusion knobs)."""
    variants = [
        base(w={"vector": 1.0, "keyword": 0.0, "splade": 0.0}),
        base(w={"vector": 0.0, "keyword": 1.0, "splade": 0.0}),
        base(w={"vector": 0.0, "keyword": 0.0, "splade": 1.0}),
        base(),
        base(depth=10),
    ]
    for mode, k, depth, wv, wk, ws in itertools.product(
        ("rrf",),
        (10, 30, 60),
        (10, 20, 30, 50, 100),
        (0.0, 0.25, 0.5, 1.0),
        (0.0, 0.25, 0.5, 1.0),
        (1.0, 2.0),
    ):
        variants.append(base(mode=mode, k=k, depth=depth, w={"vector": wv, "keyword": wk, "splade": ws}))
    for depth, wv, wk in itertools.product(
        (10, 30, 100), (0.0, 0.1, 0.2, 0.35, 0.5), (0.0, 0.1, 0.2, 0.35, 0.5)
    ):
        variants.append(base(mode="score", depth=depth, w={"vector": wv, "keyword": wk, "splade": 1.0}))
    return variants


def describe(cfg: dict[str, Any]) -> str:
    w = cfg["w"]
    keys = ("speaker", "next", "next_top", "next_side", "next_mode")
    extra = "".join(f" {key}={cfg[key]}" for key in keys if cfg.get(key))
    return (
        f"{cfg['mode']} k={cfg['k']} depth={cfg['depth']} "
        f"w=v{w['vector']}/b{w['keyword']}/s{w['splade']}{extra}"
    )


def study(data: dict[str, Any]) -> dict[str, Any]:
    """Choose on tune; report the chosen variants on held-out and FriendsQA."""
    fqa = tuple(n for n in data["corpora"] if n not in TUNE + HELD_OUT)
    scored = []
    for cfg in grid():
        scored.append((evaluate(data, TUNE, cfg)["ALL"]["r@10"], cfg))
    scored.sort(key=lambda x: -x[0])
    best = scored[0][1]
    # then the two add-ons on top of the best fusion, still on tune only
    addons = [dict(best, speaker=b) for b in (0.1, 0.25, 0.5)]
    addons += [dict(best, next=a, next_top=t) for a in (0.3, 0.5, 0.7) for t in (1, 3, 5)]
    scored_addons = sorted(((evaluate(data, TUNE, c)["ALL"]["r@10"], c) for c in addons), key=lambda x: -x[0])
    report: dict[str, Any] = {
        "tune": TUNE,
        "held_out": HELD_OUT,
        "friendsqa": fqa,
        "variants_tried": len(scored),
    }
    named = {
        "vector": base(w={"vector": 1.0, "keyword": 0.0, "splade": 0.0}),
        "keyword": base(w={"vector": 0.0, "keyword": 1.0, "splade": 0.0}),
        "splade": base(w={"vector": 0.0, "keyword": 0.0, "splade": 1.0}),
        "rrf_equal_depth30": base(),
        "rrf_equal_depth10": base(depth=10),
        "best_fusion": best,
        "best_addon": scored_addons[0][1],
    }
    report["top_fusions_on_tune"] = [{"tune_r@10": s, "cfg": describe(c)} for s, c in scored[:15]]
    report["addons_on_tune"] = [{"tune_r@10": s, "cfg": describe(c)} for s, c in scored_addons]
    report["methods"] = {}
    for name, cfg in named.items():
        report["methods"][name] = {
            "cfg": describe(cfg),
            "tune": evaluate(data, TUNE, cfg),
            "held_out": evaluate(data, HELD_OUT, cfg),
            "friendsqa": evaluate(data, fqa, cfg),
        }
    return report


PRODUCT = {
    "mode": "rrf",
    "k": 10,
    "depth": 50,
    "w": {"vector": 1.0, "keyword": 1.0, "splade": 1.0},
    "product_order": True,
}


def neighbour_study(data: dict[str, Any]) -> dict[str, Any]:
    """The neighbour step of the shipped round (RRF k = 10 over each channel's top 50, ordered as
    RetrievalService.search orders), varied: how many top turns, which side, the factor, and max
    vs additive scoring. Chosen on tune only; held-out and FriendsQA reported, never used to choose."""
    fqa = tuple(n for n in data["corpora"] if n not in TUNE + HELD_OUT)
    variants = [dict(PRODUCT)]
    for top, side, factor, how in itertools.product(
        (1, 2, 3, 5), ("both", "after", "before", "qa"), (0.2, 0.3, 0.5, 0.7, 1.0), ("max", "add")
    ):
        variants.append(dict(PRODUCT, next=factor, next_top=top, next_side=side, next_mode=how))
    scored = sorted(
        ((evaluate(data, TUNE, cfg)["ALL"]["r@10"], i, cfg) for i, cfg in enumerate(variants)),
        key=lambda x: (-x[0], x[1]),
    )
    second_pass = dict(PRODUCT, next=0.5, next_top=3, next_side="both", next_mode="max")
    shipped = dict(PRODUCT, next=0.5, next_top=5, next_side="both", next_mode="add")  # since the third pass
    named = {
        "no_neighbours": variants[0],
        "top3_max": second_pass,
        "top5_add_shipped": shipped,
        "best_on_tune": scored[0][2],
    }
    out: dict[str, Any] = {
        "tune": TUNE,
        "held_out": HELD_OUT,
        "friendsqa": fqa,
        "variants_tried": len(variants),
        "top_on_tune": [{"tune_r@10": r, "cfg": describe(c)} for r, _, c in scored[:15]],
        "methods": {},
    }
    for name, cfg in named.items():
        out["methods"][name] = {
            "cfg": describe(cfg),
            **{
                split: evaluate(data, names, cfg)
                for split, names in (
                    ("tune", TUNE),
                    ("held_out", HELD_OUT),
                    ("all_locomo", TUNE + HELD_OUT),
                    ("friendsqa", fqa),
                )
            },
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--collect", action="store_true", help="Load the corpora and cache the rankings.")
    parser.add_argument("--locomo", type=int, default=7)
    parser.add_argument("--friendsqa", type=int, default=40)
    parser.add_argument("--max-questions", type=int, default=40)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--out", type=Path, default=Path("results/retrieval/fusion_study.json"))
    parser.add_argument(
        "--neighbours",
        action="store_true",
        help="Study the shipped round's neighbour step on --cache (e.g. retrieval_bench --rankings).",
    )
    parser.add_argument(
        "--also", type=Path, nargs="*", default=[], help="More ranking files (their corpora are added)."
    )
    args = parser.parse_args(argv)
    if args.neighbours:
        data = json.loads(args.cache.read_text())
        for extra in args.also:
            data["corpora"] |= json.loads(extra.read_text())["corpora"]
        report = {"cores": data["cores"], "collect_loadavg": [data["loadavg_start"], data["loadavg_end"]]}
        report |= neighbour_study(data)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1))
        for entry in report["top_on_tune"][:10]:
            print(f"  tune {entry['tune_r@10']:.4f}  {entry['cfg']}")
        splits = ("tune", "held_out", "all_locomo", "friendsqa")
        print(f"\n{'method':<16}" + "".join(f"{s:>11}" for s in splits) + "   cfg")
        for name, m in report["methods"].items():
            cells = [m[s].get("ALL", {}).get("r@10", float("nan")) for s in splits]
            print(f"{name:<16}" + "".join(f"{c:>11.4f}" for c in cells) + f"   {m['cfg']}")
        print(f"wrote {args.out}")
        return 0
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()}")
    if args.collect:
        started = time.perf_counter()
        data = collect(args.locomo, args.friendsqa, args.max_questions, args.depth)
        data["collect_s"] = round(time.perf_counter() - started, 1)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        args.cache.write_text(json.dumps(data))
        print(
            f"cached {sum(len(c['questions']) for c in data['corpora'].values())} questions in {args.cache}"
        )
    data = json.loads(args.cache.read_text())
    report = {
        "cores": data["cores"],
        "collect_loadavg": [data["loadavg_start"], data["loadavg_end"]],
        "depth": data["depth"],
        **study(data),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    for entry in report["top_fusions_on_tune"][:8]:
        print(f"  tune {entry['tune_r@10']:.3f}  {entry['cfg']}")
    for entry in report["addons_on_tune"][:5]:
        print(f"  tune {entry['tune_r@10']:.3f}  {entry['cfg']}")
    print(f"\n{'method':<20}{'tune':>8}{'held-out':>10}{'FriendsQA':>11}   cfg")
    for name, m in report["methods"].items():
        cells = [m[s].get("ALL", {}).get("r@10", float("nan")) for s in ("tune", "held_out", "friendsqa")]
        print(f"{name:<20}" + "".join(f"{c:>10.3f}" for c in cells) + f"   {m['cfg']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
