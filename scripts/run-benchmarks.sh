#!/usr/bin/env bash
# Runs the JMH benchmarks and writes their results, as ratios to each benchmark's in-run baseline,
# into docs/benchmarks.md (between the generated-results markers).
#
#   scripts/run-benchmarks.sh                 # every benchmark, default settings
#   scripts/run-benchmarks.sh SchemaBenchmark # only the classes whose name matches
#   QUICK=1 scripts/run-benchmarks.sh ...     # 1 fork, short iterations: a smoke run, not figures
#
# Every benchmark class names its baseline with a method whose name starts with "baseline";
# the report divides every other method's score by it.
set -euo pipefail
cd "$(dirname "$0")/.."

jar=operations-benchmarks/target/benchmarks.jar
if [ ! -f "$jar" ] || [ -n "$(find operations-*/src -newer "$jar" -name '*.java' -print -quit)" ]; then
  mvn -B -q package -DskipTests -Dspotless.check.skip=true -pl operations-benchmarks -am
fi

mkdir -p bench-results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="bench-results/jmh-$stamp.json"
args=(-rf json -rff "$out")
if [ "${QUICK:-0}" = 1 ]; then
  args+=(-f 1 -wi 2 -i 3 -w 1 -r 1)
fi

java -jar "$jar" "${args[@]}" "$@"
python3 scripts/bench_report.py "$out" docs/benchmarks.md
echo "results: $out; table written to docs/benchmarks.md"
