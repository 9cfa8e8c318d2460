# Kafka throughput: BraidKafka vs kcat (same librdkafka, same broker, same run), 200,000
# messages of 256 bytes. Producing: linger.ms=5, idempotent, acks=all on both sides.
# Consuming: kcat reads all partitions from the beginning (no group); ours joins a consumer
# group and stores every offset as the worker does. The ratio compares both from first to
# last message; whole-run figures (kcat start-up; our group join, printed separately as
# kafka.consume.join_seconds) follow as information. Sourced by bench.sh.
messages="${BRAID_BENCH_KAFKA_MESSAGES:-200000}"
partitions=6
kcat_topic="bench.kcat.$$"
ours_topic="bench.braid.$$"
braid_create_topic "$BRAID_BENCH_KAFKA_PORT" "$kcat_topic" "$partitions" || braid_die "could not create $kcat_topic"
braid_create_topic "$BRAID_BENCH_KAFKA_PORT" "$ours_topic" "$partitions" || braid_die "could not create $ours_topic"

payload_file="$BRAID_RUN_DIR/kafka-payload.txt"
# 255 characters + newline per line: kcat sends each line (without its newline) as a message.
python3 -c "
import sys
line = ('x' * 255 + '\n').encode()
sys.stdout.buffer.write(line * $messages)" >"$payload_file"

now() { date +%s.%N; }

start="$(now)"
kcat -P -b "$BRAID_BENCH_KAFKA_BROKERS" -t "$kcat_topic" -X linger.ms=5 -X enable.idempotence=true -X acks=all \
  -l "$payload_file" || braid_die "kcat -P failed"
end="$(now)"
kcat_produce="$(python3 -c "print(round($messages / ($end - $start)))")"
echo "FIGURE kafka.produce.kcat.msgs_per_s $kcat_produce"

# (Not `tee /dev/stderr`: when stderr is a file, tee reopens and truncates it.)
out="$("$BRAID" bench kafka-produce --brokers "$BRAID_BENCH_KAFKA_BROKERS" --topic "$ours_topic" \
  --messages "$messages" --size 256)" || braid_die "braid bench kafka-produce failed"
echo "$out"
ours_produce="$(awk '/^FIGURE kafka.produce.msgs_per_s/ {print $3}' <<<"$out")"
[ -n "$ours_produce" ] || braid_die "braid bench kafka-produce printed no figure"

# kcat's whole run (start-up, metadata, fetch to end-of-partition), and, like ours, the
# stretch from its first message to its last (a reader stamps the first line it sees).
start="$(now)"
read -r kcat_count kcat_first_to_last < <(kcat -C -b "$BRAID_BENCH_KAFKA_BROKERS" -t "$kcat_topic" -e -o beginning -q \
  | python3 -c '
import sys, time
first, count = None, 0
for _ in sys.stdin.buffer:
    if first is None:
        first = time.monotonic()
    count += 1
print(count, time.monotonic() - (first or time.monotonic()))')
end="$(now)"
[ "$kcat_count" -eq "$messages" ] || braid_die "kcat -C read $kcat_count of $messages messages"
kcat_consume_total="$(python3 -c "print(round($messages / ($end - $start)))")"
kcat_consume="$(python3 -c "print(round($messages / $kcat_first_to_last))")"
echo "FIGURE kafka.consume.kcat.with_startup.msgs_per_s $kcat_consume_total"
echo "FIGURE kafka.consume.kcat.msgs_per_s $kcat_consume"

out="$("$BRAID" bench kafka-consume --brokers "$BRAID_BENCH_KAFKA_BROKERS" --topic "$ours_topic" \
  --messages "$messages")" || braid_die "braid bench kafka-consume failed"
echo "$out"
ours_consume="$(awk '/^FIGURE kafka.consume.msgs_per_s/ {print $3}' <<<"$out")"
ours_consume_with_join="$(awk '/^FIGURE kafka.consume.with_join.msgs_per_s/ {print $3}' <<<"$out")"
[ -n "$ours_consume" ] || braid_die "braid bench kafka-consume printed no figure"

rm -f "$payload_file"
python3 -c "print(f'RATIO kafka.produce.vs_kcat {$ours_produce / $kcat_produce:.3f}')"
python3 -c "print(f'RATIO kafka.consume.vs_kcat {$ours_consume / $kcat_consume:.3f}')"
# Informational: whole runs, ours including the one-off consumer-group join (~3 s on the
# local broker, its initial rebalance delay), which kcat -C does not do.
python3 -c "print(f'FIGURE kafka.consume.with_startup.vs_kcat {$ours_consume_with_join / $kcat_consume_total:.3f}')"
