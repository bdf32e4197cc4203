#!/usr/bin/env bash
# Regenerates traces/<model>/tlc/export-{healthy,violating}/ (the `export --to tla` of each scenario's daemon
# logs) and TLC's verdict on each, export-*.out. Needs TLC: TLC_JAR=/path/to/tla2tools.jar (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TLC_JAR:?set TLC_JAR to a tla2tools.jar outside the repo}"
cargo build --release --quiet
bin=target/release/ozone-conform
for dir in traces/*/; do
  model=$(basename "$dir")
  for case in healthy violating; do
    out="$dir/tlc/export-$case"
    rm -rf "$out"
    # The export exits 1 when the behaviour violates an invariant; that is the point of the violating case.
    "$bin" export tests/fixtures/scenarios/"$model"/"$case"/*.log --model "$model" --to tla -o "$out" 2>/dev/null || true
    module=$(basename "$out"/*Trace.tla .tla)
    meta=$(mktemp -d)
    (cd "$out" && java -XX:+UseParallelGC -cp "$TLC_JAR" tlc2.TLC -workers 1 -metadir "$meta" \
        -config "$module.cfg" "$module.tla" || true) > "$dir/tlc/export-$case.out"
    rm -rf "$meta"
    echo "$model $case: $(grep -E 'Error: Invariant|No error has been found|Deadlock reached' "$dir/tlc/export-$case.out" | head -1)"
  done
done
