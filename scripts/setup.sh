#!/usr/bin/env bash
# Idempotent, pinned installs of everything the build needs. Skips what is already present at
# the right version, so a second run takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

WASM_BINDGEN_VERSION=0.2.130
WORKER_BUILD_VERSION=0.8.7

step() { printf '[setup] %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

have_version() { # tool expected-version
  command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -q "$2"
}

if ! have_version wasm-bindgen "$WASM_BINDGEN_VERSION"; then
  step "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (several minutes, once)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if ! have_version worker-build "$WORKER_BUILD_VERSION"; then
  step "installing worker-build $WORKER_BUILD_VERSION (~15 minutes on 2 cores, once)"
  cargo install worker-build --version "$WORKER_BUILD_VERSION" --force
fi

# npm ci only when node_modules does not match the lockfile.
stamp=node_modules/.hippo-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  step "installing npm dev tools (wrangler, binaryen, test tools) from package-lock.json"
  npm ci --no-audit --no-fund
  cp package-lock.json "$stamp"
fi
