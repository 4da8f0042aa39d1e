#!/usr/bin/env bash
# Builds the Worker with the pinned tools, offline: worker-build is pointed at the installed
# wasm-bindgen and the npm wasm-opt, so it downloads nothing from GitHub. Skips the build when
# nothing it depends on changed (FORCE=1 rebuilds).
#
# Two outputs (index.js + index_bg.wasm each):
#   worker/build       production: what `make dev` and deploys run; no test code in it;
#   worker/build-test  TEST_HOOKS=1: feature `test-hooks` (the /__test/* routes and the core's
#                      backend suites), for the Node tests only.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export WASM_BINDGEN_BIN="${WASM_BINDGEN_BIN:-$HOME/.cargo/bin/wasm-bindgen}"
export WASM_OPT_BIN="${WASM_OPT_BIN:-$PWD/node_modules/.bin/wasm-opt}"

if [ "${TEST_HOOKS:-0}" = 1 ]; then
  dir=build-test
  cargo_args=(--features test-hooks)
else
  dir=build
  cargo_args=()
fi
out=worker/$dir/index_bg.wasm
if [ "${FORCE:-0}" != 1 ] && [ -f "$out" ] && [ -f "worker/$dir/index.js" ] &&
  [ -z "$(find src worker/src worker/Cargo.toml Cargo.toml Cargo.lock -newer "$out" -print -quit)" ]; then
  echo "[worker] $dir is up to date ($out)"
  exit 0
fi

for tool in "$WASM_BINDGEN_BIN" "$WASM_OPT_BIN"; do
  [ -x "$tool" ] || { echo "[worker] missing $tool: run 'make setup'" >&2; exit 1; }
done
command -v worker-build >/dev/null || { echo "[worker] missing worker-build: run 'make setup'" >&2; exit 1; }

echo "[worker] building $dir (release)"
# workerd runs wasm SIMD: brute-force vector search and the core's ranking vectorize with it.
# RUST_BACKTRACE=0: when cargo fails, worker-build's own backtrace would bury its error.
(cd worker && RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128" RUST_BACKTRACE=0 \
  worker-build --release --out-dir "$dir" "${cargo_args[@]}")
raw=$(wc -c <"$out")
gz=$(gzip -9c "$out" | wc -c)
echo "[worker] $out: $((raw / 1024)) KiB, $((gz / 1024)) KiB gzip"
