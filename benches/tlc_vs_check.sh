#!/usr/bin/env bash
# `check` against TLC trace validation, side by side, on the same behaviours. For each model and size, a
# healthy and a violating log (benches/gen_event_dense.py: the scenario fixtures repeated as a long-running
# cluster prints them; the violating one has one violating copy second last) are checked with
# `ozone-conform check --model M` and exported with `export --to tla`, and TLC checks the exported trace
# module against the spec. The verdicts must agree: healthy, check exits 0 and TLC finds no error; violating,
# check exits 1 and TLC reports the invariant check reports. The script fails on any disagreement.
#
#   TLC_JAR=/path/to/tla2tools.jar benches/tlc_vs_check.sh [MODEL:REPS,REPS,...] ...
#
# Default: the repetitions that give about 10, 100, 1,000 and 10,000 witnessed steps where the export can
# build them (see "Bounds" below). One markdown row per run: model, witnessed steps (of the exported trace:
# the violating one stops at the violation), verdict, check time, export time, TLC time (the whole `java`
# run, JVM start included), TLC / check.
#
# Bounds: scm-secret-keys sizes MaxKeys = MaxLog from the witnessed key rotations (about three a copy) and
# its mirror holds at most 128 keys (a u128 bit set), so the export stops at 41 copies (~890 steps). scm-finalization
# finalizes once: a second copy of the scenario's finalization is not a step of the spec (the export says
# so), so only one copy is run. recon-om-sync's smallest scenario is one copy, 48 steps.
#
# Logs, exports and TLC's output and state go to $DIR (default /tmp/tlc-vs-check), never into the repo.
# Environment: DIR, NO_BUILD=1 (skip cargo build --release), OZONE_CONFORM_BIN, JAVA (default java).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
DIR="${DIR:-/tmp/tlc-vs-check}"
BIN="${OZONE_CONFORM_BIN:-target/release/ozone-conform}"
JAVA="${JAVA:-java}"
die() { echo "tlc_vs_check.sh: $*" >&2; exit 1; }
[[ -n "${TLC_JAR:-}" && -f "$TLC_JAR" ]] || die "set TLC_JAR to a tla2tools.jar (outside the repo)"
if [[ -z "${NO_BUILD:-}" ]]; then
    cargo build --release >&2 || die "cargo build --release failed"
fi
[[ -x "$BIN" ]] || die "$BIN not found"

PLAN=("$@")
if [[ ${#PLAN[@]} -eq 0 ]]; then
    # Witnessed steps per copy: dn-finalize-block 8, recon-om-sync 52, scm-secret-keys 21, scm-finalization 25.
    PLAN=(dn-finalize-block:1,12,125,1250 recon-om-sync:1,2,20,192 scm-secret-keys:1,5,40 scm-finalization:1)
fi

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

echo "load: $(uptime)" >&2
rows=()
fail=0
for item in "${PLAN[@]}"; do
    model="${item%%:*}"
    IFS=, read -r -a reps_list <<< "${item#*:}"
    for reps in "${reps_list[@]}"; do
        for case in healthy violating; do
            d="$DIR/$model-$case-$reps"
            rm -rf "$d"
            mkdir -p "$d"
            splice=()
            [[ $case == violating ]] && splice=(--splice "$model")
            python3 benches/gen_event_dense.py --bin "$BIN" --repetitions "$reps" "${splice[@]}" \
                --out "$d/logs" > /dev/null || die "generator failed for $model $case $reps"
            logs=("$d/logs/$model"/*.log)
            cat "${logs[@]}" > /dev/null   # warm the page cache

            t0=$(now)
            "$BIN" check "${logs[@]}" --model "$model" --format json-lines > "$d/check.jsonl" 2> "$d/check.err"
            check_rc=$?
            t1=$(now)
            check_inv=$(grep -m1 '"type":"violation"' "$d/check.jsonl" | sed -E 's/.*"invariant":"([A-Za-z]+)".*/\1/')

            t2=$(now)
            "$BIN" export "${logs[@]}" --model "$model" --to tla -o "$d/tla" 2> "$d/export.err"
            export_rc=$?
            t3=$(now)
            if [[ $export_rc -eq 2 ]]; then
                echo "== $model $case x$reps: export cannot build the behaviour:" >&2
                sed -n 1,12p "$d/export.err" >&2
                rows+=("| $model | - | $case: export refuses (x$reps copies) | $(secs "$t0" "$t1") s | - | - | - |")
                fail=1
                continue
            fi
            steps=$(sed -nE 's/.*\(([0-9]+) steps witnessed by log lines.*/\1/p' "$d/export.err" | head -1)
            module=$(basename "$d"/tla/*Trace.tla .tla)

            t4=$(now)
            (cd "$d/tla" && "$JAVA" -XX:+UseParallelGC -cp "$TLC_JAR" tlc2.TLC -workers 1 \
                -metadir "$d/tlc-meta" -config "$module.cfg" "$module.tla") > "$d/tlc.out" 2>&1
            t5=$(now)
            rm -rf "$d/tlc-meta"
            if grep -q 'Model checking completed. No error has been found.' "$d/tlc.out"; then
                tlc="accepts"
            elif inv=$(sed -nE 's/^Error: Invariant ([A-Za-z]+) is violated.*/\1/p' "$d/tlc.out" | head -1) && [[ -n $inv ]]; then
                tlc="$inv"
            elif grep -q 'Deadlock reached' "$d/tlc.out"; then
                tlc="deadlock"
            else
                tlc="error"
            fi

            # The same verdict three ways: check's exit code, the export's, TLC's.
            if [[ $case == healthy ]]; then
                ok=$([[ $check_rc -eq 0 && $export_rc -eq 0 && $tlc == accepts ]] && echo yes)
                verdict="conforms (check 0, TLC no error)"
            else
                ok=$([[ $check_rc -eq 1 && $export_rc -eq 1 && $tlc == "$check_inv" ]] && echo yes)
                verdict="$check_inv (check 1, TLC violated)"
            fi
            if [[ -z $ok ]]; then
                verdict="DISAGREE: check $check_rc ${check_inv:-}, export $export_rc, TLC $tlc"
                fail=1
            fi
            ct=$(secs "$t0" "$t1"); et=$(secs "$t2" "$t3"); tt=$(secs "$t4" "$t5")
            ratio=$(awk -v c="$ct" -v t="$tt" 'BEGIN { if (c > 0) printf "%.0f", t / c; else print "-" }')
            row="| $model | $steps | $verdict | $ct s | $et s | $tt s | ${ratio}x |"
            echo "$row" >&2
            rows+=("$row")
        done
    done
done

echo "load: $(uptime)"
echo "| model | witnessed steps | verdict | check | export | TLC | TLC / check |"
echo "|---|---:|---|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
exit $fail
