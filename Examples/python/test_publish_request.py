"""Tests of publish_request.py against Schemas/asyncapi.yaml and against a real stack.

`braid-dev examples` (part of `make test`) runs them with a broker, redis-server, `braid worker`
and `braid gateway` it started, passing their addresses in the environment. The tests of the
document and of the messages alone run without them (`.venv/bin/python -m pytest
Examples/python`); the others are skipped then.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from datetime import datetime
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "Deploy" / "local"))

import asyncapi  # noqa: E402  (Deploy/local/asyncapi.py)
import publish_request as example  # noqa: E402

REQUESTS = "braid.requests"
DEAD_LETTERS = "braid.requests.dlq"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

BROKERS = os.environ.get("BRAID_KAFKA_BROKERS")
GATEWAY = os.environ.get("BRAID_EXAMPLES_GATEWAY")
REDIS_URL = os.environ.get("BRAID_REDIS_URL")
KEY_TOPIC = os.environ.get("BRAID_EXAMPLES_KEY_TOPIC")
BRAID = os.environ.get("BRAID")
stack = pytest.mark.skipif(
    not (BROKERS and GATEWAY and REDIS_URL and KEY_TOPIC and BRAID), reason="needs the stack of `braid-dev examples`")

# Queries whose normalisation is easy to get wrong: width, case, punctuation, symbols,
# composed and decomposed accents, ligatures, scripts with special case folding.
TRICKY_QUERIES = [
    "curry rice", "  Curry   RICE!! ", "ＣＵＲＲＹ　ライス", "カレー・ライス", "カレー、ライス。", "Straße", "cafe\u0301", "café",
    "😀 pasta", "ﬁsh & chips", "ΣΊΣΥΦΟΣ", "pad thai (spicy) -- 2 people", "ramen\tmiso\nsoup", "$5 dinner",
    "İstanbul", "ǅemal", "ﬃ", "ᾳ", "a\u00a0b\u2003c\u3000d\u1680e", "a\x1fb\x1cc", "cafe \u0301x", "cafe\t\u0301x", "a \u200db",
]


@pytest.fixture(scope="module")
def contract() -> asyncapi.Contract:
    return asyncapi.Contract()


def messages_of_every_kind():
    yield "ranking", example.ranking_request("featured", "curry rice"), None, None
    yield "ranking, size, ttl, traced", example.ranking_request("featured", "ＣＵＲＲＹ　ライス", size=30, ttl_seconds=3600), TRACEPARENT, None
    yield "ranking, trace state", example.ranking_request("featured", "miso soup"), TRACEPARENT, "vendor=opaque"
    yield "component, user", example.component_request("home", "recommended_recipes", user="u42"), None, None
    yield "component, category", example.component_request("home", "popular_in_category", category="dessert"), TRACEPARENT, None
    yield "component, segment", example.component_request("home", "banner", segment="new_users"), None, None


# -- The document ----------------------------------------------------------------------------


def test_the_document_is_a_valid_asyncapi_3_document():
    assert asyncapi.Document().errors() == []


def test_the_documented_keys_are_the_keys_of_the_documented_requests():
    message = asyncapi.Document().contents["components"]["messages"]["precomputeRequest"]
    documented = message["bindings"]["kafka"]["key"]["examples"]
    computed = {example.message_key(e["payload"]) for e in message["examples"]}
    assert set(documented) <= computed, (documented, computed)


@pytest.mark.parametrize("break_it, expected", [
    (lambda d: d.pop("info"), "'info' is a required property"),
    (lambda d: d["channels"]["requests"].update(address=17), "address"),
    (lambda d: d["components"]["messages"]["precomputeRequest"]["payload"]["schema"].update({"$ref": "./no-such.schema.json"}), "does not resolve"),
    (lambda d: d["operations"]["materializeRequest"]["messages"][0].update({"$ref": "#/channels/events/messages/experimentEvent"}), "its channel"),
    (lambda d: d["components"]["messages"]["deadLetter"]["examples"][0]["headers"].pop("braid-dlq-source"), "braid-dlq-source"),
    (lambda d: d["components"]["messages"]["precomputeRequest"]["examples"][0]["payload"].pop("requested_at"), "requested_at"),
])
def test_the_validator_refuses_a_broken_document(break_it, expected):
    document = asyncapi.Document()
    broken = copy.deepcopy(document.contents)
    break_it(broken)
    errors = asyncapi.Document(document.path, contents=broken).errors()
    assert any(expected in error for error in errors), errors


# -- Messages, before they are sent --------------------------------------------------------


@pytest.mark.parametrize("name, request_, traceparent, tracestate", list(messages_of_every_kind()), ids=lambda v: v if isinstance(v, str) else "")
def test_each_message_matches_the_document(contract, name, request_, traceparent, tracestate):
    key, value, headers = example.message(request_, traceparent, tracestate)
    assert contract.errors(REQUESTS, key, headers, value) == []
    # What the example writes is what the workers read: the JSON Schema is the worker's rule.
    assert json.loads(value) == request_
    assert dict(headers).get("traceparent") == (traceparent.encode() if traceparent else None)


def test_the_schema_examples_are_requests_the_example_keys(contract):
    for path in sorted((ROOT / "Schemas" / "examples").glob("request-*.json")):
        request_ = json.loads(path.read_text())
        key, value, headers = example.message(request_)
        assert contract.errors(REQUESTS, key, headers, value) == [], path.name


@pytest.mark.parametrize("spoil, expected", [
    (lambda k, v, h: (k, v, [("traceparent", TRACEPARENT.upper().encode())]), "headers.traceparent"),
    (lambda k, v, h: (k, v, [("traceparent", b"01-" + TRACEPARENT[3:].encode())]), "headers.traceparent"),
    (lambda k, v, h: (k, v, [("traceparent", TRACEPARENT.encode()), ("traceparent", TRACEPARENT.encode())]), "more than once"),
    (lambda k, v, h: (k, v, [("braid-replay-of", b"yesterday")]), "headers.braid-replay-of"),
    (lambda k, v, h: (b"curry rice", v, h), "key"),
    (lambda k, v, h: (k, json.dumps({**json.loads(v), "requested_at": "yesterday"}).encode(), h), "payload.requested_at"),
    (lambda k, v, h: (k, b"not json", h), "payload"),
])
def test_a_wrong_key_header_or_payload_fails_the_check(contract, spoil, expected):
    key, value, headers = spoil(*example.message(example.ranking_request("featured", "curry rice"), TRACEPARENT))
    errors = contract.errors(REQUESTS, key, headers, value)
    assert any(expected in error for error in errors), errors


def test_a_dead_letter_without_its_headers_fails_the_check(contract):
    key, value, _ = example.message(example.ranking_request("featured", "curry rice"))
    headers = [("braid-dlq-reason", b"unknown ranking"), ("braid-dlq-attempts", b"1"), ("braid-dlq-failed-at", b"2026-11-22T10:00:02Z")]
    errors = contract.errors(DEAD_LETTERS, key, headers, value)
    assert any("braid-dlq-source" in error for error in errors), errors
    errors = contract.errors(DEAD_LETTERS, key, headers + [("braid-dlq-source", b"braid.requests/1/x")], value)
    assert any("braid-dlq-source" in error for error in errors), errors


# -- Against the stack -----------------------------------------------------------------------


def read_back(topic: str, partition: int, offset: int, timeout: float = 30.0):
    """The message at topic/partition/offset, as the broker stored it."""
    consumer = Consumer({"bootstrap.servers": BROKERS, "group.id": f"examples-{uuid.uuid4()}", "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, partition, offset)])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            stored = consumer.poll(1.0)
            if stored is not None and stored.error() is None and stored.offset() == offset:
                return stored
        raise AssertionError(f"{topic}/{partition}/{offset} not read within {timeout} s")
    finally:
        consumer.close()


def read_all(topic: str, until, timeout: float = 30.0):
    """Messages of every partition of `topic` from the beginning, until `until(messages)`."""
    consumer = Consumer({"bootstrap.servers": BROKERS, "group.id": f"examples-{uuid.uuid4()}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    messages = []
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not until(messages):
            stored = consumer.poll(0.5)
            if stored is not None and stored.error() is None:
                messages.append(stored)
        assert until(messages), f"{topic}: only {len(messages)} messages within {timeout} s"
        return messages
    finally:
        consumer.close()


def producer() -> Producer:
    return Producer(example.PRODUCER_SETTINGS | {"bootstrap.servers": BROKERS})


@stack
def test_keys_and_partitions_are_those_of_braid_publish(contract, tmp_path):
    """The example keys each request as Braid's own `braid publish` does, and the two producers
    put each key on the same partition."""
    requests = [example.ranking_request("featured", query) for query in TRICKY_QUERIES] + [
        example.component_request("home", "recommended_recipes", user="u42"),
        example.component_request("home", "popular_in_category", category="dessert"),
        example.component_request("home", "banner", segment="new_users", category="dessert", user="u7"),
    ]
    mine = producer()
    for request_ in requests:
        example.publish(mine, request_, topic=KEY_TOPIC)
    lines = tmp_path / "requests.jsonl"
    lines.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests), encoding="utf-8")
    environment = os.environ | {"BRAID_KAFKA_REQUESTS_TOPIC": KEY_TOPIC}
    subprocess.run([BRAID, "publish", "--file", str(lines)], env=environment, check=True, capture_output=True, timeout=60)

    stored = read_all(KEY_TOPIC, lambda messages: len(messages) >= 2 * len(requests))
    by_id: dict[str, list] = {}
    for message in stored:
        # The scratch topic carries what braid.requests would: its channel's contract applies.
        assert contract.errors(REQUESTS, message.key(), message.headers(), message.value()) == []
        by_id.setdefault(json.loads(message.value())["id"], []).append(message)
    for request_ in requests:
        pair = by_id[request_["id"]]
        assert len(pair) == 2, request_
        assert pair[0].key() == pair[1].key(), (request_, pair[0].key(), pair[1].key())
        assert pair[0].partition() == pair[1].partition(), request_


def redis_get(key: str) -> str:
    return subprocess.run(["redis-cli", "-u", REDIS_URL, "--raw", "GET", key], check=True, capture_output=True, text=True).stdout.strip()


@stack
def test_a_published_request_is_materialized_by_a_worker_and_served_by_the_gateway(contract):
    request_ = example.ranking_request("featured", "Curry Rice!")
    version = round(datetime.fromisoformat(request_["requested_at"].replace("Z", "+00:00")).timestamp() * 1000)
    delivered = example.publish(producer(), request_, traceparent=TRACEPARENT)

    stored = read_back(REQUESTS, delivered.partition(), delivered.offset())
    assert contract.errors(REQUESTS, stored.key(), stored.headers(), stored.value()) == []
    assert stored.key() == example.message_key(request_).encode()
    assert ("traceparent", TRACEPARENT.encode()) in stored.headers()

    # The worker writes the snapshot under the key's hash tag, versioned by requested_at.
    pointer = "braid:{" + example.message_key(request_) + "}:cur"
    deadline = time.monotonic() + 30
    while redis_get(pointer) != str(version):
        assert time.monotonic() < deadline, f"{pointer} is {redis_get(pointer)!r}, not {version}, after 30 s"
        time.sleep(0.2)

    # The gateway interleaves that snapshot into the page of the same query, however it is typed.
    query = urllib.parse.urlencode({"q": "curry rice", "ranking": "featured", "per_page": 10})
    with urllib.request.urlopen(f"{GATEWAY}/v1/search?{query}", timeout=30) as response:
        page = json.load(response)
    assert page["interleaving"]["snapshot"] == version, page["interleaving"]
    assert any(item["source"] == "cached" and item["team"] == "B" for item in page["items"]), page["items"]


@stack
def test_a_request_the_worker_cannot_process_becomes_a_dead_letter_as_the_document_says(contract):
    request_ = example.ranking_request("no-such-ranking", "curry rice")
    delivered = example.publish(producer(), request_, traceparent=TRACEPARENT)
    source = f"{REQUESTS}/{delivered.partition()}/{delivered.offset()}".encode()

    def found(messages):
        return any(dict(m.headers() or []).get("braid-dlq-source") == source for m in messages)

    letter = next(m for m in read_all(DEAD_LETTERS, found) if dict(m.headers() or []).get("braid-dlq-source") == source)
    assert contract.errors(DEAD_LETTERS, letter.key(), letter.headers(), letter.value()) == []
    headers = dict(letter.headers())
    assert letter.key() == delivered.key() and letter.value() == delivered.value()
    assert headers["traceparent"] == TRACEPARENT.encode()
    assert b"unknown ranking 'no-such-ranking'" in headers["braid-dlq-reason"]
    assert headers["braid-dlq-attempts"] == b"1"
