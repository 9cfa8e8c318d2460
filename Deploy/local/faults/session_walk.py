#!/usr/bin/env python3
"""Walks paginated search sessions against a gateway for a while, for the cluster fault
scenarios (Deploy/local/faults.sh): WALKERS threads each start a session on one of the
queries (round robin), follow next_cursor for up to PAGES pages, and start the next.

Every page goes to PAGE_LOG as one JSON line (time, query, session, status, degraded,
snapshot), so a scenario can tell when pages were degraded. Each session is checked:
  duplicate  a document id seen twice in the session;
  gap        positions that are not 0, 1, 2, ... in order, or a page short of per_page
             while a next_cursor follows.
Prints one JSON object of totals once DURATION seconds have passed or the file STOP exists
(sessions under way are finished first).

usage: session_walk.py PORT DURATION PAGE_LOG QUERY... [--stop STOP] [--walkers N] [--pages N] [--per-page N]
"""
import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("duration", type=float)
parser.add_argument("page_log")
parser.add_argument("queries", nargs="+")
parser.add_argument("--stop", default=None)
parser.add_argument("--walkers", type=int, default=2)
parser.add_argument("--pages", type=int, default=6)
parser.add_argument("--per-page", type=int, default=10)
args = parser.parse_args()

lock = threading.Lock()
totals = {"sessions": 0, "pages": 0, "non_200": 0, "status_5xx": 0, "errors": 0, "degraded": 0,
          "sessions_with_duplicates": 0, "sessions_with_gaps": 0, "interleaved_sessions": 0}
log = open(args.page_log, "w", buffering=1)
deadline = time.monotonic() + args.duration


def get(url):
    """(status, page or None); failures are described on stderr."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        print(f"HTTP {error.code} for {url}: {error.read()[:300]!r}", file=sys.stderr)
        return error.code, None
    except Exception as error:
        print(f"request failed: {url}: {error}", file=sys.stderr)
        return 0, None


def walk(query, session):
    base = f"http://127.0.0.1:{args.port}/v1/search"
    url = f"{base}?q={urllib.parse.quote(query)}&per_page={args.per_page}&session={session}"
    ids, positions = [], []
    gap = interleaved = False
    for _ in range(args.pages):
        status, page = get(url)
        degraded = bool(page and page.get("degraded"))
        snapshot = (page or {}).get("interleaving", {}).get("snapshot") if page else None
        with lock:
            totals["pages"] += 1
            if status != 200:
                totals["non_200"] += 1
                totals["status_5xx"] += status >= 500
                totals["errors"] += status == 0
            totals["degraded"] += degraded
            log.write(json.dumps({"t": time.time(), "query": query, "session": session, "status": status,
                                  "degraded": degraded, "snapshot": snapshot}) + "\n")
        if status != 200:
            return
        items = page["items"]
        interleaved = interleaved or any(item.get("team") == "B" for item in items)
        ids += [item["id"] for item in items]
        positions += [item["position"] for item in items]
        cursor = page.get("next_cursor")
        if cursor and len(items) < args.per_page:
            gap = True
        if not cursor:
            break
        url = f"{base}?q={urllib.parse.quote(query)}&cursor={urllib.parse.quote(cursor)}&session={session}"
    with lock:
        totals["sessions"] += 1
        totals["interleaved_sessions"] += interleaved
        totals["sessions_with_duplicates"] += len(set(ids)) != len(ids)
        totals["sessions_with_gaps"] += gap or positions != list(range(len(positions)))


def walker(index):
    n = 0
    while time.monotonic() < deadline and not (args.stop and os.path.exists(args.stop)):
        walk(args.queries[(index + n) % len(args.queries)], f"w{index}-{n}")
        n += 1


threads = [threading.Thread(target=walker, args=(i,)) for i in range(args.walkers)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(totals))
