"""Schemathesis generation hooks of `make fuzz` (braid-dev fuzz imports them through
SCHEMATHESIS_HOOKS=fuzz_hooks):
 - Header values lose the control characters HTTP does not allow in a field value
   (RFC 9110 5.5), and leading whitespace (a no-break space included: `requests` refuses it;
   the proxy identity headers of the security schemes are generated as any string). Schemathesis keeps to valid header characters only for a bare
   `{type: string}`; for `{type: string, maxLength: 256}` it sends e.g. "\\xff\\x15q", which
   the HTTP parser rejects (bare 400, no body) before any route runs.
 - Half of the cases use names and words that exist (the feeds and components of the
   default configuration, seeded users, queries with hits), so that 200 responses get
   their bodies checked too, not only the 404s of random names.
"""
import re

import schemathesis
from hypothesis import strategies as st

CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
WORDS = ["curry", "chicken", "pasta", "cake", "miso soup", "curry rice", "salad"]
COMPONENTS = {
    "home": ["banner", "carousel", "my-week", "recommended", "creators", "following", "popular-dessert", "new-arrivals", "more"],
    "profile": ["header", "tabs", "recipes", "cooksnaps"],
}
PAIRS = [(feed, component) for feed, names in COMPONENTS.items() for component in names]
USERS = ["u%05d" % n for n in range(1, 51)]


def _operation(context):
    operation = context.operation
    return (operation.method.upper(), operation.path) if operation is not None else (None, "")


def _half(strategy, override):
    """The generated value, or (as often) the same value with `override` applied."""
    return st.one_of(strategy, strategy.flatmap(lambda value: override(value) if isinstance(value, dict) else st.just(value)))


@schemathesis.hook
def map_headers(context, headers):
    if not headers:
        return headers
    return {
        name: CONTROL.sub("", value).lstrip() if isinstance(value, str) else value
        for name, value in headers.items()
    }


@schemathesis.hook
def before_generate_query(context, strategy):
    method, path = _operation(context)
    if (method, path) == ("GET", "/v1/search"):
        return _half(strategy, lambda query: st.sampled_from(WORDS).map(lambda q: {**query, "q": q}))
    if path.startswith("/v1/feeds/"):
        # Users that exist; `q` (profile tabs only) dropped half of the time so most cases are pages.
        def known(query):
            pick = st.tuples(st.sampled_from(USERS), st.booleans())
            return pick.map(lambda t: {key: value for key, value in {**query, "user": t[0]}.items() if key != "q" or t[1]})

        return _half(strategy, known)
    return strategy


@schemathesis.hook
def before_generate_path_parameters(context, strategy):
    _, path = _operation(context)
    if not path.startswith("/v1/feeds/"):
        return strategy

    def known(parameters):
        def apply(pair):
            out = dict(parameters)
            if "feed" in out:
                out["feed"] = pair[0]
            if "component" in out:
                out["component"] = pair[1]
            return out

        return st.sampled_from(PAIRS).map(apply)

    return _half(strategy, known)


@schemathesis.hook
def before_generate_body(context, strategy):
    if _operation(context) != ("POST", "/v1/feeds/{feed}/components:batchGet"):
        return strategy

    def known(body):
        names = st.lists(st.sampled_from(COMPONENTS["home"]), min_size=1, max_size=5)
        return st.tuples(names, st.sampled_from(USERS)).map(lambda t: {**body, "components": t[0], "user": t[1]})

    return _half(strategy, known)
