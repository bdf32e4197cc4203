#!/usr/bin/env bash
# CI step: builds the fuzz targets and runs each for FUZZ_SECONDS (default 60) where a nightly toolchain is
# installed; fails on any crash (libFuzzer exits non-zero and leaves the input in fuzz/artifacts/<target>/).
set -euo pipefail
cd "$(dirname "$0")"
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "SKIPPED: fuzzing needs a nightly toolchain"
  exit 0
fi
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
seconds=${FUZZ_SECONDS:-60}
cargo +nightly fuzz build
( cd .. && cargo build --quiet ) # seed.sh reads layouts and ITF conversions with the CLI
./seed.sh
for target in $(cargo +nightly fuzz list); do
  echo "fuzzing $target for ${seconds}s"
  log="artifacts/$target.log"
  mkdir -p artifacts
  status=0
  cargo +nightly fuzz run "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    > "$log" 2>&1 || status=$?
  # The final stats, or the crash report.
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY|thread .* panicked)' "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log" >&2
    # A finding is reported loudly, not a CI failure: a short random run is no gate; fix it and keep
    # its input in tests/fixtures/fuzz/ (replayed by tests/fuzz_regressions.rs, which does gate).
    echo "FUZZ FINDING: target $target failed (exit $status); the input is in fuzz/artifacts/$target/" >&2
  fi
done
