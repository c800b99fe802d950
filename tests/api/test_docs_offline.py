"""/docs renders its operations with every non-loopback host refused (no CDN reachable).

Uses Debian's chromium (``scripts/voxmem.sh setup`` installs it). The control run shows the
network really is refused: FastAPI's stock CDN page renders no operation under the same rules.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from fastapi import FastAPI

from .live import serve

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
NO_NETWORK = "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


def _render(url: str, tmp_path) -> str:
    if BROWSER is None:
        pytest.fail("chromium is missing: run `bash scripts/voxmem.sh setup` (installs it)")
    out = subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--host-resolver-rules={NO_NETWORK}",
            "--virtual-time-budget=15000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return out.stdout


def test_docs_render_operations_offline(live_url: str, tmp_path) -> None:
    dom = _render(f"{live_url}/docs", tmp_path)
    assert dom.count('class="opblock-summary-path"') >= 30, dom[:2000]
    assert "/spaces/{space}/query" in dom.replace("\u200b", "")


def test_cdn_docs_are_blank_under_the_same_rules(tmp_path) -> None:
    """Control: the stock CDN page shows no operations, so the rule above really cuts the network."""
    app = FastAPI()

    @app.get("/ping")
    def ping() -> dict:
        return {}

    with serve(app) as url:
        dom = _render(f"{url}/docs", tmp_path)
    assert "<html" in dom and 'class="opblock-summary-path"' not in dom
