#!/usr/bin/env bash
# Runs named scenarios on a real MiniOzoneCluster (Apache Ozone 2.2.0 from Maven Central), keeps each scenario's
# logs in MiniOzoneCluster's surefire layout, checks them with ozone-conform and prints one table.
#
#   integrations/ozone-it/run.sh SCENARIO...        # or `all`, or `ci` (keys-healthy dn-bug)
#   integrations/ozone-it/run.sh --fixtures SCENARIO...   # also write tests/fixtures/real-ozone/<scenario>/
#
# Exit status: 0 when every scenario's Java side passed and every verdict is the expected one; 1 otherwise.
# Environment: OZONE_CONFORM (the binary; default target/debug/ozone-conform, built if missing),
#              SCENARIO_TIMEOUT (seconds per scenario, default 900), MVN (default mvn).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
MVN="${MVN:-mvn}"
SCENARIO_TIMEOUT="${SCENARIO_TIMEOUT:-900}"

# scenario -> test class, expected verdict of its own model (model=verdict[:invariant|invariant])
declare -A CLASS=(
  [keys-healthy]=TestKeysHealthy [keys-bug]=TestKeysBug
  [dn-healthy]=TestDnHealthy [dn-bug]=TestDnBug
  [recon-healthy]=TestReconHealthy [recon-bug]=TestReconBug
  [finalization-2.2.0]=TestFinalization220
)
declare -A EXPECT=(
  [keys-healthy]="scm-secret-keys=conforms"
  [keys-bug]="scm-secret-keys=violated:KeyFileCoversDb|NoUnexpiredKeyDropped"
  [dn-healthy]="dn-finalize-block=conforms"
  [dn-bug]="dn-finalize-block=violated:NoPutBlockAfterFinalize"
  [recon-healthy]="recon-om-sync=conforms"
  [recon-bug]="recon-om-sync=violated:DerivedTasksMatchOmLineage"
  [finalization-2.2.0]="scm-finalization=not-violated"
)
ALL=(keys-healthy keys-bug dn-healthy dn-bug recon-healthy recon-bug finalization-2.2.0)
CI=(keys-healthy dn-bug)

fixtures=0
scenarios=()
for a in "$@"; do
  case "$a" in
    --fixtures) fixtures=1 ;;
    all) scenarios+=("${ALL[@]}") ;;
    ci) scenarios+=("${CI[@]}") ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) if [ -z "${CLASS[$a]:-}" ]; then echo "unknown scenario: $a (known: ${ALL[*]})" >&2; exit 2; fi
       scenarios+=("$a") ;;
  esac
done
[ ${#scenarios[@]} -gt 0 ] || { sed -n '2,12p' "$0"; exit 2; }

command -v "$MVN" >/dev/null 2>&1 || { echo "SKIPPED: real-Ozone scenarios (no mvn)"; exit 0; }
command -v java >/dev/null 2>&1 || { echo "SKIPPED: real-Ozone scenarios (no java)"; exit 0; }

BIN="${OZONE_CONFORM:-$repo/target/debug/ozone-conform}"
if [ ! -x "$BIN" ]; then
  (cd "$repo" && cargo build --locked --quiet) || { echo "cannot build ozone-conform" >&2; exit 1; }
fi

"$here/bootstrap.sh"
runs="$here/target/runs"
mkdir -p "$runs"
status=0
rows=()
for sc in "${scenarios[@]}"; do
  cls="org.apache.ozone.conform.${CLASS[$sc]}"
  out="$runs/$sc"
  rm -rf "$out" "$here/target/surefire-reports/$cls"* "$here/target/scenario-results/$sc.txt"
  mkdir -p "$out/surefire-reports"
  echo "== $sc: mvn test -Dtest=${CLASS[$sc]} (timeout ${SCENARIO_TIMEOUT}s)" >&2
  start=$(date +%s)
  (cd "$here" && timeout --kill-after=30 "$SCENARIO_TIMEOUT" "$MVN" -B -T1 test -Dtest="${CLASS[$sc]}" \
      -Dscenario.results.dir="$here/target/scenario-results") > "$out/mvn.log" 2>&1
  mvn_rc=$?
  secs=$(( $(date +%s) - start ))
  cp "$here/target/surefire-reports/$cls-output.txt" "$out/surefire-reports/" 2>/dev/null
  cp "$here/target/surefire-reports/$cls.txt" "$out/surefire-reports/" 2>/dev/null
  cp "$here/target/scenario-results/$sc.txt" "$out/result.txt" 2>/dev/null || printf 'reproduced=?\nthe Java side wrote no result (mvn rc %s)\n' "$mvn_rc" > "$out/result.txt"
  log="$out/surefire-reports/$cls-output.txt"
  if [ -f "$log" ]; then
    "$BIN" check --format json "$log" > "$out/check.json" 2> "$out/check.stderr"
    echo $? > "$out/check.rc"
  else
    echo '{}' > "$out/check.json"
  fi
  cat > "$out/manifest.txt" <<EOF
ozone_version: 2.2.0 (org.apache.ozone:ozone-mini-cluster:2.2.0 and the server jars, Maven Central)
scenario: $sc
test_class: $cls
command: integrations/ozone-it/run.sh $sc  (mvn -B -T1 test -Dtest=${CLASS[$sc]})
date: $(date -u +%Y-%m-%dT%H:%M:%SZ)
duration_seconds: $secs
mvn_exit: $mvn_rc
log4j: integrations/ozone-it/src/test/resources/log4j.properties (Ozone 2.2.0 integration-test's, plus DEBUG loggers)
host: $(uname -sm), $(nproc) cores, $(java -version 2>&1 | head -1)
EOF
  if [ "$fixtures" = 1 ] && [ -f "$log" ]; then
    fx="$repo/tests/fixtures/real-ozone/$sc"
    rm -rf "$fx"; mkdir -p "$fx/surefire-reports"
    gzip -9 -n -c "$log" > "$fx/surefire-reports/$cls-output.txt.gz"
    cp "$out/manifest.txt" "$out/result.txt" "$fx/"
  fi
  row=$(python3 - "$sc" "${EXPECT[$sc]}" "$out" "$mvn_rc" "$secs" <<'PY'
import json, sys, os
sc, expect, out, mvn_rc, secs = sys.argv[1:6]
res = open(os.path.join(out, "result.txt")).read().splitlines()
repro = res[0].split("=", 1)[1] if res else "?"
summary = res[1] if len(res) > 1 else ""
try:
    doc = json.load(open(os.path.join(out, "check.json")))
except Exception:
    doc = {}
models = {m["model"]: m for m in doc.get("models", [])}
emodel, rest = expect.split("=", 1)
everdict, _, einv = rest.partition(":")
ok = mvn_rc == "0"
cells = []
for name in ["scm-secret-keys", "scm-finalization", "dn-finalize-block", "recon-om-sync"]:
    m = models.get(name)
    if m is None:
        cells.append("-"); continue
    v = m["verdict"]
    cell = v
    if m.get("violations"):
        first = m["violations"][0]
        cell += " %s@%s" % (first.get("invariant"), first.get("primary", {}).get("line"))
    if name == emodel:
        if everdict == "not-violated":
            good = v != "violated"
        else:
            good = v == everdict
            if good and einv:
                good = any(x.get("invariant") in einv.split("|") for x in m.get("violations", []))
        if not good:
            ok = False
            cell = "!" + cell
    elif v == "violated":
        ok = False
        cell = "!" + cell
    cells.append(cell)
java = "java=%s reproduced=%s" % ("pass" if mvn_rc == "0" else "FAIL(rc %s)" % mvn_rc, repro)
print("\t".join([sc, java, secs + "s"] + cells + ["OK" if ok else "FAIL", summary]))
PY
)
  rows+=("$row")
  case "$row" in *$'\tOK\t'*) ;; *) status=1 ;; esac
  echo "$row" >&2
done

printf '\n%s\n' "scenario | java side | time | scm-secret-keys | scm-finalization | dn-finalize-block | recon-om-sync | expected? | java summary"
printf '%s\n' "---|---|---|---|---|---|---|---|---"
for r in "${rows[@]}"; do printf '%s\n' "${r//$'\t'/ | }"; done
exit $status
