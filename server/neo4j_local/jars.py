"""Fetch the jars of a Neo4j Community server from Maven Central with Maven.

Why Maven and not a tarball: the network here reaches Maven Central but not neo4j.com, and
Central holds every jar of the server but no runnable distribution. ``dependency:copy-dependencies``
on a small pom rebuilds the distribution's ``lib/``.

The jars go to ``<cache_dir>/neo4j/lib-<version>-<pom hash>``: outside any clone, shared by
all worktrees, and keyed by exactly what decides their content (the rendered pom, which names
the Neo4j and Browser versions). A directory is only ever visible once complete (fetched into a
temporary sibling, then renamed), so an interrupted download is simply retried next time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .locking import file_lock
from .versions import parse_version

BROWSER_VERSION = "5.24.0"
"""Newest ``org.neo4j.client:neo4j-browser`` on Maven Central (later Browsers are not published there)."""

MANIFEST = "voxmem-lib.json"
MVN_TIMEOUT_S = 1800.0


class JarFetchError(RuntimeError):
    """Maven could not produce the jars (no network, unknown version, no mvn)."""


@dataclass(frozen=True)
class LibDir:
    """A complete lib/ directory for one Neo4j release."""

    path: Path
    neo4j_version: str
    jar_count: int
    size_bytes: int
    fetch_seconds: float | None
    """Seconds Maven took, or None when the directory came from the cache."""


def pom_template() -> str:
    """The pom shipped as package data next to this module."""
    return resources.files(__package__).joinpath("pom.template.xml").read_text(encoding="utf-8")


def render_pom(version: str, browser_version: str = BROWSER_VERSION) -> str:
    """The pom for ``version`` (validated, so a typo fails here and not deep inside Maven)."""
    parse_version(version)
    parse_version(browser_version)
    return pom_template().replace("@NEO4J_VERSION@", version).replace("@BROWSER_VERSION@", browser_version)


def pom_hash(pom_text: str) -> str:
    """Short content hash of a rendered pom: the cache key besides the version."""
    return hashlib.sha256(pom_text.encode("utf-8")).hexdigest()[:12]


def lib_dir_for(cache_dir: Path, version: str, browser_version: str = BROWSER_VERSION) -> Path:
    """Where the jars of ``version`` live (whether or not they were fetched yet)."""
    return Path(cache_dir) / "neo4j" / f"lib-{version}-{pom_hash(render_pom(version, browser_version))}"


def _describe(path: Path, version: str, seconds: float | None) -> LibDir:
    jars = list(path.glob("*.jar"))
    return LibDir(
        path=path,
        neo4j_version=version,
        jar_count=len(jars),
        size_bytes=sum(j.stat().st_size for j in jars),
        fetch_seconds=seconds,
    )


def cached_lib(cache_dir: Path, version: str, browser_version: str = BROWSER_VERSION) -> LibDir | None:
    """The complete lib dir for ``version`` if already fetched, else None (never downloads)."""
    path = lib_dir_for(cache_dir, version, browser_version)
    if (path / MANIFEST).is_file():
        return _describe(path, version, None)
    return None


def find_mvn() -> str:
    """Path of ``mvn`` (VOXMEM_MVN overrides, for machines where it is not on PATH)."""
    mvn = os.environ.get("VOXMEM_MVN") or shutil.which("mvn")
    if not mvn:
        raise JarFetchError(
            "Maven (mvn) not found on PATH; install it (apt-get install maven) or set VOXMEM_MVN"
        )
    return mvn


def ensure_jars(cache_dir: Path, version: str, browser_version: str = BROWSER_VERSION) -> LibDir:
    """Return the lib dir for ``version``, fetching it with Maven first if needed.

    Maven keeps its own download cache (``~/.m2`` or whatever the user's settings.xml/MAVEN_OPTS
    say), so a re-fetch after a pom change only downloads what changed.
    """
    hit = cached_lib(cache_dir, version, browser_version)
    if hit is not None:
        return hit
    neo4j_dir = Path(cache_dir) / "neo4j"
    with file_lock(neo4j_dir / ".fetch.lock"):
        hit = cached_lib(cache_dir, version, browser_version)
        if hit is not None:  # another process fetched it while we waited
            return hit
        pom = render_pom(version, browser_version)
        final = lib_dir_for(cache_dir, version, browser_version)
        build = neo4j_dir / "build" / final.name
        partial = neo4j_dir / f".{final.name}.partial-{os.getpid()}"
        shutil.rmtree(partial, ignore_errors=True)
        build.mkdir(parents=True, exist_ok=True)
        (build / "pom.xml").write_text(pom, encoding="utf-8")
        cmd = [
            find_mvn(),
            "-B",
            "-q",
            "-f",
            str(build / "pom.xml"),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={partial}",
            "-DincludeScope=runtime",
        ]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(
                cmd, cwd=build, capture_output=True, text=True, timeout=MVN_TIMEOUT_S, check=False
            )
        except subprocess.TimeoutExpired as e:
            shutil.rmtree(partial, ignore_errors=True)
            raise JarFetchError(f"Maven did not finish within {MVN_TIMEOUT_S:.0f}s: {' '.join(cmd)}") from e
        seconds = time.monotonic() - t0
        if proc.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise JarFetchError(
                f"fetching Neo4j {version} jars failed (mvn exit {proc.returncode}).\n"
                f"command: {' '.join(cmd)}\n{tail}"
            )
        expected = [
            f"neo4j-{version}.jar",
            f"neo4j-server-{version}.jar",
            f"neo4j-browser-{browser_version}.jar",
        ]
        missing = [name for name in expected if not (partial / name).is_file()]
        if missing:
            shutil.rmtree(partial, ignore_errors=True)
            raise JarFetchError(f"Maven finished but {', '.join(missing)} are missing from its output")
        info = _describe(partial, version, seconds)
        manifest = {
            "neo4j_version": version,
            "browser_version": browser_version,
            "pom_sha256": hashlib.sha256(pom.encode("utf-8")).hexdigest(),
            "jar_count": info.jar_count,
            "size_bytes": info.size_bytes,
            "fetch_seconds": round(seconds, 1),
            "fetched_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        (partial / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        if final.exists():  # only a leftover without manifest can be here; replace it
            shutil.rmtree(final)
        partial.rename(final)
        return _describe(final, version, seconds)
