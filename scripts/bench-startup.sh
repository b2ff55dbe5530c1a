#!/usr/bin/env bash
# Start-up time of `ops list` with only the demo source, against a baseline in the same run: a JVM
# started on the same jar running a main that does nothing (dev.alkdev.operations.cli.internal.Noop).
# Prints both wall times and their ratio; the integrator copies the figures to docs/benchmarks.md.
#
#   scripts/bench-startup.sh          # 20 runs each (hyperfine if installed, else a bash loop)
#   RUNS=5 scripts/bench-startup.sh   # fewer runs, for a quick check
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-20}"
jar=operations-cli/target/ops.jar
if [ ! -f "$jar" ] || [ -n "$(find operations-schema/src/main operations-core/src/main operations-cli/src/main -newer "$jar" -type f -print -quit)" ]; then
  mvn -B -q -Dstyle.color=never -pl operations-cli -am package -DskipTests -Dspotless.check.skip=true
fi

baseline=(java -cp "$jar" dev.alkdev.operations.cli.internal.Noop)
plain=(java -jar "$jar" list --no-color)
# The launcher: C1 only and a class-data-sharing archive (made on its first run, here).
launcher=(./ops list --no-color)
./ops --version >/dev/null
# No user configuration: only the demo source is loaded.
export OPS_CONFIG=
export HOME="$(mktemp -d)"
trap 'rm -rf "$HOME"' EXIT

if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --warmup 3 --runs "$runs" -N --export-json "$HOME/startup.json" \
    -n baseline "${baseline[*]}" -n "java -jar ops.jar list" "${plain[*]}" \
    -n "./ops list" "${launcher[*]}" >&2
  python3 - "$HOME/startup.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
b = r["baseline"]["mean"]
print(f"baseline (JVM + Noop):           {b*1000:.0f} ms")
for name in ("java -jar ops.jar list", "./ops list"):
    m = r[name]["mean"]
    print(f"{name + ' (demo only):':32s} {m*1000:.0f} ms  ratio {m/b:.2f}x")
PY
  exit 0
fi

# Without hyperfine: the mean of N runs each, after 3 warm-up runs, interleaved so both see the
# same machine load.
measure() { # prints nanoseconds of one run of "$@"
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  echo $((end - start))
}
for _ in 1 2 3; do "${baseline[@]}" >/dev/null; "${plain[@]}" >/dev/null; "${launcher[@]}" >/dev/null; done
total_b=0
total_p=0
total_l=0
for _ in $(seq "$runs"); do
  total_b=$((total_b + $(measure "${baseline[@]}")))
  total_p=$((total_p + $(measure "${plain[@]}")))
  total_l=$((total_l + $(measure "${launcher[@]}")))
done
echo "runs: $runs each (bash loop; install hyperfine for spread figures)"
echo "baseline (JVM + Noop):            $((total_b / runs / 1000000)) ms"
awk -v p="$total_p" -v l="$total_l" -v b="$total_b" -v n="$runs" 'BEGIN {
  printf "java -jar ops.jar list (demo only): %d ms  ratio %.2fx\n", p / n / 1e6, p / b
  printf "./ops list (demo only):             %d ms  ratio %.2fx\n", l / n / 1e6, l / b
}'
