#!/usr/bin/env bash
# `make dev`: build, apply the D1 migrations locally, create .dev.vars on first run, and serve
# the Worker on 127.0.0.1:${PORT:-8787} with a local D1 (no account, no keys needed).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
PORT="${PORT:-8787}"

bash scripts/build-worker.sh

if [ ! -f .dev.vars ]; then
  token="dev-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  sed "s/^HIPPO_ADMIN_TOKEN=.*/HIPPO_ADMIN_TOKEN=${token}/" .dev.vars.example >.dev.vars
  echo "[dev] created .dev.vars with a random development admin token"
fi

# CI=1: apply pending migrations to the local database without an interactive prompt.
CI=1 npx wrangler d1 migrations apply DB --local

# The token stays out of the output (terminals and CI logs keep it): say where it is.
echo "[dev] admin token: HIPPO_ADMIN_TOKEN in $PWD/.dev.vars"
echo "[dev]   e.g. TOKEN=\$(sed -n 's/^HIPPO_ADMIN_TOKEN=//p' .dev.vars)"
echo "[dev] try: curl -s http://127.0.0.1:${PORT}/health"
echo "[dev]      curl -s -X POST http://127.0.0.1:${PORT}/memory_retrieval/fake -H 'content-type: application/json' -d '{\"query\":\"用户喜欢灵绯怎么称呼自己\"}'"
exec npx wrangler dev --ip 127.0.0.1 --port "$PORT"
