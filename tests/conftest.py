"""Shared fixtures. Integration tests use the real Neo4j server started by the test command.

Each test that needs data gets its own space (``space`` fixture), deleted afterwards, so
tests never see each other's nodes and can run against a server that holds other data.
If Neo4j is unreachable the integration tests fail loudly: they are never skipped.
"""

from __future__ import annotations

import io
import os
import time
import uuid
from collections.abc import Callable, Iterator

import numpy as np
import pytest
import soundfile as sf
from fastapi.testclient import TestClient

from voxmem.api.app import create_app
from voxmem.config import Settings
from voxmem.core import Voxmem

# Offline tests stay offline even while a developer's local LLM runs (`voxmem llm up`): the
# default provider "auto" would let it answer. tests/llm/ configures its LLM explicitly.
os.environ.setdefault("VOXMEM_LLM_PROVIDER", "none")


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings()


@pytest.fixture(scope="session")
def services(settings: Settings) -> Iterator[Voxmem]:
    """Migrated services with the text model loaded, shared by the whole run."""
    svc = Voxmem.build(settings)
    svc.start()
    yield svc
    svc.close()


@pytest.fixture(scope="session")
def app_client(services: Voxmem) -> Iterator[TestClient]:
    with TestClient(create_app(services=services)) as client:
        yield client


@pytest.fixture
def admin_headers(settings: Settings) -> dict[str, str]:
    return {"Authorization": f"Bearer {settings.admin_key.get_secret_value()}"}


@pytest.fixture
def space(services: Voxmem) -> Iterator[str]:
    """A fresh space (policy 'participant') for one test, removed with all its nodes afterwards."""
    space_id = f"test-{uuid.uuid4().hex[:12]}"
    services.spaces.create(space_id, "participant")
    yield space_id
    services.spaces.delete(space_id)


@pytest.fixture
def two_spaces(services: Voxmem) -> Iterator[tuple[str, str]]:
    """Two fresh spaces for a test that compares two ways of storing the same turns."""
    ids = (f"test-{uuid.uuid4().hex[:12]}", f"test-{uuid.uuid4().hex[:12]}")
    for space in ids:
        services.spaces.create(space, "participant")
    yield ids
    for space in ids:
        services.spaces.delete(space)


@pytest.fixture
def space_key(services: Voxmem, space: str) -> str:
    return services.spaces.issue_key(space, label="pytest").key


@pytest.fixture
def space_headers(space_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {space_key}"}


@pytest.fixture
def run_recording(
    app_client: TestClient, space: str, space_headers: dict
) -> Callable[..., tuple[dict, bytes]]:
    """Post 16 kHz samples as a FLAC recording to session 'rec' and wait for its job.

    Returns the finished job and the uploaded bytes (for re-posting them).
    """

    def run(samples: np.ndarray, max_polls: int = 600, expect: str = "done") -> tuple[dict, bytes]:
        buf = io.BytesIO()
        sf.write(buf, samples, 16_000, format="FLAC")
        r = app_client.post(
            f"/spaces/{space}/sessions/rec/recordings",
            headers=space_headers,
            files={"audio": ("r.flac", buf.getvalue(), "audio/flac")},
            data={"recording_id": "r1"},
        )
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        for _ in range(max_polls):
            job = app_client.get(f"/spaces/{space}/jobs/{job_id}", headers=space_headers).json()
            if job["status"] in ("done", "failed"):
                break
            time.sleep(0.2)
        assert job["status"] == expect, job
        return job, buf.getvalue()

    return run
