"""Provision and run a real Neo4j Community server without Docker.

The jars come from Maven Central (``jars``), the JDK is chosen from what is installed
(``java``), ``neo4j.conf`` is generated from the settings (``conf``) and the server JVM is
started detached, awaited on Bolt and stopped cleanly (``server``). ``voxmem neo4j up|down|status``
calls the three public functions below.
"""

from __future__ import annotations

from .jars import JarFetchError
from .java import NoSuitableJavaError
from .server import (
    Neo4jLocalError,
    Neo4jStartError,
    PortInUseError,
    Status,
    WrongPasswordError,
    down,
    fetch_jars,
    log_tail,
    status,
    up,
)

__all__ = [
    "JarFetchError",
    "Neo4jLocalError",
    "Neo4jStartError",
    "NoSuitableJavaError",
    "PortInUseError",
    "Status",
    "WrongPasswordError",
    "down",
    "fetch_jars",
    "log_tail",
    "status",
    "up",
]
