#!/usr/bin/env bash
# Retrieval quality side by side: LoCoMo dev (tuning conversations 0-2, then 3-5), LongMemEval_S
# dev and MADial zh dev, each end to end (append, nightly dreams, memory_retrieval) and
# ranking-only, beside BM25 in the same run. The outside sets are converted locally from their
# public repositories (../shared/data/external/README.md); a set that is not there is skipped
# with the command that makes it.
set -euo pipefail
BIN=${BIN:-./target/release/hippo-bench}
LOCOMO=${LOCOMO:-../shared/data/locomo/locomo-dev.json}
EXTERNAL=${EXTERNAL:-target/external}
OUT=$(mktemp -d)
run() { # name, args...
  local name=$1; shift
  echo "== $name: hippo-bench locomo $*" >&2
  "$BIN" locomo "$@" --json | tail -1 > "$OUT/$name.json"
}
run locomo-0-2 --data "$LOCOMO" --convs 0-2
run locomo-3-5 --data "$LOCOMO" --convs 3-5
for set in lme madial; do
  file="$EXTERNAL/$set-dev.json"
  if [ -f "$file" ]; then
    # MADial's "turns" are a user's memory-bank entries, appended as the user's turns: end to
    # end is what a companion told them answers to the dialogue so far (the product path);
    # the same run's ranking-only column is the benchmark's own task.
    run "$set" --data "$file" --mode e2e
  else
    echo "skipped $set: no $file. Convert the dev half with ../shared/data/external/convert_*.py (see its README) into $file" >&2
  fi
done
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
rows = []
for name in ["locomo-0-2", "locomo-3-5", "lme", "madial"]:
    path = os.path.join(out, name + ".json")
    if not os.path.exists(path):
        continue
    s = json.load(open(path))
    r = s["results"]
    def cell(k):
        return "" if k not in r else f'{r[k]["r@1"]:.3f} / {r[k]["r@10"]:.3f}'
    e2e = "hippo" if s.get("mode") == "e2e" else None
    # An end-to-end run's JSON counts its questions by category only.
    questions = s.get("questions") or sum(c["questions"] for c in r["hippo"]["by_category"].values())
    rows.append((name, questions, cell("hippo") if e2e else "", cell("ranking" if e2e else "hippo"), cell("bm25"),
                 f'{s.get("items_per_answer", "")} / {s.get("chars_per_answer", "")}' if e2e else ""))
print("| dev set | questions | end to end R@1 / R@10 | ranking only | BM25 | items / chars per answer |")
print("|---|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(str(x) for x in r) + " |")
PY
