#!/usr/bin/env bash
# Item 6 (first step): an SCM as its own JVM process, Ozone 2.2.0's daemon log4j layout (conf/log4j.properties), a
# real kill -9, a restart and a graceful SIGTERM. The log is target/daemon/logs/ozone-<user>-scm-<host>.log.
#   integrations/ozone-it/daemon/kill9.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
it="$(dirname "$here")"
out="$it/target/daemon"
rm -rf "$out"; mkdir -p "$out/logs"
(cd "$it" && mvn -B -q -T1 dependency:build-classpath -Dmdep.outputFile="$out/cp.txt" >/dev/null)
log="ozone-$(id -un)-scm-$(hostname).log"
java_scm() { # exec: run in the background, $! is the JVM itself (kill -9 must hit the JVM, not a subshell)
  exec java -Xmx512m -XX:+UseSerialGC \
    -Dlog4j.configuration="file:$here/conf/log4j.properties" \
    -Dhadoop.log.dir="$out/logs" -Dhadoop.log.file="$log" \
    -Dozone.conform.daemon.dir="$out" \
    -cp "$here/conf:$(cat "$out/cp.txt")" org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter "$@"
}
wait_for() { # pattern, seconds
  for _ in $(seq "$2"); do grep -q "$1" "$out/logs/$log" 2>/dev/null && return 0; sleep 1; done
  echo "timed out waiting for: $1" >&2; return 1
}
(java_scm --init > "$out/init.out" 2>&1)
(java_scm > "$out/run1.out" 2>&1) & pid=$!
wait_for "StorageContainerLocationProtocol RPC server is listening" 120
sleep 5
ps -o pid,args -p "$pid" | tail -1 | cut -c1-60
echo "kill -9 $pid"; kill -9 "$pid"; wait "$pid" 2>/dev/null || true
n_before=$(grep -c "" "$out/logs/$log")
(java_scm > "$out/run2.out" 2>&1) & pid=$!
for _ in $(seq 120); do [ "$(grep -c "StorageContainerLocationProtocol RPC server is listening" "$out/logs/$log")" -ge 2 ] && break; sleep 1; done
sleep 5
echo "kill -15 $pid"; kill -15 "$pid"; wait "$pid" 2>/dev/null || true
echo "log: $out/logs/$log ($(grep -c "" "$out/logs/$log") lines; the kill -9 at line $n_before)"
