"""Generate ``conf/neo4j.conf`` and the JVM command-line flags for a local Neo4j.

The file is regenerated on every ``up`` from the settings, so it always matches them; it says so
in its header. Choices, and why:

* loopback only (Bolt and HTTP bind 127.0.0.1): a dev memory server holding people's
  conversations must not be reachable from the network by accident. Advertised addresses are
  127.0.0.1 too, not "localhost": the sockets are IPv4-only and "localhost" may resolve to ::1
  first (the Browser connects to the advertised Bolt address);
* auth on, with the initial password set by ``server.py`` before the first start;
* usage reporting off (no phoning home; the machine may not even reach the internet);
* heap (initial = max, so the JVM never stalls growing it) and page cache from the settings;
* transaction logs pruned to what recovery needs and not preallocated: this store is rebuilt
  from recorded conversations, not backed up incrementally, and disk is shared with model caches;
* the Browser HTTP module on, so people can look at who-said-what-to-whom at /browser/.

Setting names are checked by Neo4j at start-up (strict validation): an unknown key aborts the
start with exit code 3, so only keys valid in both 5.26 and 2026.x are written here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from .versions import parse_version

if TYPE_CHECKING:
    from ..config import Settings

_SIZE_RE = re.compile(r"^\d+[kKmMgG]?$")

HTTP_MODULES = "TRANSACTIONAL_ENDPOINTS,UNMANAGED_EXTENSIONS,BROWSER,QUERY_API_ENDPOINTS"

# The JVM flags the 5.26 distribution ships in its neo4j.conf (operations manual, "JVM-specific
# settings"), minus -XX:+AlwaysPreTouch: that one touches every heap page at start, which only
# slows a dev start and makes RSS equal to the full heap from the first second.
_BASE_JVM_FLAGS: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.layout.jsonTemplate.maxStringLength=32768",
)


# Flags the stock bootloader adds on its own; listing them in server.jvm.additional would duplicate them.
BOOTLOADER_ADDS = frozenset({"-Dfile.encoding=UTF-8", "--sun-misc-unsafe-memory-access=allow"})


def check_size(value: str, what: str) -> str:
    """Accept ``512m``/``1g``-style sizes that both Neo4j and ``-Xmx`` understand."""
    if not _SIZE_RE.match(value.strip()):
        raise ValueError(f"{what} must look like 512m or 1g, got {value!r}")
    return value.strip().lower()


def jvm_flags(version: str, java_major: int) -> list[str]:
    """JVM flags (without heap and class path) for ``version`` running on Java ``java_major``.

    Release-specific additions follow the operations manual: 2025.04 added the
    ``java.util.concurrent`` opening and switched off Netty leak detection; 2026.02 lets the
    shaded Lucene 9 use the vector API up to Java 25. On Java 24+ the bootloader itself adds
    ``--sun-misc-unsafe-memory-access=allow`` (seen in ``neo4j console --dry-run``), otherwise
    the JVM prints a warning per library that still uses ``sun.misc.Unsafe`` memory access.
    The stock 5.26 conf sets ``-XX:+AlwaysPreTouch``; we leave it out (see ``_BASE_JVM_FLAGS``).
    """
    v = parse_version(version)
    flags = list(_BASE_JVM_FLAGS)
    if v >= (2025, 4, 0):
        flags += [
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "-Dio.netty.leakDetection.level=DISABLED",
        ]
    if v >= (2026, 2, 0):
        flags.append("-Dorg.neo4j.shaded.lucene9.vectorization.upperJavaFeatureVersion=25")
    if java_major >= 20:
        # Lucene's vector search uses the (incubating) Vector API only if the module is readable;
        # without it Neo4j logs "Java vector incubator module is not readable" and falls back to
        # scalar code. Recommended in the Cypher manual (vector indexes, performance suggestions).
        flags.append("--add-modules=jdk.incubator.vector")
    if java_major >= 24:
        flags.append("--sun-misc-unsafe-memory-access=allow")
    flags += ["-Djava.awt.headless=true", "-Dfile.encoding=UTF-8"]
    return flags


def browser_post_connect(settings: Settings) -> str:
    """Commands Browser runs after login: voxmem's style, the guide's parameters, the guide.

    They point at the voxmem API (``voxmem serve``), which serves both; if it is not running,
    Browser just reports the fetch error and works as usual.
    """
    host = "localhost" if settings.host in ("127.0.0.1", "0.0.0.0", "::", "localhost") else settings.host
    base = f"http://{host}:{settings.port}/browser"
    return f"style {base}/style.grass; param space => 'demo-household'; play {base}/guide"


def conf_settings(settings: Settings, version: str) -> dict[str, str]:
    """The neo4j.conf key/values (without JVM flags), in file order."""
    parse_version(version)
    heap = check_size(settings.neo4j_heap, "neo4j_heap")
    pagecache = check_size(settings.neo4j_pagecache, "neo4j_pagecache")
    settings_map = {
        # directories, relative to NEO4J_HOME
        "server.directories.data": "data",
        "server.directories.logs": "logs",
        "server.directories.plugins": "plugins",
        "server.directories.import": "import",
        "server.directories.run": "run",
        # network: loopback only, no TLS (nothing leaves the machine)
        "server.default_listen_address": "127.0.0.1",
        "server.default_advertised_address": "127.0.0.1",
        "server.bolt.enabled": "true",
        "server.bolt.listen_address": f"127.0.0.1:{settings.neo4j_bolt_port}",
        "server.bolt.advertised_address": f"127.0.0.1:{settings.neo4j_bolt_port}",
        "server.bolt.tls_level": "DISABLED",
        "server.http.enabled": "true",
        "server.http.listen_address": f"127.0.0.1:{settings.neo4j_http_port}",
        "server.http.advertised_address": f"127.0.0.1:{settings.neo4j_http_port}",
        "server.https.enabled": "false",
        "server.http_enabled_modules": HTTP_MODULES,
        # auth and telemetry
        "dbms.security.auth_enabled": "true",
        "dbms.usage_report.enabled": "false",
        # Browser: no product-analytics prompt; voxmem's style, parameters and guide after login
        # (names checked in neo4j-server 2026.08.1's ServerSettings and the 5.26 docs; both accept
        # them, while browser.allow_outgoing_connections no longer exists in 2026.x)
        "client.allow_telemetry": "false",
        "browser.remote_content_hostname_whitelist": "localhost,127.0.0.1",
        "browser.post_connect_cmd": browser_post_connect(settings),
        # memory
        "server.memory.heap.initial_size": heap,
        "server.memory.heap.max_size": heap,
        "server.memory.pagecache.size": pagecache,
        # small transaction-log footprint
        "db.tx_log.rotation.retention_policy": "keep_none",
        "db.tx_log.rotation.size": "64M",
        "db.tx_log.preallocate": "false",
    }
    settings_map.update(_quiet_shutdown(version))
    return settings_map


def _quiet_shutdown(version: str) -> dict[str, str]:
    """Shorten Bolt's Netty shutdown quiet period from 5 s to 1 s.

    Netty waits the quiet period twice on shutdown (two connectors), so ``down`` took ~11 s
    instead of ~3 s. The setting is internal and was renamed in 2026.03 (checked in the
    neo4j-configuration jars of 5.26.0 ... 2026.05.0 on Central): older releases take an integer
    number of seconds under the old name; 2026.03+ take a duration under the new one (the old
    name still works there but logs a deprecation warning).
    """
    if parse_version(version) >= (2026, 3, 0):
        return {"internal.dbms.bolt.netty_server_shutdown_quiet_period_duration": "1s"}
    return {"internal.dbms.bolt.netty_server_shutdown_quiet_period": "1"}


def render_conf(settings: Settings, version: str, java_major: int) -> str:
    """Full text of ``conf/neo4j.conf`` for ``version`` on Java ``java_major``.

    The JVM flags are written as ``server.jvm.additional`` too, so starting this home with the
    stock bootloader (``org.neo4j.server.startup.Neo4jCommand console``) behaves like ``voxmem
    neo4j up``, which passes the same flags directly.
    """
    lines = [
        "# Generated by voxmem (voxmem.neo4j_local.conf) on every `voxmem neo4j up`.",
        "# Do not edit: change VOXMEM_NEO4J_* settings instead.",
        f"# Neo4j {version}, Java {java_major}.",
        "",
    ]
    lines += [f"{k}={v}" for k, v in conf_settings(settings, version).items()]
    lines.append("")
    lines += [
        f"server.jvm.additional={f}" for f in jvm_flags(version, java_major) if f not in BOOTLOADER_ADDS
    ]
    return "\n".join(lines) + "\n"


def write_conf(home: Path, text: str) -> Path:
    """Write ``<home>/conf/neo4j.conf`` (only if changed, to keep its mtime meaningful)."""
    path = home / "conf" / "neo4j.conf"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path
