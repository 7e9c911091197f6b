"""Analytics read the marts (issue 41 part 4): no analysis queries a raw, staging or intermediate table, so a model's
inner layers can change without breaking an estimate or an outlook. None is excepted."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BELOW_THE_MARTS = re.compile(r"\b(?:from|join)\s+(raw|staging|intermediate)\.\{?[a-z_]+", re.I)
STILL_BELOW: set[str] = set()  # an exception would be named here with its reason


def below_the_marts(text: str) -> list[str]:
    return [match.group(0) for match in BELOW_THE_MARTS.finditer(text)]


def test_no_analysis_reads_below_the_marts_but_the_named_one():
    found = {str(path.relative_to(ROOT)): below_the_marts(path.read_text())
             for path in sorted((ROOT / "analytics").rglob("*.py"))}
    offenders = {name: hits for name, hits in found.items() if hits and name not in STILL_BELOW}
    assert offenders == {}
    assert all(found[name] for name in STILL_BELOW), "an exception that no longer reads below the marts: drop it"
    assert found, "the check read no analysis"


def test_the_check_finds_a_query_below_the_marts():
    assert below_the_marts("SELECT * FROM intermediate.int_gpu_specs AS specs") == ["FROM intermediate.int_gpu_specs"]
    assert below_the_marts("select 1 from intermediate.{offers}") == ["from intermediate.{offers"]
    assert below_the_marts("JOIN marts.gpu_plan_inputs_daily USING (gpu_id)") == []
