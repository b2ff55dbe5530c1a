#!/usr/bin/env python3
"""Writes benchmark results into docs/benchmarks.md, each between its own pair of markers, replacing
that block's previous content and leaving the rest of the document as it is. A block whose markers
are not in the document yet is appended at its end.

    bench_report.py RESULT.json DOC              # a JMH JSON result file (scripts/run-benchmarks.sh)
    bench_report.py --runs OUTPUT.txt DOC        # the printed output of the interleaved runners
    bench_report.py --runs - DOC < OUTPUT.txt    # the same, read from standard input

JMH: one Markdown table per benchmark class, between <!-- jmh:CLASS:start --> and
<!-- jmh:CLASS:end -->, with scores and ratios to each class's baseline methods (those whose names
start with "baseline"). A method is compared with every baseline of the same class, parameters and
mode (a throughput is never divided by a latency); sample-time results also show their p50 and p99.
Below the table, the class's targets (JMH_TARGETS) with the figure of the run and met / not met.

Runs (--runs): the text that NatsCallInterleaved, TransportCallInterleaved redis|ws,
HttpGatewayInterleaved and ObservedExecuteInterleaved print, one runner's output after another or
with "=== LABEL RUNNER ..." lines between them; other lines (logging) are ignored. Each runner's
figures become a table with the ratio against its baseline, the target and met / not met, between
<!-- run:NAME:start --> and <!-- run:NAME:end -->, NAME being the runner (NatsCallInterleaved,
TransportCallInterleaved-redis, TransportCallInterleaved-ws, HttpGatewayInterleaved,
ObservedExecuteInterleaved). A target printed by the runner ("(target <= 1.2x)") wins over the one
in RUN_TARGETS. The run's date is --date, else the output file's modification date."""
import argparse
import datetime
import json
import os
import platform
import re
import sys
from collections import defaultdict

# The targets of the JMH classes (docs/benchmarks.md): (method, reference method or None, what is
# compared, operator, value). "ratio": score ÷ the reference's score; "p50 ratio": the same on p50s
# (sample mode); "extra us": score minus the reference's, in microseconds; "p50 extra us": the same
# on p50s; "us", "ms": the score itself in that unit.
JMH_TARGETS = {
    "SchemaBenchmark": [("castThenValidate", "baselineParse", "ratio", "<=", 3.0)],
    "ExecuteBenchmark": [("executeAsync", "baselineDirectCall", "extra us", "<=", 2.0)],
    "SubscribeBenchmark": [
        ("subscribeRange", "baselineSubmissionPublisher", "ratio", ">=", 0.7),
        ("subscribeSubmissionPublisher", "baselineSubmissionPublisher", "ratio", ">=", 0.7),
        ("subscribeEmitter", "baselineSubmissionPublisher", "ratio", ">=", 0.7),
    ],
    "CallRoundTripBenchmark": [("roundTrip", "baselineExecutorFuture", "p50 extra us", "<=", 10.0)],
    "SseParserBenchmark": [
        ("smallEvents", "baselineSmallEventsReadLine", "ratio", "<=", 1.5),
        ("longLine", "baselineLongLineReadLine", "ratio", "<=", 1.5),
    ],
    "OpenApiImportBenchmark": [
        ("importOperations", "swaggerParser", "ratio", "<=", 1.0),
        ("importOperations", None, "ms", "<=", 1000.0),
    ],
    "McpCallBenchmark": [
        ("operation", "baselineRawHttpPost", "p50 ratio", "<=", 1.3),
        ("operation", None, "p50 us", "<=", 1000.0),
    ],
    "McpServerBenchmark": [
        ("ourServer", "sdkServer", "p50 ratio", "<=", 0.8),
        ("ourServer16", "sdkServer16", "ratio", ">=", 1.0),
        ("ourServerModern", "ourServer", "p50 ratio", "<=", 1.1),
    ],
    "NatsCallBenchmark": [
        ("roundTrip", "baselineRawRequest", "p50 ratio", "<=", 1.2),
        ("sixtyFourInFlight", "baselineRawSixtyFourInFlight", "ratio", ">=", 0.8),
    ],
    "RedisCallBenchmark": [
        ("roundTrip", "baselineRawRequest", "p50 ratio", "<=", 1.2),
        ("sixtyFourInFlight", "baselineRawSixtyFourInFlight", "ratio", ">=", 0.8),
        ("catalogRoundTrip", "baselineRawRequest", "p50 ratio", "<=", 1.2),
        ("catalogSixtyFourInFlight", "baselineRawSixtyFourInFlight", "ratio", ">=", 0.8),
    ],
    "WebSocketCallBenchmark": [("roundTrip", "baselineRawEcho", "p50 ratio", "<=", 1.5)],
    "HttpGatewayBenchmark": [
        ("gatewayGet", "baselineBareJettyHandler", "p50 ratio", "<=", 1.3),
        ("gatewayPost", "baselineBareJettyHandler", "p50 ratio", "<=", 1.3),
    ],
    "HttpStreamBenchmark": [("gatewayStream", "baselineBareSseWriter", "ratio", ">=", 0.7)],
    "ObservedExecuteBenchmark": [
        ("executeWithMetricsAndNoopTracing", "executePlain", "extra us", "<=", 0.3),
        ("executeWithMetricsAndTracing", "executePlain", "extra us", "<=", 0.3),
    ],
}

# Targets of the interleaved runners' comparisons when the runner does not print one:
# (block name, measurement, measured name) -> (operator, value).
RUN_TARGETS = {
    ("NatsCallInterleaved", "unary p50", "call over NATS"): ("<=", 1.2),
    ("NatsCallInterleaved", "64 in flight", "call over NATS"): (">=", 0.8),
    ("TransportCallInterleaved-redis", "unary p50", "call over Redis"): ("<=", 1.2),
    ("TransportCallInterleaved-redis", "64 in flight", "call over Redis"): (">=", 0.8),
    ("TransportCallInterleaved-ws", "unary p50", "spoke → hub"): ("<=", 1.5),
    ("HttpGatewayInterleaved", "unary p50", "gateway GET"): ("<=", 1.3),
    ("HttpGatewayInterleaved", "unary p50", "gateway POST"): ("<=", 1.3),
    ("HttpGatewayInterleaved", "stream items/s", "gateway"): (">=", 0.7),
    # The extra nanoseconds over the plain call (median of each round's difference).
    ("ObservedExecuteInterleaved", "paired +ns", "metrics+tracing"): ("<=", 300.0),
}

RUNNERS = {
    "NatsCallInterleaved": "NatsCallInterleaved",
    "TransportCallInterleaved redis": "TransportCallInterleaved-redis",
    "TransportCallInterleaved ws": "TransportCallInterleaved-ws",
    "HttpGatewayInterleaved": "HttpGatewayInterleaved",
    "ObservedExecuteInterleaved": "ObservedExecuteInterleaved",
}

# The baseline's name in each runner's lines tells which runner printed them.
BASELINE_NAMES = {
    "raw jnats request": "NatsCallInterleaved",
    "raw Lettuce request": "TransportCallInterleaved-redis",
    "raw Jetty echo": "TransportCallInterleaved-ws",
    "bare Jetty handler": "HttpGatewayInterleaved",
}

SECONDS_PER_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


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


def replace_block(text, kind, name, lines):
    """Puts lines between <!-- kind:name:start --> and <!-- kind:name:end -->, or appends them."""
    start, end = f"<!-- {kind}:{name}:start -->", f"<!-- {kind}:{name}:end -->"
    block = start + "\n" + "\n".join(lines) + "\n" + end
    if start in text and end in text:
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        return head + block + tail
    return text.rstrip("\n") + "\n\n" + block + "\n"


def verdict(value, op, target):
    ok = value <= target if op == "<=" else value >= target
    return "met" if ok else "**not met**"


def fmt_target(op, value, suffix="×"):
    return f'{"≤" if op == "<=" else "≥"} {value:g}{suffix}'


# ---------------------------------------------------------------------------------------------
# JMH JSON


def jmh_value(r, p50):
    m = r["primaryMetric"]
    if p50:
        pct = m.get("scorePercentiles") or {}
        if r["mode"] == "sample" and "50.0" in pct:
            return pct["50.0"]
        return None
    return m["score"]


def in_unit(value, score_unit, unit):
    per = SECONDS_PER_UNIT.get(score_unit.split("/", 1)[0])
    return None if per is None else value * per / SECONDS_PER_UNIT[unit]


def jmh_target_lines(cls, rows):
    """One line per target of the class whose methods ran: the run's figure, met or not met."""
    by_method = {method: r for method, r in rows}
    out = []
    for method, ref, what, op, value in JMH_TARGETS.get(cls, []):
        r = by_method.get(method)
        base = by_method.get(ref) if ref else None
        if r is None or (ref and base is None):
            continue
        p50 = what.startswith("p50")
        label = f"`{method}`" + (" p50" if p50 else "")
        mine = jmh_value(r, p50)
        if mine is None:
            continue
        unit = r["primaryMetric"]["scoreUnit"]
        if what.endswith("ratio"):
            theirs = jmh_value(base, p50)
            if not theirs:
                continue
            ratio = mine / theirs
            out.append(
                f"- {label} {fmt_target(op, value)} `{ref}`: {ratio:.2f}×, {verdict(ratio, op, value)}"
            )
        elif what.endswith("extra us"):
            theirs = jmh_value(base, p50)
            extra = None if theirs is None else in_unit(mine - theirs, unit, "us")
            if extra is None:
                continue
            out.append(
                f"- {label} {fmt_target(op, value, ' µs')} over `{ref}`: "
                f"{extra:+.2f} µs, {verdict(extra, op, value)}"
            )
        else:
            target_unit = what.split()[-1]
            own = in_unit(mine, unit, target_unit)
            if own is None:
                continue
            shown = target_unit.replace("us", "µs")
            out.append(
                f"- {label} {fmt_target(op, value, ' ' + shown)}: {own:.1f} {shown}, "
                f"{verdict(own, op, value)}"
            )
    return (["", "Targets:", ""] + out) if out else []


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
        targets = []
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
            found = jmh_target_lines(cls, rows)
            if found and key != cls:
                found[1] = f"Targets ({key.split(' ', 1)[1]}):"
            targets += found
        text = replace_block(text, "jmh", cls, lines + targets)
    with open(doc, "w") as f:
        f.write(text)


# ---------------------------------------------------------------------------------------------
# The interleaved runners' printed output

UNARY = re.compile(r"^unary (.+?)\s+p50\s+([\d.]+) us\s+p90\s+([\d.]+) us(?:\s+p50 ratio ([\d.]+)x raw)?\s*$")
UNARY_RATIO = re.compile(r"^unary p50 ratio: ([\d.]+)x raw \(target (<=|>=) ([\d.]+)x\)\s*$")
HTTP_RATIO = re.compile(r"^unary p50 ratio: GET ([\d.]+)x, POST ([\d.]+)x the bare handler\s*$")
BATCH = re.compile(r"^64 in flight (.+?)\s+([\d.]+) calls/s(?: \(median batch (\d+) us\))?\s*$")
BATCH_RATIO = re.compile(r"^64 in flight throughput ratio: ([\d.]+)x raw \(target (<=|>=) ([\d.]+)x\)\s*$")
STREAM = re.compile(r"^stream items/s \(median stream\): bare SseWriter (\d+), gateway (\d+): ([\d.]+)x\s*$")
OBSERVED_HEADER = re.compile(r"^variant\s+ns/call\s+ratio\s+\+ns\s+paired ratio")
OBSERVED_ROW = re.compile(
    r"^(\S.*?)\s+(-?[\d.]+)\s+(-?[\d.]+|NaN)\s+(-?[\d.]+)\s+(-?[\d.]+|NaN)\s+(-?[\d.]+)"
    r"\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s*$"
)
HEADER = re.compile(r"^=== (.*)$")


def new_section(label=""):
    return {
        "label": label,
        "runner": None,
        "unary": [],
        "unary_target": None,
        "http_ratios": None,
        "batch": [],
        "batch_target": None,
        "stream": None,
        "observed": [],
    }


def runner_of_header(label):
    words = label.split()
    for i, word in enumerate(words):
        if word == "TransportCallInterleaved" and i + 1 < len(words):
            return RUNNERS.get(f"{word} {words[i + 1]}")
        if word in RUNNERS:
            return RUNNERS[word]
    return None


def parse_runs(text):
    """The runners' sections, in the order printed; lines nothing recognises are skipped."""
    sections = []
    current = None
    in_observed = False

    def section():
        nonlocal current
        if current is None:
            current = new_section()
            sections.append(current)
        return current

    for raw in text.splitlines():
        line = raw.rstrip()
        m = HEADER.match(line)
        if m:
            current = new_section(m.group(1).strip())
            current["runner"] = runner_of_header(current["label"])
            sections.append(current)
            in_observed = False
            continue
        if OBSERVED_HEADER.match(line):
            s = section()
            if s["runner"] not in (None, "ObservedExecuteInterleaved") or s["observed"]:
                current = new_section()
                sections.append(current)
                s = current
            s["runner"] = "ObservedExecuteInterleaved"
            in_observed = True
            continue
        if in_observed:
            m = OBSERVED_ROW.match(line)
            if m:
                section()["observed"].append(m.groups())
                continue
            in_observed = False
        m = UNARY_RATIO.match(line)
        if m:
            section()["unary_target"] = (float(m.group(1)), m.group(2), float(m.group(3)))
            continue
        m = HTTP_RATIO.match(line)
        if m:
            section()["http_ratios"] = (float(m.group(1)), float(m.group(2)))
            continue
        m = UNARY.match(line)
        if m:
            name = m.group(1).strip()
            runner = BASELINE_NAMES.get(name)
            s = section()
            if runner is not None:
                # A baseline's line starts a runner's output; a new section if this one is taken.
                if s["runner"] not in (None, runner) or s["unary"]:
                    current = new_section()
                    sections.append(current)
                    s = current
                s["runner"] = runner
            ratio = float(m.group(4)) if m.group(4) else None
            s["unary"].append((name, m.group(2), m.group(3), ratio))
            continue
        m = BATCH_RATIO.match(line)
        if m:
            section()["batch_target"] = (float(m.group(1)), m.group(2), float(m.group(3)))
            continue
        m = BATCH.match(line)
        if m:
            section()["batch"].append((m.group(1).strip(), float(m.group(2))))
            continue
        m = STREAM.match(line)
        if m:
            s = section()
            if s["runner"] is None:
                s["runner"] = "HttpGatewayInterleaved"
            s["stream"] = (float(m.group(1)), float(m.group(2)), float(m.group(3)))
            continue
    return [s for s in sections if s["runner"] and (s["unary"] or s["batch"] or s["stream"] or s["observed"])]


def pretty(name):
    return name.replace("->", "→")


def us(printed):
    """A time as the runner printed it (its precision kept), in µs."""
    return f"{printed} µs"


def target_cells(runner, measurement, measured, ratio, printed=None):
    if printed is not None:
        op, value = printed
    else:
        found = RUN_TARGETS.get((runner, measurement, measured))
        if found is None:
            return ["", ""]
        op, value = found
    return [fmt_target(op, value), verdict(ratio, op, value)]


def transport_rows(s):
    runner = s["runner"]
    rows = []
    if s["unary"]:
        base_name, base_p50, base_p90, _ = s["unary"][0]
        for i, (name, p50, p90, ratio) in enumerate(s["unary"][1:], start=1):
            ratio90 = float(p90) / float(base_p90)
            shown = pretty(name)
            if ratio is None and runner == "HttpGatewayInterleaved" and s["http_ratios"] and i <= 2:
                ratio = s["http_ratios"][i - 1]
            if ratio is None and s["unary_target"] and len(s["unary"]) == 2:
                ratio = s["unary_target"][0]
            if ratio is None:
                ratio = float(p50) / float(base_p50)
            printed = None
            if s["unary_target"] and len(s["unary"]) == 2:
                printed = (s["unary_target"][1], s["unary_target"][2])
            rows.append(
                [f"unary p50, {shown}", f"{pretty(base_name)}: {us(base_p50)}", us(p50), f"{ratio:.2f}×"]
                + target_cells(runner, "unary p50", shown, ratio, printed)
            )
            rows.append(
                [f"unary p90, {shown}", us(base_p90), us(p90), f"{ratio90:.2f}×", "", ""]
            )
    if len(s["batch"]) >= 2:
        (base_name, base_rate), (name, rate) = s["batch"][0], s["batch"][1]
        ratio = s["batch_target"][0] if s["batch_target"] else rate / base_rate
        printed = (s["batch_target"][1], s["batch_target"][2]) if s["batch_target"] else None
        rows.append(
            [
                f"64 in flight, {pretty(name)}",
                f"{pretty(base_name)}: {base_rate:,.0f} calls/s",
                f"{rate:,.0f} calls/s",
                f"{ratio:.2f}×",
            ]
            + target_cells(runner, "64 in flight", pretty(name), ratio, printed)
        )
    if s["stream"]:
        bare, gateway, ratio = s["stream"]
        rows.append(
            [
                "stream items/s (median stream), gateway",
                f"bare SseWriter: {bare:,.0f}",
                f"{gateway:,.0f}",
                f"{ratio:.2f}×",
            ]
            + target_cells(runner, "stream items/s", "gateway", ratio)
        )
    lines = [
        "| measurement | baseline (same run) | measured | ratio | target | status |",
        "|---|---:|---:|---:|---|---|",
    ]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def observed_rows(s):
    lines = [
        "| variant | ns/call | ratio | paired +ns | B/call | CPU ns/call | CPU paired +ns | target | status |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for name, ns, ratio, _extra, _pratio, pextra, bytes_, cpu, cpu_extra in s["observed"]:
        plain = name == "plain"
        cells = [name, f"{float(ns):,.0f}", f"{ratio}×", "" if plain else f"{float(pextra):+,.0f}",
                 f"{float(bytes_):,.0f}", f"{float(cpu):,.0f}", "" if plain else f"{float(cpu_extra):+,.0f}"]
        found = RUN_TARGETS.get(("ObservedExecuteInterleaved", "paired +ns", name))
        if found:
            op, value = found
            cells += [f'{"≤" if op == "<=" else "≥"} +{value:g} ns', verdict(float(pextra), op, value)]
        else:
            cells += ["", ""]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def runs(output_file, doc, date=None):
    if output_file == "-":
        text = sys.stdin.read()
        name = "standard input"
        date = date or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    else:
        with open(output_file) as f:
            text = f.read()
        name = os.path.basename(output_file)
        if date is None:
            mtime = os.path.getmtime(output_file)
            date = datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc).date().isoformat()
    sections = parse_runs(text)
    if not sections:
        sys.exit(f"{output_file}: no interleaved runner's output found")
    blocks = defaultdict(list)
    for s in sections:
        blocks[s["runner"]].append(s)
    doc_text = open(doc).read() if os.path.exists(doc) else "# Benchmarks\n"
    for runner, found in blocks.items():
        lines = []
        for s in found:
            if lines:
                lines.append("")
            label = f', "{s["label"]}"' if s["label"] else ""
            lines.append(f"Run of {date} ({name}{label}) on {machine()}.")
            lines.append("")
            lines += observed_rows(s) if runner == "ObservedExecuteInterleaved" else transport_rows(s)
        doc_text = replace_block(doc_text, "run", runner, lines)
        print(f"{runner}: {len(found)} run(s) written", file=sys.stderr)
    with open(doc, "w") as f:
        f.write(doc_text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description="Writes benchmark results into a document between markers (see the module's docstring)."
    )
    parser.add_argument("--runs", action="store_true", help="the input is the interleaved runners' printed output")
    parser.add_argument("--date", help="the run's date for --runs (default: the input file's modification date)")
    parser.add_argument("input", help="a JMH JSON result file, or with --runs the runners' output ('-': standard input)")
    parser.add_argument("doc", help="the document to write, e.g. docs/benchmarks.md")
    args = parser.parse_args()
    if args.runs:
        runs(args.input, args.doc, args.date)
    else:
        main(args.input, args.doc)
