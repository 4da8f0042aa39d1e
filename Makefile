# Hippo: the two commands are `make dev` (local Worker on 127.0.0.1:$PORT, default 8787) and
# `make test` (every suite). Both run `make setup` first, which installs pinned tools once.
SHELL := /bin/bash
PORT ?= 8787
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: setup test test-rust test-wasm lint fmt fuzz bench

setup:
	@bash scripts/setup.sh

lint: setup
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

test-rust: setup
	cargo test --workspace

# The core must build for wasm32 (the Worker and the npm package both run it there).
test-wasm: setup
	cargo build -p hippo --lib --target wasm32-unknown-unknown

test: lint test-rust test-wasm test-worker
	@echo "all suites passed"

fmt:
	cargo fmt --all

# Each cargo-fuzz target for FUZZ_SECONDS (default 60); crashes land in fuzz/regressions/.
fuzz:
	@bash scripts/fuzz.sh

# Retrieval quality (LoCoMo, Hippo vs BM25) and latency at 1k/10k/100k; figures in docs/BENCHMARKS.md.
LOCOMO ?= ../shared/data/locomo/locomo-dev.json
bench:
	cargo build --release --bin hippo-bench
	./target/release/hippo-bench locomo --data $(LOCOMO)
	./target/release/hippo-bench latency

# --- worker ---
# The Cloudflare Worker (worker/, migrations/, wrangler.toml). `make dev` serves it locally.
worker: setup
	bash scripts/build-worker.sh

dev: setup
	PORT=$(PORT) bash scripts/dev.sh

test-worker: worker
	cargo test -p hippo-worker
	node --test --test-concurrency=1 tests/worker/
# --- end worker ---
