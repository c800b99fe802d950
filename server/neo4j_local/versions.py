"""Neo4j release numbers and what each release needs.

Neo4j moved from semantic versions (5.26 LTS) to calendar versions (2025.01 onwards). Everything
that differs between releases — which Java runs it, which main class starts it, which JVM flags
it wants — is decided here from the version string alone, so the rest of the package never
compares version strings by hand.
"""

from __future__ import annotations

import re

_VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")


def parse_version(version: str) -> tuple[int, int, int]:
    """``"2026.08.1"`` -> ``(2026, 8, 1)``; ``"5.26"`` -> ``(5, 26, 0)``.

    Raises ``ValueError`` for anything else (pre-releases, typos), because a wrong version would
    otherwise surface only as an obscure Maven resolution error.
    """
    m = _VERSION_RE.match(version.strip())
    if not m:
        raise ValueError(f"not a Neo4j release number: {version!r} (expected e.g. 2026.08.1 or 5.26.30)")
    major, minor, patch = m.groups()
    return int(major), int(minor), int(patch or 0)


def is_calver(version: str) -> bool:
    """True for 2025.x and later (calendar versioning), False for 5.x and older."""
    return parse_version(version)[0] >= 2025


def supported_java(version: str) -> tuple[int, ...]:
    """Java feature releases Neo4j supports for ``version``, newest first.

    From the operations manual: 5.x up to 5.26 LTS runs on Java 17 and 21; 2025.01-2025.09
    need Java 21; 2025.10 and later run on 21 and 25. Other Java releases may start but are not
    supported, so we never pick them.
    """
    v = parse_version(version)
    if v[0] < 5:
        raise ValueError(f"Neo4j {version} is too old for voxmem (needs 5.26 or a 2025+ release)")
    if v[0] == 5:
        return (21, 17)
    if v < (2025, 10, 0):
        return (21,)
    return (25, 21)


def main_class(version: str) -> str:
    """The server entry point the bootloader would fork (we start it directly)."""
    return "org.neo4j.server.Neo4jCommunity" if is_calver(version) else "org.neo4j.server.CommunityEntryPoint"
