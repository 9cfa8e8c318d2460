"""Publish a Braid precompute request from Python with confluent-kafka.

The topic, key, headers and value follow Schemas/asyncapi.yaml (channel `braid.requests`):

- value: a `braid.request/v1` JSON object (Schemas/request.schema.json);
- key: the hash tag of the Redis keys the request writes, so that every request for one
  ranking-and-query (or one component) lands on the partition Braid's own producers use and is
  processed in order; confluent-kafka's default partitioner is librdkafka's, as Braid's is;
- headers: W3C `traceparent` (and `tracestate`) when the caller has a trace to continue.

`requested_at` is the version of what the worker writes: a request no newer than what is stored
for its key is acknowledged without work. Stamp each request with the time you publish it.

As a library::

    from confluent_kafka import Producer
    from publish_request import PRODUCER_SETTINGS, publish, ranking_request

    producer = Producer(PRODUCER_SETTINGS | {"bootstrap.servers": "127.0.0.1:9092"})
    publish(producer, ranking_request("featured", "curry rice"))

From a shell (`.venv/bin/python Examples/python/publish_request.py --help`)::

    publish_request.py --brokers 127.0.0.1:9092 --ranking featured --query "curry rice"
    publish_request.py --brokers 127.0.0.1:9092 --feed home --type recommended_recipes --user u42
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import unicodedata
import uuid
from datetime import datetime, timezone
from typing import Optional

from confluent_kafka import KafkaException, Message, Producer

TOPIC = "braid.requests"
SCHEMA = "braid.request/v1"

# What Braid's own producers set: idempotent (no duplicates or reordering on retries), acked
# by every in-sync replica. The partitioner stays librdkafka's default (consistent_random).
PRODUCER_SETTINGS = {"enable.idempotence": True, "acks": "all", "linger.ms": 5}


# Unicode's White_Space property: what Swift's Character.isWhitespace tests (Python's str.split()
# also splits on U+001C-U+001F, which are not White_Space).
WHITE_SPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                        "\u2028\u2029\u202f\u205f\u3000")
# White space that is a control in grapheme segmentation: no mark joins it.
CONTROL_SPACE = frozenset("\t\n\v\f\r\x85\u2028\u2029")


def normalize_query(query: str) -> str:
    """The query normalisation of Braid's workers and gateways (QueryNormalizer): NFKC, case
    folding, NFKC; punctuation and symbols become spaces; whitespace collapsed and trimmed.

    Swift splits on characters (grapheme clusters): a space followed by combining marks or a
    zero-width (non-)joiner is one white-space character there, so the marks go with it."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", query).casefold())
    spaced = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in folded)
    words, word, index = [], [], 0
    while index < len(spaced):
        char = spaced[index]
        index += 1
        if char not in WHITE_SPACE:
            word.append(char)
            continue
        if char not in CONTROL_SPACE:
            while index < len(spaced) and (unicodedata.category(spaced[index])[0] == "M" or spaced[index] in "\u200c\u200d"):
                index += 1
        if word:
            words.append("".join(word))
            word = []
    if word:
        words.append("".join(word))
    return " ".join(words)


def key_digest(text: str) -> str:
    """First 10 bytes of the SHA-256 of the UTF-8 text, lowercase hex."""
    return hashlib.sha256(text.encode("utf-8")).digest()[:10].hex()


def message_key(request: dict) -> str:
    """The Kafka key of a request: the hash tag of the Redis keys it writes."""
    if request["kind"] == "ranking":
        target = request["ranking"]
        return f"rank:{target['id']}:{key_digest(normalize_query(target['query']))}"
    target = request["component"]
    scope = "&".join(f"{name}={target['scope'][name]}" for name in ("category", "segment", "user") if name in target["scope"])
    return f"comp:{target['feed']}:{target['type']}:{key_digest(scope)}"


def now_rfc3339() -> str:
    """The current time as `requested_at` wants it: RFC 3339, UTC, milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _request(kind: str, body: dict, ttl_seconds: Optional[int], requested_at: Optional[str], request_id: Optional[str]) -> dict:
    request = {"schema": SCHEMA, "id": request_id or str(uuid.uuid4()), "kind": kind, kind: body,
               "requested_at": requested_at or now_rfc3339()}
    if ttl_seconds is not None:
        request["ttl_seconds"] = ttl_seconds
    return request


def ranking_request(ranking: str, query: str, size: Optional[int] = None, ttl_seconds: Optional[int] = None,
                    requested_at: Optional[str] = None, request_id: Optional[str] = None) -> dict:
    """Materialize secondary ranking `ranking` for `query` (size and TTL default to its configuration)."""
    body = {"id": ranking, "query": query}
    if size is not None:
        body["size"] = size
    return _request("ranking", body, ttl_seconds, requested_at, request_id)


def component_request(feed: str, type: str, user: Optional[str] = None, segment: Optional[str] = None,
                      category: Optional[str] = None, ttl_seconds: Optional[int] = None,
                      requested_at: Optional[str] = None, request_id: Optional[str] = None) -> dict:
    """Materialize one feed component's content for a user, a segment or a category."""
    scope = {name: value for name, value in (("user", user), ("segment", segment), ("category", category)) if value is not None}
    return _request("component", {"feed": feed, "type": type, "scope": scope}, ttl_seconds, requested_at, request_id)


def message(request: dict, traceparent: Optional[str] = None, tracestate: Optional[str] = None):
    """(key, value, headers) of the Kafka message carrying `request`."""
    headers = []
    if traceparent:
        headers.append(("traceparent", traceparent.encode("utf-8")))
        if tracestate:
            headers.append(("tracestate", tracestate.encode("utf-8")))
    value = json.dumps(request, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return message_key(request).encode("utf-8"), value, headers


def publish(producer: Producer, request: dict, topic: str = TOPIC, traceparent: Optional[str] = None,
            tracestate: Optional[str] = None, timeout: float = 30.0) -> Message:
    """Publishes `request` and waits until the broker has stored it; returns the delivered message
    (its partition and offset). Raises KafkaException when it was not delivered."""
    key, value, headers = message(request, traceparent, tracestate)
    outcome = {}

    def delivered(error, delivered_message):
        outcome["error"], outcome["message"] = error, delivered_message

    producer.produce(topic, key=key, value=value, headers=headers, on_delivery=delivered)
    producer.flush(timeout)
    if "error" not in outcome:
        raise KafkaException(f"no delivery report within {timeout} s")
    if outcome["error"] is not None:
        raise KafkaException(outcome["error"])
    return outcome["message"]


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Publish one Braid precompute request to braid.requests.")
    parser.add_argument("--brokers", default="127.0.0.1:9092", help="bootstrap servers (kafka.brokers)")
    parser.add_argument("--topic", default=TOPIC, help="kafka.requests_topic")
    parser.add_argument("--ranking", help="secondary ranking to materialize")
    parser.add_argument("--query", help="query of the ranking")
    parser.add_argument("--size", type=int, help="documents in the snapshot (default: the ranking's size)")
    parser.add_argument("--feed", help="feed of the component")
    parser.add_argument("--type", help="component type, e.g. recommended_recipes")
    parser.add_argument("--user")
    parser.add_argument("--segment")
    parser.add_argument("--category")
    parser.add_argument("--ttl", type=int, help="lifetime in Redis, seconds (default: configured)")
    parser.add_argument("--traceparent", help="W3C trace context to continue, 00-<trace id>-<span id>-<flags>")
    parser.add_argument("--tracestate")
    args = parser.parse_args(argv)
    if args.ranking and args.query:
        request = ranking_request(args.ranking, args.query, size=args.size, ttl_seconds=args.ttl)
    elif args.feed and args.type:
        request = component_request(args.feed, args.type, user=args.user, segment=args.segment, category=args.category, ttl_seconds=args.ttl)
    else:
        parser.error("give --ranking and --query, or --feed and --type")
    producer = Producer(PRODUCER_SETTINGS | {"bootstrap.servers": args.brokers})
    try:
        delivered = publish(producer, request, topic=args.topic, traceparent=args.traceparent, tracestate=args.tracestate)
    except KafkaException as error:
        print(f"not published: {error}", file=sys.stderr)
        return 1
    print(f"published {request['id']} key {delivered.key().decode()} to {delivered.topic()}/{delivered.partition()}/{delivered.offset()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
