"""Export a space to a JSON-lines file and import it into a new space.

The file is the space's graph, complete: participants, sessions, messages (with their
embeddings and sparse terms, so importing needs no model), facts and attributes with their
provenance (``DERIVED_FROM`` the turns they came from, ``SUPERSEDES``, ``CONFLICTS_WITH``),
speakers, audit items, recordings, images; voiceprints only when asked. API keys and jobs stay
behind. Line 1 is a header; then one ``{"node": …}`` line per node and one ``{"edge": …}``
line per relationship:

    {"kind": "voxmem-export", "version": 1, "space": "household-1", "policy": "participant", ...}
    {"kind": "node", "n": 0, "labels": ["Participant"], "props": {"id": "p_…", "name": "Maya", ...}}
    {"kind": "edge", "type": "SPEAKS", "start": 0, "end": 7, "props": {}}

Temporal values are tagged (``{"$datetime": "2026-11-02T18:05:00Z"}``). Importing remaps every
id (ids are unique across the database, so a copy next to the original needs new ones) and
writes the new space in one transaction: it appears whole or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from neo4j import ManagedTransaction
from neo4j.time import Date, DateTime, Duration

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.errors import Conflict, InvalidInput
from voxmem.ids import is_valid_id, new_id
from voxmem.stores.spaces import ACCESS_POLICIES, SpaceStore

FORMAT = "voxmem-export"
VERSION = 1
VOICE_PROPS = {"Speaker": ("centroid",)}
BATCH = 500


def _encode(value: Any) -> Any:
    if isinstance(value, DateTime):
        return {"$datetime": value.iso_format()}
    if isinstance(value, Date):
        return {"$date": value.iso_format()}
    if isinstance(value, Duration):
        return {"$duration": str(value)}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if "$datetime" in value:
            return DateTime.from_iso_format(value["$datetime"])
        if "$date" in value:
            return Date.from_iso_format(value["$date"])
        raise InvalidInput(f"unsupported value in export: {value!r:.80}")
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def export_space(db: Database, spaces: SpaceStore, space: str, voiceprints: bool = False) -> Iterator[str]:
    """The space as JSON lines (each ending in a newline), read in one transaction."""
    info = spaces.get(space)

    def read(tx: ManagedTransaction) -> tuple[list[dict], list[dict]]:
        nodes = [r.data() for r in tx.run(query("space_export_nodes"), space=space, voiceprints=voiceprints)]
        edges = [r.data() for r in tx.run(query("space_export_edges"), space=space)]
        return nodes, edges

    nodes, edges = db.read(read)
    index = {n["eid"]: i for i, n in enumerate(nodes)}
    kept = [e for e in edges if e["start"] in index and e["end"] in index]
    yield _line(
        {
            "kind": FORMAT,
            "version": VERSION,
            "space": space,
            "policy": info.policy,
            "exported_at": datetime.now(UTC).isoformat(),
            "voiceprints": voiceprints,
            "nodes": len(nodes),
            "edges": len(kept),
        }
    )
    for i, node in enumerate(nodes):
        props = dict(node["props"])
        if not voiceprints:
            for label in node["labels"]:
                for name in VOICE_PROPS.get(label, ()):
                    props.pop(name, None)
        props = {k: _encode(v) for k, v in props.items()}
        yield _line({"kind": "node", "n": i, "labels": node["labels"], "props": props})
    for edge in kept:
        props = {k: _encode(v) for k, v in edge["props"].items()}
        yield _line(
            {
                "kind": "edge",
                "type": edge["type"],
                "start": index[edge["start"]],
                "end": index[edge["end"]],
                "props": props,
            }
        )


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


def _new_ids(nodes: list[dict], old: str, new: str) -> dict[str, str]:
    """A fresh id for every exported node id: ``old:…`` ids become ``new:…``, ``p_…`` style ids get
    a new random id with the same prefix; session and recording ids are per space and stay."""
    mapping: dict[str, str] = {}
    for node in nodes:
        if {"Session", "Recording"} & set(node["labels"]):
            continue
        value = node["props"].get("id")
        if not isinstance(value, str) or value in mapping:
            continue
        if value.startswith(f"{old}:"):
            mapping[value] = f"{new}:{value[len(old) + 1 :]}"
        else:
            prefix = value.split("_", 1)[0] if "_" in value else "n"
            mapping[value] = new_id(prefix)
    return mapping


def _remap(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [_remap(v, mapping) for v in value]
    return value


def import_space(db: Database, lines: Iterable[str | bytes], space: str) -> dict[str, Any]:
    """Create ``space`` from an export; 409 if it exists, 422 for a file that is not an export.
    Returns the counts written, by node label and relationship type."""
    if not is_valid_id(space):
        raise InvalidInput("space id must be 1-128 characters of letters, digits, '_', '.', ':' or '-'")
    header: dict[str, Any] | None = None
    nodes: list[dict] = []
    edges: list[dict] = []
    for number, raw in enumerate(lines, start=1):
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if not text.strip():
            continue
        try:
            item = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"line {number} is not JSON: {exc.msg}") from None
        kind = item.get("kind") if isinstance(item, dict) else None
        if header is None:
            if kind != FORMAT or item.get("version") != VERSION:
                raise InvalidInput(f"not a voxmem export (version {VERSION}): the first line is no header")
            header = item
        elif kind == "node":
            nodes.append(item)
        elif kind == "edge":
            edges.append(item)
        else:
            raise InvalidInput(f"line {number}: unknown kind {kind!r}")
    if header is None:
        raise InvalidInput("empty export file")
    if header.get("policy") not in ACCESS_POLICIES:
        raise InvalidInput(f"export header has an unknown policy {header.get('policy')!r}")
    if len(nodes) != header.get("nodes") or len(edges) != header.get("edges"):
        raise InvalidInput(
            f"export is truncated: header says {header.get('nodes')} nodes / {header.get('edges')} edges, "
            f"file has {len(nodes)} / {len(edges)}"
        )
    old = header["space"]
    mapping = _new_ids(nodes, old, space)
    rows = []
    for node in nodes:
        props = {k: _decode(_remap(v, mapping)) for k, v in node["props"].items()}
        props["space"] = space
        rows.append({"i": node["n"], "labels": node["labels"], "props": props})

    def write(tx: ManagedTransaction) -> dict[str, Any]:
        if tx.run(query("space_get"), space=space).single() is not None:
            raise Conflict(f"space {space!r} already exists: import into a new space")
        tx.run(query("space_create"), space=space, policy=header["policy"]).consume()
        eids: dict[int, str] = {}
        for start in range(0, len(rows), BATCH):
            for r in tx.run(query("space_import_nodes"), rows=rows[start : start + BATCH]):
                eids[r["i"]] = r["eid"]
        created = 0
        edge_rows = [
            {
                "start": eids[e["start"]],
                "end": eids[e["end"]],
                "type": e["type"],
                "props": {k: _decode(_remap(v, mapping)) for k, v in e["props"].items()},
            }
            for e in edges
        ]
        for start in range(0, len(edge_rows), BATCH):
            created += tx.run(query("space_import_edges"), rows=edge_rows[start : start + BATCH]).single(
                strict=True
            )["created"]
        return {"nodes": len(eids), "edges": created}

    written = db.write(write)
    labels: dict[str, int] = {}
    for node in nodes:
        labels[node["labels"][0]] = labels.get(node["labels"][0], 0) + 1
    types: dict[str, int] = {}
    for edge in edges:
        types[edge["type"]] = types.get(edge["type"], 0) + 1
    return {"space": space, "from_space": old, **written, "by_label": labels, "by_type": types}
