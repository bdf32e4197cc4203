#!/usr/bin/env bash
# Peak memory and time of `convert` and `trace` on a large generated TLC output (issue 11 item 8).
# usage: benches/trace_memory.sh [SIZE]   (default 100M; the file is written to /tmp/tlc-SIZE.out)
# Prints input size, peak RSS (GNU time's "Maximum resident set size"), its ratio to the input, and wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
size="${1:-100M}"
out="/tmp/tlc-$size.out"
cargo build --release --quiet --bin ozone-conform --example gen_tlc_output
[ -f "$out" ] || ./target/release/examples/gen_tlc_output --size "$size" --out "$out"
bin=./target/release/ozone-conform
bytes=$(stat -c %s "$out")
echo "input: $out, $bytes bytes, $(grep -c '^State ' "$out") states; load: $(uptime | sed 's/.*load average: //')"
printf '%-8s %12s %8s %8s %s\n' command peak_rss_kb ratio wall_s exit
for cmd in convert trace; do
  if [ "$cmd" = convert ]; then args=(convert "$out" --to itf -o /tmp/tlc-bench.itf.json); else args=(trace "$out"); fi
  set +e
  /usr/bin/time -v "$bin" "${args[@]}" >/dev/null 2>/tmp/tlc-bench.time
  code=$?
  set -e
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' /tmp/tlc-bench.time)
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' /tmp/tlc-bench.time)
  ratio=$(awk -v r="$rss" -v b="$bytes" 'BEGIN {printf "%.1f", r * 1024 / b}')
  printf '%-8s %12s %8s %8s %s\n' "$cmd" "$rss" "${ratio}x" "$wall" "$code"
done
