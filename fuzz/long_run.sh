#!/usr/bin/env bash
# Long fuzzing runs that are fair on a shared machine: each target runs until its process has had
# CPU_SECONDS of CPU (user + system, read from /proc), or EXECUTIONS executions, whichever comes first, however
# loaded the machine is. A wall-clock limit (libFuzzer's -max_total_time) measures the load, not the fuzzing.
#
#   fuzz/long_run.sh [TARGET...]            # default: every target, JOBS at a time
#
# Environment: CPU_SECONDS (1200), EXECUTIONS (10000000), JOBS (2), NICE (19).
# Writes fuzz/artifacts/<target>.long.log and prints one Markdown row per target for fuzz/README.md's table:
# date, target, CPU seconds, wall seconds, executions, exec/s (per CPU second), peak RSS, crashes.
# Needs the targets built (cargo +nightly fuzz build) and the corpora seeded (fuzz/seed.sh).
set -uo pipefail
cd "$(dirname "$0")"
cpu_limit=${CPU_SECONDS:-1200}
exec_limit=${EXECUTIONS:-10000000}
jobs=${JOBS:-2}
niceness=${NICE:-19}
triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
ticks=$(getconf CLK_TCK)
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && mapfile -t targets < <(cargo +nightly fuzz list)

run_one() {
  local target=$1 log="artifacts/$1.long.log"
  mkdir -p "artifacts/$target"
  local start
  start=$(date +%s)
  # -fork is not used: a crash stops the run, and its input is kept for a regression test.
  nice -n "$niceness" "target/$triple/release/$target" "corpus/$target" -artifact_prefix="artifacts/$target/" \
    -runs="$exec_limit" -max_len=65536 -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
    > "$log" 2>&1 &
  local pid=$! cpu=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    # Fields 14 and 15 of /proc/PID/stat: user and system time in clock ticks.
    cpu=$(awk -v t="$ticks" '{ printf "%d", ($14 + $15) / t }' "/proc/$pid/stat" 2>/dev/null || echo "$cpu")
    if (( cpu >= cpu_limit )); then
      kill -INT "$pid" 2>/dev/null
      break
    fi
  done
  wait "$pid"
  local status=$?
  local wall=$(( $(date +%s) - start ))
  # The last status line libFuzzer printed: `#N ... exec/s: R rss: MMb`.
  local last execs rss crashes=0
  last=$(grep -E '^#[0-9]+ ' "$log" | tail -n 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [[ -z "$execs" ]] && execs=$(sed -E 's/^#([0-9]+).*/\1/' <<< "$last")
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
  [[ -z "$rss" ]] && rss=$(sed -nE 's/.*rss: ([0-9]+)Mb.*/\1/p' <<< "$last")
  if grep -qE '^==[0-9]+== ERROR|^SUMMARY: libFuzzer: (deadly signal|timeout|out-of-memory)|panicked at' "$log"; then
    crashes=1
  fi
  printf '| %s | `%s` | %s | %s | %s | %s | %s MB | %s (exit %s) |\n' "$(date +%F)" "$target" "$cpu" "$wall" \
    "$(printf "%'d" "${execs:-0}")" "$(( ${execs:-0} / (cpu > 0 ? cpu : 1) ))" "${rss:-?}" "$crashes" "$status"
}

export -f run_one
export cpu_limit exec_limit niceness triple ticks
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'
