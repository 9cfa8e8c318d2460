"""The console in headless Chromium against a running gateway (`braid-dev browser` starts one).

Each check compares what the page draws with what the gateway's API answers for the same
request, so a check fails when the console draws something else. Any JavaScript console
error (including a failed request) fails the run. One screenshot per page goes to --out.
"""
import argparse
import json
import os
import shutil
import sys
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

TEAM_RGB = {0: "rgb(47, 111, 222)", 1: "rgb(224, 123, 26)"}


class Check(Exception):
    pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--partitions", type=int, required=True)
    args = parser.parse_args()
    base = args.base_url
    os.makedirs(args.out, exist_ok=True)

    def api(path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(base + path, data=data, headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def wait(condition, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise Check(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.1)

    # Team-draft clicks for the experiments page: the draft arm's session, B clicked more.
    overview = api("/v1/admin/console")
    draft = next(arm for arm in overview["arms"] if arm["name"] == "draft")
    events = []
    for n, q in enumerate(["curry", "chicken", "pasta", "cake", "salad", "soup", "rice", "beef", "tofu", "egg", "fish", "bread"]):
        # Twice: a query's first miss is live-only until it is seen again (gateway.admission).
        for _ in range(2):
            page = api("/v1/search?" + urllib.parse.urlencode({"q": q, "per_page": 10, "session": draft["sample_session"]}))
        if not page.get("impression_id"):
            continue
        team = "B" if n % 3 else "A"
        clicked = [item for item in page["items"] if item["team"] == team]
        events.append({"type": "impression", "impression_id": page["impression_id"]})
        if clicked:
            events.append({"type": "click", "impression_id": page["impression_id"], "position": clicked[0]["position"]})
    # The home feed's interleaved list, for a user whose session falls in the draft arm: its
    # page is traffic of the experiment too, credited to the component. Its cached ranking is
    # materialized after the first misses.
    more = "/v1/feeds/home/components/more?" + urllib.parse.urlencode({"user": draft["sample_session"]})
    listed = wait(lambda: (lambda page: page if page.get("impression_id") else None)(api(more)), 60, "an impression id on home/more")
    clicked = [item for item in listed["items"] if item["team"] == "B"]
    events.append({"type": "impression", "impression_id": listed["impression_id"]})
    if clicked:
        events.append({"type": "click", "impression_id": listed["impression_id"], "position": clicked[0]["position"]})
    # The demo's layout experiment (home-layout): four users' layouts shown, two of them clicked.
    for n in range(4):
        shown = api("/v1/feeds/home?" + urllib.parse.urlencode({"user": f"browser-layout-{n}", "session": f"browser-layout-{n}"}))
        events.append({"type": "impression", "impression_id": shown["impression_id"]})
        if n % 2:
            events.append({"type": "click", "impression_id": shown["impression_id"], "component": shown["components"][0]["id"]})
    api("/v1/events", {"events": events})
    wait(lambda: api("/v1/experiments/draft")["impressions"] >= 11, 60, "the worker to credit 11 impressions")
    wait(lambda: sum(v["impressions"] for v in api("/v1/experiments/home-layout")["layout"]["variants"]) >= 4, 60,
         "the worker to credit the 4 layout impressions")

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,800", "--disable-gpu"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    js_errors = []
    failures = []

    def collect_errors(page):
        for entry in driver.get_log("browser"):
            if entry["level"] == "SEVERE":
                js_errors.append(f"{page}: {entry['message']}")

    def js(script, *arguments):
        return driver.execute_script(script, *arguments)

    def open_page(name):
        driver.get(f"{base}/console#{name}")
        wait(lambda: js("return document.getElementById('main').dataset.ready === 'true' && document.getElementById('main').dataset.page") == name,
             30, f"the {name} page")
        status = js("return document.getElementById('status').textContent")
        if status:
            raise Check(f"{name}: the console reports: {status}")

    def shot(name, height=None):
        if height:  # a taller window for a page whose point is below the fold
            driver.set_window_size(1000, height)
            time.sleep(0.3)
        driver.save_screenshot(os.path.join(args.out, f"{name}.png"))
        if height:
            driver.set_window_size(1000, 800)

    def run(name, check):
        started = time.monotonic()
        try:
            check()
            print(f"browser: PASS {name} ({time.monotonic() - started:.1f} s)")
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the run fails
            failures.append(f"{name}: {error}")
            print(f"browser: FAIL {name}: {error}")
        collect_errors(name)

    def drawn_items(selector):
        return js("""return [...document.querySelectorAll(arguments[0])].map(n => ({
            id: n.dataset.id, team: n.dataset.team, position: Number(n.dataset.position),
            border: getComputedStyle(n).borderLeftColor, badge: getComputedStyle(n.querySelector('.team')).backgroundColor}))""", selector)

    def expect_items(drawn, items, what):
        if [d["id"] for d in drawn] != [i["id"] for i in items]:
            raise Check(f"{what}: drawn ids {[d['id'] for d in drawn]} != API ids {[i['id'] for i in items]}")
        for d, item in zip(drawn, items):
            team = item.get("team_index", 1 if item["team"] == "B" else 0)
            if d["position"] != item["position"] or d["team"] != item["team"]:
                raise Check(f"{what}: item {item['id']} drawn at {d['position']} team {d['team']}, API says {item['position']} {item['team']}")
            if d["border"] != TEAM_RGB[team] or d["badge"] != TEAM_RGB[team]:
                raise Check(f"{what}: item {item['id']} of team {item['team']} drawn in {d['border']} / {d['badge']}, expected {TEAM_RGB[team]}")
        if len({i["team"] for i in items}) < 2:
            raise Check(f"{what}: the page has one team only; the colour check needs both")

    def search():
        open_page("search")
        params = {"q": "curry rice", "per_page": 10, "ranking": overview["default_ranking"]}
        first = api("/v1/search?" + urllib.parse.urlencode(params))
        expect_items(drawn_items("#interleaved li.item"), first["items"], "page 1")
        driver.find_element(By.ID, "next-page").click()
        wait(lambda: len(drawn_items("#interleaved li.item")) == 20, 20, "page 2 to be drawn")
        second = api("/v1/search?" + urllib.parse.urlencode({**params, "cursor": first["next_cursor"]}))
        expect_items(drawn_items("#interleaved li.item[data-page='2']"), second["items"], "page 2 (next_cursor)")
        boundaries = js("return [...document.querySelectorAll('#interleaved li.boundary')].map(n => n.textContent)")
        if len(boundaries) != 2 or "positions 10–19" not in boundaries[1]:
            raise Check(f"page boundaries: {boundaries}")
        snapshot = js("return document.getElementById('search-info').dataset.snapshot")
        if snapshot != str(first["interleaving"]["snapshot"]):
            raise Check(f"snapshot version drawn {snapshot!r}, API {first['interleaving']['snapshot']}")
        Select(driver.find_element(By.NAME, "view")).select_by_value("sides")
        wait(lambda: js("return document.querySelectorAll('#side-a li.item').length") == 20, 20, "ranking A alone")
        wait(lambda: js("return document.querySelectorAll('#side-b li.item').length") > 0, 20, "ranking B alone")
        sides = api("/v1/admin/sides?" + urllib.parse.urlencode({"q": "curry rice", "ranking": params["ranking"], "size": 20,
                                                                 "version": first["interleaving"]["snapshot"]}))
        drawn_b = js("return [...document.querySelectorAll('#side-b li.item')].map(n => n.dataset.id)")
        if drawn_b != [d["id"] for d in sides["b"]["items"]]:
            raise Check("ranking B alone is not the snapshot's order")
        shot("search")
        # Another arm: its sample session, and the colours still match that arm's page.
        Select(driver.find_element(By.NAME, "arm")).select_by_value(draft["sample_session"])
        driver.find_element(By.CSS_SELECTOR, "#search-form button[type=submit]").click()
        wait(lambda: "arm draft" in js("return document.getElementById('search-info').textContent"), 20, "the draft arm's page")
        wait(lambda: js("return document.getElementById('main').dataset.ready") == "true", 20, "the draft arm's page")
        drafted = api("/v1/search?" + urllib.parse.urlencode({**params, "session": draft["sample_session"]}))
        expect_items(drawn_items("#interleaved li.item"), drafted["items"], "draft arm page 1")

    def feed():
        driver.get(f"{base}/console#feed")
        wait(lambda: js("return document.getElementById('main').dataset.page === 'feed' && document.getElementById('main').dataset.ready === 'true'"), 30, "the feed page")
        layout = api("/v1/feeds/home?user=u00002")
        # A 1 ms batchGet deadline: what misses it comes back pending and must stay a skeleton of its declared size.
        # Each try is a user not seen yet, so her components are not cached and cannot make the deadline (cached
        # ones are served within it).
        pending = []
        for fresh_user in ["u00041", "u00042", "u00043", "u00044", "u00045"]:
            sizes = {c["id"]: c["layout"]["default_size"] for c in api(f"/v1/feeds/home?user={fresh_user}")["components"]}
            user_field = driver.find_element(By.NAME, "user")
            user_field.clear()
            user_field.send_keys(fresh_user)
            deadline = driver.find_element(By.NAME, "timeout_ms")
            deadline.clear()
            deadline.send_keys("1")
            js("document.getElementById('main').dataset.batchDone = ''")
            driver.find_element(By.CSS_SELECTOR, "#feed-form button[type=submit]").click()
            wait(lambda: js("return document.getElementById('main').dataset.batchDone") == "true", 20, "the batchGet")
            pending = js("""return [...document.querySelectorAll('section.component[data-status=pending]')].map(s => ({
                id: s.dataset.id, skeletons: [...s.querySelectorAll('.body .skeleton')].map(k => [k.offsetWidth, k.offsetHeight]),
                other: s.querySelectorAll('.body .cell, .body .carousel, .body .card, .body .banner').length}))""")
            if pending:
                break
        if not pending:
            raise Check("no component came back pending with a 1 ms deadline in 5 tries")
        for section in pending:
            want = [sizes[section["id"]]["width"], sizes[section["id"]]["height"]]
            if not section["skeletons"] or section["other"] or any(size != want for size in section["skeletons"]):
                raise Check(f"pending {section['id']}: skeletons {section['skeletons']} (content {section['other']}), declared size {want}")
        user_field = driver.find_element(By.NAME, "user")
        user_field.clear()
        user_field.send_keys("u00002")
        deadline = driver.find_element(By.NAME, "timeout_ms")
        deadline.clear()
        driver.find_element(By.CSS_SELECTOR, "#feed-form button[type=submit]").click()
        wait(lambda: js("return document.getElementById('main').dataset.ready") == "true", 20, "the feed")
        drawn = js("return [...document.querySelectorAll('#feed section.component')].map(s => s.dataset.id)")
        if drawn != [c["id"] for c in layout["components"]]:
            raise Check(f"sections {drawn} are not the layout's order {[c['id'] for c in layout['components']]}")
        # Scroll through the feed as a user would: components below the fold load as they come into view.
        wait(lambda: js("""window.scrollBy(0, 300);
            if (window.innerHeight + window.scrollY >= document.body.scrollHeight) window.scrollTo(0, 0);
            return [...document.querySelectorAll('#feed section.component')].every(s => s.dataset.status === 'ready')"""),
             30, "every component to be drawn")
        js("window.scrollTo(0, 0)")
        hlist = js("""const s = document.querySelector('section.component[data-style=horizontal_list] .hlist');
            return s && {scroll: s.scrollWidth, client: s.clientWidth, cells: s.querySelectorAll('.cell').length}""")
        if not hlist or hlist["cells"] < 2 or hlist["scroll"] <= hlist["client"]:
            raise Check(f"no horizontally scrolling list: {hlist}")
        carousel = next(c for c in layout["components"] if c["layout"]["style"] == "carousel")
        interval = carousel["layout"]["carousel"]["auto_advance_interval_ms"] / 1000
        node = "document.querySelector('section.component[data-style=carousel] .carousel')"
        if float(js(f"return {node}.dataset.intervalMs")) / 1000 != interval:
            raise Check("the carousel does not use its configured interval")
        before = js(f"return {node}.dataset.index")
        shot("feed", height=1500)
        wait(lambda: js(f"return {node}.dataset.index") != before, interval + 3, "the carousel to advance")
        wait(lambda: int(js(f"return {node}.dataset.advances") or 0) >= 2, 2 * interval + 3, "the carousel to advance twice")
        gap = (int(js(f"return {node}.dataset.lastAdvanceMs")) - int(js(f"return {node}.dataset.previousAdvanceMs"))) / 1000
        if not interval * 0.9 <= gap <= interval * 1.3:
            raise Check(f"the carousel advanced {gap:.2f} s after its previous advance; configured {interval} s")

    def tabs():
        Select(driver.find_element(By.NAME, "feed")).select_by_value("profile")
        driver.find_element(By.CSS_SELECTOR, "#feed-form button[type=submit]").click()
        profile = api("/v1/feeds/profile?user=u00002")
        group = next(c for c in profile["components"] if c["type"] == "profile_tabs")
        first_tab, second_tab = group["tabs"][0], group["tabs"][1]
        panel = lambda tab: f"document.querySelector('.tabs .panel[data-tab=\"{tab['id']}\"]')"
        ids = lambda tab: js(f"return [...{panel(tab)}.querySelectorAll('.cell')].map(n => n.dataset.id)")
        wait(lambda: js(f"return {panel(first_tab)} && {panel(first_tab)}.dataset.page") == "1", 20, "the first tab")
        page1 = api(first_tab["content_url"])
        if ids(first_tab) != [i["id"] for i in page1["items"]]:
            raise Check("the first tab's page 1 is not the API's")
        js(f"{panel(first_tab)}.querySelector('button.next').click()")
        wait(lambda: js(f"return {panel(first_tab)}.dataset.page") == "2", 20, "the first tab's page 2")
        page2 = api(first_tab["content_url"] + "&" + urllib.parse.urlencode({"cursor": page1["next_cursor"]}))
        if ids(first_tab) != [i["id"] for i in page2["items"]]:
            raise Check("the first tab's page 2 is not the API's page after next_cursor")
        driver.find_element(By.CSS_SELECTOR, f".tabs .heads button[data-tab='{second_tab['id']}']").click()
        wait(lambda: js(f"return {panel(second_tab)}.dataset.page") == "1", 20, "the second tab")
        driver.find_element(By.CSS_SELECTOR, f".tabs .heads button[data-tab='{first_tab['id']}']").click()
        if js(f"return {panel(first_tab)}.dataset.page") != "2" or js(f"return {panel(second_tab)}.dataset.page") != "1":
            raise Check("the tabs do not page independently")

    def experiments():
        open_page("experiments")
        outcome = api("/v1/experiments/draft")
        section = "document.querySelector('section.experiment[data-id=draft]')"
        wait(lambda: js(f"return {section} && {section}.querySelectorAll('circle.sample').length") >= 2, 20, "two samples in the chart")
        outcome = api("/v1/experiments/draft")
        cells = js(f"return [...{section}.querySelectorAll('tr:nth-child(2) td')].map(n => n.textContent)")
        expected = [str(outcome["impressions"]), str(outcome["wins_a"]), str(outcome["wins_b"]), str(outcome["ties"]), f"{outcome['preference']['delta']:.3f}"]
        if cells[1:6] != expected:
            raise Check(f"drawn {cells[1:6]}, API {expected}")

        # The sequential decision: what is drawn is the API's reading (decision, look, p-value,
        # confidence sequence), also in the pair's row. The page refreshes every two seconds, so
        # compare until both agree on the same look.
        def drawn_decision():
            drawn = js(f"const d = {section}.querySelector('.decision'); return d && [d.dataset.decision, d.dataset.look, d.textContent, "
                       f"{section}.querySelector('td.pair-decision').dataset.decision]")
            reading = api("/v1/experiments/draft")["sequential"]
            if not drawn or drawn[1] != str(reading["look"]):
                return None
            return drawn, reading
        drawn, reading = wait(drawn_decision, 20, "the drawn decision at the API's look")
        if reading["look"] < 1:
            raise Check(f"no look taken of {outcome['wins_a'] + outcome['wins_b']} decided sessions: {reading}")
        p_text = f"always-valid p {reading['p_value']:.4f}"
        if drawn[0] != reading["decision"] or drawn[3] != reading["decision"] or p_text not in drawn[2]:
            raise Check(f"drawn decision {drawn}, API {reading['decision']} with {p_text}")
        if reading["interval"] and f"[{reading['interval']['lower']:.3f}, {reading['interval']['upper']:.3f}]" not in drawn[2]:
            raise Check(f"drawn {drawn[2]!r} lacks the confidence sequence {reading['interval']}")

        # Credit by the age of B's snapshot: one row per bucket, the API's counts. The clicks
        # above came from pages whose snapshot was just computed: they are under 15 minutes old.
        def drawn_freshness():
            rows = js(f"return [...{section}.querySelectorAll('table.freshness tr.age')].map(r => [r.dataset.bucket, "
                      "...[...r.querySelectorAll('td')].slice(1, 5).map(n => n.textContent)])")
            buckets = api("/v1/experiments/draft")["freshness"]
            expected = [[b["bucket"], str(b["impressions"]), str(b["wins_a"]), str(b["wins_b"]), str(b["ties"])] for b in buckets]
            return (rows, expected) if rows == expected else None
        rows, expected = wait(drawn_freshness, 20, "the freshness table to match the API")
        fresh = next(row for row in expected if row[0] == "under_15m")
        if int(fresh[1]) < 10:
            raise Check(f"the impressions of just-computed snapshots are not under 15 minutes old: {expected}")

        # Credit by surface: search, then the feed component, the API's counts and p-values.
        def drawn_surfaces():
            rows = js(f"return [...{section}.querySelectorAll('table.surfaces tr.surface')].map(r => [r.dataset.surface, "
                      "...[...r.querySelectorAll('td')].slice(1, 5).map(n => n.textContent), r.querySelector('td:last-child').textContent])")
            entries = api("/v1/experiments/draft")["surfaces"]
            expected = [[e["surface"], str(e["impressions"]), str(e["wins_a"]), str(e["wins_b"]), str(e["ties"]), f"{e['p_value']:.4f}"]
                        for e in entries]
            return (rows, expected) if rows == expected else None
        rows, expected = wait(drawn_surfaces, 20, "the surfaces table to match the API")
        if [row[0] for row in expected] != ["search", "home/more"] or expected[1][1] != "1":
            raise Check(f"the component's impression is not credited to it: {expected}")

        # The layout experiment: a row per variant with the API's users, sessions, impressions
        # and clicks, and the sample-ratio line.
        layout = "document.querySelector('section.layout-experiment[data-id=home-layout]')"
        def drawn_layout():
            rows = js(f"return {layout} && [...{layout}.querySelectorAll('tr.variant')].map(r => [r.dataset.variant, "
                      "...[...r.querySelectorAll('td')].slice(2, 6).map(n => n.textContent)])")
            variants = api("/v1/experiments/home-layout")["layout"]["variants"]
            expected = [[v["name"], str(v["users"]), str(v["sessions"]), str(v["impressions"]), str(v["clicks"])] for v in variants]
            return (rows, expected) if rows == expected else None
        rows, expected = wait(drawn_layout, 20, "the layout experiment's variants to match the API")
        if sum(int(row[3]) for row in expected) < 4 or not js(f"return {layout}.querySelector('.sample-ratio') !== null"):
            raise Check(f"the layout experiment's impressions or its sample-ratio line are missing: {expected}")
        shot("experiments")

    def workers():
        open_page("workers")
        status = api("/v1/admin/workers")
        group = next(g for g in status["groups"] if g["topic"] == "braid.requests")
        rows = js("return [...document.querySelectorAll('table.lag[data-topic=\"braid.requests\"] tr.partition')].map(r => Number(r.dataset.partition))")
        if rows != list(range(args.partitions)) or rows != [p["partition"] for p in group["partitions"]]:
            raise Check(f"lag rows for partitions {rows}, topic has {args.partitions}, API lists {[p['partition'] for p in group['partitions']]}")
        wait(lambda: js("return document.querySelectorAll('tr.dead-letter').length") >= 1, 30, "a dead letter")
        reason = js("return document.querySelector('tr.dead-letter .reason').textContent")
        if not reason:
            raise Check("the dead letter has no reason")
        featured = js("return Number(document.querySelector('tr.ranking[data-ranking=featured]').dataset.count)")
        if featured < 1:
            raise Check("no featured snapshots listed")
        refreshes = int(js("return document.getElementById('main').dataset.refreshes"))
        wait(lambda: int(js("return document.getElementById('main').dataset.refreshes")) > refreshes, 10, "a refresh")
        shot("workers")

    try:
        run("search preview: colours, positions, page boundaries, next_cursor, sides, arms", search)
        run("feed preview: order, pending skeletons, horizontal list, carousel timing", feed)
        run("feed preview: tabs page independently", tabs)
        run("experiments: outcome table and chart", experiments)
        run("workers: lag per partition, dead letters, snapshots, refresh", workers)
    finally:
        driver.quit()
    for error in js_errors:
        failures.append(f"JavaScript console error: {error}")
        print(f"browser: FAIL {error}")
    if failures:
        print(f"browser: {len(failures)} failure(s)")
        sys.exit(1)
    print(f"browser: all checks passed; screenshots in {args.out}")


if __name__ == "__main__":
    main()
