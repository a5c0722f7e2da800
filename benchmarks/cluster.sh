#!/usr/bin/env bash
# Cluster mode against Redis on loopback, one command: builds weir-benchmarks, starts its own
# redis-server on a free port (no persistence; stopped on exit), then measures the same Lua script
#   1. with redis-benchmark (EVALSHA, -c 16 and 64, unpipelined and -P 16),
#   2. from one JVM with JMH (ClusterDecisionBenchmark: a guarded call through the engine, and the
#      Redis client alone; -t 16 and 64; throughput, then sampled percentiles),
#   3. at a fixed 1000 calls per second (FixedRateLatency: p99 with the rule in Redis minus p99 with
#      the same rule local, median of rounds that alternate the two and Lettuce's own PING),
#   4. per-key decisions (10^4 distinct keys, the per-key script gcra.lua): redis-benchmark EVALSHA
#      (-r 10000 random keys, -c 16 and 64, -P 16) beside JMH PerKeyClusterBenchmark from one JVM
#      (Weir's Redis client, and Bucket4j's Lettuce-based proxy manager with the same limit; -t 16, 64),
#   5. leases (JMH LeaseBenchmark: a guarded call with the rule local, in Redis per call, and leased with
#      weir.cluster.lease, beside Bucket4j's Lettuce-based proxy manager with the same limit (tryConsume(1)
#      per call); one hot key and 10^4 keys; -t 16 and 64; throughput, sampled percentiles, and Redis
#      commands per 100 admitted calls in the last measured iteration, from INFO commandstats),
# and writes benchmarks/results/cluster.md, with Redis' own CPU time per decision in each phase
# (INFO cpu / commandstats), which tells whether redis-server's one thread is the limit. Never part
# of the test command. On a small machine the JVM and redis-server share the cores.
#
#   flock /tmp/jmh.lock benchmarks/cluster.sh    # about 10 minutes (the lease phase about 5)
# Overrides (environment): FORKS (1), WARMUP_ITERATIONS (2), WARMUP_TIME (2s), ITERATIONS (3),
# TIME (2s), THREADS ("16 64"), REQUESTS (redis-benchmark -n, 200000), FIXED_SECONDS (per round, 10),
# FIXED_ROUNDS (3), PHASES ("flow perkey fixed lease": which of 1+2, 4, 3 and 5 to run), KEYS (10000),
# JAVA (java), WEIR_TARGET (build folder, target-clbench), SKIP_BUILD=1, OUT (results/cluster.md).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
forks=${FORKS:-1}
wi=${WARMUP_ITERATIONS:-2}
w=${WARMUP_TIME:-2s}
i=${ITERATIONS:-3}
r=${TIME:-2s}
threads=${THREADS:-16 64}
requests=${REQUESTS:-200000}
fixed_seconds=${FIXED_SECONDS:-10}
fixed_rounds=${FIXED_ROUNDS:-3}
phases=" ${PHASES:-flow perkey fixed lease} "
keys=${KEYS:-10000}
java=${JAVA:-java}
target=${WEIR_TARGET:-target-clbench}
# A run of some phases only writes a file of its own, so that it cannot replace the published table.
if [ "${PHASES:-flow perkey fixed lease}" = "flow perkey fixed lease" ]; then
  out=${OUT:-$root/benchmarks/results/cluster.md}
else
  out=${OUT:-$root/benchmarks/results/cluster-${PHASES// /-}.md}
fi
jar=$root/benchmarks/$target/weir-benchmarks.jar

# The exact command, with the overrides that were set.
command=benchmarks/cluster.sh
for var in FORKS WARMUP_ITERATIONS WARMUP_TIME ITERATIONS TIME THREADS REQUESTS FIXED_SECONDS FIXED_ROUNDS PHASES KEYS \
    JAVA WEIR_TARGET SKIP_BUILD OUT; do
  if [[ -n "${!var:-}" ]]; then command="$var=\"${!var}\" $command"; fi
done

command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null || {
  echo "needs redis-server and redis-benchmark (Debian: apt-get install redis-server)" >&2; exit 1; }

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  mvn -B -ntp -pl benchmarks -am -DskipTests "-Dweir-build.target=$target" package
fi
[[ -f "$jar" ]] || { echo "no benchmark jar at $jar" >&2; exit 1; }

work=$(mktemp -d)
# The script as the JVM sends it: the copy in the jar (the source's only if the jar has none).
script=$work/sliding-window.lua
unzip -p "$jar" dev/weir/spring/redis/sliding-window.lua > "$script" 2>/dev/null && [[ -s "$script" ]] \
  || cp "$root/autoconfigure/src/main/resources/dev/weir/spring/redis/sliding-window.lua" "$script"
gcra=$work/gcra.lua
unzip -p "$jar" dev/weir/spring/redis/gcra.lua > "$gcra" 2>/dev/null && [[ -s "$gcra" ]] \
  || cp "$root/autoconfigure/src/main/resources/dev/weir/spring/redis/gcra.lua" "$gcra"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >"$work/redis.log" 2>&1 &
redis_pid=$!
trap 'kill "$redis_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
redis-cli -p "$port" ping >/dev/null

# Redis' CPU seconds (user + sys), EVALSHA calls and read events so far, before and after each phase.
mark() {
  redis-cli -p "$port" INFO all | tr -d '\r' | awk -F'[:,=]' -v m="$1" -v n="$2" '
    /^used_cpu_(sys|user):/ { cpu += $2 }
    /^cmdstat_evalsha:/ { calls = $3 }
    /^total_reads_processed:/ { reads = $2 }
    END { printf "%s %s %.6f %d %d\n", m, n, cpu, calls, reads }' >> "$work/redis-stats.txt"
}
: > "$work/redis-stats.txt"

# The script exactly as Weir sends it; the same key layout and arguments (a count no run reaches).
sha=$(redis-cli -p "$port" -x SCRIPT LOAD < "$script")
key='bench:{redis-benchmark}:flow:all:1000ms'
: > "$work/redis-benchmark.csv"
params="-f $forks -wi $wi -w $w -i $i -r $r -p port=$port"
if [[ "$phases" == *" flow "* ]]; then
  for c in $threads; do
    for p in 1 16; do
      mark begin "rb-c$c-P$p"
      line=$(redis-benchmark -h 127.0.0.1 -p "$port" -n "$requests" -c "$c" -P "$p" --csv \
        EVALSHA "$sha" 1 "$key" 2000000000 1000 10 1 | sed -n 2p)
      mark end "rb-c$c-P$p"
      echo "$c,$p,$line" >> "$work/redis-benchmark.csv"
    done
  done

  for t in $threads; do
    mark begin "jmh-t$t"
    # shellcheck disable=SC2086 # params is a word list
    "$java" -jar "$jar" ClusterDecisionBenchmark $params -t "$t" -bm thrpt -rf json -rff "$work/thrpt-t$t.json"
    mark end "jmh-t$t"
    # shellcheck disable=SC2086
    "$java" -jar "$jar" ClusterDecisionBenchmark $params -t "$t" -bm sample -tu us -rf json -rff "$work/sample-t$t.json"
  done
fi

# Per-key: the same gcra.lua, its arguments as Weir sends them for 1,000,000 a minute (emission
# 60 us, capacity 1000000), over $keys random keys (redis-benchmark's -r draws __rand_int__).
: > "$work/perkey-rb.csv"
if [[ "$phases" == *" perkey "* ]]; then
  gsha=$(redis-cli -p "$port" -x SCRIPT LOAD < "$gcra")
  for c in $threads; do
    mark begin "pk-rb-c$c"
    line=$(redis-benchmark -h 127.0.0.1 -p "$port" -n "$requests" -c "$c" -P 16 -r "$keys" --csv \
      EVALSHA "$gsha" 1 'bench:{api|k__rand_int__}:pk:param=0,60000ms' 60 1000000 1 | sed -n 2p)
    mark end "pk-rb-c$c"
    echo "$c,16,$line" >> "$work/perkey-rb.csv"
  done
  for t in $threads; do
    # shellcheck disable=SC2086
    "$java" -jar "$jar" PerKeyClusterBenchmark $params -p keys="$keys" -t "$t" -bm thrpt -rf json \
      -rff "$work/perkey-thrpt-t$t.json"
    # shellcheck disable=SC2086
    "$java" -jar "$jar" PerKeyClusterBenchmark $params -p keys="$keys" -t "$t" -bm sample -tu us -rf json \
      -rff "$work/perkey-sample-t$t.json"
  done
fi

: > "$work/fixed.txt"
if [[ "$phases" == *" fixed "* ]]; then
  "$java" -cp "$jar" dev.weir.benchmarks.cluster.FixedRateLatency "$port" "$fixed_seconds" "$fixed_rounds" 5 \
    > "$work/fixed.txt"
fi

# Leases: local, per call and leased decisions, one hot key and $keys keys.
if [[ "$phases" == *" lease "* ]]; then
  for t in $threads; do
    # shellcheck disable=SC2086
    "$java" -jar "$jar" LeaseBenchmark $params -p keys="1,$keys" -p stats="$work/lease-stats.txt" -t "$t" -bm thrpt \
      -rf json -rff "$work/lease-thrpt-t$t.json"
    # shellcheck disable=SC2086
    "$java" -jar "$jar" LeaseBenchmark $params -p keys="1,$keys" -t "$t" -bm sample -tu us -rf json \
      -rff "$work/lease-sample-t$t.json"
  done
fi

python3 - "$work" "$out" "$java" "$params" "$threads" "$requests" "$fixed_seconds" "$fixed_rounds" "$command" <<'PY'
import csv, datetime, json, os, platform, subprocess, sys
work, out, java, params, threads, requests, fixed_seconds, fixed_rounds, command = sys.argv[1:]
threads = threads.split()

# Redis CPU microseconds per EVALSHA, and EVALSHA per read event, in each phase.
marks = {}
for line in open(os.path.join(work, 'redis-stats.txt')):
    when, phase, cpu, calls, reads = line.split()
    marks.setdefault(phase, {})[when] = (float(cpu), int(calls), int(reads))
def redis_us(phase):
    m = marks.get(phase, {})
    if 'begin' not in m or 'end' not in m:
        return None
    calls = m['end'][1] - m['begin'][1]
    reads = m['end'][2] - m['begin'][2]
    if not calls or not reads:
        return None
    return ((m['end'][0] - m['begin'][0]) * 1e6 / calls, calls / reads)

def cpu():
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return platform.processor()

jdk = subprocess.run([java, '-version'], capture_output=True, text=True).stderr.splitlines()[0]
redis = subprocess.run(['redis-server', '--version'], capture_output=True, text=True).stdout.strip()
rev = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()

rows = []   # (source, threads, pipeline, ops/s, p50 ms, p99 ms, Redis CPU us per decision)
for rec in csv.reader(open(os.path.join(work, 'redis-benchmark.csv'))):
    c, p, _test, rps, _avg, _min, p50, _p95, p99, _max = rec
    rows.append(('redis-benchmark EVALSHA', c, f'-P {p}', float(rps), float(p50), float(p99), redis_us(f'rb-c{c}-P{p}')))
best_p16 = {r[1]: r[3] for r in rows if r[2] == '-P 16'}
for t in threads:
    if not os.path.exists(os.path.join(work, f'thrpt-t{t}.json')):
        continue
    thrpt = {b['benchmark'].rsplit('.', 1)[1]: b for b in json.load(open(os.path.join(work, f'thrpt-t{t}.json')))}
    sample = {b['benchmark'].rsplit('.', 1)[1]: b for b in json.load(open(os.path.join(work, f'sample-t{t}.json')))}
    for name, label in (('engineEntry', 'Weir: weir.entry + close, rule in Redis'), ('clientOnly', 'Weir: Redis client alone')):
        ops = thrpt[name]['primaryMetric']['score']
        pct = sample[name]['primaryMetric']['scorePercentiles']
        rows.append((label, t, 'one call per thread', ops, pct['50.0'] / 1000, pct['99.0'] / 1000, redis_us(f'jmh-t{t}')))

fixed_rounds_rows = []
fixed = {}
for line in open(os.path.join(work, 'fixed.txt')):
    parts = line.split()
    if len(parts) == 8 and parts[0].startswith('round'):
        fixed_rounds_rows.append((parts[0][5:], parts[1], [float(x) for x in parts[3:]]))
    elif len(parts) == 3 and parts[0] == 'median':
        fixed[parts[1]] = float(parts[2])

lines = []
lines.append('# Cluster mode: decisions per second and latency against Redis on loopback')
lines.append('')
lines.append(f'- Machine: {cpu()}, {os.cpu_count()} cores (`nproc`), {platform.system()} {platform.release()}; '
             'the JVM and redis-server share these cores')
lines.append(f'- JDK: {jdk}')
lines.append(f'- Redis: {redis}')
lines.append(f'- Date: {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; Weir revision {rev}')
lines.append(f'- Command: `{command}` (JMH `ClusterDecisionBenchmark {params} -t {{{",".join(threads)}}}`, '
             f'`-bm thrpt` then `-bm sample`; redis-benchmark `-n {requests} -c {{{",".join(threads)}}} -P {{1,16}}`; '
             f'FixedRateLatency: 5 s warm-up per variant, then {fixed_rounds} rounds of {fixed_seconds} s alternating them)')
lines.append('')
lines.append('The same Lua script, key layout and arguments in every row. redis-benchmark runs from its own '
             'process with `-c` connections; Weir runs from one JVM with `-t` calling threads on one shared '
             'Lettuce connection (its commands are pipelined by Lettuce). Redis CPU: redis-server\'s user + '
             'sys CPU time divided by the EVALSHA calls of the phase (for Weir, the whole `-bm thrpt` run of '
             'both benchmarks at that thread count, warm-up included); redis-server runs commands on one '
             'thread, so 1,000,000 / that is its ceiling in decisions/s on this machine. Per read: EVALSHA '
             'calls per read event of redis-server (`total_reads_processed`), i.e. how many commands arrive '
             'together.')
lines.append('')
lines.append('| what | threads / connections | pipelining | decisions/s | p50 (ms) | p99 (ms) | Redis CPU (µs/decision) | per read |')
lines.append('|---|---:|---|---:|---:|---:|---:|---:|')
for src, t, p, ops, p50, p99, us in rows:
    cpu_us, per_read = ('', '') if us is None else (f'{us[0]:.1f}', f'{us[1]:.1f}')
    lines.append(f'| {src} | {t} | {p} | {ops:,.0f} | {p50:.3f} | {p99:.3f} | {cpu_us} | {per_read} |')
lines.append('')
lines.append('## Goals')
lines.append('')
lines.append('| goal | measured | |')
lines.append('|---|---|---|')
for t in threads:
    weir = next((r[3] for r in rows if r[0].startswith('Weir: weir.entry') and r[1] == t), None)
    if weir is None or t not in best_p16:
        continue
    ratio = weir / best_p16[t]
    lines.append(f'| ≥ 50% of redis-benchmark -P 16 ({t}) | {weir:,.0f} / {best_p16[t]:,.0f} = {ratio:.0%} | '
                 f'{"met" if ratio >= 0.5 else "missed"} |')
if 'redis' in fixed and 'local' in fixed:
    added = (fixed['redis'] - fixed['local']) / 1000
    lines.append(f'| ≤ 1 ms added p99 at 1000 calls/s | median p99 {fixed["redis"] / 1000:.3f} ms in Redis − '
                 f'{fixed["local"] / 1000:.3f} ms local = {added:.3f} ms | {"met" if added <= 1 else "missed"} |')
    lines.append('')
    lines.append('Fixed rate, 1000 calls/s, µs from each call\'s scheduled start (`lettuce-ping`: Lettuce\'s PING on '
                 'the same connection, no Weir, the floor of a round trip from this JVM):')
    lines.append('')
    lines.append('| round | variant | p50 | p90 | p99 | p99.9 | max |')
    lines.append('|---:|---|---:|---:|---:|---:|---:|')
    for rnd, variant, v in fixed_rounds_rows:
        lines.append(f'| {rnd} | {variant} | {v[0]:.1f} | {v[1]:.1f} | {v[2]:.1f} | {v[3]:.1f} | {v[4]:.1f} |')

# Per-key decisions: redis-benchmark on gcra.lua beside Weir's client and Bucket4j, same keys and limit.
pk = []
for rec in csv.reader(open(os.path.join(work, 'perkey-rb.csv'))):
    c, p, _test, rps, _avg, _min, p50, _p95, p99, _max = rec
    pk.append(('redis-benchmark EVALSHA gcra.lua, random keys', c, f'-P {p}', float(rps), float(p50), float(p99),
               redis_us(f'pk-rb-c{c}')))
for t in threads:
    path = os.path.join(work, f'perkey-thrpt-t{t}.json')
    if not os.path.exists(path):
        continue
    thrpt = {b['benchmark'].rsplit('.', 1)[1]: b for b in json.load(open(path))}
    sample = {b['benchmark'].rsplit('.', 1)[1]: b for b in json.load(open(os.path.join(work, f'perkey-sample-t{t}.json')))}
    for name, label in (('weirKey', "Weir: Redis client, gcra.lua per key"),
                        ('bucket4jKey', "Bucket4j: Lettuce proxy manager (CAS) per key")):
        pct = sample[name]['primaryMetric']['scorePercentiles']
        pk.append((label, t, 'one call per thread', thrpt[name]['primaryMetric']['score'], pct['50.0'] / 1000,
                   pct['99.0'] / 1000, None))
if pk:
    lines.append('')
    lines.append('## Per-key decisions')
    lines.append('')
    lines.append(f'{os.environ.get("KEYS", "10000")} distinct keys (uniformly random per call), a per-key limit of 1,000,000 a minute that no run '
                 'reaches: every decision reads and writes one key in Redis. Goal: Weir ≥ 50% of redis-benchmark\'s '
                 'pipelined throughput of the same script, and ahead of Bucket4j in throughput and p99.')
    lines.append('')
    lines.append('| what | threads / connections | pipelining | decisions/s | p50 (ms) | p99 (ms) | Redis CPU (µs/decision) |')
    lines.append('|---|---:|---|---:|---:|---:|---:|')
    for src, t, p, ops, p50, p99, us in pk:
        cpu_us = '' if us is None else f'{us[0]:.1f}'
        lines.append(f'| {src} | {t} | {p} | {ops:,.0f} | {p50:.3f} | {p99:.3f} | {cpu_us} |')
    for t in threads:
        rb = next((r for r in pk if r[0].startswith('redis-benchmark') and r[1] == t), None)
        w = next((r for r in pk if r[0].startswith('Weir') and r[1] == t), None)
        b = next((r for r in pk if r[0].startswith('Bucket4j') and r[1] == t), None)
        if rb and w:
            lines.append(f'- {t} threads: Weir {w[3]:,.0f} / redis-benchmark {rb[3]:,.0f} = {w[3] / rb[3]:.0%} '
                         f'({"met" if w[3] / rb[3] >= 0.5 else "missed"})' + (
                             f'; Bucket4j {b[3]:,.0f}/s, p99 {b[5]:.3f} ms against Weir\'s {w[5]:.3f} ms' if b else ''))
# Leases: decisions per second, percentiles and Redis commands per 100 admitted calls.
stats = {}
if os.path.exists(os.path.join(work, 'lease-stats.txt')):
    for line in open(os.path.join(work, 'lease-stats.txt')):
        # mode keys threads admitted scripts (EVALSHA + EVAL) all-commands-but-INFO by-name (get=1,eval=1)
        mode, nkeys, t, admitted, scripts, every, by_name = line.split()
        by_name = {} if by_name == '-' else {c: int(n) for c, n in (x.split('=') for x in by_name.split(','))}
        stats[(mode, nkeys, t)] = (int(admitted), int(scripts), int(every), by_name)  # the last iteration wins
lease_rows = []
for t in threads:
    path = os.path.join(work, f'lease-thrpt-t{t}.json')
    if not os.path.exists(path):
        continue
    sample = {(b['params']['mode'], b['params']['keys']): b for b in json.load(open(os.path.join(work, f'lease-sample-t{t}.json')))}
    for b in json.load(open(path)):
        mode, nkeys = b['params']['mode'], b['params']['keys']
        pct = sample[(mode, nkeys)]['primaryMetric']['scorePercentiles']
        admitted, scripts, every, by_name = stats.get((mode, nkeys, t), (0, 0, 0, {}))
        # Weir's modes: its scripts; Bucket4j: every command it sent (GET and EVAL, retries included).
        sent = every if mode == 'bucket4j' else scripts
        per100 = 100.0 * sent / admitted if admitted else None
        lease_rows.append((mode, nkeys, t, b['primaryMetric']['score'], pct['50.0'] / 1000, pct['99.0'] / 1000, per100))
if lease_rows:
    lines.append('')
    lines.append('## Leases (`weir.cluster.lease`)')
    lines.append('')
    lines.append('One guarded call (`tryEntry` + close) with its rule local (`local`), counted in Redis per call '
                 '(`percall`) or leased (`lease`); one hot key (a flow rule) or '
                 f'{os.environ.get("KEYS", "10000")} keys (a param-flow rule, a uniformly random key per call); a limit no '
                 'run reaches. `bucket4j`: one `tryConsume(1)` per call through Bucket4j\'s Lettuce-based proxy '
                 'manager (compare-and-swap) on its own Lettuce connection to the same redis-server, a bucket per key '
                 'with the same limit (capacity and greedy refill of the same count a second), no Weir. Redis commands '
                 'per 100 admitted calls in the last measured iteration (steady state): for Weir, its EVALSHA and '
                 'EVAL calls (`INFO commandstats`); for Bucket4j, every command its Lettuce connection sent, '
                 'counted by Lettuce (a GET, then an EVAL that writes only if the value is unchanged, both again '
                 'after a lost race; `INFO commandstats` would also count the GET, SET and PSETEX its scripts run '
                 'inside Redis).')
    b4j = [(k, v) for k, v in sorted(stats.items()) if k[0] == 'bucket4j' and v[0]]
    if b4j:
        lines.append('')
        lines.append('Bucket4j\'s commands per 100 admitted, by name: ' + '; '.join(
            f'{k[1]} key{"s" if k[1] != "1" else ""}, {k[2]} threads: '
            + ', '.join(f'{c.upper()} {100.0 * n / v[0]:.1f}' for c, n in sorted(v[3].items()))
            + f' ({v[3].get("eval", 0) / v[0] - 1:.2f} compare-and-swap retries per admitted call)'
            for k, v in b4j) + '.')
    lines.append('')
    lines.append('| mode | keys | threads | decisions/s | p50 (ms) | p99 (ms) | Redis commands per 100 admitted | vs local |')
    lines.append('|---|---:|---:|---:|---:|---:|---:|---:|')
    local = {(r[1], r[2]): r[3] for r in lease_rows if r[0] == 'local'}
    for mode, nkeys, t, ops, p50, p99, per100 in lease_rows:
        vs = f'{ops / local[(nkeys, t)]:.2f}×' if (nkeys, t) in local else ''
        cmds = '' if per100 is None else f'{per100:.4f}'
        lines.append(f'| {mode} | {nkeys} | {t} | {ops:,.0f} | {p50:.4f} | {p99:.4f} | {cmds} | {vs} |')
    lines.append('')
    for mode, nkeys, t, ops, p50, p99, per100 in lease_rows:
        if mode != 'lease' or nkeys != '1':
            continue
        ratio = ops / local[(nkeys, t)] if (nkeys, t) in local else None
        if ratio is not None:
            lines.append(f'- {t} threads, hot key: leased {ops:,.0f}/s = {ratio:.2f}× local '
                         f'({"met" if ratio >= 0.8 else "missed"}: goal ≥ 0.8×); '
                         + ('' if per100 is None else f'{per100:.4f} Redis commands per 100 admitted '
                            f'({"met" if per100 <= 1 else "missed"}: goal ≤ 1)'))
    # Leased against Bucket4j on the same keys: the goal on the hot key, for information on many keys.
    for mode, nkeys, t, ops, p50, p99, per100 in lease_rows:
        bucket4j = next((r[3] for r in lease_rows if r[0] == 'bucket4j' and r[1] == nkeys and r[2] == t), None)
        if mode != 'lease' or not bucket4j:
            continue
        what = 'hot key' if nkeys == '1' else f'{nkeys} keys'
        goal = f'; goal ≥ 10×: {"met" if ops >= 10 * bucket4j else "missed"}' if nkeys == '1' else ''
        lines.append(f'- {t} threads, {what}: leased {ops:,.0f}/s = {ops / bucket4j:.1f}× Bucket4j '
                     f'({bucket4j:,.0f}/s{goal})')
open(out, 'w').write('\n'.join(lines) + '\n')
print('\n'.join(lines))
PY
echo "Table: $out"
