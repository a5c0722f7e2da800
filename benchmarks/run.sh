#!/usr/bin/env bash
# Builds weir-benchmarks, runs the limit-accuracy harness on driven time and then 8 threads on the
# real clock (no JMH, about 2 minutes; writes
# benchmarks/results/accuracy.md), then CoreEntryBenchmark (Weir beside Sentinel, Resilience4j,
# Bucket4j and Guava) and AnnotationBenchmark (@RateLimited beside a plain call, a no-op aspect,
# @SentinelResource and Resilience4j's @RateLimiter, each in a Spring Boot application) at each
# thread count with -prof gc, and writes benchmarks/results/latest.md.
#
#   benchmarks/run.sh                 # real run: -f 2 -wi 3 -w 2s -i 5 -r 2s, threads 1 and 2
#   QUICK=1 benchmarks/run.sh         # pipeline check: -f 1 -wi 1 -w 1s -i 2 -r 1s
#   ACCURACY_ONLY=1 benchmarks/run.sh # the accuracy table alone (QUICK does not shorten it)
#
# Accuracy overrides: SKIP_ACCURACY=1, ACCURACY_SECONDS (trace length, default 30),
# ACCURACY_OUT (default benchmarks/results/accuracy.md).
# Overrides (environment): FORKS, WARMUP_ITERATIONS, WARMUP_TIME, ITERATIONS, TIME, THREADS ("1 2"),
# BENCHMARKS (JMH regexp, default 'CoreEntryBenchmark|AnnotationBenchmark'), JMH_ARGS (extra JMH arguments),
# JAVA (default java), WEIR_TARGET (build folder, default target-bench), SKIP_BUILD=1 (reuse the jar),
# OUT (default benchmarks/results/latest.md), RESULTS (folder of the JMH JSON, default benchmarks/results).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

if [[ "${QUICK:-0}" == 1 ]]; then
  label=QUICK
  d_forks=1 d_wi=1 d_w=1s d_i=2 d_r=1s
else
  label=
  d_forks=2 d_wi=3 d_w=2s d_i=5 d_r=2s
fi
forks=${FORKS:-$d_forks}
wi=${WARMUP_ITERATIONS:-$d_wi}
w=${WARMUP_TIME:-$d_w}
i=${ITERATIONS:-$d_i}
r=${TIME:-$d_r}
threads=${THREADS:-1 2}
benchmarks=${BENCHMARKS:-CoreEntryBenchmark|AnnotationBenchmark}
java=${JAVA:-java}
target=${WEIR_TARGET:-target-bench}
out=${OUT:-$root/benchmarks/results/latest.md}
results=$root/benchmarks/results
json_dir=${RESULTS:-$results}
jar=$root/benchmarks/$target/weir-benchmarks.jar

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  mvn -B -ntp -pl benchmarks -am -DskipTests "-Dweir-build.target=$target" package
fi
[[ -f "$jar" ]] || { echo "no benchmark jar at $jar" >&2; exit 1; }

mkdir -p "$results" "$json_dir"

# Limit accuracy: deterministic traces on driven time, then the real clock, every engine (about 2 minutes).
if [[ "${SKIP_ACCURACY:-0}" != 1 ]]; then
  "$java" -cp "$jar" dev.weir.benchmarks.accuracy.Accuracy \
    --out "${ACCURACY_OUT:-$results/accuracy.md}" --seconds "${ACCURACY_SECONDS:-30}"
fi
if [[ "${ACCURACY_ONLY:-0}" == 1 ]]; then
  exit 0
fi

expected=$(mktemp)
trap 'rm -f "$expected"' EXIT
"$java" -jar "$jar" -l "$benchmarks" > "$expected"
params="-f $forks -wi $wi -w $w -i $i -r $r -prof gc"
jsons=()
for t in $threads; do
  json=$json_dir/jmh-t$t.json
  rm -f "$json"
  # shellcheck disable=SC2086 # params and JMH_ARGS are word lists
  "$java" -jar "$jar" "$benchmarks" $params -t "$t" -rf json -rff "$json" ${JMH_ARGS:-}
  jsons+=("$json")
done

# Exits 3 (after writing the table) when a benchmark produced no result: JMH itself goes on.
python3 "$root/benchmarks/report.py" --out "$out" --label "$label" --java "$java" \
  --params "$benchmarks $params -t {${threads// /,}} ${JMH_ARGS:-}" \
  --expected "$expected" --threads "$threads" "${jsons[@]}"
echo "Table: $out"
