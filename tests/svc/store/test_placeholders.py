"""The seam's placeholders in psycopg's style (svc/store/postgresql/placeholders.py)."""

from __future__ import annotations

import pytest

from svc.store.postgresql.placeholders import PlaceholderError, translate


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = %s AND c = %s"),
        ("UPDATE t SET a = :a WHERE id = :id_2", "UPDATE t SET a = %(a)s WHERE id = %(id_2)s"),
        # casts are not names
        (
            "SELECT x::jsonb ->> 'k' FROM t WHERE id = :id",
            "SELECT x::jsonb ->> 'k' FROM t WHERE id = %(id)s",
        ),
        # a literal percent, in an operator and in a pattern
        (
            "SELECT a % 2 FROM t WHERE b LIKE 'x%' AND c = ?",
            "SELECT a %% 2 FROM t WHERE b LIKE 'x%%' AND c = %s",
        ),
        # string literals, doubled quotes and E'' escapes are copied
        ("SELECT 'a ? :b', 'it''s ?', ?", "SELECT 'a ? :b', 'it''s ?', %s"),
        ("SELECT E'a\\'?', ?", "SELECT E'a\\'?', %s"),
        # quoted identifiers
        (
            'SELECT "odd?name", "a"":b" FROM t WHERE x = ?',
            'SELECT "odd?name", "a"":b" FROM t WHERE x = %s',
        ),
        # comments, including a percent in one
        ("SELECT 1 -- ? :x 100%\n, ?", "SELECT 1 -- ? :x 100%%\n, %s"),
        ("SELECT /* ? :x */ ?", "SELECT /* ? :x */ %s"),
        # dollar-quoted bodies, tagged or not
        ("SELECT $$ ? $$, $f$ :x $$ $f$, ?", "SELECT $$ ? $$, $f$ :x $$ $f$, %s"),
        # nothing to translate
        ("SELECT 1", "SELECT 1"),
    ],
)
def test_translation(sql: str, expected: str) -> None:
    assert translate(sql) == expected


def test_mixed_styles_are_refused() -> None:
    with pytest.raises(PlaceholderError):
        translate("SELECT ? , :name")


def test_translations_are_cached() -> None:
    sql = "SELECT a FROM cached WHERE b = ?"
    assert translate(sql) is translate(sql)
