"""Rules compile their URL builders on first use, and build the same URLs as eager ones."""

from __future__ import annotations

from quart.routing import QuartRule
from werkzeug.routing import IntegerConverter, Map

import svc
from svc.http.app import create_app
from svc.http.routing import LazyBuildRule


async def test_every_rule_builds_the_url_an_eager_rule_builds(engine: svc.Engine) -> None:
    app = create_app(engine)
    checked = 0
    for rule in app.url_map.iter_rules():
        assert isinstance(rule, LazyBuildRule)
        values = {
            name: "7" if isinstance(rule._converters.get(name), IntegerConverter) else f"v-{name}"
            for name in rule.arguments
        }
        eager = QuartRule(
            rule.rule, endpoint=rule.endpoint, methods=rule.methods, defaults=rule.defaults
        )
        Map([eager])  # binding compiles its builders at once
        assert rule.build(values) == eager.build(values)
        checked += 1
    assert checked > 100


async def test_matching_is_unchanged(engine: svc.Engine) -> None:
    adapter = create_app(engine).url_map.bind("localhost")
    _, values = adapter.match("/session/abc/message", method="GET")
    assert list(values.values()) == ["abc"]
