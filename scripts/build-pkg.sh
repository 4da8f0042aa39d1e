#!/usr/bin/env bash
# Builds the npm package in pkg/: the wasm core (release, wasm32), wasm-bindgen glue for the
# nodejs and web targets into pkg/dist/<target>/ (one .wasm, shrunk with wasm-opt -Oz),
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
# The wasm features rustc enables by default for wasm32-unknown-unknown, plus SIMD (simd128:
# Node >= 16.4, Chrome 91, Firefox 89, Safari 16.4, workerd); wasm-opt must accept them and may
# use no others. SIMD is not faster for the package, but its module is 4.8 KB smaller gzip,
# which keeps the int8 vector index within the size budget (docs/BENCHMARKS.md, "npm").
FEATURES=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int
  --enable-sign-ext --enable-reference-types --enable-multivalue --enable-simd)

step() { printf '[pkg] %s\n' "$*"; }

step "cargo build (profile pkg, wasm32)"
# Panic locations name source files; dependencies' paths start with the machine's cargo home
# ("/root/.cargo/registry/src/index.crates.io-<hash>/"). Shortened to "crates/", the wasm
# is the same on every machine and a little smaller.
for REGISTRY_SRC in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  if [ -d "$REGISTRY_SRC" ]; then
    export RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=${REGISTRY_SRC%/}=crates"
  fi
done
export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128"
cargo build -p hippo-wasm --lib --profile pkg --target wasm32-unknown-unknown

rm -rf "$DIST"
# Two glues over one module: `web` (ES module; browsers, bundlers, workerd) and `nodejs`
# (CommonJS). The package ships the .wasm once, in dist/web/; the nodejs glue reads it there.
TARGETS=(nodejs web)
for target in "${TARGETS[@]}"; do
  step "wasm-bindgen --target $target"
  wasm-bindgen --target "$target" --out-dir "$DIST/$target" --out-name "$CRATE" --no-typescript "$RAW"
done
if ! cmp -s "$DIST/nodejs/${CRATE}_bg.wasm" "$DIST/web/${CRATE}_bg.wasm"; then
  echo "[pkg] the nodejs and web modules differ: the package cannot ship one .wasm" >&2
  exit 1
fi
rm "$DIST/nodejs/${CRATE}_bg.wasm"
node - "$DIST/nodejs/$CRATE.js" <<'JS'
// Point the nodejs glue at the one shipped module (exactly one place names it).
const fs = require('node:fs');
const file = process.argv[2];
const from = '`${__dirname}/hippo_wasm_bg.wasm`';
const glue = fs.readFileSync(file, 'utf8');
if (glue.split(from).length !== 2) throw new Error(`expected one ${from} in ${file}`);
fs.writeFileSync(file, glue.replace(from, "require('path').join(__dirname, '..', 'web', 'hippo_wasm_bg.wasm')"));
JS

# --converge repeats -Oz while it still shrinks; the module makes its own memory, which starts
# zero-filled (so its zero data segments can go); producer and feature sections are only read
# by tools (together 1.3 KB gzip, for ~25 s more build). --low-memory-unused lets constant
# address offsets fold into loads and stores (5.2 KB gzip): rustc lays wasm32 memory out stack
# first (the stack pointer starts at 1 MiB, data above it), so addresses below 1 KiB are only
# reached by a stack within 1 KiB of overflowing, where the folded access traps
# instead of wrapping to address 0.
step "wasm-opt -Oz"
"$WASM_OPT" -Oz --converge --zero-filled-memory --low-memory-unused --strip-producers --strip-target-features \
  "${FEATURES[@]}" "$DIST/web/${CRATE}_bg.wasm" -o "$DIST/web/${CRATE}_bg.wasm"

# Data the wasm reads but does not carry (it has a size budget), minified, as a module of
# each glue's kind; the entry points hand them to the wasm: the request schemas the package
# checks keys against (pkg/src/shapes.rs), the MCP tool list (src/mcp.rs), the LLM prompts
# (src/llm/prompts.rs), and two word lists as plain text: the everyday topics
# (src/retrieval/topics.rs) and the Chinese segmenter's words (src/text/segment.rs).
node - "$DIST" shapes=worker/src/http/openapi_components.json mcp_tools=src/mcp_tools.json \
  prompts=src/llm/prompts.json topics=src/retrieval/topics.txt \
  chinese_words=src/text/zh_lexicon.txt <<'JS'
const fs = require('node:fs');
const [dist, ...modules] = process.argv.slice(2);
for (const [name, file] of modules.map((m) => m.split('='))) {
  const text = fs.readFileSync(file, 'utf8');
  const json = JSON.stringify(file.endsWith('.json') ? JSON.stringify(JSON.parse(text)) : text);
  fs.writeFileSync(`${dist}/nodejs/${name}.js`, `module.exports = ${json};\n`);
  fs.writeFileSync(`${dist}/web/${name}.js`, `export default ${json};\n`);
}
JS

# npm ships pkg/ alone: the repository's license goes in with it. CommonJS consumers of
# TypeScript (node16/nodenext, `require`) read index.d.cts: the same declarations.
cp LICENSE pkg/LICENSE
cp pkg/index.d.ts pkg/index.d.cts

# Each glue directory says which module system its .js files use (the package is "module").
printf '{ "type": "commonjs" }\n' > "$DIST/nodejs/package.json"
printf '{ "type": "module" }\n' > "$DIST/web/package.json"

raw=$(wc -c < "$DIST/web/${CRATE}_bg.wasm")
gz=$(gzip -9 -c "$DIST/web/${CRATE}_bg.wasm" | wc -c)
awk -v raw="$raw" -v gz="$gz" \
  'BEGIN { printf "[pkg] wasm: %d bytes, %d bytes gzip (%.1f KiB; target <= 600 KiB)\n", raw, gz, gz / 1024 }'
printf '{ "wasm_bytes": %d, "wasm_gzip_bytes": %d }\n' "$raw" "$gz" > "$DIST/size.json"
