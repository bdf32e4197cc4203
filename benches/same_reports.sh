#!/usr/bin/env bash
# Do two builds of ozone-conform give the same reports? `benches/same_reports.sh OLD NEW` runs both binaries
# on every fixture file and every fixture directory under tests/fixtures (and the README's first example) and
# compares stdout, stderr and the exit code of each run, byte for byte (JUnit's elapsed `time` attributes
# aside):
#
#   every file:       check --all --format json|sarif|concise|json-lines, check --format json, events
#   every directory:  the same, check --per-file --all --format json|junit, export --model M --to itf
#                     and --to tla -o DIR (every model; the written files compared too)
#
# A refactoring that must not change behaviour (issue 24) is checked with the binary from before it as OLD.
# Prints one line per difference and the counts; exits 1 if anything differs. Run from anywhere: the runs
# happen in the repository root so that paths (and SARIF's relative URIs) are the same for both.
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 OLD-BINARY NEW-BINARY" >&2
    exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
cd "$(dirname "$0")/.." || exit 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

models=$("$old" models --format json | python3 -c 'import json,sys; print(" ".join(m["model"] for m in json.load(sys.stdin)))')
runs=0
differ=0

# Runs "$@" with both binaries (the word BIN stands for the binary, OUTDIR for a fresh output directory) and
# compares what each printed, its exit code and what it wrote to OUTDIR.
same() {
    local side
    for side in old new; do
        local bin=$old
        [ "$side" = new ] && bin=$new
        # One output directory path for both sides (its name may be in messages), kept apart after the run.
        rm -rf "$work/out" "$work/$side.dir" && mkdir -p "$work/out"
        local args=()
        for a in "$@"; do
            case "$a" in
            BIN) args+=("$bin") ;;
            OUTDIR) args+=("$work/out") ;;
            *) args+=("$a") ;;
            esac
        done
        NO_COLOR=1 COLUMNS=100 nice "${args[@]}" >"$work/$side.stdout" 2>"$work/$side.stderr" </dev/null
        echo $? >"$work/$side.code"
        mv "$work/out" "$work/$side.dir"
    done
    runs=$((runs + 1))
    # JUnit's `time` attributes are how long each run took: the one thing that may differ.
    if [[ " $* " == *" junit "* ]]; then
        sed -i -E 's/ time="[0-9.]+"/ time="-"/g' "$work/old.stdout" "$work/new.stdout"
    fi
    local what
    for what in stdout stderr code; do
        if ! cmp -s "$work/old.$what" "$work/new.$what"; then
            differ=$((differ + 1))
            echo "DIFFERS ($what): ${*/BIN/ozone-conform}"
            return
        fi
    done
    if ! diff -r "$work/old.dir" "$work/new.dir" >/dev/null; then
        differ=$((differ + 1))
        echo "DIFFERS (written files): ${*/BIN/ozone-conform}"
    fi
}

check_all() {
    for f in json sarif concise json-lines; do
        same BIN check --all --format "$f" "$@"
    done
    same BIN check --format json "$@"
}

files=0
while IFS= read -r -d '' file; do
    files=$((files + 1))
    check_all "$file"
    same BIN events "$file"
done < <(find tests/fixtures -type f -print0 | sort -z)

dirs=0
while IFS= read -r -d '' dir; do
    dirs=$((dirs + 1))
    check_all "$dir"
    same BIN events "$dir"
    same BIN check --per-file --all --format json "$dir"
    same BIN check --per-file --all --format junit "$dir"
    for m in $models; do
        same BIN export --model "$m" --to itf "$dir"
        same BIN export --model "$m" --to tla -o OUTDIR "$dir"
    done
done < <(find tests/fixtures -type d -print0 | sort -z)

# The README's first example (a glob of one scenario's daemon logs).
readme=(tests/fixtures/scenarios/scm-secret-keys/violating/*.log)
check_all "${readme[@]}"
same BIN check "${readme[@]}"

echo "$files files, $dirs directories, the README example: $runs runs compared, $differ differ"
[ "$differ" -eq 0 ]
