#!/usr/bin/env bash
# Builds the npm package in pkg/: the wasm core (release, wasm32), wasm-bindgen glue for the
# nodejs, web and bundler targets into pkg/dist/<target>/, each .wasm shrunk with wasm-opt -Oz,
# and prints the gzip size of the shipped wasm (target: <= 600 KiB).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

WASM_OPT=node_modules/.bin/wasm-opt
CRATE=hippo_wasm
# The `pkg` profile (Cargo.toml): release at opt-level "s". PKG_OPT_LEVEL=3|s|z overrides it
# (size against retrieval speed: docs/BENCHMARKS.md "npm"), in a target directory of its own
# so the default build's artifacts stay as they are.
if [ -n "${PKG_OPT_LEVEL:-}" ]; then
  export CARGO_PROFILE_PKG_OPT_LEVEL=$PKG_OPT_LEVEL
  export CARGO_TARGET_DIR=target/pkg-opt-$PKG_OPT_LEVEL
fi
RAW=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/pkg/$CRATE.wasm
DIST=pkg/dist
# The wasm features rustc enables by default for wasm32-unknown-unknown; wasm-opt must accept
# them and may use no others.
FEATURES=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int
  --enable-sign-ext --enable-reference-types --enable-multivalue)

step() { printf '[pkg] %s\n' "$*"; }

step "cargo build (profile pkg, wasm32)"
cargo build -p hippo-wasm --lib --profile pkg --target wasm32-unknown-unknown

rm -rf "$DIST"
TARGETS=(nodejs web bundler)
for target in "${TARGETS[@]}"; do
  step "wasm-bindgen --target $target"
  wasm-bindgen --target "$target" --out-dir "$DIST/$target" --out-name "$CRATE" --no-typescript "$RAW"
done

# The glue differs per target but the .wasm usually does not: optimize it once when the
# three are identical, else each.
first=$DIST/${TARGETS[0]}/${CRATE}_bg.wasm
identical=true
for target in "${TARGETS[@]}"; do
  cmp -s "$first" "$DIST/$target/${CRATE}_bg.wasm" || identical=false
done
if $identical; then
  step "wasm-opt -Oz (one module for every target)"
  "$WASM_OPT" -Oz "${FEATURES[@]}" "$first" -o "$first"
  for target in "${TARGETS[@]:1}"; do cp "$first" "$DIST/$target/${CRATE}_bg.wasm"; done
else
  for target in "${TARGETS[@]}"; do
    step "wasm-opt -Oz ($target)"
    "$WASM_OPT" -Oz "${FEATURES[@]}" "$DIST/$target/${CRATE}_bg.wasm" -o "$DIST/$target/${CRATE}_bg.wasm"
  done
fi

# Each glue directory says which module system its .js files use (the package is "module").
printf '{ "type": "commonjs" }\n' > "$DIST/nodejs/package.json"
printf '{ "type": "module" }\n' > "$DIST/web/package.json"
printf '{ "type": "module" }\n' > "$DIST/bundler/package.json"

raw=$(wc -c < "$DIST/web/${CRATE}_bg.wasm")
gz=$(gzip -9 -c "$DIST/web/${CRATE}_bg.wasm" | wc -c)
awk -v raw="$raw" -v gz="$gz" \
  'BEGIN { printf "[pkg] wasm: %d bytes, %d bytes gzip (%.1f KiB; target <= 600 KiB)\n", raw, gz, gz / 1024 }'
printf '{ "wasm_bytes": %d, "wasm_gzip_bytes": %d }\n' "$raw" "$gz" > "$DIST/size.json"
