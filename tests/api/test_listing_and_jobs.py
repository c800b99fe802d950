"""Admin space listing, per-space job listing and the job event stream (issue 15)."""

from __future__ import annotations

import json
import threading

import httpx
from fastapi.testclient import TestClient

from voxmem.core import Voxmem


def test_admin_lists_spaces_and_a_space_key_cannot(
    app_client: TestClient, space: str, admin_headers: dict, space_headers: dict
) -> None:
    listed = app_client.get("/admin/spaces", params={"limit": 1000}, headers=admin_headers)
    assert listed.status_code == 200, listed.text
    ids = {s["id"] for s in listed.json()["spaces"]}
    assert space in ids
    assert app_client.get("/admin/spaces", headers=space_headers).status_code == 403


def test_jobs_listed_per_space_and_followed_as_events(
    live_url: str, space: str, space_headers: dict, services: Voxmem
) -> None:
    jobs = services.jobs
    gate = threading.Event()

    def work(progress):
        progress("step-1", 0.5)
        gate.wait(10)
        progress("step-2", 0.9)
        return {"ok": True}

    job = jobs.submit(space, "test", work)
    other = jobs.submit("some-other-space", "test", lambda p: {})
    with httpx.Client(base_url=live_url, headers=space_headers, timeout=30) as http:
        listed = http.get(f"/spaces/{space}/jobs").json()["jobs"]
        assert [j["id"] for j in listed] == [job.id]  # the other space's job is not listed
        assert other.id not in {j["id"] for j in listed}
        seen = []
        with http.stream("GET", f"/spaces/{space}/jobs/{job.id}/events", params={"interval": 0.05}) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if line.startswith("data: "):
                    seen.append(json.loads(line[6:]))
                    if len(seen) == 1:
                        gate.set()
        assert seen[-1]["status"] == "done" and seen[-1]["result"] == {"ok": True}
        assert len(seen) >= 2 and seen[0]["status"] in ("queued", "running")
        assert http.get(f"/spaces/{space}/jobs/job_nope/events").status_code == 404
        done = http.get(f"/spaces/{space}/jobs", params={"status": "done"}).json()["jobs"]
        assert [j["id"] for j in done] == [job.id]
