#!/usr/bin/env bash
# Does `export` write the same bytes as another build? For every input set under tests/fixtures (each file
# alone, and the files of each directory together) and every model, both binaries run
# `export --model M --to itf` and `--to tla -o tla`; where the reference binary accepts the logs (exit 0 or 1),
# exit code, stdout, stderr and the written files must be the same. Prints, per model, how many input sets
# export accepts and how many of those are byte-identical; lists each one that differs; fails if any does.
#
#   benches/export_identical.sh REFERENCE_BIN [BIN]    (BIN default target/release/ozone-conform)
#
# Scratch output goes to $DIR (default /tmp/export-identical), never into the repo.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
REF="${1:?usage: benches/export_identical.sh REFERENCE_BIN [BIN]}"
BIN="${2:-target/release/ozone-conform}"
DIR="${DIR:-/tmp/export-identical}"
REF="$(realpath "$REF")"
BIN="$(realpath "$BIN")"
[[ -x "$REF" && -x "$BIN" ]] || { echo "export_identical.sh: $REF or $BIN is not executable" >&2; exit 1; }
mapfile -t MODELS < <("$BIN" models --format json | grep -oE '"model": *"[a-z-]+"' | sed -E 's/.*"([a-z-]+)"$/\1/')
[[ ${#MODELS[@]} -gt 0 ]] || { echo "export_identical.sh: no models listed" >&2; exit 1; }

# The input sets: one line each, files separated by tabs.
sets=()
while IFS= read -r f; do sets+=("$(realpath "$f")"); done < <(find tests/fixtures -type f | sort)
while IFS= read -r d; do
    files=()
    while IFS= read -r f; do files+=("$(realpath "$f")"); done < <(find "$d" -maxdepth 1 -type f | sort)
    [[ ${#files[@]} -gt 1 ]] && sets+=("$(IFS=$'\t'; echo "${files[*]}")")
done < <(find tests/fixtures -type d | sort)

# run BIN OUT MODEL FILES...: both exports into OUT, exit codes in OUT/rc.
run() {
    local bin="$1" out="$2" model="$3"
    shift 3
    rm -rf "$out"
    mkdir -p "$out"
    (cd "$out" && "$bin" export "$@" --model "$model" --to itf > itf.out 2> itf.err; echo "itf $?" > rc
     "$bin" export "$@" --model "$model" --to tla -o tla > tla.out 2> tla.err; echo "tla $?" >> rc)
}

declare -A accepted identical
fail=0
for model in "${MODELS[@]}"; do
    accepted[$model]=0
    identical[$model]=0
    for set in "${sets[@]}"; do
        IFS=$'\t' read -r -a files <<< "$set"
        run "$REF" "$DIR/ref" "$model" "${files[@]}"
        # Accepted: the reference builds a behaviour (0: conforms, 1: a violation), either format.
        grep -qE '^(itf|tla) [01]$' "$DIR/ref/rc" || continue
        run "$BIN" "$DIR/new" "$model" "${files[@]}"
        accepted[$model]=$((accepted[$model] + 1))
        if diff -r "$DIR/ref" "$DIR/new" > /dev/null; then
            identical[$model]=$((identical[$model] + 1))
        else
            echo "differs: $model ${files[*]#"$PWD/"}" >&2
            fail=1
        fi
    done
done

echo "| model | input sets export accepts | byte-identical |"
echo "|---|---:|---:|"
for model in "${MODELS[@]}"; do
    echo "| $model | ${accepted[$model]} | ${identical[$model]} |"
done
exit $fail
