"""Reading counts on the estimator's command line."""

from __future__ import annotations

import pytest

from analytics.estimate import EstimateError, parse_count


@pytest.mark.parametrize(("text", "expected"), [
    ("70B", 70e9), ("70b", 70e9), ("2T", 2e12), ("14.8T", 14.8e12), ("7e9", 7e9), ("1.5B", 1.5e9),
    ("500M", 500e6), ("7000000000", 7e9),
])
def test_counts_with_and_without_a_suffix(text, expected):
    assert parse_count(text, "--params") == pytest.approx(expected)


@pytest.mark.parametrize("text", ["70", "seventy", "70 GB", "", "-5B"])
def test_unreadable_or_suspiciously_small_counts_are_refused(text):
    with pytest.raises(EstimateError):
        parse_count(text, "--params")
