#!/usr/bin/env bash
# Throughput of ozone-conform on a large SCM log, next to ripgrep as a "just find the rule loggers" floor.
#
#   benches/throughput.sh [FILE]
#
# FILE defaults to /tmp/scm-large.log; if it does not exist it is generated first with
# benches/gen_scm_log.py (size $SIZE, default 1G). Builds `cargo build --release`, warms the page
# cache, then times each command $RUNS times (default 3) and reports the best wall time, the GB/s
# that gives (decimal GB, file size / best time) and the peak RSS from /usr/bin/time -v.
#
# Commands:
#   ozone-conform events FILE            > /dev/null
#   cat FILE | ozone-conform events -    > /dev/null   (stdin; peak RSS shows whether input is buffered)
#   rg -c -F -e SCMHAManagerImpl -e SCMStateMachine -e SecretKeyStateImpl -e LocalSecretKeyStore \
#         -e ComponentVersionManager FILE              (skipped if rg is not installed)
#   the same two ozone-conform lines with `check` instead of `events`, if the binary has `check`.
#
# Environment: RUNS (3), SIZE (1G, only for generating), NO_BUILD=1 (skip cargo build),
#              OZONE_CONFORM_BIN (binary to time; default target/release/ozone-conform).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
FILE="${1:-/tmp/scm-large.log}"
RUNS="${RUNS:-3}"
SIZE="${SIZE:-1G}"
BIN="${OZONE_CONFORM_BIN:-target/release/ozone-conform}"
RULE_LOGGERS=(-e SCMHAManagerImpl -e SCMStateMachine -e SecretKeyStateImpl -e LocalSecretKeyStore -e ComponentVersionManager)

die() { echo "throughput.sh: $*" >&2; exit 1; }

if [[ ! -f "$FILE" ]]; then
    echo "== $FILE does not exist: generating $SIZE"
    python3 benches/gen_scm_log.py --size "$SIZE" --out "$FILE" || die "generator failed"
fi

if [[ -z "${NO_BUILD:-}" ]]; then
    echo "== cargo build --release"
    cargo build --release || die "cargo build --release failed"
fi
[[ -x "$BIN" ]] || die "$BIN not found or not executable"

BYTES=$(stat -c %s "$FILE") || die "cannot stat $FILE"
HAVE_TIME=0
[[ -x /usr/bin/time ]] && /usr/bin/time -v true >/dev/null 2>&1 && HAVE_TIME=1
HAVE_CHECK=0
"$BIN" check --help >/dev/null 2>&1 && HAVE_CHECK=1

echo "== file: $FILE ($BYTES bytes, $(awk -v b="$BYTES" 'BEGIN { printf "%.2f GB", b / 1e9 }')), best of $RUNS runs"
echo "== warming the page cache"
cat "$FILE" > /dev/null

TMP=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT

# run_best LABEL SHELL-COMMAND
# Runs the command RUNS times under /usr/bin/time -v (when available) and prints one table row:
# best wall time, GB/s, peak RSS of the best run, exit status. The command sees $FILE and $BIN.
ROWS=()
run_best() {
    local label="$1" cmd="$2"
    local best_ns="" best_rss="-" status=0 i start end ns rss
    for ((i = 1; i <= RUNS; i++)); do
        start=$(date +%s%N)
        if ((HAVE_TIME)); then
            /usr/bin/time -v -o "$TMP/time.$i" bash -c "$cmd" > "$TMP/out" 2> "$TMP/err"
        else
            bash -c "$cmd" > "$TMP/out" 2> "$TMP/err"
        fi
        status=$?
        end=$(date +%s%N)
        ns=$((end - start))
        rss="-"
        if ((HAVE_TIME)) && [[ -f "$TMP/time.$i" ]]; then
            # /usr/bin/time reports the largest RSS among the processes it waited for (bash and
            # the pipeline members); cat and bash are a few MiB, so this is the binary's peak.
            rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$TMP/time.$i")
        fi
        if [[ -z "$best_ns" || $ns -lt $best_ns ]]; then
            best_ns=$ns
            best_rss=$rss
        fi
    done
    local extra=""
    if [[ -s "$TMP/out" && $(wc -c < "$TMP/out") -lt 200 ]]; then
        extra="output: $(tr '\n' ' ' < "$TMP/out")"
    fi
    if ((status > 1)) || { ((status == 1)) && [[ "$label" != *check* && "$label" != rg* ]]; }; then
        extra="FAILED (exit $status): $(head -c 300 "$TMP/err" | tr '\n' ' ')"
    fi
    ROWS+=("$(awk -v l="$label" -v ns="$best_ns" -v b="$BYTES" -v rss="$best_rss" -v st="$status" -v x="$extra" 'BEGIN {
        s = ns / 1e9
        printf "%-44s %9.3f s %8.3f GB/s %11s MiB   exit %-3s %s", l, s, b / s / 1e9, rss, st, x }')")
    echo "   done: $label"
}

export FILE BIN                 # the timed commands run in child shells
echo "== timing"
run_best "ozone-conform events FILE" '"$BIN" events "$FILE" > /dev/null'
run_best "cat FILE | ozone-conform events -" 'cat "$FILE" | "$BIN" events - > /dev/null'
if ((HAVE_CHECK)); then
    run_best "ozone-conform check FILE" '"$BIN" check "$FILE" > /dev/null'
    run_best "cat FILE | ozone-conform check -" 'cat "$FILE" | "$BIN" check - > /dev/null'
else
    echo "   ($BIN has no 'check' subcommand: skipping the check rows)"
fi
if command -v rg > /dev/null 2>&1; then
    RG_ARGS="${RULE_LOGGERS[*]}"
    run_best "rg -c -F -e <5 rule loggers> FILE" "rg -c -F $RG_ARGS \"\$FILE\""
    # Every logger the grammar names, as its simple class name (which every rendering ends with).
    ALL_ARGS=""
    for l in $("$BIN" grammar | awk -F'\t' 'NF > 3 && $4 != "*" { print $4 }' | tr ',' '\n' | sed 's/.*\.//' | sort -u); do
        ALL_ARGS="$ALL_ARGS -e $l"
    done
    N_ALL=$(echo "$ALL_ARGS" | grep -o -- '-e ' | wc -l)
    run_best "rg -c -F -e <all $N_ALL rule loggers> FILE" "rg -c -F $ALL_ARGS \"\$FILE\""
else
    echo "   rg (ripgrep) is not installed: skipping the rg row"
fi

echo
printf '%-44s %11s %13s %15s   %s\n' "command" "best wall" "throughput" "peak RSS" "status"
for row in "${ROWS[@]}"; do
    echo "$row"
done
((HAVE_TIME)) || echo "(/usr/bin/time not available: no peak RSS)"
