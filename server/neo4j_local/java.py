"""Find an installed JDK that can run the requested Neo4j release.

Machines of this kind usually carry the distribution's OpenJDK 17 and sometimes a Temurin 21/25
under ``/usr/lib/jvm``. Current Neo4j (2025.x/2026.x) refuses nothing at start-up but is only
supported on Java 21/25, while 5.26 LTS is the last release that runs on Java 17. So we pick the
newest JDK the configured release supports and, when only Java 17 exists, fall back to the LTS
release instead of failing.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .versions import supported_java

if TYPE_CHECKING:
    from ..config import Settings

DEFAULT_JVM_ROOTS: tuple[Path, ...] = (Path("/usr/lib/jvm"),)


class NoSuitableJavaError(RuntimeError):
    """No installed JDK can run the configured Neo4j release nor the fallback release."""


@dataclass(frozen=True)
class JavaInstall:
    """One JDK/JRE on disk."""

    home: Path
    major: int
    version: str

    @property
    def java(self) -> Path:
        return self.home / "bin" / "java"


@dataclass(frozen=True)
class Runtime:
    """The Neo4j release we will run and the JDK that runs it."""

    neo4j_version: str
    java: JavaInstall
    is_fallback: bool


_RELEASE_RE = re.compile(r'^JAVA_VERSION="?([^"\s]+)"?', re.MULTILINE)
_VERSION_OUT_RE = re.compile(r'version "([^"]+)"')


def _major_of(version: str) -> int:
    """``"17.0.15"`` -> 17, ``"25"`` -> 25, ``"1.8.0_402"`` -> 8."""
    parts = re.split(r"[._+-]", version)
    if parts[0] == "1" and len(parts) > 1:
        return int(parts[1])
    return int(parts[0])


def probe(home: Path) -> JavaInstall | None:
    """Describe the JDK at ``home``, or None if it is not one.

    Reads the ``release`` file every JDK since 9 ships (no process start); only if that is
    missing do we run ``java -version``.
    """
    java = home / "bin" / "java"
    if not (java.is_file() and os.access(java, os.X_OK)):
        return None
    release = home / "release"
    version: str | None = None
    if release.is_file():
        m = _RELEASE_RE.search(release.read_text(encoding="utf-8", errors="replace"))
        if m:
            version = m.group(1)
    if version is None:
        try:
            out = subprocess.run(
                [str(java), "-version"], capture_output=True, text=True, timeout=30, check=False
            ).stderr
        except (OSError, subprocess.TimeoutExpired):
            return None
        m = _VERSION_OUT_RE.search(out)
        if not m:
            return None
        version = m.group(1)
    try:
        return JavaInstall(home=home.resolve(), major=_major_of(version), version=version)
    except ValueError:
        return None


def discover(
    explicit: Path | None = None,
    roots: Iterable[Path] = DEFAULT_JVM_ROOTS,
    environ: dict[str, str] | None = None,
) -> list[JavaInstall]:
    """All JDKs we may use, newest first, duplicates (symlinks) removed.

    An explicit ``neo4j_java_home`` is the only candidate: the user chose it, and silently using
    another JDK would hide a mistake. Otherwise JAVA_HOME, every ``<root>/*`` and the ``java``
    on PATH are considered.
    """
    env = os.environ if environ is None else environ
    candidates: list[Path] = []
    if explicit is not None:
        candidates.append(Path(explicit))
    else:
        if env.get("JAVA_HOME"):
            candidates.append(Path(env["JAVA_HOME"]))
        for root in roots:
            if root.is_dir():
                candidates.extend(sorted(p for p in root.iterdir() if p.is_dir()))
        for d in env.get("PATH", "").split(os.pathsep):
            java = Path(d) / "java" if d else None
            if java is not None and java.exists():
                candidates.append(java.resolve().parent.parent)
                break
    found: dict[Path, JavaInstall] = {}
    for c in candidates:
        info = probe(c)
        if info is not None and info.home not in found:
            found[info.home] = info
    return sorted(found.values(), key=lambda j: (j.major, j.version), reverse=True)


def pick_java(version: str, jdks: Iterable[JavaInstall]) -> JavaInstall | None:
    """Newest JDK whose feature release ``version`` supports, or None."""
    ok = supported_java(version)
    usable = [j for j in jdks if j.major in ok]
    return max(usable, key=lambda j: (j.major, j.version), default=None)


def choose_runtime(
    version: str,
    fallback_version: str | None,
    jdks: Iterable[JavaInstall],
) -> Runtime:
    """Pick (Neo4j release, JDK): the configured release if any JDK runs it, else the fallback.

    Raises ``NoSuitableJavaError`` naming what was found and what would be needed.
    """
    jdks = list(jdks)
    java = pick_java(version, jdks)
    if java is not None:
        return Runtime(neo4j_version=version, java=java, is_fallback=False)
    if fallback_version and fallback_version != version:
        java = pick_java(fallback_version, jdks)
        if java is not None:
            return Runtime(neo4j_version=fallback_version, java=java, is_fallback=True)
    found = ", ".join(f"{j.major} ({j.home})" for j in jdks) or "none"

    def needs(v: str) -> str:
        return " or ".join(map(str, supported_java(v)))

    need = f"Neo4j {version} needs Java {needs(version)}"
    if fallback_version and fallback_version != version:
        need += f"; fallback {fallback_version} needs Java {needs(fallback_version)}"
    raise NoSuitableJavaError(
        f"no suitable Java found: {need}. Found: {found}. "
        "Install a JDK under /usr/lib/jvm or set VOXMEM_NEO4J_JAVA_HOME."
    )


def runtime_for(settings: Settings) -> Runtime:
    """Choose the runtime for the given settings."""
    explicit = settings.neo4j_java_home
    jdks = discover(explicit=explicit)
    if explicit is not None and not jdks:
        raise NoSuitableJavaError(f"VOXMEM_NEO4J_JAVA_HOME={explicit} is not a JDK (no executable bin/java)")
    return choose_runtime(settings.neo4j_version, settings.neo4j_fallback_version, jdks)
