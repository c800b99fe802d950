"""Start, stop and inspect a local Neo4j Community server built from Maven Central jars.

The server JVM is started directly (``java ... org.neo4j.server.Neo4jCommunity``), not through
Neo4j's bootloader: one JVM instead of two, the pid we track is the server itself (so RSS and
signals mean what they say), and no ``bin/`` scripts are needed. The flags are the ones the
bootloader would build from the generated neo4j.conf (see ``conf.py``).

The process is detached (own session, stdin closed, output to ``<home>/logs/console.log``), so it
outlives the Python process that called ``up`` and ignores that terminal's Ctrl-C. What we
started is recorded in ``<home>/run/voxmem-neo4j.json``; a recorded pid only counts as "ours"
while ``/proc/<pid>/cmdline`` still names this home, so a recycled pid is never signalled.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from . import conf as conf_mod
from .jars import LibDir, ensure_jars
from .java import JavaInstall, NoSuitableJavaError, runtime_for
from .locking import file_lock
from .versions import main_class, parse_version, supported_java

if TYPE_CHECKING:
    from ..config import Settings

log = logging.getLogger(__name__)

STATE_FILE = "voxmem-neo4j.json"
HOME_MARKER = "voxmem-home.json"
MIN_PASSWORD_LEN = 8  # dbms.security.auth_minimum_password_length default since 5.3
EXIT_CODES = {
    1: "the web server failed to start, or the JVM itself could not start",
    2: "the database failed to start",
    3: "the configuration is invalid",
    4: "the licence agreement was not accepted",
}

# Popen objects of servers started by this process: lets us reap them (no zombies) in a
# long-running caller such as `voxmem serve` that starts and stops Neo4j more than once.
_children: dict[int, subprocess.Popen[bytes]] = {}


class Neo4jLocalError(RuntimeError):
    """Base class: anything that stops the local server from being provisioned or started."""


class Neo4jStartError(Neo4jLocalError):
    """The server process exited, or did not answer on Bolt in time."""


class WrongPasswordError(Neo4jLocalError):
    """The existing data directory was initialised with a different password."""


class PortInUseError(Neo4jLocalError):
    """A Bolt/HTTP port is taken by a process voxmem did not start."""


@dataclass
class Status:
    """What ``voxmem neo4j status`` reports."""

    running: bool
    home: Path
    neo4j_version: str | None = None
    pid: int | None = None
    java_home: str | None = None
    bolt_url: str = ""
    http_url: str = ""
    browser_url: str = ""
    rss_bytes: int | None = None
    started_at: str | None = None
    message: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def rss_mb(self) -> float | None:
        return None if self.rss_bytes is None else self.rss_bytes / 2**20

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["home"] = str(self.home)
        d["rss_mb"] = None if self.rss_mb is None else round(self.rss_mb, 1)
        return d

    def summary(self) -> str:
        """Human-readable lines for the CLI."""
        if not self.running:
            lines = [f"Neo4j: not running (home {self.home})"]
        else:
            rss = f", RSS {self.rss_mb:.0f} MiB" if self.rss_mb is not None else ""
            lines = [
                f"Neo4j {self.neo4j_version}: running, pid {self.pid}{rss}",
                f"  bolt    {self.bolt_url}",
                f"  browser {self.browser_url}",
                f"  home    {self.home}",
                f"  java    {self.java_home}",
            ]
        if self.message:
            lines.append(f"  note    {self.message}")
        return "\n".join(lines)


# --------------------------------------------------------------------------- small helpers


class _Urls(TypedDict):
    bolt_url: str
    http_url: str
    browser_url: str


def _urls(settings: Settings) -> _Urls:
    http = f"http://127.0.0.1:{settings.neo4j_http_port}"
    return {
        "bolt_url": f"bolt://127.0.0.1:{settings.neo4j_bolt_port}",
        "http_url": http,
        "browser_url": f"{http}/browser/",
    }


def _port_open(port: int, host: str = "127.0.0.1") -> bool:
    """True if something accepts TCP connections on host:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def _alive(pid: int) -> bool:
    """Is ``pid`` a live (non-zombie) process? Reaps it if it is our exited child."""
    proc = _children.get(pid)
    if proc is not None:
        if proc.poll() is None:
            return True
        _children.pop(pid, None)
        return False
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    except ChildProcessError:
        pass
    except OSError:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


def _is_our_server(pid: int, home: Path) -> bool:
    """The pid is alive and is a Neo4j server JVM for exactly this home."""
    return _alive(pid) and f"--home-dir={home}" in _cmdline(pid)


def _rss_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _read_json(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 64 * 1024))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


START_MARKER = "=== voxmem start"


def log_tail(home: Path, lines: int = 40) -> str:
    """The end of the console log (JVM errors) and of neo4j.log (server messages).

    The console log is appended to by every start; only the part after the latest start marker
    is shown, so an old failure is never mistaken for the current one.
    """
    parts = []
    for name in ("console.log", "neo4j.log"):
        text = _tail(home / "logs" / name, lines)
        if name == "console.log" and START_MARKER in text:
            text = text[text.rindex(START_MARKER) :]
        if text.strip():
            parts.append(f"--- {home / 'logs' / name} (last {lines} lines) ---\n{text}")
    return "\n".join(parts) or f"(no log output under {home / 'logs'})"


def candidate_homes(settings: Settings) -> list[Path]:
    """Homes a server started by voxmem could be running from, for status/down.

    With an explicit ``neo4j_home`` that is the only one; otherwise the homes of the configured
    and of the fallback release, because which one ``up`` chose depends on the installed Java.
    """
    if settings.neo4j_home is not None:
        return [Path(settings.neo4j_home)]
    homes = [settings.resolved_neo4j_home(settings.neo4j_version)]
    fb = settings.neo4j_fallback_version
    if fb and fb != settings.neo4j_version:
        homes.append(settings.resolved_neo4j_home(fb))
    return homes


def _running_in(home: Path) -> tuple[int, dict[str, object]] | None:
    """The pid and saved state of the server voxmem started in ``home``, if it still runs."""
    state = _read_json(home / "run" / STATE_FILE)
    pid = state.get("pid")
    if isinstance(pid, int) and _is_our_server(pid, home):
        return pid, state
    return None


# --------------------------------------------------------------------------- public API


def status(settings: Settings) -> Status:
    """Report whether a voxmem-started Neo4j is running, without starting or fetching anything."""
    urls = _urls(settings)
    homes = candidate_homes(settings)
    for home in homes:
        running = _running_in(home)
        if running is not None:
            pid, state = running
            st = Status(
                running=True,
                home=home,
                neo4j_version=str(state.get("neo4j_version")),
                pid=pid,
                java_home=str(state.get("java_home")),
                rss_bytes=_rss_bytes(pid),
                started_at=str(state.get("started_at")),
                **urls,
            )
            if state.get("bolt_port") != settings.neo4j_bolt_port:
                st.message = (
                    f"running with Bolt port {state.get('bolt_port')}, not {settings.neo4j_bolt_port}"
                )
                st.bolt_url = f"bolt://127.0.0.1:{state.get('bolt_port')}"
                st.http_url = f"http://127.0.0.1:{state.get('http_port')}"
                st.browser_url = f"{st.http_url}/browser/"
            return st
    st = Status(running=False, home=homes[0], **urls)
    busy = [p for p in (settings.neo4j_bolt_port, settings.neo4j_http_port) if _port_open(p)]
    if busy:
        st.message = f"port(s) {', '.join(map(str, busy))} in use by a process voxmem did not start"
    return st


def set_initial_password(java: JavaInstall, lib: Path, home: Path, password: str) -> None:
    """Write the initial password into ``<home>/data/dbms/auth.ini`` (effective at first start only).

    Runs ``neo4j-admin dbms set-initial-password`` as its main class ``org.neo4j.cli.AdminTool``
    (that is what the admin launcher forks), with NEO4J_HOME/NEO4J_CONF pointing at this home.
    """
    cmd = [str(java.java), "-Xmx256m"]
    if java.major >= 24:
        cmd.append("--sun-misc-unsafe-memory-access=allow")
    cmd += ["-cp", f"{lib}/*", "org.neo4j.cli.AdminTool", "dbms", "set-initial-password", password]
    env = _server_env(java, home)
    proc = subprocess.run(cmd, env=env, cwd=home, capture_output=True, text=True, timeout=300, check=False)
    if proc.returncode != 0:
        out = (proc.stdout + proc.stderr).replace(password, "***")
        raise Neo4jLocalError(f"set-initial-password failed (exit {proc.returncode}):\n{out.strip()[-3000:]}")


def _server_env(java: JavaInstall, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_OPTS", "HEAP_SIZE", "CLASSPATH")}
    env.update(NEO4J_HOME=str(home), NEO4J_CONF=str(home / "conf"), JAVA_HOME=str(java.home))
    return env


def server_command(settings: Settings, version: str, java: JavaInstall, lib: Path, home: Path) -> list[str]:
    """The exact java command line of the server JVM."""
    heap = conf_mod.check_size(settings.neo4j_heap, "neo4j_heap")
    classpath = f"{home / 'plugins'}/*:{lib}/*"
    return [
        str(java.java),
        "-cp",
        classpath,
        *conf_mod.jvm_flags(version, java.major),
        f"-Xms{heap}",
        f"-Xmx{heap}",
        main_class(version),
        f"--home-dir={home}",
        f"--config-dir={home / 'conf'}",
    ]


def _prepare_home(home: Path, version: str, lib: Path) -> None:
    """Create the directory layout and refuse to open a store written by a newer release."""
    for sub in ("conf", "data", "logs", "plugins", "import", "run"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    marker = _read_json(home / HOME_MARKER)
    previous = marker.get("neo4j_version")
    if isinstance(previous, str) and previous != version:
        try:
            downgrade = parse_version(version) < parse_version(previous)
        except ValueError:
            downgrade = True
        if downgrade:
            raise Neo4jLocalError(
                f"{home} holds a Neo4j {previous} store; Neo4j {version} cannot open it. "
                f"Use a Java that runs {previous}, set VOXMEM_NEO4J_HOME to another directory, "
                f"or delete {home / 'data'} (this deletes all stored memories)."
            )
    link = home / "lib"  # for people running Neo4j tools by hand against this home
    stale = link.is_symlink() and Path(os.readlink(link)) != lib
    if stale or not (link.exists() or link.is_symlink()):
        tmp = home / ".lib.tmp"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(lib, target_is_directory=True)
        tmp.replace(link)


class _NotReady(Exception):
    """Bolt did not answer yet (connection refused, database still coming online)."""


def _bolt_ping(settings: Settings, home: Path, password: str) -> None:
    """One attempt at ``RETURN 1`` over Bolt with our credentials.

    Raises ``WrongPasswordError`` if the server rejects the credentials, ``_NotReady`` if it is
    not (yet) able to answer, and lets anything else propagate.
    """
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError, DriverError, Neo4jError, ServiceUnavailable, TransientError

    uri = f"bolt://127.0.0.1:{settings.neo4j_bolt_port}"
    try:
        # A plain session.run, not execute_query: the latter retries transient errors
        # with exponential back-off internally, which adds seconds to every start.
        auth = (settings.neo4j_user, password)
        with (
            GraphDatabase.driver(uri, auth=auth, connection_timeout=5.0) as driver,
            driver.session() as session,
        ):
            session.run("RETURN 1").consume()
    except AuthError as e:
        raise WrongPasswordError(
            f"Neo4j at {home} rejected the password in VOXMEM_NEO4J_PASSWORD for user "
            f"{settings.neo4j_user!r}: its data directory was initialised with another password. "
            f"Set VOXMEM_NEO4J_PASSWORD to that password, or delete {home / 'data'} to start "
            f"from an empty database (this deletes all stored memories). Server said: {e.message}"
        ) from e
    except (ServiceUnavailable, TransientError, DriverError, OSError) as e:
        raise _NotReady(repr(e)) from e
    except Neo4jError as e:
        if "Unavailable" not in str(e.code):
            raise
        raise _NotReady(repr(e)) from e


def _wait_ready(settings: Settings, proc: subprocess.Popen[bytes], home: Path, password: str) -> None:
    """Block until Bolt answers ``RETURN 1`` with our credentials; raise if the JVM dies or time runs out."""
    deadline = time.monotonic() + settings.neo4j_start_timeout_s
    last = "Bolt port not open yet"
    while True:
        rc = proc.poll()
        if rc is not None:
            why = EXIT_CODES.get(rc, "see the log")
            raise Neo4jStartError(
                f"Neo4j exited with code {rc} ({why}) before it was ready.\n{log_tail(home)}"
            )
        if _port_open(settings.neo4j_bolt_port):
            try:
                _bolt_ping(settings, home, password)
                return
            except _NotReady as e:
                last = str(e)
                log.debug("Bolt not ready yet: %s", last)
        if time.monotonic() > deadline:
            raise Neo4jStartError(
                f"Neo4j did not answer on bolt://127.0.0.1:{settings.neo4j_bolt_port} within "
                f"{settings.neo4j_start_timeout_s:.0f}s (last error: {last}).\n{log_tail(home)}"
            )
        time.sleep(0.5)


def _terminate(pid: int, timeout_s: float) -> bool:
    """SIGTERM, wait up to ``timeout_s``, then SIGKILL. Returns True if it had to kill."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return False
        time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    for _ in range(50):
        if not _alive(pid):
            break
        time.sleep(0.1)
    return True


def fetch_jars(settings: Settings) -> LibDir:
    """Choose release and JDK and make sure the jars are in the cache, without starting anything.

    For setup scripts that want the download done up front (it is the slow part of a first ``up``).
    """
    try:
        rt = runtime_for(settings)
    except NoSuitableJavaError as e:
        raise Neo4jLocalError(str(e)) from e
    return ensure_jars(settings.cache_dir, rt.neo4j_version)


def up(settings: Settings) -> Status:
    """Make sure the local Neo4j runs and answers on Bolt; return its status.

    Idempotent: if a voxmem-started server is already running this only reports its status.
    Otherwise: choose the release and JDK, fetch the jars (cached), write neo4j.conf, set the
    initial password if the store was never started, start the JVM detached and wait for Bolt.
    """
    neo4j_dir = Path(settings.cache_dir) / "neo4j"
    with file_lock(neo4j_dir / ".server.lock"):
        password = settings.neo4j_password.get_secret_value()
        current = status(settings)
        if current.running:
            # Still check our credentials: "up" promises a server this configuration can use.
            try:
                _bolt_ping(settings, current.home, password)
                note = "already running"
            except _NotReady as e:
                note = f"already running, but Bolt does not answer yet ({e})"
            current.message = (current.message + "; " if current.message else "") + note
            return current
        if len(password) < MIN_PASSWORD_LEN:
            raise Neo4jLocalError(f"VOXMEM_NEO4J_PASSWORD must have at least {MIN_PASSWORD_LEN} characters")
        try:
            rt = runtime_for(settings)
        except NoSuitableJavaError as e:
            raise Neo4jLocalError(str(e)) from e
        version, java = rt.neo4j_version, rt.java
        lib: LibDir = ensure_jars(settings.cache_dir, version)
        home = settings.resolved_neo4j_home(version)
        _prepare_home(home, version, lib.path)
        conf_mod.write_conf(home, conf_mod.render_conf(settings, version, java.major))

        busy = [p for p in (settings.neo4j_bolt_port, settings.neo4j_http_port) if _port_open(p)]
        if busy:
            raise PortInUseError(
                f"port(s) {', '.join(map(str, busy))} on 127.0.0.1 are in use by a process voxmem did not "
                "start; stop it or choose other ports (VOXMEM_NEO4J_BOLT_PORT / VOXMEM_NEO4J_HTTP_PORT)"
            )

        first_start = not (home / "data" / "databases" / "system").exists()
        if first_start:
            set_initial_password(java, lib.path, home, password)

        cmd = server_command(settings, version, java, lib.path, home)
        console = home / "logs" / "console.log"
        t0 = time.monotonic()
        with open(console, "ab") as out:
            out.write(f"\n{START_MARKER} {time.strftime('%Y-%m-%dT%H:%M:%S%z')} ===\n".encode())
            out.flush()
            proc = subprocess.Popen(
                cmd,
                cwd=home,
                env=_server_env(java, home),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
            )
        _children[proc.pid] = proc
        state = {
            "pid": proc.pid,
            "neo4j_version": version,
            "java_home": str(java.home),
            "java_version": java.version,
            "lib": str(lib.path),
            "bolt_port": settings.neo4j_bolt_port,
            "http_port": settings.neo4j_http_port,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "fallback": rt.is_fallback,
        }
        (home / "run" / STATE_FILE).write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
        try:
            _wait_ready(settings, proc, home, password)
        except BaseException:
            if proc.poll() is None:
                _terminate(proc.pid, timeout_s=30)
            (home / "run" / STATE_FILE).unlink(missing_ok=True)
            raise
        ready_s = time.monotonic() - t0
        (home / HOME_MARKER).write_text(json.dumps({"neo4j_version": version}) + "\n", encoding="utf-8")

        st = status(settings)
        notes = [f"started in {ready_s:.1f}s"]
        if lib.fetch_seconds is not None:
            size_mib = lib.size_bytes / 2**20
            notes.append(f"fetched {lib.jar_count} jars ({size_mib:.0f} MiB) in {lib.fetch_seconds:.0f}s")
        if rt.is_fallback:
            notes.append(
                f"no Java {'/'.join(map(str, supported_java(settings.neo4j_version)))} found, "
                f"so running fallback release {version} on Java {java.major}"
            )
        if first_start:
            notes.append("new database, initial password set")
        if not settings.neo4j_uri.endswith(f":{settings.neo4j_bolt_port}"):
            notes.append(f"VOXMEM_NEO4J_URI={settings.neo4j_uri} does not point at this server")
        st.message = "; ".join(notes)
        st.extra = {
            "ready_seconds": round(ready_s, 2),
            "fallback": rt.is_fallback,
            "first_start": first_start,
        }
        return st


def down(settings: Settings, timeout_s: float = 60.0) -> None:
    """Stop a voxmem-started Neo4j: SIGTERM (orderly shutdown, checkpoint), then SIGKILL after ``timeout_s``.

    A no-op when nothing voxmem started is running. Never touches processes it did not start.
    """
    neo4j_dir = Path(settings.cache_dir) / "neo4j"
    with file_lock(neo4j_dir / ".server.lock"):
        for home in candidate_homes(settings):
            running = _running_in(home)
            if running is None:
                continue
            _terminate(running[0], timeout_s)
            (home / "run" / STATE_FILE).unlink(missing_ok=True)
