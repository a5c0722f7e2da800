#!/usr/bin/env python3
"""Turns JMH JSON results (-prof gc -rf json) of CoreEntryBenchmark and AnnotationBenchmark into a
Markdown table.

Usage: report.py --out latest.md [--label QUICK] [--java java] [--params "..."]
                 [--expected list.txt --threads "1 2"] result.json...

With --expected (the output of `java -jar weir-benchmarks.jar -l`), every listed benchmark without a
result at one of --threads gets a FAILED row, and the exit status is 3 (after the table is written).

Benchmarks are named <case>_<engine>; each row is compared with weir's row of the same case and
thread count ("x Weir" = score / Weir's score, so 2.00x means twice as slow as Weir). A "Targets"
section then checks issue 12's, issue 7's and issue 3's ratios: Weir's score / the other's, against a limit.
"""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys

ENGINES = ["plain", "noopAspect", "weir", "weirResource", "weirPrecise", "sentinel", "resilience4j", "bucket4j", "guava"]
CASES = {
    "qps": "rate rule, never refuses (entry + close)",
    "rejected": "every call refused (count 0 / exhausted limiter)",
    "threads": "concurrency rule, never refuses",
    "adaptive": "adaptive concurrency rule (issue 27), never refuses",
    "warmUp": "warm-up rule at a rate never reached",
    "queue": "pacing rule (queue / rate limiter) at a rate never reached",
    "noRule": "resource without rules",
    "rejectedTry": "every call refused, answered by `tryEntry` with null (no exception)",
    "annotation": "an annotated `String hello(String)` of a Spring bean, called through its CGLIB proxy "
                  "(one Spring Boot application per engine; rules never refuse)",
}
CALLS = {
    "weir": "`weir.entry(res)` + `close()` (`rejectedTry`: `weir.tryEntry(res, OUT, 1)`) on the default engine: "
            "its own 1 ms clock, read from a field",
    "weirResource": "the same through a handle resolved once: `resource.entry()` + `close()` "
                    "(`rejectedTry`: `resource.tryEntry(OUT, 1)`)",
    "weirPrecise": "`weir.entry(res)` + `close()` on an engine built with `clockResolution(ZERO)`: the ticker "
                   "read at entry and at close (the default before issue 38)",
    "sentinel": "`SphU.entry(res)` + `exit()` (rules via `FlowRuleManager.loadRules`)",
    "resilience4j": "`RateLimiter.acquirePermission()` (atomic limiter, timeout 0)",
    "bucket4j": "`Bucket.tryConsume(1)` (local lock-free bucket)",
    "guava": "`RateLimiter.tryAcquire()`",
}
ANNOTATION_CALLS = {
    "plain": "the same method on a bean without any proxy (baseline of the call itself)",
    "noopAspect": "an AspectJ `@Around` advice that only calls `proceed()`, via Boot's auto-proxy creator",
    "weir": "`@RateLimited`, applied by `weir-spring-boot-autoconfigure`'s advisor; rule from "
            "`weir.flow[0].*` properties",
    "sentinel": "`@SentinelResource` with Sentinel's `SentinelResourceAspect` bean "
                "(`sentinel-annotation-aspectj`); rule via `FlowRuleManager.loadRules`",
    "resilience4j": "`@RateLimiter` with `resilience4j-spring6`'s `RateLimiterAspect` "
                    "(its `RateLimiterConfiguration`, `FallbackConfiguration`, `SpelResolverConfiguration`)",
}
# (case, other engine, limit of Weir's score / the other's score, where the target comes from)
TARGETS = [
    ("qps", "resilience4j", 1.6, "issue 12: core entry+close <= 1.6x Resilience4j's `acquirePermission` (1 thread)", {1}),
    ("rejected", "resilience4j", 1.0, "issue 12: a rejection <= Resilience4j's rejection", None),
    ("qps", "sentinel", 0.2, "issue 7: core entry+exit <= 0.2x Sentinel's"),
    ("rejected", "sentinel", 0.1, "issue 7: a rejection <= 0.1x Sentinel's"),
    ("annotation", "noopAspect", 1.25, "issue 3: `@RateLimited` <= 1.25x a no-op `@Around` aspect"),
    ("annotation", "sentinel", 0.3, "issue 7: `@RateLimited` <= 0.3x `@SentinelResource`"),
    ("annotation", "resilience4j", 0.3, "issue 7: `@RateLimited` <= 0.3x Resilience4j's `@RateLimiter`"),
]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def java_version(java):
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
        return out.stderr.strip() or out.stdout.strip()
    except OSError as e:
        return "unknown (%s)" % e


def git_revision():
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "core", "autoconfigure"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + (" (core/ or autoconfigure/ has uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def fmt_num(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.2f" % v


def fmt_bytes(v):
    if v is None or math.isnan(v):
        return "n/a"
    if v < 0.5:
        return "%.3f" % v
    return "%.1f" % v


def seconds(time_text):
    """JMH writes times as '2 s', '500 ms', ..."""
    value, unit = time_text.split()
    return float(value) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "min": 60}[unit]


def load(paths):
    rows = {}
    meta = None
    for path in paths:
        with open(path) as f:
            results = json.load(f)
        for r in results:
            name = r["benchmark"].rsplit(".", 1)[1]
            case, _, engine = name.partition("_")
            threads = r["threads"]
            primary = r["primaryMetric"]
            secondary = r.get("secondaryMetrics", {})
            alloc = secondary.get("gc.alloc.rate.norm", {}).get("score")
            raw = secondary.get("gc.alloc.rate.norm", {}).get("rawData") or []
            fork_alloc = [sum(f) / len(f) for f in raw if f]
            refused = secondary.get("refused", {}).get("score")
            ops = None
            if primary["score"] > 0:
                measured = r["forks"] * r["measurementIterations"] * seconds(r["measurementTime"])
                ops = threads * measured * 1e9 / primary["score"]
            rows[(threads, case, engine)] = {
                "score": primary["score"],
                "error": primary["scoreError"] if isinstance(primary["scoreError"], float) else float("nan"),
                "unit": primary["scoreUnit"],
                "alloc": alloc,
                "forkAlloc": fork_alloc,
                "refused": refused,
                "ops": ops,
                "benchmark": r["benchmark"],
            }
            meta = meta or r
    return rows, meta


def sort_key(key):
    threads, case, engine = key
    c = list(CASES).index(case) if case in CASES else len(CASES)
    e = ENGINES.index(engine) if engine in ENGINES else len(ENGINES)
    return threads, c, case, e, engine


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--label", default="")
    ap.add_argument("--java", default="java")
    ap.add_argument("--params", default="")
    ap.add_argument("--expected", help="file listing the benchmarks that should have run (jmh -l)")
    ap.add_argument("--threads", default="", help="thread counts that were run, e.g. '1 2'")
    ap.add_argument("results", nargs="*")
    args = ap.parse_args()

    rows, meta = load(args.results)
    missing = []
    if args.expected:
        with open(args.expected) as f:
            names = [line.strip().rsplit(".", 1)[1] for line in f if line.strip().startswith("dev.")]
        thread_counts = [int(t) for t in args.threads.split()] or sorted({k[0] for k in rows})
        for threads in thread_counts:
            for name in names:
                case, _, engine = name.partition("_")
                if (threads, case, engine) not in rows:
                    missing.append((threads, case, engine))
                    rows[(threads, case, engine)] = None
    if meta is None:
        sys.exit("no results in " + " ".join(args.results))

    out = []
    title = "# Weir vs peers: entry cost and annotation cost"
    if args.label:
        title += " (%s)" % args.label
    out.append(title)
    out.append("")
    if args.label:
        out.append("> **%s run**: short forks and iterations on a possibly busy machine; the numbers show "
                   "that the pipeline works, not how fast anything is." % args.label)
        out.append("")
    out.append("- Machine: %s, %d cores (`nproc`), %s %s" % (cpu_model(), os.cpu_count() or 0,
                                                          platform.system(), platform.release()))
    jv = java_version(args.java).splitlines()
    out.append("- JDK (`java -version`): %s" % "; ".join(line.strip() for line in jv))
    out.append("- JMH %s, VM %s %s, JVM args: `%s`" % (meta.get("jmhVersion", "?"), meta.get("vmName", "?"),
                                                    meta.get("vmVersion", "?"), " ".join(meta.get("jvmArgs", [])) or "(none)"))
    out.append("- Date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    out.append("- Weir revision: %s" % git_revision())
    if args.params:
        out.append("- JMH parameters: `%s`" % args.params.strip())
    out.append("")
    out.append("Score: average time per call (ns/op, lower is better) ± JMH's 99.9% confidence half-width "
               "(n/a with too few samples). B/op: `gc.alloc.rate.norm` from `-prof gc`. "
               "x Weir: score / Weir's score in the same case and thread count (above 1 = slower than Weir). "
               "With 2 threads both contend on one limiter.")
    out.append("")

    for threads in sorted({k[0] for k in rows}):
        out.append("## %d thread%s" % (threads, "" if threads == 1 else "s"))
        out.append("")
        out.append("| Case | Engine | Score (ns/op) | ± Error | B/op | B/op per fork | x Weir | Notes |")
        out.append("| --- | --- | ---: | ---: | ---: | --- | ---: | --- |")
        for key in sorted((k for k in rows if k[0] == threads), key=sort_key):
            _, case, engine = key
            row = rows[key]
            if row is None:
                out.append("| %s | %s | | | | | | **FAILED: no result**, see the JMH output |" % (case, engine))
                continue
            weir = rows.get((threads, case, "weir"))
            ratio = "%.2fx" % (row["score"] / weir["score"]) if weir and weir["score"] > 0 else "n/a"
            notes = []
            if row["unit"] != "ns/op":
                notes.append("unit " + row["unit"])
            if row["refused"]:
                share = ""
                if row["ops"]:
                    share = " (~%.3g per million calls)" % (row["refused"] / row["ops"] * 1e6)
                notes.append("**%d refusals in a never-refusing case**%s" % (row["refused"], share))
            forks = ", ".join(fmt_bytes(v) for v in row.get("forkAlloc") or []) or "n/a"
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                case, engine, fmt_num(row["score"]), fmt_num(row["error"]), fmt_bytes(row["alloc"]), forks, ratio,
                "; ".join(notes)))
        out.append("")

    targets = []
    for threads in sorted({k[0] for k in rows}):
        for case, other, limit, source, *only in TARGETS:
            if only and only[0] is not None and threads not in only[0]:
                continue
            weir, peer = rows.get((threads, case, "weir")), rows.get((threads, case, other))
            if not weir or not peer or peer["score"] <= 0:
                continue
            ratio = weir["score"] / peer["score"]
            verdict = "met" if ratio <= limit else "**missed** (%.2fx the limit)" % (ratio / limit)
            targets.append("| %s | %d | %s | %s | %.2f | <= %.2f | %s |" % (
                source, threads, fmt_num(weir["score"]), fmt_num(peer["score"]), ratio, limit, verdict))
    # Scaling: throughput with 2 threads on one resource / throughput with 1 (scores are ns per call
    # per thread, so throughput is threads / score).
    one, two = rows.get((1, "qps", "weir")), rows.get((2, "qps", "weir"))
    if one and two and two["score"] > 0:
        scale = 2 * one["score"] / two["score"]
        limit = 1.3
        verdict = "met" if scale >= limit else "**missed** (%.2fx where %.2fx is asked)" % (scale, limit)
        targets.append("| issue 12: 2 threads on one resource >= 1.3x one thread's throughput (qps) | 1, 2 | %s, %s "
                       "| | %.2fx | >= %.2f | %s |" % (fmt_num(one["score"]), fmt_num(two["score"]), scale, limit,
                                                       verdict))
    # Issue 38's targets, some across cases and benchmark classes: (weir row, peer row, limit, text).
    for threads in sorted({k[0] for k in rows}):
        if threads != 1:
            continue
        for engine in ("weir", "weirResource", "weirPrecise"):
            for (wcase, wengine), (pcase, pengine), limit, text in [
                (("qps", engine), ("qps", "resilience4j"), 1.0,
                 "issue 38: entry+close (%s) <= 1.0x Resilience4j's `acquirePermission`" % engine),
                (("rejectedTry", engine), ("qps", "resilience4j"), 0.8,
                 "issue 38: a refusal through `tryEntry` (%s) <= 0.8x Resilience4j's `acquirePermission`" % engine),
            ]:
                w, p = rows.get((threads, wcase, wengine)), rows.get((threads, pcase, pengine))
                if w and p and p["score"] > 0:
                    ratio = w["score"] / p["score"]
                    verdict = "met" if ratio <= limit else "**missed** (%.2fx the limit)" % (ratio / limit)
                    targets.append("| %s | %d | %s | %s | %.2f | <= %.2f | %s |" % (
                        text, threads, fmt_num(w["score"]), fmt_num(p["score"]), ratio, limit, verdict))
        for (wcase, wengine), (pcase, pengine), limit, text in [
            (("argumentKey", "weir"), ("perKey", "bucket4j"), 1.5,
             "issue 38: a keyed decision (argument key) <= 1.5x Bucket4j's `tryConsume` on a bucket per key"),
            (("expressionKey", "weir"), ("perKey", "bucket4j"), 1.5,
             "issue 38: a keyed decision (key expression) <= 1.5x Bucket4j's `tryConsume` on a bucket per key"),
            (("annotation", "weir"), ("annotation", "noopAspect"), 0.8,
             "issue 38: `@RateLimited` <= 0.8x a no-op `@Around` aspect"),
            (("weir", "monoQps"), ("resilience4j", "monoRateLimiter"), 2.0,
             "issue 38: a guarded `Mono` <= 2x Resilience4j's `RateLimiterOperator`"),
        ]:
            w, p = rows.get((threads, wcase, wengine)), rows.get((threads, pcase, pengine))
            if w and p and p["score"] > 0:
                ratio = w["score"] / p["score"]
                verdict = "met" if ratio <= limit else "**missed** (%.2fx the limit)" % (ratio / limit)
                targets.append("| %s | %d | %s | %s | %.2f | <= %.2f | %s |" % (
                    text, threads, fmt_num(w["score"]), fmt_num(p["score"]), ratio, limit, verdict))
    for engine in ("weir", "weirResource", "weirPrecise"):
        one, two = rows.get((1, "qps", engine)), rows.get((2, "qps", engine))
        if one and two and two["score"] > 0:
            scale = 2 * one["score"] / two["score"]
            limit = 1.6
            verdict = "met" if scale >= limit else "**missed** (%.2fx where %.2fx is asked)" % (scale, limit)
            targets.append("| issue 38: 2 threads on one resource >= 1.6x one thread's throughput (qps, %s) | 1, 2 "
                           "| %s, %s | | %.2fx | >= %.2f | %s |" % (engine, fmt_num(one["score"]), fmt_num(two["score"]),
                                                                  scale, limit, verdict))
    if targets:
        out.append("## Targets")
        out.append("")
        out.append("Weir's score / the other's, same case and thread count, against the issue's limit%s." % (
            " (a %s run: this says nothing yet)" % args.label if args.label else ""))
        out.append("")
        out.append("| Target | Threads | Weir (ns/op) | Other (ns/op) | Weir / other | Limit | Verdict |")
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
        out.extend(targets)
        out.append("")

    out.append("## Cases and calls")
    out.append("")
    for case, text in CASES.items():
        out.append("- `%s`: %s" % (case, text))
    out.append("")
    out.append("Core cases (`CoreEntryBenchmark`):")
    out.append("")
    for engine, text in CALLS.items():
        out.append("- %s: %s" % (engine, text))
    out.append("")
    out.append("`annotation` (`AnnotationBenchmark`):")
    out.append("")
    for engine, text in ANNOTATION_CALLS.items():
        out.append("- %s: %s" % (engine, text))
    out.append("")
    out.append("Source: `benchmarks/src/main/java/dev/weir/benchmarks/CoreEntryBenchmark.java` and "
               "`AnnotationBenchmark.java`; produced by `benchmarks/run.sh`.")
    out.append("")

    with open(args.out, "w") as f:
        f.write("\n".join(out))
    print("wrote " + args.out)
    if missing:
        print("no result for: " + ", ".join("%s_%s (%d threads)" % (c, e, t) for t, c, e in missing),
              file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
