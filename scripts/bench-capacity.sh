#!/usr/bin/env bash
# Serving capacity (issue 31): K open SSE streams, MCP sessions and hub connections on our servers,
# each side by side in the same run with a bare Jetty server holding the same K connections, on
# the default JDK and on Temurin 25. Each server runs in a JVM of its own with -Xmx1g; the table
# (unary p50/p99 while they are open, RSS and threads per connection, pass/fail per target) is
# printed and written to bench-results/capacity-jdkN-*.md; the integrator copies it to
# docs/benchmarks.md.
#
#   scripts/bench-capacity.sh                      # K = 1,000 and 10,000, every surface
#   K=1000 SURFACES=streams scripts/bench-capacity.sh
#   K=10000 SURFACES=streams REPEATS=3 scripts/bench-capacity.sh   # verdicts on the medians
set -euo pipefail
cd "$(dirname "$0")/.."

jar=operations-benchmarks/target/benchmarks.jar
if [ ! -f "$jar" ] || [ -n "$(find operations-*/src -newer "$jar" -name '*.java' -print -quit)" ]; then
  mvn -B -q package -DskipTests -Dspotless.check.skip=true -pl operations-benchmarks -am
fi

k="${K:-1000,10000}"
surfaces="${SURFACES:-streams,sessions,hub}"
seconds="${UNARY_SECONDS:-10}"
repeats="${REPEATS:-1}"
run() {
  "$1" -cp "$jar" dev.alkdev.operations.benchmarks.CapacityRun "$k" "$surfaces" "$seconds" "$repeats"
}

run java
temurin=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
if [ -x "$temurin" ]; then
  run "$temurin"
fi
