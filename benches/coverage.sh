#!/usr/bin/env bash
# What does `check --coverage` cost over `check`? On event-dense logs (benches/gen_event_dense.py, the healthy
# scenario fixtures' event records repeated; the witness pass and the behaviour build grow with the events)
# times `check --format concise` and `check --format concise --coverage` on the same directory with
# /usr/bin/time and prints one row per size: check s, check --coverage s, their ratio, both peak RSS.
#
#   benches/coverage.sh [SIZES...]        # default: 20M 80M
#
# Logs are generated once into $DIR (default /tmp/ozone-conform-scale/<size>, shared with check_scale.sh)
# and reused. The load average is printed beside the table: the machine may be shared.
#
# Environment: DIR, NO_BUILD=1 (skip cargo build --release), OZONE_CONFORM_BIN (binary to time).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
DIR="${DIR:-/tmp/ozone-conform-scale}"
BIN="${OZONE_CONFORM_BIN:-target/release/ozone-conform}"
SIZES=("$@")
[[ ${#SIZES[@]} -eq 0 ]] && SIZES=(20M 80M)

die() { echo "coverage.sh: $*" >&2; exit 1; }
[[ -x /usr/bin/time ]] || die "needs /usr/bin/time (GNU time) for the peak RSS"
if [[ -z "${NO_BUILD:-}" ]]; then
    cargo build --release >&2 || die "cargo build --release failed"
fi
[[ -x "$BIN" ]] || die "$BIN not found"

# "<seconds> <max RSS KiB>" of one run.
measure() {
    local t
    t=$(mktemp)
    /usr/bin/time -f '%e %M' -o "$t" "$@" > /dev/null
    local rc=$?
    cat "$t"; rm -f "$t"
    return $rc
}

rows=()
for size in "${SIZES[@]}"; do
    d="$DIR/$size"
    if [[ ! -f "$d/manifest.json" ]]; then
        echo "== generating $size into $d" >&2
        python3 benches/gen_event_dense.py --size "$size" --out "$d" --bin "$BIN" >&2 || die "generator failed"
    fi
    bytes=$(du -sb "$d" | cut -f1)
    cat "$d"/*/*.log > /dev/null   # warm the page cache
    read -r ck_s ck_kb < <(measure "$BIN" check --format concise "$d") || die "check on healthy $d failed"
    read -r cv_s cv_kb < <(measure "$BIN" check --format concise --coverage "$d") || die "check --coverage on healthy $d failed"
    rows+=("$(awk -v sz="$size" -v by="$bytes" -v a="$ck_s" -v b="$cv_s" -v ka="$ck_kb" -v kb="$cv_kb" \
        'BEGIN { printf "| %s (%.0f MB) | %.2f | %.2f | %.2f | %.0f | %.0f |", sz, by / 1e6, a, b, (a > 0 ? b / a : 0), ka / 1024, kb / 1024 }')")
    echo "== $size done; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
echo "| size | check s | check --coverage s | ratio | check RSS MiB | --coverage RSS MiB |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
