#!/usr/bin/env python3
"""Turns a JMH JSON result file into Markdown tables of scores and ratios to each class's
baseline methods (those whose names start with "baseline"), and writes each benchmark class's
table into a document between the markers <!-- jmh:CLASS:start --> and <!-- jmh:CLASS:end -->,
replacing that class's previous table and leaving the others as they are.

A method is compared with every baseline of the same class, parameters and mode (a throughput is
never divided by a latency); sample-time results also show their p50 and p99."""
import json
import os
import platform
import subprocess
import sys
from collections import defaultdict



def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def main(result_file, doc):
    with open(result_file) as f:
        results = json.load(f)
    by_class = defaultdict(list)
    jvm = ""
    for r in results:
        cls, method = r["benchmark"].rsplit(".", 1)
        params = r.get("params") or {}
        key = cls.rsplit(".", 1)[1] + ("" if not params else " " + ",".join(f"{k}={v}" for k, v in sorted(params.items())))
        by_class[key].append((method, r))
        jvm = f'{r.get("vmName", "")} {r.get("jdkVersion", "")}'.strip()
    header = f"Run {os.path.basename(result_file)} on {machine()}; JVM: {jvm}."
    text = open(doc).read() if os.path.exists(doc) else "# Benchmarks\n"
    classes = sorted({k.split(" ", 1)[0] for k in by_class})
    for cls in classes:
        lines = [
            header,
            "",
            "| benchmark | method | mode | score | error | unit | p50 / p99 | ratio to baseline |",
            "|---|---|---|---:|---:|---|---:|---|",
        ]
        for key in sorted(k for k in by_class if k.split(" ", 1)[0] == cls):
            rows = by_class[key]
            for method, r in sorted(rows, key=lambda mr: (not mr[0].startswith("baseline"), mr[0])):
                m = r["primaryMetric"]
                ratios = []
                if not method.startswith("baseline"):
                    for base_method, base in rows:
                        if base_method.startswith("baseline") and base["mode"] == r["mode"] and base["primaryMetric"]["score"]:
                            ratios.append(f'{m["score"] / base["primaryMetric"]["score"]:.2f}× {base_method}')
                err = m.get("scoreError")
                err_s = "" if err is None or err != err else f"{err:.1f}"
                pct = m.get("scorePercentiles") or {}
                pcts = ""
                if r["mode"] == "sample" and "50.0" in pct:
                    pcts = f'{pct["50.0"]:.1f} / {pct.get("99.0", float("nan")):.1f}'
                lines.append(
                    f'| {key} | {method} | {r["mode"]} | {m["score"]:.1f} | {err_s} | {m["scoreUnit"]} | {pcts} | {"; ".join(ratios)} |'
                )
        start, end = f"<!-- jmh:{cls}:start -->", f"<!-- jmh:{cls}:end -->"
        block = start + "\n" + "\n".join(lines) + "\n" + end
        if start in text and end in text:
            head, rest = text.split(start, 1)
            _, tail = rest.split(end, 1)
            text = head + block + tail
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(doc, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
