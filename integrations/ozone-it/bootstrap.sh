#!/usr/bin/env bash
# Installs into the local Maven repository the POMs of Ozone 2.2.0 that Maven Central lacks.
# org.apache.ozone:hdds-hadoop-dependency-client:2.2.0 (the parent POM of hdds-common, ozone-client, ...) is
# not on Central (404; 2.1.0 is). The file in poms/ is hadoop-hdds/hadoop-dependency-client/pom.xml of the
# ozone-2.2.0 tag, byte for byte.
set -euo pipefail
cd "$(dirname "$0")"
repo="${MAVEN_LOCAL_REPO:-$HOME/.m2/repository}"
dest="$repo/org/apache/ozone/hdds-hadoop-dependency-client/2.2.0"
if [ ! -f "$dest/hdds-hadoop-dependency-client-2.2.0.pom" ]; then
  mkdir -p "$dest"
  cp poms/hdds-hadoop-dependency-client-2.2.0.pom "$dest/"
  rm -f "$dest"/*.lastUpdated
fi
