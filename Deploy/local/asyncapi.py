"""Schemas/asyncapi.yaml: validate the document, and check Kafka messages against it.

    .venv/bin/python Deploy/local/asyncapi.py [DOCUMENT]

validates the document (default Schemas/asyncapi.yaml) against the official AsyncAPI 3.0.0 JSON
Schema (vendored in Schemas/vendor/asyncapi/, from the AsyncAPI Initiative's spec-json-schemas;
the official validator lives on npm) with jsonschema, and then checks what that schema cannot:
every $ref resolves, the JSON Schemas it refers to are valid, every operation's messages belong
to its channel, and every message example matches its message. Exit status 0 when valid.

``Contract`` checks one Kafka message (topic, key, headers, value) against the document: the
message's Kafka key schema, its headers schema and its payload (the referenced JSON Schema).
The Python example's test (Examples/python/) uses it on what it produces and on what the broker
holds afterwards.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterable, Optional
from urllib.parse import urldefrag

import jsonschema
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7, DRAFT202012

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "Schemas" / "asyncapi.yaml"
OFFICIAL_SCHEMA = ROOT / "Schemas" / "vendor" / "asyncapi" / "3.0.0.json"
# The payload format this document declares for the JSON Schemas it refers to.
JSON_SCHEMA_2020_12 = "application/schema+json;version=draft-2020-12"


def _load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def _json_schemas(directory: Path) -> Registry:
    """Every JSON Schema next to the document, under its file URI and under its $id."""
    registry = Registry()
    for path in sorted(directory.glob("*.schema.json")):
        contents = _load(path)
        resource = Resource.from_contents(contents, default_specification=DRAFT202012)
        registry = registry.with_resource(path.resolve().as_uri(), resource)
        if "$id" in contents:
            registry = registry.with_resource(contents["$id"], resource)
    return registry


def _pointer(document: Any, fragment: str) -> Any:
    node = document
    if fragment in ("", "/"):
        return node
    for part in fragment.lstrip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _refs(node: Any, path: str = "#") -> Iterable[tuple[str, str]]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield path, node["$ref"]
        for key, value in node.items():
            yield from _refs(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _refs(value, f"{path}/{index}")


class Document:
    """A loaded AsyncAPI document and the JSON Schemas next to it."""

    def __init__(self, path: Path = DOCUMENT, contents: Any = None):
        self.path = path.resolve()
        self.uri = self.path.as_uri()
        self.contents = _load(self.path) if contents is None else contents
        self.schemas = _json_schemas(self.path.parent)
        # The document itself is a resource too: header and key schemas are AsyncAPI Schema
        # objects (a superset of JSON Schema draft-07) inside it.
        self.registry = self.schemas.with_resource(self.uri, Resource(contents=self.contents, specification=DRAFT7))

    def resolve(self, ref: str) -> Any:
        """What a $ref of the document points to (a part of it, or of a file next to it)."""
        target, fragment = urldefrag(ref)
        if not target:
            return _pointer(self.contents, fragment)
        path = (self.path.parent / target).resolve()
        return _pointer(_load(path), fragment)

    def deref(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            node = self.resolve(node["$ref"])
        return node

    # -- Validating the document ------------------------------------------------------------

    def errors(self) -> list[str]:
        """Why the document is not a valid AsyncAPI 3.0.0 document; empty when it is."""
        found = [f"{'/'.join(map(str, e.absolute_path)) or '(document)'}: {e.message}" for e in official_errors(self.contents)]
        if found:
            return found
        for where, ref in _refs(self.contents):
            try:
                target = self.resolve(ref)
            except (KeyError, IndexError, ValueError, OSError) as error:
                found.append(f"{where}: $ref {ref} does not resolve ({error!r})")
                continue
            if urldefrag(ref)[0].endswith(".json"):
                try:
                    jsonschema.validators.validator_for(target, default=jsonschema.Draft202012Validator).check_schema(target)
                except jsonschema.SchemaError as error:
                    found.append(f"{where}: {ref} is not a valid JSON Schema: {error.message}")
        if found:
            return found
        for name, operation in self.contents.get("operations", {}).items():
            channel = self.deref(operation["channel"])
            own = [id(self.deref(m)) for m in channel.get("messages", {}).values()]
            for index, message in enumerate(operation.get("messages", [])):
                if not message.get("$ref", "").startswith(operation["channel"]["$ref"] + "/messages/"):
                    found.append(f"operations/{name}/messages/{index}: must refer to a message of its channel")
                elif id(self.deref(message)) not in own:
                    found.append(f"operations/{name}/messages/{index}: not a message of its channel")
        for channel_name, channel in self.contents.get("channels", {}).items():
            for message_name, message in channel.get("messages", {}).items():
                message = self.deref(message)
                for example in message.get("examples", []):
                    problems = self.message_errors(message, key=None, headers=example.get("headers", {}), payload=example.get("payload"))
                    found += [f"channels/{channel_name}/messages/{message_name} example {example.get('name')}: {p}" for p in problems]
        return found

    # -- Checking messages --------------------------------------------------------------------

    def channel(self, topic: str) -> dict:
        for channel in self.contents["channels"].values():
            if channel["address"] == topic:
                return channel
        raise KeyError(f"no channel has the address {topic!r}")

    def _schema_errors(self, pointer: str, instance: Any, what: str) -> list[str]:
        validator = jsonschema.Draft7Validator({"$ref": f"{self.uri}#{pointer}"}, registry=self.registry)
        return [f"{what}{'.' + '.'.join(map(str, e.absolute_path)) if e.absolute_path else ''}: {e.message}" for e in validator.iter_errors(instance)]

    def _pointer_of(self, message: dict) -> str:
        for name, candidate in self.contents["components"]["messages"].items():
            if candidate is message:
                return f"/components/messages/{name}"
        raise KeyError("messages must be defined under components/messages")

    def message_errors(self, message: dict, key: Optional[str], headers: dict, payload: Any, check_key: bool = False) -> list[str]:
        """Errors of one message against one message object (key checked when asked: examples have none)."""
        pointer = self._pointer_of(message)
        found: list[str] = []
        if "headers" in message:
            found += self._schema_errors(pointer + "/headers", headers, "headers")
        elif headers:
            found.append(f"headers: this message carries none, got {sorted(headers)}")
        key_schema = message.get("bindings", {}).get("kafka", {}).get("key")
        if check_key and key_schema is not None:
            found += self._schema_errors(pointer + "/bindings/kafka/key", key, "key")
        body = message.get("payload", {})
        if body.get("schemaFormat") == JSON_SCHEMA_2020_12:
            target, _ = urldefrag(body["schema"]["$ref"])
            uri = (self.path.parent / target).resolve().as_uri()
            schema = self.schemas.contents(uri)
            validator = jsonschema.Draft202012Validator(
                schema, registry=self.schemas, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
            found += [f"payload{'.' + '.'.join(map(str, e.absolute_path)) if e.absolute_path else ''}: {e.message}" for e in validator.iter_errors(payload)]
        return found


def official_errors(contents: Any) -> list[jsonschema.ValidationError]:
    """Errors against the official AsyncAPI 3.0.0 JSON Schema (a bundle of draft-07 schemas)."""
    official = _load(OFFICIAL_SCHEMA)
    registry = Registry().with_resource(official["$id"], Resource.from_contents(official, default_specification=DRAFT7))
    # The bundle holds every definition under its own $id; register each so references resolve offline.
    for uri, definition in official.get("definitions", {}).items():
        registry = registry.with_resource(uri, Resource.from_contents(definition, default_specification=DRAFT7))
    validator = jsonschema.Draft7Validator(official, registry=registry)
    return sorted(validator.iter_errors(contents), key=lambda e: list(map(str, e.absolute_path)))


class Contract:
    """Checks Kafka messages against the document: the messages of the channel with the topic's
    address; a message passes when it matches one of them."""

    def __init__(self, path: Path = DOCUMENT):
        self.document = Document(path)

    def errors(self, topic: str, key: Optional[bytes], headers: Optional[list[tuple[str, bytes]]], value: Optional[bytes]) -> list[str]:
        headers = headers or []
        names = [name for name, _ in headers]
        duplicated = sorted({name for name in names if names.count(name) > 1})
        decoded_headers: dict[str, Any] = {}
        found: list[str] = [f"headers: {name} appears more than once" for name in duplicated]
        for name, raw in headers:
            try:
                decoded_headers[name] = (raw or b"").decode("utf-8")
            except UnicodeDecodeError:
                found.append(f"headers: {name} is not UTF-8")
        decoded_key: Optional[str] = None
        if key is not None:
            try:
                decoded_key = key.decode("utf-8")
            except UnicodeDecodeError:
                found.append("key: not UTF-8")
        try:
            payload = json.loads(value) if value is not None else None
        except ValueError:
            payload = value
        channel = self.document.channel(topic)
        per_message = []
        for message in channel["messages"].values():
            message = self.document.deref(message)
            problems = self.document.message_errors(message, decoded_key, decoded_headers, payload, check_key=True)
            if not problems:
                return found
            per_message.append(f"{message.get('name')}: " + "; ".join(problems))
        return found + per_message


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DOCUMENT
    document = Document(path)
    errors = document.errors()
    if errors:
        for error in errors:
            print(f"asyncapi: {error}", file=sys.stderr)
        print(f"asyncapi: {path} is NOT a valid AsyncAPI 3.0.0 document ({len(errors)} errors)", file=sys.stderr)
        return 1
    channels = document.contents.get("channels", {})
    print(
        f"asyncapi: {path} is a valid AsyncAPI {document.contents['asyncapi']} document "
        f"(official JSON Schema {OFFICIAL_SCHEMA.relative_to(ROOT)}, jsonschema {jsonschema_version()}; "
        f"{len(channels)} channels, {len(document.contents.get('operations', {}))} operations; every $ref resolves, "
        "every example matches its message)")
    return 0


def jsonschema_version() -> str:
    from importlib.metadata import version

    return version("jsonschema")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
