"""The published rental costs (models/seeds/published_rental_costs.csv) are read from the real price pages the
offline run replays: every row's quotes are in its recording, and every figure is in its row's quotes."""

from __future__ import annotations

import csv
import html
import re
from decimal import Decimal

import pytest

from config.settings import PROJECT_ROOT

SEED = PROJECT_ROOT / "models" / "seeds" / "published_rental_costs.csv"
FREE_WORDS = ("Free", "FREE", "No egress")


def rows() -> list[dict]:
    with SEED.open(newline="") as handle:
        return list(csv.DictReader(handle))


def page_text(recording: str) -> str:
    """The page's text as a reader sees it: tags dropped, entities decoded, whitespace collapsed."""
    text = re.sub(r"<[^>]+>", " ", (PROJECT_ROOT / recording).read_text(encoding="utf-8"))
    return re.sub(r"\s+", " ", html.unescape(text))


@pytest.mark.parametrize("row", rows(), ids=lambda row: f"{row['provider']}:{row['applies_to']}")
def test_every_quote_is_in_the_real_page_and_every_figure_in_a_quote(row):
    text = page_text(row["recording"])
    quotes = [quote.strip() for quote in row["quotes"].split(" | ")]
    for quote in quotes:
        assert quote in text, (row["provider"], quote)
    said = " ".join(quotes)
    if row["storage_price_usd"]:
        assert row["storage_price_usd"] in said.replace("$0.0800", "$0.08")
    if row["egress_price_usd"] == "0":
        assert any(word in said for word in FREE_WORDS)
    elif row["egress_price_usd"]:
        assert f"${row['egress_price_usd']} per {row['egress_per']}" in said
    increment = {"1": "per second", "60": "minute"}.get(row["billing_increment_seconds"])
    if row["billing_increment_seconds"]:
        assert increment and increment in said
    if row["minimum_rental_hours"] == "730":
        assert "One-month minimum" in said
    elif row["minimum_rental_hours"]:  # DigitalOcean's 60-second minimum charge
        assert Decimal(row["minimum_rental_hours"]) * 3600 == pytest.approx(60, abs=1e-6)
        assert "minimum charge of 60 seconds" in said


def test_a_figure_the_page_does_not_state_is_blank_never_zero():
    crusoe = next(row for row in rows() if row["provider"] == "crusoe")
    assert crusoe["egress_price_usd"] == "" and crusoe["billing_increment_seconds"] == ""
    assert "egress" not in page_text(crusoe["recording"]).lower()  # the captured page says nothing of it
