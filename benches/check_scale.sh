#!/usr/bin/env bash
# Does `check` scale linearly with the events, and stay bounded? On event-dense logs of a long-running
# cluster (benches/gen_event_dense.py: the healthy scenario fixtures' event records repeated with time moving
# forward and fresh ids) of 150 MB, 300 MB, 600 MB and 1.2 GB, times `ozone-conform events` and `check` on
# the same directory with /usr/bin/time -v and prints one row per size: events s, check s, their ratio,
# the peak RSS of both, how much check's time grew from the size before (x per doubling), and the 1-minute
# load average when the size was done.
#
#   benches/check_scale.sh [SIZES...]        # default: 150M 300M 600M 1200M
#
# Logs are generated once into $DIR (default /tmp/ozone-conform-scale/<size>) and reused. Every healthy
# size must give no violation (exit 0); the script fails otherwise. The load average is printed beside the
# table: the machine may be shared.
#
# Each command runs RUNS times (default 5); the table shows the median wall time, the best (least disturbed)
# wall time, the median CPU time (user + system, which a busy neighbour disturbs less) and the largest peak
# RSS, and the growth per doubling of each of the three times. On a shared virtual machine single runs vary
# by 10-20 %: the best of five is the steadiest figure. Pause other CPU users while it runs.
#
# Environment: DIR, RUNS, NO_BUILD=1 (skip cargo build --release), OZONE_CONFORM_BIN (binary to time).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
DIR="${DIR:-/tmp/ozone-conform-scale}"
BIN="${OZONE_CONFORM_BIN:-target/release/ozone-conform}"
RUNS="${RUNS:-5}"
SIZES=("$@")
[[ ${#SIZES[@]} -eq 0 ]] && SIZES=(150M 300M 600M 1200M)

die() { echo "check_scale.sh: $*" >&2; exit 1; }
[[ -x /usr/bin/time ]] || die "needs /usr/bin/time (GNU time) for the peak RSS"
if [[ -z "${NO_BUILD:-}" ]]; then
    cargo build --release >&2 || die "cargo build --release failed"
fi
[[ -x "$BIN" ]] || die "$BIN not found"

# "<median seconds> <median CPU seconds> <max RSS KiB> <best seconds>" of RUNS runs; stdout of the command
# to $1.
measure() {
    local out="$1"; shift
    local t rc=0
    t=$(mktemp)
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f '%e %U %S %M' -a -o "$t" "$@" > "$out" || rc=$?
    done
    local m=$(( (RUNS + 1) / 2 ))
    echo "$(cut -d' ' -f1 "$t" | sort -g | sed -n "${m}p")" \
        "$(awk '{ print $2 + $3 }' "$t" | sort -g | sed -n "${m}p")" \
        "$(cut -d' ' -f4 "$t" | sort -g | tail -n 1)" \
        "$(cut -d' ' -f1 "$t" | sort -g | head -n 1)"
    rm -f "$t"
    return $rc
}

rows=()
prev=""
prev_cpu=""
prev_best=""
for size in "${SIZES[@]}"; do
    d="$DIR/$size"
    if [[ ! -f "$d/manifest.json" ]]; then
        echo "== generating $size into $d" >&2
        python3 benches/gen_event_dense.py --size "$size" --out "$d" --bin "$BIN" >&2 || die "generator failed"
    fi
    bytes=$(du -sb "$d" | cut -f1)
    cat "$d"/*/*.log > /dev/null   # warm the page cache
    read -r ev_s ev_cpu ev_kb _ < <(measure /dev/null "$BIN" events "$d") || die "events failed on $d"
    read -r ck_s ck_cpu ck_kb ck_best < <(measure "/tmp/check_scale.$$.out" "$BIN" check --format concise "$d")
    rc=$?
    [[ $rc -eq 0 ]] || { cat "/tmp/check_scale.$$.out" >&2; die "check on healthy $d exited $rc (a violation or an error)"; }
    rm -f "/tmp/check_scale.$$.out"
    growth="-"
    [[ -n "$prev" ]] && growth=$(awk -v a="$ck_s" -v b="$prev" -v c="$ck_cpu" -v d="$prev_cpu" -v e="$ck_best" -v f="$prev_best" \
        'BEGIN { printf "%.2fx (best %.2fx, CPU %.2fx)", (b > 0 ? a / b : 0), (f > 0 ? e / f : 0), (d > 0 ? c / d : 0) }')
    prev="$ck_s"
    prev_cpu="$ck_cpu"
    prev_best="$ck_best"
    load=$(cut -d' ' -f1 /proc/loadavg)
    rows+=("$(awk -v sz="$size" -v by="$bytes" -v es="$ev_s" -v cs="$ck_s" -v cb="$ck_best" -v cc="$ck_cpu" -v kb="$ck_kb" -v ekb="$ev_kb" -v g="$growth" -v ld="$load" \
        'BEGIN { printf "| %s (%.0f MB) | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f | %s | %s |", sz, by / 1e6, es, cs, cb, cc, (es > 0 ? cs / es : 0), kb / 1024, ekb / 1024, g, ld }')")
    echo "== $size done; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
echo "| size | events s | check s | check best s | check CPU s | check/events | check RSS MiB | events RSS MiB | check growth per doubling | load (1 min) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
