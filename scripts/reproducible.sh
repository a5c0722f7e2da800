#!/usr/bin/env bash
# Builds the published artifacts twice from this checkout, each time from clean into its own output
# folder (the build's weir-build.target property), and compares the jars byte for byte. Prints one line per
# jar and exits non-zero when any differs. Run from the repository root:
#   scripts/reproducible.sh
# (about two minutes on a 2-core machine; no tests run). Same JDK and Maven for both builds, as a
# rebuilder would use: a reproducible build is one that gives the same bytes from the same inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=core,autoconfigure,kotlin,starter,test
for run in a b; do
  mvn -B -ntp -q -Prelease -Dexec.skip -Dgpg.skip -DskipTests -Dweir-build.target=target-repro-$run \
    -pl "$modules" clean package >/dev/null
done
status=0
for module in ${modules//,/ }; do
  for jar in "$module"/target-repro-a/*.jar; do
    other="$module/target-repro-b/$(basename "$jar")"
    a=$(sha256sum "$jar" | cut -d' ' -f1)
    b=$(sha256sum "$other" | cut -d' ' -f1)
    if [ "$a" = "$b" ]; then
      echo "identical  $a  $(basename "$jar")"
    else
      echo "DIFFERENT  $a $b  $(basename "$jar")"
      status=1
    fi
  done
done
rm -rf ./*/target-repro-a ./*/target-repro-b
exit $status
