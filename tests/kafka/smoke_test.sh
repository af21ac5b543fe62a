#!/usr/bin/env bash
# tests/kafka/smoke_test.sh — the broker of scripts/kafka, driven with kcat
# (Debian's kcat, on Debian's librdkafka):
#   1. librdkafka negotiates every feature it needs (debug=feature);
#   2. a topic is created, 1000 records are produced and read back in order;
#   3. a consumer group reads them all and commits: the same group then reads
#      only what came after;
#   4. a transactional produce (kcat -X transactional.id) is committed and
#      read back with isolation.level=read_committed.
# The broker is at 127.0.0.1:$KAFKA_PORT (default 9092); topics and groups
# have unique names, so the test can run again on the same broker.
set -euo pipefail

broker=127.0.0.1:${KAFKA_PORT:-9092}
run=smoke-$(date +%s)-$$
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

step() { echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
kc() { timeout 60 kcat -b "$broker" "$@"; }

step "feature negotiation (librdkafka $(kcat -V | sed -n 's/.*librdkafka \([0-9.]*\).*/\1/p'))"
kc -L -X debug=feature >"$tmp/meta" 2>"$tmp/features" || { cat "$tmp/features"; fail "metadata"; }
grep -q 'Broker API support' "$tmp/features" || grep -q 'Enabling feature' "$tmp/features" \
  || { cat "$tmp/features"; fail "no feature negotiation in the debug output"; }
# Features librdkafka needs for produce, consumer groups and transactions.
for f in ApiVersion MsgVer2 IdempotentProducer BrokerGroupCoordinator BrokerBalancedConsumer \
         OffsetTime SaslHandshake LZ4 ZSTD; do
  grep -q "Enabling feature $f\$" "$tmp/features" || {
    grep -E 'Feature|feature' "$tmp/features" >&2
    fail "librdkafka did not enable feature $f"
  }
done
# The only ones the broker may disable: superseded by MsgVer2 and by newer
# Fetch versions (Kafka 4 removed Fetch v0-v3, KIP-896).
disabled=$(sed -n 's/.*Disabling feature \([A-Za-z0-9]*\).*/\1/p' "$tmp/features" | sort -u |
  grep -vxE 'MsgVer1|ThrottleTime' | tr '\n' ' ' || true)
[ -z "$disabled" ] || fail "librdkafka disabled features: $disabled"
echo "enabled: $(sed -n 's/.*Enabling feature \([A-Za-z0-9]*\).*/\1/p' "$tmp/features" | sort -u | tr '\n' ' ')"

step "create a topic, produce 1000 records, read them back"
topic=$run-records
seq 1 1000 >"$tmp/expected"
# The metadata request for an unknown topic creates it (auto.create.topics.enable).
kc -L -t "$topic" >/dev/null 2>&1 || true
# Idempotent: the topic was just created, so the first batch may be retried
# (leader not yet known) after the second was written; without idempotence
# a retry reorders the records (a CI run read all 1000, not in order).
kc -P -t "$topic" -X acks=all -X enable.idempotence=true <"$tmp/expected" || fail "produce"
kc -C -t "$topic" -o beginning -e -q >"$tmp/got" || fail "consume"
cmp -s "$tmp/expected" "$tmp/got" || fail "read back $(wc -l <"$tmp/got") records, not the 1000 produced"
kc -L -t "$topic" | grep -q "topic \"$topic\" with 1 partitions" || fail "topic metadata"

step "a consumer group reads and commits, then reads only what is new"
group=$run-group
kc -G "$group" -X auto.offset.reset=earliest -c 1000 -q "$topic" >"$tmp/group1" || fail "group consume"
cmp -s "$tmp/expected" "$tmp/group1" || fail "the group read $(wc -l <"$tmp/group1") records"
seq 1001 1010 | kc -P -t "$topic" || fail "produce 10 more"
kc -G "$group" -X auto.offset.reset=earliest -c 10 -q "$topic" >"$tmp/group2" || fail "group consume 2"
[ "$(tr '\n' ' ' <"$tmp/group2")" = "$(seq 1001 1010 | tr '\n' ' ')" ] \
  || fail "the group's second read was not the 10 new records: $(head -3 "$tmp/group2" | tr '\n' ' ')..."

step "a transactional produce, read with read_committed"
ttopic=$run-txn
seq 1 100 | kc -P -t "$ttopic" -X transactional.id="$run-txn" >"$tmp/txn.out" 2>&1 \
  || { cat "$tmp/txn.out"; fail "transactional produce"; }
grep -q 'Using transactional producer' "$tmp/txn.out" || { cat "$tmp/txn.out"; fail "kcat did not use a transaction"; }
kc -C -t "$ttopic" -o beginning -e -q -X isolation.level=read_committed >"$tmp/txn" || fail "consume txn"
cmp -s <(seq 1 100) "$tmp/txn" || fail "read_committed read $(wc -l <"$tmp/txn") records, not 100"

echo "ok: smoke test passed against $broker"
