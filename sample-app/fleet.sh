#!/usr/bin/env bash
# A fleet of two shops sharing their rules through the rules store (docs/fleet.md):
# builds the shop, starts a redis-server (append-only file in a temporary directory) on
# ${REDIS_PORT:-6379} unless one answers there, and two shops with the "redis" and "fleet" profiles
# on ports 8080 and 8082 (or $PORTS; 8081 is the WebFlux sample's). Ctrl-C stops what it started.
set -euo pipefail
cd "$(dirname "$0")/.."
REDIS_PORT="${REDIS_PORT:-6379}"
# One build for both shops: the reactor's jars and the shop's classpath (nothing installed).
mvn -B -ntp -q -pl sample-app -am package dependency:build-classpath -DskipTests \
    -Dmdep.outputFile=target/fleet-classpath.txt -DincludeScope=runtime
CLASSPATH="sample-app/target/classes:$(cat sample-app/target/fleet-classpath.txt)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
  dir="$(mktemp -d)"
  redis-server --port "$REDIS_PORT" --dir "$dir" --appendonly yes --appendfsync everysec >"$dir/redis.log" &
  pids+=($!)
fi
for port in ${PORTS:-8080 8082}; do
  REDIS_PORT="$REDIS_PORT" java -cp "$CLASSPATH" dev.weir.sample.shop.ShopApplication \
      --spring.profiles.active=redis,fleet --server.port="$port" \
      --shop.grpc.port=$((port + 1010)) >"sample-app/target/fleet-$port.log" 2>&1 &
  pids+=($!)
done
echo "Two shops on ${PORTS:-8080 8082} (logs in sample-app/target/fleet-*.log). Try:"
echo "  curl -s -X POST localhost:8080/actuator/weir/searchProducts -H 'Content-Type: application/json' -d '{\"flow\": [{\"count\": 5}]}'"
echo "  curl -s localhost:8082/actuator/weir/fleet"
wait
