"""docker/compose.yaml and docker/Dockerfile, checked without a Docker engine: compose keys are
Compose Specification keys (what current `docker compose`, and podman-compose, accept), both
services have healthchecks, and the Dockerfile's CPU-only torch filter really drops CUDA."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker" / "compose.yaml"
DOCKERFILE = ROOT / "docker" / "Dockerfile"

TOP_LEVEL = {"name", "services", "volumes", "networks", "configs", "secrets", "include"}
SERVICE_KEYS = {
    "build",
    "command",
    "container_name",
    "depends_on",
    "entrypoint",
    "env_file",
    "environment",
    "expose",
    "extra_hosts",
    "healthcheck",
    "image",
    "labels",
    "logging",
    "networks",
    "ports",
    "restart",
    "stop_grace_period",
    "user",
    "volumes",
    "working_dir",
    "deploy",
    "profiles",
}
HEALTHCHECK_KEYS = {"test", "interval", "timeout", "retries", "start_period", "disable"}
DURATION = re.compile(r"^(\d+(us|ms|s|m|h))+$")
INSTRUCTIONS = {
    "FROM",
    "RUN",
    "CMD",
    "LABEL",
    "EXPOSE",
    "ENV",
    "ADD",
    "COPY",
    "ENTRYPOINT",
    "VOLUME",
    "USER",
    "WORKDIR",
    "ARG",
    "ONBUILD",
    "STOPSIGNAL",
    "HEALTHCHECK",
    "SHELL",
}


def _compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_compose_uses_only_specification_keys_and_healthchecks() -> None:
    doc = _compose()
    assert set(doc) <= TOP_LEVEL, set(doc) - TOP_LEVEL  # no obsolete `version:`
    for name, service in doc["services"].items():
        assert set(service) <= SERVICE_KEYS, (name, set(service) - SERVICE_KEYS)
        check = service["healthcheck"]
        assert set(check) <= HEALTHCHECK_KEYS and check["test"][0] in ("CMD", "CMD-SHELL"), name
        for key in ("interval", "timeout", "start_period"):
            assert DURATION.match(check[key]), (name, key, check[key])
        assert isinstance(check["retries"], int)
        for port in service.get("ports", []):
            assert port.startswith("127.0.0.1:"), port  # loopback only, like the local server
        for dep, how in (service.get("depends_on") or {}).items():
            assert dep in doc["services"] and how["condition"] == "service_healthy"
            assert "healthcheck" in doc["services"][dep]
    api = doc["services"]["voxmem"]
    assert "/health" in " ".join(api["healthcheck"]["test"])
    assert (ROOT / "docker" / Path(api["build"]["dockerfile"]).name).exists()
    assert set(doc["volumes"]) >= {
        v.split(":")[0]
        for s in doc["services"].values()
        for v in s.get("volumes", [])
        if not v.startswith(".")
    }


def test_compose_interpolation_is_well_formed() -> None:
    text = "\n".join(line for line in COMPOSE.read_text().splitlines() if not line.lstrip().startswith("#"))
    for match in re.finditer(r"\$+(\{[^}]*\}|\w*)", text):
        dollars = len(match.group(0)) - len(match.group(0).lstrip("$"))
        if dollars % 2 == 0:
            continue  # $$ is a literal $ for the container's shell
        assert re.fullmatch(r"\{[A-Z_][A-Z0-9_]*(:?[-?][^}]*)?\}", match.group(1)), match.group(0)


def _instructions() -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out = []
    for line in joined.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_dockerfile_is_valid_cpu_only_and_has_a_healthcheck() -> None:
    steps = _instructions()
    assert all(word in INSTRUCTIONS for word, _ in steps), [w for w, _ in steps if w not in INSTRUCTIONS]
    assert steps[0][0] in ("FROM", "ARG")
    health = [rest for word, rest in steps if word == "HEALTHCHECK"]
    assert len(health) == 1 and "/health" in health[0]
    json.loads(health[0].split("CMD", 1)[1])  # exec form is a JSON array
    json.loads([rest for word, rest in steps if word == "CMD"][-1])
    run = " ".join(rest for word, rest in steps if word == "RUN")
    assert '--index-url "$TORCH_INDEX_URL"' in run and "torch.version.cuda is None" in run


def test_the_dockerfile_lock_filter_drops_cuda_and_keeps_torch_versions(tmp_path: Path) -> None:
    run = " ".join(
        rest for word, rest in _instructions() if word == "RUN" and "requirements-cpu.lock" in rest
    )
    greps = [part.strip() for part in run.split("&&") if part.strip().startswith("grep")]
    assert len(greps) == 2
    (tmp_path / "requirements.lock").write_text((ROOT / "requirements.lock").read_text())
    for command in greps:
        subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    cpu = (tmp_path / "requirements-cpu.lock").read_text().splitlines()
    torch = (tmp_path / "torch-cpu.txt").read_text().split()
    assert not [p for p in cpu if re.match(r"^(nvidia-|cuda-|triton==|torch==|torchaudio==)", p)]
    assert sorted(p.split("==")[0] for p in torch) == ["torch", "torchaudio"]
    lock = (ROOT / "requirements.lock").read_text().splitlines()
    assert len(cpu) + len(torch) < len(lock)  # something was dropped
    assert "sentence-transformers" in " ".join(cpu)  # the rest stays
