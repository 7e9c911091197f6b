"""The project's own dbt data tests (models/macros/test_*.sql), rendered as dbt renders them and run on small tables."""

from __future__ import annotations

import re

import duckdb
import jinja2
import pytest

from config.settings import PROJECT_ROOT


def _render_test(name: str, **arguments) -> str:
    """The SQL of `{% test name(...) %}`: dbt turns a test block into a macro; so does this."""
    text = (PROJECT_ROOT / "models" / "macros" / f"test_{name}.sql").read_text()
    text = re.sub(r"\{%\s*test (\w+)\(", r"{% macro \1(", text).replace("endtest", "endmacro")
    module = jinja2.Environment(extensions=["jinja2.ext.do"]).from_string(text).module  # dbt enables `do`
    return str(getattr(module, name)(**arguments))


@pytest.mark.parametrize(("rows", "failures"), [
    ([(1, "a", "x"), (1, "b", "x"), (2, "a", "x")], []),
    ([(1, "a", "x"), (1, "a", "y"), (2, "a", "x")], [("unique_combination", "day, offer", 1)]),
    ([(1, "a", "x"), (1, "a", "y"), (2, "b", "x"), (2, "b", "z"), (2, "b", "w")],
     [("unique_combination", "day, offer", 2)]),
    ([(1, None, "x"), (1, None, "y")], [("unique_combination", "day, offer", 1)]),  # NULLs group together
])
def test_the_grain_rule_counts_each_repeated_combination_once(rows, failures):
    connection = duckdb.connect()
    connection.execute("CREATE TABLE offers (day INTEGER, offer VARCHAR, note VARCHAR)")
    connection.executemany("INSERT INTO offers VALUES (?, ?, ?)", rows)
    sql = _render_test("column_values", model="offers", unique_combination=["day", "offer"])
    assert sorted(connection.execute(sql).fetchall()) == failures


def test_the_grain_and_the_value_rules_report_together():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE offers AS SELECT * FROM (VALUES (1, 'a', 0.0), (1, 'a', 2.0)) AS t(day, offer, price)")
    sql = _render_test("column_values", model="offers", unique_combination=["day", "offer"], positive=["price"])
    assert sorted(connection.execute(sql).fetchall()) == [
        ("positive", "price", 1), ("unique_combination", "day, offer", 1)]


@pytest.mark.parametrize(("rows", "failures"), [
    ([(1, "a", None), (2, "b", None)], []),  # a column no rule names may be anything
    ([(1, None, 2.0), (None, None, 0.5), (3, "c", None)], [("not_null", "day", 1), ("not_null", "offer", 2)]),
    ([(1, "a", 0.0), (2, "b", -1.0), (3, "c", None)], [("positive", "price", 2)]),  # NULL is not_null's to catch
    ([(-1, "a", 1.0), (0, "b", 1.0)], [("non_negative", "day", 1)]),
    ([], []),
])
def test_column_values_names_each_rule_and_column_broken_and_how_many_rows(rows, failures):
    connection = duckdb.connect()
    connection.execute("CREATE TABLE offers (day INTEGER, offer VARCHAR, price DOUBLE)")
    if rows:
        connection.executemany("INSERT INTO offers VALUES (?, ?, ?)", rows)
    sql = _render_test("column_values", model="offers", not_null=["day", "offer"], positive=["price"],
                       non_negative=["day"])
    assert sorted(connection.execute(sql).fetchall()) == failures


def test_accepted_values_counts_the_rows_set_to_another_value_and_quotes_the_values():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE offers (channel VARCHAR, shop VARCHAR)")
    connection.executemany("INSERT INTO offers VALUES (?, ?)", [
        ("cloud", "Bob's"), ("retail", "Bob's"), ("Retail", None), (None, "Bobs"), (None, "Bob''s")])
    sql = _render_test("column_values", model="offers", not_null=["channel"],
                       accepted_values={"channel": ["cloud", "retail"], "shop": ["Bob's", "Ann"]})
    assert sorted(connection.execute(sql).fetchall()) == [  # NULL is not_null's to catch, as in dbt's accepted_values
        ("accepted_values", "channel", 1), ("accepted_values", "shop", 2), ("not_null", "channel", 2)]
    sql = _render_test("column_values", model="offers", accepted_values={"channel": ["cloud", "retail", "Retail"]})
    assert connection.execute(sql).fetchall() == []
