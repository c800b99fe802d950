"""A real server for the session (shares the started services with ``app_client``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from voxmem.api.app import create_app
from voxmem.core import Voxmem

from .live import serve


@pytest.fixture(scope="session")
def live_url(services: Voxmem) -> Iterator[str]:
    with serve(create_app(services=services)) as url:
        yield url
