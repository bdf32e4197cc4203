#!/usr/bin/env bash
# Mutation score of each bug's monitor (issue 19, item 2): cargo-mutants on src/bugs/<bug>/monitor.rs, twice.
#
#   1. under the refinement tests alone (the in-library `refinement::tests` of that bug: random behaviours of
#      the mirror rendered as Ozone logs in every layout, and checked);
#   2. under all of the bug's library tests (its monitor, witness and mirror unit tests, and the refinement
#      tests), run only on the mutants that pass 1, named one by one (a mutant the refinement tests catch is
#      caught by the larger set too).
#
# Usage: benches/mutation_score.sh [BUG ...]     (default: every src/bugs/<bug>/; needs `cargo install cargo-mutants`)
#        MUTANTS_SHARD=0/2 benches/mutation_score.sh BUG   tests one shard of the mutants (a sample, for time)
# Output: target/mutants-score/<bug>/{refinement,all}/mutants.out and one table row per bug on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null || { echo "cargo install --locked cargo-mutants" >&2; exit 2; }

# The bug's refinement tests: its generated agreement tests (`refinement::tests::<bug>::`, one module per
# registered bug) and the regression tests named after it (`refinement::tests::<bug>_...`), plus those named
# otherwise.
refinement_filters() {
  [ -d "src/bugs/$1" ] || { echo "unknown bug $1" >&2; exit 2; }
  case "$1" in
    scm_finalization) echo "refinement::tests::scm_finalization refinement::tests::scm_patched_restart refinement::tests::scm_crash_before" ;;
    recon_om_sync) echo "refinement::tests::recon_" ;;
    *) echo "refinement::tests::$1" ;;
  esac
}

# caught, missed, timeout, unviable of one outcomes.json
count() {
  python3 - "$1" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
n = {"caught": 0, "missed": 0, "timeout": 0, "unviable": 0}
for m in o["outcomes"]:
    if m["scenario"] == "Baseline":
        continue
    s = m["summary"]
    key = {"CaughtMutant": "caught", "MissedMutant": "missed", "Timeout": "timeout", "Unviable": "unviable"}.get(s)
    if key:
        n[key] += 1
print(n["caught"], n["missed"], n["timeout"], n["unviable"])
EOF
}

shard=()
[ -z "${MUTANTS_SHARD:-}" ] || shard=(--shard "$MUTANTS_SHARD")
bugs=("$@")
if [ ${#bugs[@]} -eq 0 ]; then
  for d in src/bugs/*/; do bugs+=("$(basename "$d")"); done
fi
# Phase 1 for every bug first (the refinement score is the one that matters most), then phase 2.
for bug in "${bugs[@]}"; do
  out="target/mutants-score/$bug"
  rm -rf "$out"
  mkdir -p "$out/refinement" "$out/all"
  # shellcheck disable=SC2046
  cargo mutants --profile mutants --file "src/bugs/$bug/monitor.rs" "${shard[@]}" -j 1 --timeout 600 -o "$out/refinement" \
    --cargo-arg=--lib -- -- $(refinement_filters "$bug") >"$out/refinement.log" 2>&1 || true
  echo "$bug refinement: $(count "$out/refinement/mutants.out/outcomes.json") (caught missed timeout unviable)" >&2
done
for bug in "${bugs[@]}"; do
  out="target/mutants-score/$bug"
  rm -rf "$out/all"
  mkdir -p "$out/all"
  # Survivors only, named exactly (`--iterate` with `--shard` would shard what is left, another sample).
  survivors=$(python3 -c 'import re,sys; print("|".join("^" + re.escape(l.strip()) + "$" for l in open(sys.argv[1]) if l.strip()))' \
    "$out/refinement/mutants.out/missed.txt")
  [ -n "$survivors" ] || continue
  # shellcheck disable=SC2046
  cargo mutants --profile mutants --file "src/bugs/$bug/monitor.rs" --re "$survivors" -j 1 --timeout 900 \
    --baseline=skip -o "$out/all" --cargo-arg=--lib -- -- "bugs::$bug::" $(refinement_filters "$bug") \
    >"$out/all.log" 2>&1 || true
done
echo "| monitor | mutants | viable | caught by refinement alone | score | caught by all the bug's tests | score |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for bug in "${bugs[@]}"; do
  out="target/mutants-score/$bug"
  read -r rc rm rt ru < <(count "$out/refinement/mutants.out/outcomes.json")
  ac=0
  [ -f "$out/all/mutants.out/outcomes.json" ] && read -r ac am at au < <(count "$out/all/mutants.out/outcomes.json")
  total=$((rc + rm + rt + ru))
  viable=$((rc + rm + rt))
  all_caught=$((rc + ac))
  python3 -c "
v=$viable
print(f'| $bug${MUTANTS_SHARD:+ (shard $MUTANTS_SHARD)} | $total | {v} | $rc | {100*$rc/max(v,1):.0f} % | $all_caught | {100*$all_caught/max(v,1):.0f} % |')"
done
