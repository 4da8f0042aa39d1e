#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time (FUZZ_SECONDS each, default 60), starting
# from the committed seeds (fuzz/seeds/<target>/) with the target's dictionary
# (fuzz/dict/<target>.dict): both from scripts/fuzz-seeds.mjs. A crash is copied to
# fuzz/regressions/<target>/ so `cargo test` replays it from then on.
# cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP lets the pinned stable toolchain use them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
CARGO_FUZZ_VERSION=0.13.1
if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --force
fi
export RUSTC_BOOTSTRAP=1
seconds=${FUZZ_SECONDS:-60}
status=0
for target in $(cargo fuzz list); do
  echo "[fuzz] $target for ${seconds}s"
  mkdir -p "fuzz/corpus/$target"
  # New inputs go to the first directory (not committed); the seeds are read only.
  extra=()
  [ -d "fuzz/seeds/$target" ] && extra+=("fuzz/seeds/$target")
  [ -f "fuzz/dict/$target.dict" ] && dict=(-dict="fuzz/dict/$target.dict") || dict=()
  if ! cargo fuzz run "$target" "fuzz/corpus/$target" "${extra[@]}" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 "${dict[@]}" 2>&1 | tail -n 3; then
    status=1
  fi
  if compgen -G "fuzz/artifacts/$target/crash-*" >/dev/null; then
    mkdir -p "fuzz/regressions/$target"
    cp fuzz/artifacts/"$target"/crash-* "fuzz/regressions/$target/"
    echo "[fuzz] $target crashed: inputs saved to fuzz/regressions/$target/"
    status=1
  fi
done
exit $status
