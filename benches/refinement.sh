#!/bin/sh
# The refinement test's long run: 100,000 random behaviours per model and config (src/refinement), rendered as
# Ozone logs and checked; prints the agreement table and exits 1 on any disagreement (each with its seed).
#   benches/refinement.sh [--behaviours N] [--model M] [--seed BASE]
set -e
cd "$(dirname "$0")/.."
exec cargo run --release --example refinement -- --behaviours 100000 "$@"
