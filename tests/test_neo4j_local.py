"""Unit tests for the pure logic of voxmem.neo4j_local (no JVM, no Maven, no Neo4j).

The real server path (fetch, start, Bolt, indexes, stop) is exercised by `voxmem neo4j up`
and the integration tests; here we pin the decisions that are easy to get subtly wrong:
which JDK and release get picked, what goes into neo4j.conf, and how the jar cache is keyed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from voxmem.config import Settings
from voxmem.neo4j_local import conf, jars, java, server, versions


def make_settings(tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "cache_dir": tmp_path / "cache",
        "neo4j_version": "2026.08.1",
        "neo4j_fallback_version": "5.26.30",
        "neo4j_home": None,
        "neo4j_java_home": None,
        "neo4j_bolt_port": 7687,
        "neo4j_http_port": 7474,
        "neo4j_heap": "1g",
        "neo4j_pagecache": "512m",
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


def fake_jdk(root: Path, name: str, version: str | None, *, version_output: str | None = None) -> Path:
    """A directory that looks like a JDK: bin/java (executable) and, if given, a release file."""
    home = root / name
    (home / "bin").mkdir(parents=True)
    java_bin = home / "bin" / "java"
    if version_output is None:
        java_bin.write_text("#!/bin/sh\nexit 0\n")
    else:
        java_bin.write_text(f"#!/bin/sh\necho '{version_output}' >&2\n")
    java_bin.chmod(java_bin.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    if version is not None:
        (home / "release").write_text(f'IMPLEMENTOR="Test"\nJAVA_VERSION="{version}"\n')
    return home


# --------------------------------------------------------------------------- versions


def test_parse_version_semver_and_calver() -> None:
    assert versions.parse_version("2026.08.1") == (2026, 8, 1)
    assert versions.parse_version("5.26.30") == (5, 26, 30)
    assert versions.parse_version("5.26") == (5, 26, 0)
    for bad in ("2026.08.1-SNAPSHOT", "latest", "", "5"):
        with pytest.raises(ValueError):
            versions.parse_version(bad)


def test_supported_java_per_release() -> None:
    assert versions.supported_java("5.26.30") == (21, 17)
    assert versions.supported_java("2025.05.0") == (21,)
    assert versions.supported_java("2025.10.1") == (25, 21)
    assert versions.supported_java("2026.08.1") == (25, 21)
    with pytest.raises(ValueError):
        versions.supported_java("4.4.44")


def test_main_class_changed_with_calver() -> None:
    assert versions.main_class("5.26.30") == "org.neo4j.server.CommunityEntryPoint"
    assert versions.main_class("2026.08.1") == "org.neo4j.server.Neo4jCommunity"


# --------------------------------------------------------------------------- java selection


def test_discover_reads_release_files_dedupes_symlinks_and_sorts(tmp_path: Path) -> None:
    jvm = tmp_path / "jvm"
    fake_jdk(jvm, "java-17-openjdk-amd64", "17.0.15")
    fake_jdk(jvm, "temurin-25-jdk-amd64", "25.0.3")
    (jvm / "java-1.17.0-openjdk-amd64").symlink_to(jvm / "java-17-openjdk-amd64")
    (jvm / "openjdk-17").mkdir()  # docs-only directory without bin/java
    found = java.discover(roots=[jvm], environ={})
    assert [(j.major, j.home.name) for j in found] == [
        (25, "temurin-25-jdk-amd64"),
        (17, "java-17-openjdk-amd64"),
    ]


def test_discover_falls_back_to_java_version_output(tmp_path: Path) -> None:
    fake_jdk(tmp_path, "jdk21", None, version_output='openjdk version "21.0.2" 2024-01-16')
    found = java.discover(roots=[tmp_path], environ={})
    assert [(j.major, j.version) for j in found] == [(21, "21.0.2")]


def test_discover_considers_java_home_env(tmp_path: Path) -> None:
    other = fake_jdk(tmp_path / "opt", "jdk-21", "21.0.4")
    found = java.discover(roots=[tmp_path / "empty"], environ={"JAVA_HOME": str(other)})
    assert [j.major for j in found] == [21]


def test_explicit_java_home_is_the_only_candidate(tmp_path: Path) -> None:
    jvm = tmp_path / "jvm"
    fake_jdk(jvm, "temurin-25", "25.0.3")
    j17 = fake_jdk(jvm, "java-17", "17.0.15")
    found = java.discover(explicit=j17, roots=[jvm], environ={})
    assert [j.major for j in found] == [17]


def test_newest_supported_jdk_wins(tmp_path: Path) -> None:
    jvm = tmp_path / "jvm"
    for name, v in [("j17", "17.0.15"), ("j21", "21.0.4"), ("j25", "25.0.3")]:
        fake_jdk(jvm, name, v)
    jdks = java.discover(roots=[jvm], environ={})
    rt = java.choose_runtime("2026.08.1", "5.26.30", jdks)
    assert (rt.neo4j_version, rt.java.major, rt.is_fallback) == ("2026.08.1", 25, False)
    # 5.26 is not supported on 25, so the newest it supports (21) is picked.
    rt = java.choose_runtime("5.26.30", None, jdks)
    assert (rt.neo4j_version, rt.java.major) == ("5.26.30", 21)
    # 2025.05 needs exactly 21.
    assert java.choose_runtime("2025.05.0", None, jdks).java.major == 21


def test_only_java_17_falls_back_to_lts(tmp_path: Path) -> None:
    fake_jdk(tmp_path, "java-17-openjdk-amd64", "17.0.15")
    rt = java.choose_runtime("2026.08.1", "5.26.30", java.discover(roots=[tmp_path], environ={}))
    assert (rt.neo4j_version, rt.java.major, rt.is_fallback) == ("5.26.30", 17, True)


def test_no_suitable_java_names_what_was_found(tmp_path: Path) -> None:
    fake_jdk(tmp_path, "java-11", "11.0.22")
    jdks = java.discover(roots=[tmp_path], environ={})
    with pytest.raises(java.NoSuitableJavaError, match=r"11 \(") as exc:
        java.choose_runtime("2026.08.1", "5.26.30", jdks)
    assert "VOXMEM_NEO4J_JAVA_HOME" in str(exc.value)


# --------------------------------------------------------------------------- jar cache keying


def test_pom_names_versions_and_required_artifacts() -> None:
    pom = jars.render_pom("2026.08.1")
    assert "<neo4j.version>2026.08.1</neo4j.version>" in pom
    assert f"<neo4j.browser.version>{jars.BROWSER_VERSION}</neo4j.browser.version>" in pom
    for artifact in ("<artifactId>neo4j</artifactId>", "<artifactId>neo4j-server</artifactId>"):
        assert artifact in pom
    assert "<artifactId>neo4j-browser</artifactId>" in pom
    assert "@" not in pom.split("-->", 1)[1]  # every placeholder filled in
    assert "neo4j-bootcheck" not in pom.split("-->", 1)[1]  # not published for 2026.x


def test_lib_dir_is_keyed_by_version_and_pom_content(tmp_path: Path) -> None:
    a = jars.lib_dir_for(tmp_path, "2026.08.1")
    assert a == jars.lib_dir_for(tmp_path, "2026.08.1")  # deterministic
    assert a.parent == tmp_path / "neo4j"
    assert a.name.startswith("lib-2026.08.1-")
    key = a.name.rsplit("-", 1)[1]
    assert len(key) == 12 and all(c in "0123456789abcdef" for c in key)
    assert jars.lib_dir_for(tmp_path, "5.26.30") != a
    assert jars.lib_dir_for(tmp_path, "2026.08.1", browser_version="5.21.0") != a
    assert jars.pom_hash("x") != jars.pom_hash("y")


def test_render_pom_rejects_bad_versions() -> None:
    with pytest.raises(ValueError):
        jars.render_pom("2026.08.1</neo4j.version><evil>")


def test_cached_lib_needs_the_manifest(tmp_path: Path) -> None:
    assert jars.cached_lib(tmp_path, "2026.08.1") is None
    lib = jars.lib_dir_for(tmp_path, "2026.08.1")
    lib.mkdir(parents=True)
    (lib / "neo4j-2026.08.1.jar").write_bytes(b"x" * 10)
    assert jars.cached_lib(tmp_path, "2026.08.1") is None  # incomplete: no manifest yet
    (lib / jars.MANIFEST).write_text("{}")
    hit = jars.cached_lib(tmp_path, "2026.08.1")
    assert hit is not None and hit.jar_count == 1 and hit.size_bytes == 10 and hit.fetch_seconds is None


# --------------------------------------------------------------------------- neo4j.conf


def parse_conf(text: str) -> tuple[dict[str, str], list[str]]:
    """(settings, jvm flags); fails on duplicate keys, as Neo4j's strict validation would."""
    values: dict[str, str] = {}
    flags: list[str] = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        if key == "server.jvm.additional":
            flags.append(value)
            continue
        assert key not in values, f"duplicate key {key}"
        values[key] = value
    return values, flags


def test_conf_is_loopback_authenticated_and_quiet(tmp_path: Path) -> None:
    s = make_settings(tmp_path, neo4j_bolt_port=17687, neo4j_http_port=17474, neo4j_heap="2g")
    values, _ = parse_conf(conf.render_conf(s, "2026.08.1", 25))
    assert values["server.default_listen_address"] == "127.0.0.1"
    assert values["server.bolt.listen_address"] == "127.0.0.1:17687"
    assert values["server.http.listen_address"] == "127.0.0.1:17474"
    assert values["server.bolt.advertised_address"] == "127.0.0.1:17687"
    assert values["server.https.enabled"] == "false"
    assert values["dbms.security.auth_enabled"] == "true"
    assert values["dbms.usage_report.enabled"] == "false"
    assert values["server.memory.heap.initial_size"] == values["server.memory.heap.max_size"] == "2g"
    assert values["server.memory.pagecache.size"] == "512m"
    assert values["db.tx_log.rotation.retention_policy"] == "keep_none"
    assert values["db.tx_log.preallocate"] == "false"
    assert "BROWSER" in values["server.http_enabled_modules"].split(",")
    assert not any(v.startswith("0.0.0.0") for v in values.values())


def test_shutdown_quiet_period_setting_follows_the_rename() -> None:
    s = Settings(cache_dir=Path("/nonexistent"))
    new = conf.conf_settings(s, "2026.08.1")
    old = conf.conf_settings(s, "5.26.30")
    assert new["internal.dbms.bolt.netty_server_shutdown_quiet_period_duration"] == "1s"
    assert "internal.dbms.bolt.netty_server_shutdown_quiet_period" not in new
    assert old["internal.dbms.bolt.netty_server_shutdown_quiet_period"] == "1"
    assert conf.conf_settings(s, "2026.02.3").keys() == old.keys()


def test_jvm_flags_for_2026_on_java_25() -> None:
    flags = conf.jvm_flags("2026.08.1", 25)
    for f in (
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
        "-Dio.netty.leakDetection.level=DISABLED",
        "-Dorg.neo4j.shaded.lucene9.vectorization.upperJavaFeatureVersion=25",
        "--sun-misc-unsafe-memory-access=allow",
        "--add-modules=jdk.incubator.vector",
        "--enable-native-access=ALL-UNNAMED",
    ):
        assert f in flags
    assert "-XX:+AlwaysPreTouch" not in flags
    assert len(flags) == len(set(flags))


def test_jvm_flags_for_5_26_on_java_17() -> None:
    flags = conf.jvm_flags("5.26.30", 17)
    assert "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED" in flags
    for f in flags:  # nothing a Java 17 JVM would reject or 5.26 does not use
        assert "java.util.concurrent" not in f
        assert "lucene9" not in f
        assert "sun-misc-unsafe" not in f
        assert "incubator" not in f


def test_conf_lists_jvm_flags_for_the_stock_bootloader(tmp_path: Path) -> None:
    _, flags = parse_conf(conf.render_conf(make_settings(tmp_path), "2026.08.1", 25))
    assert "-XX:+UseG1GC" in flags
    assert not set(flags) & conf.BOOTLOADER_ADDS  # the bootloader adds these itself


def test_sizes_are_validated(tmp_path: Path) -> None:
    assert conf.check_size(" 512M ", "x") == "512m"
    with pytest.raises(ValueError):
        conf.render_conf(make_settings(tmp_path, neo4j_heap="1 GB"), "2026.08.1", 25)


def test_write_conf_keeps_mtime_when_unchanged(tmp_path: Path) -> None:
    path = conf.write_conf(tmp_path, "a=b\n")
    os.utime(path, (1, 1))
    conf.write_conf(tmp_path, "a=b\n")
    assert path.stat().st_mtime == 1
    conf.write_conf(tmp_path, "a=c\n")
    assert path.read_text() == "a=c\n"


# --------------------------------------------------------------------------- server helpers


def test_server_command_runs_the_entry_point_directly(tmp_path: Path) -> None:
    s = make_settings(tmp_path, neo4j_heap="1g")
    jdk = java.JavaInstall(home=Path("/jdk"), major=25, version="25.0.3")
    home = tmp_path / "home"
    cmd = server.server_command(s, "2026.08.1", jdk, Path("/lib-x"), home)
    assert cmd[0] == "/jdk/bin/java"
    assert cmd[1:3] == ["-cp", f"{home / 'plugins'}/*:/lib-x/*"]
    assert "-Xms1g" in cmd and "-Xmx1g" in cmd
    assert cmd[-3:] == [
        "org.neo4j.server.Neo4jCommunity",
        f"--home-dir={home}",
        f"--config-dir={home / 'conf'}",
    ]
    assert "--console-mode" not in cmd  # daemon mode: Neo4j logs to logs/neo4j.log itself


def test_candidate_homes_cover_primary_and_fallback(tmp_path: Path) -> None:
    s = make_settings(tmp_path)
    assert server.candidate_homes(s) == [
        tmp_path / "cache" / "neo4j" / "home-2026.08.1",
        tmp_path / "cache" / "neo4j" / "home-5.26.30",
    ]
    explicit = make_settings(tmp_path, neo4j_home=tmp_path / "mine")
    assert server.candidate_homes(explicit) == [tmp_path / "mine"]


def test_status_without_state_file_is_not_running(tmp_path: Path) -> None:
    st = server.status(make_settings(tmp_path, neo4j_bolt_port=1, neo4j_http_port=2))
    assert not st.running and st.pid is None
    assert st.bolt_url == "bolt://127.0.0.1:1" and st.browser_url == "http://127.0.0.1:2/browser/"


def test_stale_state_file_is_ignored(tmp_path: Path) -> None:
    s = make_settings(tmp_path, neo4j_bolt_port=1, neo4j_http_port=2)
    home = s.resolved_neo4j_home("2026.08.1")
    (home / "run").mkdir(parents=True)
    # our own pid is alive but is not a Neo4j JVM for this home: must not count (nor be signalled)
    (home / "run" / server.STATE_FILE).write_text(f'{{"pid": {os.getpid()}}}')
    assert not server.status(s).running


def test_prepare_home_refuses_a_store_from_a_newer_release(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lib = tmp_path / "lib"
    lib.mkdir()
    server._prepare_home(home, "2026.08.1", lib)
    assert (home / "lib").resolve() == lib.resolve()
    (home / server.HOME_MARKER).write_text('{"neo4j_version": "2026.08.1"}')
    with pytest.raises(server.Neo4jLocalError, match="cannot open it"):
        server._prepare_home(home, "5.26.30", lib)
    server._prepare_home(home, "2026.09.0", lib)  # upgrades are Neo4j's business


def test_log_tail_shows_only_the_latest_start(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "console.log").write_text(
        f"{server.START_MARKER} 1 ===\nold failure\n{server.START_MARKER} 2 ===\nnew failure\n"
    )
    tail = server.log_tail(tmp_path)
    assert "new failure" in tail and "old failure" not in tail


def test_explicit_java_home_that_is_not_a_jdk_is_reported(tmp_path: Path) -> None:
    s = make_settings(tmp_path, neo4j_java_home=tmp_path / "no-jdk-here")
    with pytest.raises(java.NoSuitableJavaError, match="is not a JDK"):
        java.runtime_for(s)
