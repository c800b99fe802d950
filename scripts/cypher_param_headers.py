"""Write the Neo4j Browser ``:param`` header at the top of every ``cypher/*.cypher`` file.

Browser's ``:params {limit: 50}`` stores JavaScript numbers, i.e. floats, and ``LIMIT 50.0``
fails; ``:param limit => 50`` evaluates the right-hand side as Cypher on the server, so
integers stay integers and expressions (``datetime()``, a test vector) work too. Each file
therefore starts with::

    // Neo4j Browser: paste these :param lines first, then the query (example values).
    // :param space => 'demo-household'
    // :param limit => 50

Only those header lines are inserted or replaced; the rest of each file is left byte for
byte (other people edit query bodies). The parameters are read from the *composed* query
(``voxmem.cypher.compose``: the access-rule fragments of ``cypher/access/`` expanded), so a
header names ``$access_policy`` even when only an included fragment uses it, and ``voxmem cypher show
NAME`` prints a query Browser runs with exactly these lines. ``tests/test_cypher_params.py``
checks that every file has the header and that it names every ``$parameter`` the composed
query uses. Fragments (``cypher/access/*.cypher``) get no header: they are not queries.

Usage: ``python scripts/cypher_param_headers.py [--reset] [files...]`` (default: all of
``cypher/``; values already in a header are kept unless ``--reset``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from voxmem.cypher import compose

CYPHER_DIR = Path(__file__).resolve().parent.parent / "cypher"
MARKER = "// Neo4j Browser: paste these :param lines first, then the query (example values)."
PARAM_LINE = re.compile(r"^// :param ([A-Za-z_][A-Za-z0-9_]*) => (.*)$")
PARAM_USE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")

TEXT_VECTOR = "[x IN range(1, 384) | 0.05]"  # a 384-d text embedding (VOXMEM_TEXT_EMBEDDING_DIM)
VOICE_VECTOR = "[x IN range(1, 256) | 0.0625]"  # a 256-d voice embedding (VOXMEM_VOICE_EMBEDDING_DIM)

# Example values that run against the demo space (`voxmem demo` writes 'demo-household').
# Filters given as null mean "no filter"; ids the demo does not know are null too.
EXAMPLES: dict[str, str] = {
    "space": "'demo-household'",
    "session": "'kitchen-monday'",
    "sessions": "['kitchen-monday', 'car-wednesday']",
    "limit": "50",
    "skip": "0",
    "k": "10",
    "n": "3",
    "fetch": "100",
    "window": "3",
    "batch": "1000",
    "max_exemplars": "8",
    "idx": "0",
    "history": "false",
    "current_only": "true",
    "with_exemplars": "false",
    "resolved": "false",
    "updated": "false",
    "present": "true",
    "keep_name": "true",
    "policy": "'open'",
    "access_policy": "'open'",
    "lucene": "'plumber'",
    "text": "'Tom, the plumber is coming on Thursday.'",
    "passage": "'Priya: Tom, the plumber is coming on Thursday.'",
    "content": "'Maya needs new football boots.'",
    "caption": "'a photo'",
    "name": "'Maya'",
    "key": "'maya'",
    "alias": "'Mom'",
    "alias_key": "'mom'",
    "aliases": "['Mom']",
    "alias_keys": "['mom']",
    "ref": "'maya'",
    "person": "'maya'",
    "voice": "null",
    "contains": "'boots'",
    "embedding": TEXT_VECTOR,
    "centroid": VOICE_VECTOR,
    "encoder": "'resemblyzer'",
    "index": "'speaker_centroid'",
    "decision": "'LINK'",
    "source": "'text'",
    "kind": "'preference'",
    "label": "'browser'",
    "slot": "null",
    "subject_key": "null",
    "ts": "datetime()",
    "ts_from": "null",
    "ts_to": "null",
    "created_at": "datetime()",
    "finished_at": "null",
    "start": "0.0",
    "duration": "1.5",
    "duration_s": "1.5",
    "score": "0.9",
    "confidence": "0.9",
    "progress": "0.0",
    "turns": "0",
    "resumed_turns": "0",
    "status": "'running'",
    "stage": "'queued'",
    "ids": "[]",
    "message_ids": "[]",
    "speakers": "[]",
    "participants": "[]",
    "messages": "[]",
    "addressees": "[]",
    "rows": "[]",
    "edges": "[]",
    "speaker_labels": "['Speaker']",
    "voiceprint_labels": "['Voiceprint']",
    "sparse_terms": "[]",
    "sparse_weights": "[]",
    "weights": "{}",
    "fact": "{}",
    "attr": "{}",
}


def params_used(text: str) -> list[str]:
    """``$names`` in the composed query body (comment lines ignored), in order of first use."""
    seen: dict[str, None] = {}
    for line in compose(text).splitlines():
        if line.lstrip().startswith("//"):
            continue
        for name in PARAM_USE.findall(line):
            seen.setdefault(name, None)
    return list(seen)


def split_header(text: str) -> tuple[dict[str, str], str]:
    """The ``:param`` values already in the header (kept: a person may have tuned them) and the rest."""
    lines = text.splitlines(keepends=True)
    values: dict[str, str] = {}
    i = 0
    if lines and lines[0].rstrip("\n") == MARKER:
        i = 1
        while i < len(lines) and (m := PARAM_LINE.match(lines[i].rstrip("\n"))):
            values[m.group(1)] = m.group(2)
            i += 1
    return values, "".join(lines[i:])


def example(name: str, file_stem: str) -> str:
    """The example value of one parameter; voice queries take a voice-sized ``$embedding``."""
    if name == "embedding" and file_stem.startswith(("speaker_", "voiceprint_", "voice_")):
        return VOICE_VECTOR
    return EXAMPLES.get(name, "null")


def header_for(text: str, file_stem: str = "", reset: bool = False) -> str:
    kept, body = split_header(text)
    if reset:
        kept = {}
    lines = [MARKER]
    for name in params_used(body):
        lines.append(f"// :param {name} => {kept.get(name) or example(name, file_stem)}")
    return "\n".join(lines) + "\n"


def with_header(text: str, file_stem: str = "", reset: bool = False) -> str:
    return header_for(text, file_stem, reset) + split_header(text)[1]


def main(argv: list[str]) -> int:
    reset = "--reset" in argv  # forget hand-tuned values, write the examples again
    files = [Path(a) for a in argv if a != "--reset"] or sorted(CYPHER_DIR.glob("*.cypher"))
    changed = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        new = with_header(text, path.stem, reset)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    print(f"{changed} of {len(files)} files updated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
