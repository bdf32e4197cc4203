#!/usr/bin/env bash
# Builds the seed corpora fuzz/corpus/<target>/ from the repository's fixtures and, where it exists,
# ../shared/corpus/. The corpora are not committed (.gitignore): ../shared files never enter the repository.
# Needs a built ozone-conform (target/release or target/debug) for the layout patterns and the ITF seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=fuzz/corpus
shared=../shared/corpus
# The newer of the two builds: a stale one writes another event stream version than the targets read.
bin=$(ls -t target/release/ozone-conform target/debug/ozone-conform 2>/dev/null | head -n 1 || true)
[ -n "$bin" ] || { echo "seed.sh: build ozone-conform first (cargo build)" >&2; exit 2; }

# Seeds stay small: libFuzzer mutates faster on short inputs, and a log's first lines hold its layout.
max=16384
mkdir -p "$out"/{scan,layout_pattern,grammar_file,tlc_text,simulate,dump_json,itf,event_lines,event_stream,generated_logs,healthy_behaviour}

put() { # put TARGET NAME < bytes
  local dest="$out/$1/$(printf '%s' "$2" | tr '/ ' '__')"
  head -c "$max" > "$dest"
  # Read the rest: a writer cut off by head dies of SIGPIPE, which pipefail makes this script's failure.
  cat > /dev/null
}

logs() {
  find tests/fixtures/logs tests/fixtures/scenarios tests/fixtures/lifecycle tests/fixtures/surefire \
    -type f \( -name '*.log' -o -name '*.log.*' -o -name '*-output.txt' -o -name '*.out' \) ! -name '*.gz'
  [ -d "$shared/ozone-logs" ] && find "$shared/ozone-logs" -type f -name '*.log'
  return 0
}

n=0
while IFS= read -r f; do
  n=$((n + 1))
  # scan: byte 0 = layout (0 detects), byte 1 = block size; seed with detection and small blocks.
  { printf '\x00\x05'; cat "$f"; } | put scan "$f"
  put event_lines "$f" < "$f"
  # event_stream: what `events` writes for the log (a cut one, past the seed size, is a seed as well).
  "$bin" events "$f" 2>/dev/null | put event_stream "$f" || true
  # layout_pattern: the pattern the scanner detected, then the log.
  pattern=$("$bin" stats --format json "$f" 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print((d.get("inputs") or d)[0].get("pattern") or "")' 2>/dev/null || true)
  if [ -n "$pattern" ]; then
    { printf '%s\n' "$pattern"; cat "$f"; } | put layout_pattern "$f"
  fi
done < <(logs)

for f in grammars/*.rules fuzz/seeds/grammar_file/*; do
  [ -f "$f" ] && put grammar_file "$f" < "$f"
done
# One rule a seed as well: a whole grammar file takes milliseconds to load, one rule far less.
for f in grammars/*.rules; do
  awk -v dir="$out/grammar_file" -v base="$(basename "$f" .rules)" '
    /^component / { component = $0 }
    /^event / { n++; file = sprintf("%s/%s-rule-%03d", dir, base, n); if (component != "") print component > file }
    n > 0 && !/^#/ { print > file }
  ' "$f"
done

while IFS= read -r f; do
  put tlc_text "$f" < "$f"
done < <(find traces tests/fixtures/traces -type f -name '*.out'; [ -d "$shared/tlc" ] && find "$shared/tlc" -name '*.out'; true)

while IFS= read -r f; do
  put simulate "$f" < "$f"
done < <(find traces -type f -path '*/simulate/trace_*')

while IFS= read -r f; do
  put dump_json "$f" < "$f"
done < <(find traces tests/fixtures/traces -type f -name '*.dump.json' -o -name 'dump-*.json')

# ITF: the shared Apalache/Quint traces, and our own conversions of the shipped TLC traces.
[ -d "$shared/tlc" ] && for f in "$shared"/tlc/*.itf.json; do put itf "$f" < "$f"; done
for f in traces/*/tlc/bug.out traces/*/tlc/*.dump.json traces/*/tlc/simulate/trace_0_0; do
  "$bin" convert "$f" 2>/dev/null | put itf "converted-$f" || true
done

for d in fuzz/seeds/*/; do
  t=$(basename "$d")
  [ "$t" = grammar_file ] && continue
  for f in "$d"*; do [ -f "$f" ] && put "$t" "own-$f" < "$f"; done
done

# generated_logs and healthy_behaviour read their bytes as decisions: seeded random bytes, long enough for
# a log of a few hundred records (libFuzzer would grow its inputs from 4 bytes only slowly) or for a seed.
for i in $(seq 1 32); do
  python3 -c "import random,sys; random.seed($i); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(random.randrange(500, 6000))))" |
    put generated_logs "random-$i"
  python3 -c "import random,sys; random.seed($i); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(24)))" |
    put healthy_behaviour "random-$i"
done

for t in "$out"/*/; do
  printf '%-16s %4d seeds\n' "$(basename "$t")" "$(find "$t" -type f | wc -l)"
done
echo "($n logs)"
