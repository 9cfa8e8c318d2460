# Kafka throughput: BraidKafka vs kcat (same librdkafka, same broker, same run), 200,000
# messages of 256 bytes. Producing: linger.ms=5, idempotent, acks=all on both sides.
# Consuming: kcat reads a partition set from the beginning (no group); ours joins a consumer
# group and stores every offset as the worker does, timed from its first message (the group
# join is printed separately as kafka.consume.join_seconds). Sourced by bench.sh.
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

ours_produce="$("$BRAID" bench kafka-produce --brokers "$BRAID_BENCH_KAFKA_BROKERS" --topic "$ours_topic" \
  --messages "$messages" --size 256 | tee /dev/stderr | awk '/^FIGURE kafka.produce.msgs_per_s/ {print $3}')"
[ -n "$ours_produce" ] || braid_die "braid bench kafka-produce printed no figure"

start="$(now)"
kcat_count="$(kcat -C -b "$BRAID_BENCH_KAFKA_BROKERS" -t "$kcat_topic" -e -o beginning -q | wc -l)"
end="$(now)"
[ "$kcat_count" -eq "$messages" ] || braid_die "kcat -C read $kcat_count of $messages messages"
kcat_consume="$(python3 -c "print(round($messages / ($end - $start)))")"
echo "FIGURE kafka.consume.kcat.msgs_per_s $kcat_consume"

ours_consume="$("$BRAID" bench kafka-consume --brokers "$BRAID_BENCH_KAFKA_BROKERS" --topic "$ours_topic" \
  --messages "$messages" | tee /dev/stderr | awk '/^FIGURE kafka.consume.msgs_per_s/ {print $3}')"
[ -n "$ours_consume" ] || braid_die "braid bench kafka-consume printed no figure"

rm -f "$payload_file"
python3 -c "print(f'RATIO kafka.produce.vs_kcat {$ours_produce / $kcat_produce:.3f}')"
python3 -c "print(f'RATIO kafka.consume.vs_kcat {$ours_consume / $kcat_consume:.3f}')"
