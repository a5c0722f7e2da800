#!/usr/bin/env bash
# Builds and runs the jcstress tests of core's lock-free admission protocols
# (benchmarks/jcstress, not a module of the root build: `mvn verify` never touches it), then writes
# benchmarks/results/jcstress.md: machine, JDK, date, revision, the command, and per test the
# states observed with their counts and expectations, OK or FAIL.
#
#   benchmarks/jcstress.sh                    # -m quick -iters 3: about 8 minutes on 2 cores
#   MODE=sanity benchmarks/jcstress.sh        # pipeline check, about 1.5 minutes
#   TESTS='Window.*' benchmarks/jcstress.sh   # a subset (jcstress -t regexp)
#
# Overrides (environment): MODE (jcstress -m preset, default quick), TESTS (default .*),
# JCSTRESS_ARGS (extra jcstress arguments, default "-iters 3": quick's 5 iterations of 200 ms took
# 12 minutes for the 12 tests x 28 JVM configurations), JAVA (default java),
# SKIP_BUILD=1 (reuse the jar), OUT (default benchmarks/results/jcstress.md),
# REPORT_DIR (jcstress's HTML report, default benchmarks/jcstress/target/report).
# Exits 1 when a test failed or errored (after writing the table).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
mode=${MODE:-quick}
tests=${TESTS:-.*}
java=${JAVA:-java}
out=${OUT:-$root/benchmarks/results/jcstress.md}
report=${REPORT_DIR:-$root/benchmarks/jcstress/target/report}
jar=$root/benchmarks/jcstress/target/jcstress.jar

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  mvn -B -ntp -q -f benchmarks/jcstress/pom.xml package
fi
[[ -f "$jar" ]] || { echo "no jcstress jar at $jar" >&2; exit 1; }

mkdir -p "$report" "$(dirname "$out")"
log=$report/console.txt
cmd=("$java" -jar "$jar" -m "$mode" -t "$tests" -v -r "$report")
# shellcheck disable=SC2206 # JCSTRESS_ARGS is a word list
jcstress_args=${JCSTRESS_ARGS--iters 3}
cmd+=($jcstress_args)
started=$(date +%s)
started_utc=$(date -u '+%Y-%m-%d %H:%M')
set +e
(cd "$report" && "${cmd[@]}") 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
took=$(( $(date +%s) - started ))

python3 - "$log" "$out" "$java" "$took" "$started_utc" \
  "MODE=$mode TESTS='$tests' JCSTRESS_ARGS='$jcstress_args' benchmarks/jcstress.sh" <<'PY'
import platform, re, subprocess, sys

log, out, java, took, started, command = sys.argv[1:7]
text = open(log, encoding="utf-8", errors="replace").read()

def sh(*args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        return ""

cpu = "?"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
jdk_line = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.strip().splitlines()
revision = sh("git", "rev-parse", "--short", "HEAD")
dirty = sh("git", "status", "--porcelain", "--", "core/src/main", "benchmarks/jcstress")
settings = []
for key in ("Test preset mode", "Hardware CPUs in use", "Forks per test", "Iterations per fork",
            "Time per iteration", "Test selection"):
    m = re.search(re.escape(key) + r": (.*)", text)
    if m:
        settings.append(f"{key}: {m.group(1).strip()}")

# Per test: "... [OK] name" then a table under "Results across all configurations:".
# Only the summary after "RUN RESULTS" (with -v, jcstress also prints each configuration as it ends).
summary = text.split("RUN RESULTS:", 1)[1] if "RUN RESULTS:" in text else ""
blocks = re.split(r"\n(?=\.+ \[)", summary)
tests = []
for block in blocks:
    head = re.match(r"\.+ \[(\w[\w ]*)\] (\S+)", block)
    if not head:
        continue
    verdict, name = head.group(1), head.group(2)
    rows = []
    lines = block.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if re.match(r"\s+RESULT\s+SAMPLES", l))
    except StopIteration:
        start = None
    if start is not None:
        for l in lines[start + 1:]:
            if not l.strip():
                break
            m = re.match(r"\s*(.+?)\s+([\d,]+)\s+([\d.]+%)\s+(Acceptable|Forbidden|Interesting)\s+(.*)", l)
            if m:
                rows.append(m.groups())
    tests.append((name, verdict, rows))

total = re.search(r"\(Results: (\d+) planned; (\d+) passed, (\d+) failed, (\d+) soft errs, (\d+) hard errs\)\s*$",
                  text.strip().split("RUN RESULTS")[0].strip(), re.S)
md = ["# jcstress: core's lock-free admission protocols", ""]
md.append(f"- Machine: {cpu}, {sh('nproc')} cores (`nproc`), {platform.system()} {platform.release()}")
md.append(f"- JDK: {' / '.join(jdk_line[:2])}")
md.append(f"- Date: {started} UTC (start); run took {int(took) // 60} min {int(took) % 60} s")
md.append(f"- Weir revision: {revision}" + (" (core or jcstress tests modified in the work tree)" if dirty else ""))
md.append("- jcstress 0.16; " + "; ".join(settings))
md.append(f"- Command: `{command}`")
if total:
    md.append(f"- Test runs (tests x JVM configurations): {total.group(1)} planned, {total.group(2)} passed, "
              f"{total.group(3)} failed, {total.group(4)} soft errors, {total.group(5)} hard errors")
md.append("")
md.append("| Test | Verdict | States observed (samples) | Forbidden seen |")
md.append("| --- | --- | --- | --- |")
for name, verdict, rows in sorted(tests):
    seen = [r for r in rows if r[1].replace(",", "") != "0"]
    forbidden = [r for r in seen if r[3] == "Forbidden"]
    states = "<br>".join(f"`{r[0]}` {r[1]} ({r[3].lower()})" for r in seen)
    md.append(f"| `{name.replace('dev.weir.internal.limit.', '').replace('dev.weir.internal.cluster.', '').replace('dev.weir.', '')}` | {'OK' if verdict == 'OK' else 'FAIL (' + verdict + ')'} | "
              f"{states} | {len(forbidden) and ', '.join(r[0] for r in forbidden) or 'none'} |")
md.append("")
md.append("States are `r1, r2, ...` of each test's result object (see the test's Javadoc); samples are summed over "
          "every JVM configuration jcstress ran. Expectations per state, and the states never observed, are in "
          "the full tables below.")
md.append("")
md.append("## Full tables")
md.append("")
for name, verdict, rows in sorted(tests):
    md.append(f"### `{name.replace('dev.weir.internal.limit.', '').replace('dev.weir.internal.cluster.', '').replace('dev.weir.', '')}` — {verdict}")
    md.append("")
    md.append("| State | Samples | Freq | Expect | Description |")
    md.append("| --- | ---: | ---: | --- | --- |")
    for r in rows:
        md.append(f"| `{r[0]}` | {r[1]} | {r[2]} | {r[3]} | {r[4]} |")
    md.append("")
open(out, "w").write("\n".join(md))
print(f"wrote {out}: {len(tests)} tests")
PY
echo "HTML report: $report/index.html"
if grep -q "Failed tests: No matches" "$log" && grep -q "Error tests: No matches" "$log" && [[ $status == 0 ]]; then
  exit 0
fi
echo "jcstress reported failures or errors (exit $status)" >&2
exit 1
