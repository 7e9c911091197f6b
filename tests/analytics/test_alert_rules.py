"""Alert rules as written: what `gpuprices alerts add` and the rules file refuse (the GPU resolved against a small
hand-made warehouse holding marts.gpus, so no build runs)."""

from __future__ import annotations

import pytest

from analytics.alerts.rules import RuleError, load_config, rules_path
from flows.cli.main import main as cli
from warehouse.store import db


def test_a_gpu_name_with_control_characters_is_refused_on_add_and_in_the_rules_file(home, capsys):
    with db.connect() as connection:
        connection.execute("CREATE TABLE marts.gpus AS SELECT 'rtx-4090-24gb' AS gpu_id")
    assert cli(["alerts", "add", "ok", "--gpu", "RTX 4090", "--new-low"]) == 0  # the name resolves
    capsys.readouterr()
    # an escape sequence that clears the screen, a newline, a tab, a right-to-left override: each resolved to the
    # RTX 4090 before, and was echoed into every alert and delivery
    for gpu in ("RTX 4090\x1b[2J", "RTX\n4090", "RTX\t4090", "RTX 4090\u202e", "\x00"):
        assert cli(["alerts", "add", "x", "--gpu", gpu, "--new-low"]) == 2
        error = capsys.readouterr().err
        assert "without control characters" in error and error.count("\n") == 1, error
    assert [rule.name for rule in load_config()[0]] == ["ok"]
    # a rules file edited by hand: the same rule
    rules_path().write_text('[[rules]]\nname = "bad"\ngpu = "RTX 4090\\u001b[31m"\nmarket = "retail_new"\n'
                            'condition = "new_low"\n')
    with pytest.raises(RuleError, match="without control characters"):
        load_config()


@pytest.mark.parametrize("price", ["1e400", "inf", "Infinity", "NaN", "1e10", "0.0000001", "-5", "0"])
def test_a_threshold_that_is_not_a_finite_price_in_range_is_refused_on_add_and_skipped_in_the_file(home, capsys,
                                                                                                   price):
    assert cli(["alerts", "add", "x", "--gpu", "RTX 4090", f"--below={price}"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "`below`" in error and ("out of range" in error or "positive" in error), error
    assert not rules_path().exists()  # nothing written
    # the same rule in a file edited by hand: left out when the rules are evaluated, with one line; the others stay
    rules_path().write_text(f'[[rules]]\nname = "bad"\ngpu = "RTX 4090"\nmarket = "retail_new"\n'
                            f'condition = "below"\nprice = "{price}"\n\n[[rules]]\nname = "ok"\ngpu = "RTX 4090"\n'
                            'market = "retail_new"\ncondition = "new_low"\n')
    with pytest.raises(RuleError):
        load_config()  # add and remove read strictly: they rewrite the file
    assert [rule.name for rule in load_config(skip_invalid=True)[0]] == ["ok"]
    assert "alert rule skipped" in capsys.readouterr().err


def test_a_threshold_in_range_is_accepted(home, capsys):
    with db.connect() as connection:
        connection.execute("CREATE TABLE marts.gpus AS SELECT 'rtx-4090-24gb' AS gpu_id")
    assert cli(["alerts", "add", "top", "--gpu", "RTX 4090", "--below", "1000000000"]) == 0
    assert cli(["alerts", "add", "tiny", "--gpu", "RTX 4090", "--below", "0.000001"]) == 0
    assert [rule.price for rule in load_config()[0]] == ["1000000000", "0.000001"]


def test_available_rules_need_a_price_and_a_rental_market_and_leave_older_rules_fingerprints_alone():
    from analytics.alerts.rules import Rule

    rule = Rule(name="a", gpu="H100", market="on_demand", condition="below", price="2", available=True).validate()
    assert rule.describe() == "H100 on demand: available at or below 2 USD"
    for bad in (dict(condition="new_low", price=None), dict(market="retail_new"), dict(include_suspect=True)):
        fields = dict(name="a", gpu="H100", market="on_demand", condition="below", price="2", available=True) | bad
        with pytest.raises(RuleError):
            Rule(**fields).validate()
    plain = Rule(name="a", gpu="H100", market="on_demand", condition="below", price="2")
    assert plain.fingerprint == Rule(**{**plain.__dict__, "available": False}).fingerprint  # unchanged
    assert plain.fingerprint != rule.fingerprint


def test_alerts_add_available_is_written_to_the_rules_file(home, capsys):
    with db.connect() as connection:
        connection.execute("CREATE TABLE marts.gpus AS SELECT 'h100-sxm5-80gb' AS gpu_id")
    assert cli(["alerts", "add", "h100", "--gpu", "H100 SXM5 80GB", "--below", "2", "--available"]) == 0
    assert "available at or below 2 USD" in capsys.readouterr().out
    assert load_config()[0][0].available is True
    assert cli(["alerts", "add", "x", "--gpu", "H100 SXM5 80GB", "--new-low", "--available"]) == 2
