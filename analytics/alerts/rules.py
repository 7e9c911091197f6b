"""Alert rules: the rules file (<home>/alerts.toml, or GPUPRICES_ALERTS), what a rule says and how it is checked."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tomllib
import unicodedata
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from config.settings import alerts_path
from warehouse.store import markets
from warehouse.store.markets import ALERT_MARKETS

MARKETS = ALERT_MARKETS  # the markets a rule may watch (warehouse/store/markets.py)
CONDITIONS = ("below", "good_deal", "drop", "new_low")
# the markets whose availability is known per offer (marts.gpu_cheapest_available_daily): rentals
AVAILABLE_MARKETS = tuple(name for name in ALERT_MARKETS if markets.MARKETS[name].price_per == "gpu_hour")
MAX_RATE_AGE_DAYS = 7  # as for prices: an older rate converts nothing
# A `below` threshold is money: compared and stored in USD as DECIMAL(18, 6) (alerts.alert_events.reference_usd),
# after conversion at up to ~4 USD per unit (the dinars). Within these bounds it always fits; 1e400 or inf would
# fail every `alerts check` at the cast, and silence every rule with it.
MIN_THRESHOLD = Decimal("0.000001")
MAX_THRESHOLD = Decimal("1000000000")  # a billion per GPU-hour or per card: no price, a typo


class RuleError(ValueError):
    """A rule that cannot be evaluated as written (unknown GPU, market, condition or currency)."""


@dataclass(frozen=True)
class Rule:
    name: str
    gpu: str
    market: str
    condition: str
    price: str | None = None      # `below`: the threshold, an exact decimal string
    currency: str = "USD"         # `below`: the threshold's currency
    percent: str | None = None    # `drop`: the drop in percent
    # `--include-suspect`: watch every provider's lowest price, suspect ones included (marts.gpu_market_prices_daily
    # min_price_usd), not the credible cheapest; False is not written, so older rules keep their fingerprint
    include_suspect: bool | None = None
    # `--available`: watch the cheapest offer its source said could be launched that day
    # (marts.gpu_cheapest_available_daily), not the cheapest listed; `below` only, rental markets only. False is not
    # written either (older rules keep their fingerprint).
    available: bool | None = None

    def validate(self) -> Rule:
        if not re.fullmatch(r"[\w.-]{1,60}", self.name):
            raise RuleError(f"rule name {self.name!r}: letters, digits, '-', '_' or '.' only")
        # a GPU name is echoed in every alert, message and delivery: a control character (an escape sequence, a
        # newline, a right-to-left override) would rewrite the terminal or the message around it
        if not (self.gpu or "").strip() or any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in self.gpu):
            raise RuleError(f"{self.name}: gpu {self.gpu!r} must be a GPU name without control characters")
        if self.market not in MARKETS:
            raise RuleError(f"{self.name}: market must be one of {', '.join(MARKETS)}, not {self.market!r}")
        if self.condition not in CONDITIONS:
            raise RuleError(f"{self.name}: condition must be one of {', '.join(CONDITIONS)}, not {self.condition!r}")
        if self.condition == "below":
            price = positive_decimal(self.price)
            if price is None:
                raise RuleError(f"{self.name}: `below` needs a positive price, not {self.price!r}")
            if not MIN_THRESHOLD <= price <= MAX_THRESHOLD:
                raise RuleError(f"{self.name}: `below` {self.price!r} is out of range: a price from {MIN_THRESHOLD} "
                                f"to {MAX_THRESHOLD:,} per GPU-hour or per card")
            if not re.fullmatch(r"[A-Z]{3}", self.currency or ""):
                raise RuleError(f"{self.name}: currency must be an ISO code such as USD or EUR, not {self.currency!r}")
        if self.condition == "drop" and (positive_decimal(self.percent) is None or positive_decimal(self.percent) >= 100):
            raise RuleError(f"{self.name}: `drop` needs a percent between 0 and 100, not {self.percent!r}")
        if self.available:
            if self.condition != "below":
                raise RuleError(f"{self.name}: --available watches a price: give it --below PRICE")
            if self.market not in AVAILABLE_MARKETS:
                raise RuleError(f"{self.name}: --available is for rentals ({', '.join(AVAILABLE_MARKETS)}), "
                                f"not {self.market!r}")
            if self.include_suspect:
                raise RuleError(f"{self.name}: --available watches credible prices only; drop --include-suspect")
        return self

    @property
    def fingerprint(self) -> str:
        fields = {key: value for key, value in asdict(self).items()
                  if not (key in ("include_suspect", "available") and not value)}
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]

    def describe(self) -> str:
        what = {"below": f"at or below {self.price} {self.currency}", "good_deal": "the buy signal says buy",
                "drop": f"{self.percent}% under its 7-day median", "new_low": "a new lowest price"}[self.condition]
        return (f"{self.gpu} {self.market.replace('_', ' ')}: {'available ' if self.available else ''}{what}"
                + (" (suspect prices included)" if self.include_suspect else ""))


def positive_decimal(text) -> Decimal | None:
    try:
        value = Decimal(str(text))
    except (InvalidOperation, TypeError):
        return None
    return value if value.is_finite() and value > 0 else None


# -- the rules file -------------------------------------------------------------------------------------------------
def rules_path() -> Path:
    return alerts_path()


def load_config(path: Path | None = None, skip_invalid: bool = False) -> tuple[list[Rule], dict]:
    """The rules and the [delivery] settings of the rules file (none when it does not exist). A rule that does not
    validate (edited by hand, or written before a check existed) raises RuleError, or with `skip_invalid` (evaluating
    the rules: `alerts check`, the daily run) is left out with one line on stderr: one bad rule never silences the
    others. `alerts add` and `remove` read strictly: they rewrite the file, and would drop it."""
    path = path or rules_path()
    if not path.exists():
        return [], {}
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    rules = []
    for entry in data.get("rules", []):
        try:
            rules.append(Rule(**{k: (str(v) if k in ("price", "percent") else v) for k, v in entry.items()}).validate())
        except (TypeError, RuleError) as error:
            problem = RuleError(f"{path}: rule {entry.get('name')!r}: {error}")
            if not skip_invalid:
                raise problem from None
            print(f"alert rule skipped: {problem}", file=sys.stderr)
    names = [rule.name for rule in rules]
    if len(names) != len(set(names)):
        raise RuleError(f"{path}: two rules share a name")
    return rules, data.get("delivery", {})


def _toml_value(value) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string or number is a valid TOML value


def save_config(rules: list[Rule], delivery: dict, path: Path | None = None) -> Path:
    """Rewrites the rules file (written whole to a temporary file, then renamed: never half written)."""
    path = path or rules_path()
    lines = ["# gpuprices price alerts: edit by hand or with `gpuprices alerts add/list/remove`.", ""]
    if delivery:
        lines.append("[delivery]")
        lines += [f"{key} = {_toml_value(value)}" for key, value in delivery.items()]
        lines.append("")
    for rule in rules:
        lines.append("[[rules]]")
        lines += [f"{key} = {_toml_value(value)}" for key, value in asdict(rule).items()
                  if value is not None and value is not False]
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text("\n".join(lines))
    temporary.replace(path)
    return path


def add_rule(rule: Rule, resolve_gpu) -> tuple[Rule, str]:
    """Validate `rule`, check its GPU resolves (`resolve_gpu(name) -> gpu_id`, raising RuleError), append it to the
    rules file. Returns the rule and its GPU id."""
    rules, delivery = load_config()
    rule = rule.validate()
    if any(existing.name == rule.name for existing in rules):
        raise RuleError(f"a rule named {rule.name!r} exists; remove it first")
    gpu_id = resolve_gpu(rule.gpu)
    save_config([*rules, rule], delivery)
    return rule, gpu_id


def remove_rule(name: str) -> None:
    rules, delivery = load_config()
    kept = [rule for rule in rules if rule.name != name]
    if len(kept) == len(rules):
        raise RuleError(f"no rule named {name!r}")
    save_config(kept, delivery)
