#!/usr/bin/env bash
# Does `check` scale linearly with the events, and stay bounded? On event-dense logs of a long-running
# cluster (benches/gen_event_dense.py: the healthy scenario fixtures' event records repeated with time moving
# forward and fresh ids) of 150 MB to 4.8 GB, times `ozone-conform events` and `check` on the same
# directory with GNU time and prints one row per size: events s, check s, their ratio, the peak RSS of both,
# how much check's time grew from the size before (x per doubling), and the 1-minute load average when the
# last round ended. `check` keeps to its memory budget (`--memory-budget`, default 256 MiB) whatever the
# size: the script fails when its peak RSS passes MAX_RSS_MIB (default 512).
#
#   benches/check_scale.sh [SIZES...]        # default: 150M 300M 600M 1200M 2400M 4800M
#
# Logs are generated once into $DIR (default /tmp/ozone-conform-scale/<size>) and reused. Every healthy
# size must give no violation (exit 0); the script fails otherwise. The load average is printed beside the
# table: the machine may be shared.
#
# Each command runs RUNS times (default 5), in rounds: every size once per round, so that a slow spell of a
# shared machine falls on all sizes alike rather than on one. The table shows the median wall time, the best
# (least disturbed) wall time, the median CPU time (user + system, which a busy neighbour disturbs less) and
# the largest peak RSS, and the growth per doubling of each of the three times. On a shared virtual machine
# single runs vary by 10-20 %. Pause other CPU users while it runs.
#
# Environment: DIR, RUNS, NO_BUILD=1 (skip cargo build --release), OZONE_CONFORM_BIN (binary to time),
# MAX_RSS_MIB.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
DIR="${DIR:-/tmp/ozone-conform-scale}"
BIN="${OZONE_CONFORM_BIN:-target/release/ozone-conform}"
RUNS="${RUNS:-5}"
SIZES=("$@")
MAX_RSS_MIB="${MAX_RSS_MIB:-512}"
[[ ${#SIZES[@]} -eq 0 ]] && SIZES=(150M 300M 600M 1200M 2400M 4800M)

die() { echo "check_scale.sh: $*" >&2; exit 1; }
[[ -x /usr/bin/time ]] || die "needs /usr/bin/time (GNU time) for the peak RSS"
if [[ -z "${NO_BUILD:-}" ]]; then
    cargo build --release >&2 || die "cargo build --release failed"
fi
[[ -x "$BIN" ]] || die "$BIN not found"

TIMES="$(mktemp -d)"
trap 'rm -rf "$TIMES"' EXIT

for size in "${SIZES[@]}"; do
    d="$DIR/$size"
    if [[ ! -f "$d/manifest.json" ]]; then
        echo "== generating $size into $d" >&2
        python3 benches/gen_event_dense.py --size "$size" --out "$d" --bin "$BIN" >&2 || die "generator failed"
    fi
done

# One run of each command on each size per round; "<wall s> <user s> <system s> <max RSS KiB>" lines go to
# $TIMES/<size>.<command>.
for round in $(seq "$RUNS"); do
    for size in "${SIZES[@]}"; do
        d="$DIR/$size"
        cat "$d"/*/*.log > /dev/null   # warm the page cache
        /usr/bin/time -f '%e %U %S %M' -a -o "$TIMES/$size.events" "$BIN" events "$d" > /dev/null \
            || die "events failed on $d"
        /usr/bin/time -f '%e %U %S %M' -a -o "$TIMES/$size.check" "$BIN" check --format concise "$d" \
            > "$TIMES/check.out"
        rc=$?
        [[ $rc -eq 0 ]] || { cat "$TIMES/check.out" >&2; die "check on healthy $d exited $rc (a violation or an error)"; }
    done
    echo "== round $round of $RUNS done; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done

# "<median seconds> <median CPU seconds> <max RSS KiB> <best seconds>" of a times file.
summary() {
    local m=$(( (RUNS + 1) / 2 ))
    echo "$(cut -d' ' -f1 "$1" | sort -g | sed -n "${m}p")" \
        "$(awk '{ print $2 + $3 }' "$1" | sort -g | sed -n "${m}p")" \
        "$(cut -d' ' -f4 "$1" | sort -g | tail -n 1)" \
        "$(cut -d' ' -f1 "$1" | sort -g | head -n 1)"
}

load=$(cut -d' ' -f1 /proc/loadavg)
echo "| size | events s | check s | check best s | check CPU s | check/events | check RSS MiB | events RSS MiB | check growth per doubling | load (1 min) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
prev="" prev_cpu="" prev_best=""
for size in "${SIZES[@]}"; do
    read -r ev_s _ ev_kb _ < <(summary "$TIMES/$size.events")
    read -r ck_s ck_cpu ck_kb ck_best < <(summary "$TIMES/$size.check")
    bytes=$(du -sb "$DIR/$size" | cut -f1)
    growth="-"
    [[ -n "$prev" ]] && growth=$(awk -v a="$ck_s" -v b="$prev" -v c="$ck_cpu" -v d="$prev_cpu" -v e="$ck_best" -v f="$prev_best" \
        'BEGIN { printf "%.2fx (best %.2fx, CPU %.2fx)", (b > 0 ? a / b : 0), (f > 0 ? e / f : 0), (d > 0 ? c / d : 0) }')
    prev="$ck_s" prev_cpu="$ck_cpu" prev_best="$ck_best"
    awk -v sz="$size" -v by="$bytes" -v es="$ev_s" -v cs="$ck_s" -v cb="$ck_best" -v cc="$ck_cpu" -v kb="$ck_kb" -v ekb="$ev_kb" -v g="$growth" -v ld="$load" \
        'BEGIN { printf "| %s (%.0f MB) | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f | %s | %s |\n", sz, by / 1e6, es, cs, cb, cc, (es > 0 ? cs / es : 0), kb / 1024, ekb / 1024, g, ld }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for size in "${SIZES[@]}"; do
    read -r _ _ ck_kb _ < <(summary "$TIMES/$size.check")
    (( ck_kb <= MAX_RSS_MIB * 1024 )) || die "check's peak RSS on $size was $((ck_kb / 1024)) MiB, over $MAX_RSS_MIB MiB"
done
