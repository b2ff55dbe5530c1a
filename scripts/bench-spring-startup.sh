#!/usr/bin/env bash
# Start-up cost of the Spring Boot starter: the example application (operations-examples/spring-app)
# started on the same class path, interleaved in one run, three ways:
#   baseline     the starter's auto-configuration excluded (the same jars on the class path)
#   starter      the registry filled (annotated bean, OpenAPI document), nothing served
#   full         the same, with the HTTP gateway and the MCP server on their ports
# Each start's figure is Boot's own "process running for" when the application is ready; the
# process is then stopped. Prints the medians and the ratios to the baseline; the figures are
# copied to docs/benchmarks.md by hand.
#
#   scripts/bench-spring-startup.sh          # 10 runs each, after 2 warm-up rounds
#   RUNS=3 scripts/bench-spring-startup.sh   # fewer, for a quick check
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-10}"
app=operations-examples/spring-app
mvn -B -q -Dstyle.color=never -f "$app/pom.xml" compile dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt
classpath="$app/target/classes:$(cat "$app/target/classpath.txt")"

python3 - "$runs" "$classpath" <<'PY'
import re, statistics, subprocess, sys

runs, classpath = int(sys.argv[1]), sys.argv[2]
common = ["--server.port=0", "--operations.http.port=0", "--operations.mcp.port=0",
          "--spring.main.banner-mode=off"]
variants = {
    "baseline": common + ["--spring.autoconfigure.exclude="
                          "dev.alkdev.operations.spring.boot.OperationsAutoConfiguration"],
    "starter": common + ["--operations.http.enabled=false", "--operations.mcp.enabled=false"],
    "full": common,
}
started = re.compile(r"Started ShopApplication in ([0-9.]+) seconds \(process running for ([0-9.]+)\)")

def start(args):
    process = subprocess.Popen(["java", "-cp", classpath, "example.shop.ShopApplication"] + args,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in process.stdout:
            match = started.search(line)
            if match:
                return float(match.group(2)) * 1000
            if "APPLICATION FAILED TO START" in line:
                raise SystemExit("the application failed to start: " + " ".join(args))
        raise SystemExit("the application ended before it was ready: " + " ".join(args))
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

times = {name: [] for name in variants}
for round in range(2 + runs):
    for name, args in variants.items():
        ms = start(args)
        if round >= 2:
            times[name].append(ms)

base = statistics.median(times["baseline"])
print(f"runs per variant: {runs} (interleaved, after 2 warm-up rounds); JVM {subprocess.run(['java', '-version'], capture_output=True, text=True).stderr.splitlines()[0]}")
print(f"{'variant':10s} {'median ms':>10s} {'min ms':>8s} {'max ms':>8s} {'vs baseline':>12s}")
for name in variants:
    t = times[name]
    m = statistics.median(t)
    extra = "" if name == "baseline" else f"+{m - base:.0f} ms, {m / base:.2f}x"
    print(f"{name:10s} {m:10.0f} {min(t):8.0f} {max(t):8.0f} {extra:>12s}")
PY
