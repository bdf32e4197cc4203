#!/usr/bin/env bash
# CI step: builds the fuzz targets and runs each for FUZZ_SECONDS (default 60) where a nightly toolchain is
# installed; fails on a crash once all have run (a timeout or the RSS limit, which depend on load, is reported only).
set -euo pipefail
cd "$(dirname "$0")"
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "SKIPPED: fuzzing needs a nightly toolchain"
  exit 0
fi
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
seconds=${FUZZ_SECONDS:-60}
crashed=()
cargo +nightly fuzz build
triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
( cd .. && cargo build --quiet ) # seed.sh reads layouts and ITF conversions with the CLI
./seed.sh
# Every target in Cargo.toml, the structure-aware generated_logs and healthy_behaviour included (seed.sh
# gives them seeded random bytes; at 5-10 executions a second, 60 s is a smoke test, fuzz/long_run.sh the run).
for target in $(cargo +nightly fuzz list); do
  echo "fuzzing $target for ${seconds}s"
  log="artifacts/$target.log"
  mkdir -p artifacts
  status=0
  mkdir -p "artifacts/$target"
  # The target binary itself, not `cargo fuzz run`, which turns every libFuzzer exit code into 1.
  "target/$triple/release/$target" "corpus/$target" -artifact_prefix="artifacts/$target/" \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    > "$log" 2>&1 || status=$?
  # The final stats, or the crash report.
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY|thread .* panicked)' "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log" >&2
    echo "FUZZ FINDING: target $target failed (exit $status); the input is in fuzz/artifacts/$target/" >&2
    # A crash (panic, sanitizer report: libFuzzer's exit 77 or a signal) is a bug and fails the build once
    # every target has run. A timeout (70) or the RSS limit depends on how loaded the machine is: reported,
    # not failed; rerun its input alone (`fuzz/target/.../<target> <input>`) to see whether it is real.
    case "$status" in 70 | 71 | 72) ;; *) crashed+=("$target") ;; esac
  fi
done
if [ "${#crashed[@]}" -gt 0 ]; then
  echo "fuzzing found crashes in: ${crashed[*]} (fix them and keep each input in tests/fixtures/fuzz/<target>/)" >&2
  exit 1
fi
