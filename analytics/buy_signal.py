"""When to buy: the project's buy signal, the two baseline rules, and the backtest that compares them (issue 18).

Pure Python on a daily price series (no warehouse access): analytics/price_history.py reads each GPU x market
history, makes it daily with `daily_series` and backtests every rule in RULES on it (`backtest`, `overall`). A rule
maps the prices to one boolean per day (`fires[t]`: buy on day t), computed from prices[:t + 1] only.

The project's signal (`dip_fires`): buy on a day whose price is more than DIP_SIGMAS standard deviations (of the log
price over the last VOLATILITY_DAYS days) under the recent level, the higher of the median price of the last
SHORT_MEDIAN_DAYS and of the last LONG_MEDIAN_DAYS days: a drop that is large for this card's own price swings
(retail dips revert, so a buyer who waits for one pays less; the month's median keeps a sale that has lasted a week
a dip). It never fires in the first LAUNCH_DAYS days of a series: launch (or first-listing) prices fall for months,
so there waiting for the deadline beats any early dip.

How the constants were chosen: `uv run python dev/tune_buy_signal.py` (a grid over dip sigmas, short median days,
volatility days, launch days and the smallest dip that counts; the long median fixed at a month; window 30) on the
eight real Amazon/Keepa histories in recordings/retail_history/ and nothing else, picking the grid point whose
overall share of the oracle's savings, averaged with its grid neighbours' mean, is highest (a plateau rather than a
lucky spike). The eight choose no smallest dip (MIN_DIP 0): in a nearly flat series a dip of a fraction of a
percent fires. In sample 0.558 (baselines: lowest_5pct 0.175, median_drop_5pct 0.280). Out of sample: leave one
series out (choose on seven, score the eighth) 0.550; chosen on the first half of every series' buyer days (the same
constants), 0.424 on the second halves, where the baselines score 0.154 and 0.291. Leaving any one series out of
the overall, 0.475 (without the RTX 5080: 50 buyer days, all in its launch period, where the signal waits) to 0.599.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

# The backtest (issue 18): a buyer who needs a card on day d (from the 36th day of the series on, index 35, so every
# rule has 35 days of history) has until d + window.
FIRST_DECISION_INDEX = 35
DEFAULT_WINDOW_DAYS = 30

# The project's signal; chosen by dev/tune_buy_signal.py (see the module docstring).
DIP_SIGMAS = 1.25
SHORT_MEDIAN_DAYS = 7
LONG_MEDIAN_DAYS = 30  # fixed, not tuned: the month before
VOLATILITY_DAYS = 90
LAUNCH_DAYS = 120
# The smallest dip that counts, as a share of the recent level: in a nearly flat series the volatility is tiny and a
# 0.2% wobble would be many standard deviations. Tuned with the others (0 is in the grid).
MIN_DIP = 0.0

# Baseline "lowest_5pct": the dashboards' old good-deal rule, within 5% of the lowest price, tracked 5 weeks.
LOWEST_PRICE_MARGIN = Decimal("1.05")
LOWEST_PRICE_TRACKED_DAYS = 35
# Baseline "median_drop_5pct": 5% under the trailing 30-day median.
MEDIAN_DROP_FACTOR = Decimal("0.95")
MEDIAN_DROP_DAYS = 30

Rule = Callable[[Sequence[Decimal]], list[bool]]


def daily_series(observations: Iterable[tuple[datetime | date, Decimal]]) -> list[tuple[date, Decimal]]:
    """One price per day from the first observed day to the last: the day's last observation (by timestamp; for
    equal timestamps the later one given), carried over days without one. Aware timestamps count by their UTC day,
    naive ones (and plain dates, ordered before any time of that day) as written."""
    last_of_day: dict[date, Decimal] = {}
    for moment, price in sorted(((_utc_naive(when), price) for when, price in observations), key=lambda o: o[0]):
        if not isinstance(price, (Decimal, int)) or isinstance(price, bool):
            raise TypeError(f"price {price!r} on {moment:%Y-%m-%d %H:%M} is not a Decimal (money stays exact)")
        last_of_day[moment.date()] = Decimal(price)
    if not last_of_day:
        return []
    day, last_day = min(last_of_day), max(last_of_day)
    series, price = [], last_of_day[day]
    while day <= last_day:
        price = last_of_day.get(day, price)
        series.append((day, price))
        day += timedelta(days=1)
    return series


def _utc_naive(when: datetime | date) -> datetime:
    if not isinstance(when, datetime):
        return datetime.combine(when, time.min)
    return when.astimezone(UTC).replace(tzinfo=None) if when.tzinfo else when


def trailing_median(prices: Sequence[Decimal], days: int) -> list[Decimal]:
    """Median of the last `days` prices up to and including each day (fewer at the start of the series)."""
    return [statistics.median(prices[max(0, t - days + 1):t + 1]) for t in range(len(prices))]


def trailing_log_volatility(prices: Sequence[Decimal], days: int) -> list[float]:
    """Standard deviation (population) of ln(price) over the last `days` prices up to and including each day."""
    logs = [math.log(price) for price in prices]
    volatility = []
    for t in range(len(logs)):
        window = logs[max(0, t - days + 1):t + 1]
        mean = math.fsum(window) / len(window)
        volatility.append(math.sqrt(math.fsum((x - mean) ** 2 for x in window) / len(window)))
    return volatility


def recent_level(prices: Sequence[Decimal], short_days: int = SHORT_MEDIAN_DAYS,
                 long_days: int = LONG_MEDIAN_DAYS) -> list[Decimal]:
    """The higher of the trailing short and long medians, each day."""
    return [max(short, long) for short, long in zip(trailing_median(prices, short_days),
                                                     trailing_median(prices, long_days))]


def dip_fires_from(prices: Sequence[Decimal], levels: Sequence[Decimal], volatilities: Sequence[float],
                   dip_sigmas: float, launch_days: int, min_dip: float = MIN_DIP) -> list[bool]:
    """The signal from precomputed recent levels and volatilities (the tuning grid reuses them)."""
    return [t >= launch_days and math.log(price / level) < min(-dip_sigmas * volatility, math.log1p(-min_dip))
            for t, (price, level, volatility) in enumerate(zip(prices, levels, volatilities, strict=True))]


def dip_fires(prices: Sequence[Decimal], dip_sigmas: float = DIP_SIGMAS, short_median_days: int = SHORT_MEDIAN_DAYS,
              long_median_days: int = LONG_MEDIAN_DAYS, volatility_days: int = VOLATILITY_DAYS,
              launch_days: int = LAUNCH_DAYS, min_dip: float = MIN_DIP) -> list[bool]:
    """The project's buy signal for every day of a dense daily series of positive prices (module docstring)."""
    return dip_fires_from(prices, recent_level(prices, short_median_days, long_median_days),
                          trailing_log_volatility(prices, volatility_days), dip_sigmas, launch_days, min_dip)


def lowest_5pct_fires(prices: Sequence[Decimal]) -> list[bool]:
    """Baseline: the price is within 5% of the lowest price seen so far, once 35 days are tracked."""
    fires, lowest = [], None
    for t, price in enumerate(prices):
        lowest = price if lowest is None else min(lowest, price)
        fires.append(t >= LOWEST_PRICE_TRACKED_DAYS and price <= LOWEST_PRICE_MARGIN * lowest)
    return fires


def median_drop_5pct_fires(prices: Sequence[Decimal]) -> list[bool]:
    """Baseline: the price is at least 5% under the median of the trailing 30 days [t - 29, t] (a full window)."""
    medians = trailing_median(prices, MEDIAN_DROP_DAYS)
    return [t >= MEDIAN_DROP_DAYS - 1 and price <= MEDIAN_DROP_FACTOR * median
            for t, (price, median) in enumerate(zip(prices, medians))]


SIGNAL = "signal"
RULES: dict[str, Rule] = {SIGNAL: dip_fires, "lowest_5pct": lowest_5pct_fires,
                          "median_drop_5pct": median_drop_5pct_fires}
BASELINES = tuple(name for name in RULES if name != SIGNAL)
# The rule behind the GPU pages' verdict, `alerts add --good-deal` and `gpuprices backtest`'s headline (issue 26): the
# outlook rule (analytics/outlook.py: buy when P(drop >= 5% within the window) < OUTLOOK_BUY_THRESHOLD) would replace
# the signal only by beating it and both baselines by 5 points of oracle share out of sample; it does not
# (dev/tune_outlook.py, docs/outlook.md), so the signal stays. `gpuprices backtest` shows the outlook rule beside it.
DECISION_RULE = SIGNAL
OUTLOOK_RULE = "outlook"
OUTLOOK_BUY_THRESHOLD = 0.2  # chosen on the eight Amazon/Keepa series in sample (dev/tune_outlook.py)


@dataclass(frozen=True)
class SeriesBacktest:
    """What buyers on `days` days paid in total: following the rule, buying at once, with perfect foresight."""

    days: int
    paid_signal: Decimal
    paid_at_once: Decimal
    paid_oracle: Decimal

    @property
    def savings(self) -> float | None:
        return float(1 - self.paid_signal / self.paid_at_once) if self.days else None

    @property
    def oracle_savings(self) -> float | None:
        return float(1 - self.paid_oracle / self.paid_at_once) if self.days else None

    @property
    def share_of_oracle(self) -> float | None:
        """None when perfect foresight saves nothing (nothing to capture)."""
        return self.savings / self.oracle_savings if self.days and self.paid_oracle < self.paid_at_once else None

    def __add__(self, other: SeriesBacktest) -> SeriesBacktest:
        """Two day ranges of one series as one (the walk-forward halves add up to the whole)."""
        return SeriesBacktest(self.days + other.days, self.paid_signal + other.paid_signal,
                              self.paid_at_once + other.paid_at_once, self.paid_oracle + other.paid_oracle)

    def as_dict(self) -> dict:
        return {"days": self.days, "paid_signal": self.paid_signal, "paid_at_once": self.paid_at_once,
                "paid_oracle": self.paid_oracle, "savings": self.savings, "oracle_savings": self.oracle_savings,
                "share_of_oracle": self.share_of_oracle}


def buyer_days(length: int, window: int = DEFAULT_WINDOW_DAYS) -> range:
    """Day indexes d with 35 days of history before them and a full window after (d + window <= last index)."""
    return range(FIRST_DECISION_INDEX, max(FIRST_DECISION_INDEX, length - window))


def backtest(prices: Sequence[Decimal], fires: Sequence[bool], window: int = DEFAULT_WINDOW_DAYS,
             days: range | None = None) -> SeriesBacktest:
    """A buyer who needs a card on day d buys on the first day in [d, d + window] on which the rule fires, else on
    d + window; compared with buying on d and with the lowest price in [d, d + window]. `days` narrows the buyer
    days (a walk-forward split); by default every day of `buyer_days`."""
    if len(fires) != len(prices):
        raise ValueError(f"{len(fires)} signal days for {len(prices)} price days")
    if window < 1:
        raise ValueError(f"window must be at least one day, not {window}")
    all_days = buyer_days(len(prices), window)
    days = all_days if days is None else range(max(days.start, all_days.start), min(days.stop, all_days.stop))
    next_fire = [len(prices)] * (len(prices) + 1)
    for t in range(len(prices) - 1, -1, -1):
        next_fire[t] = t if fires[t] else next_fire[t + 1]
    window_low = _window_minimum(prices, window)
    paid_signal = paid_at_once = paid_oracle = Decimal(0)
    for d in days:
        paid_signal += prices[min(next_fire[d], d + window)]
        paid_at_once += prices[d]
        paid_oracle += window_low[d]
    return SeriesBacktest(len(days), paid_signal, paid_at_once, paid_oracle)


def _window_minimum(prices: Sequence[Decimal], window: int) -> list[Decimal]:
    """min(prices[d:d + window + 1]) for every d with a full window (a monotonic queue: one pass)."""
    lows, queue = [], deque()
    for t, price in enumerate(prices):
        while queue and prices[queue[-1]] >= price:
            queue.pop()
        queue.append(t)
        d = t - window
        if d >= 0:
            if queue[0] < d:
                queue.popleft()
            lows.append(prices[queue[0]])
    return lows


def overall(results: Iterable[SeriesBacktest | Mapping]) -> dict:
    """Across series (SeriesBacktest or its as_dict()), each weighing the same: {"series": how many have buyer days,
    "savings": their mean, "oracle_savings": their mean, "share_of_oracle": mean savings / mean oracle savings}
    (issue 18; None when no series has buyer days or the oracle saves nothing on average)."""
    counted = [result.as_dict() if isinstance(result, SeriesBacktest) else result for result in results]
    counted = [result for result in counted if result["days"]]
    if not counted:
        return {"series": 0, "savings": None, "oracle_savings": None, "share_of_oracle": None}
    savings = statistics.fmean(result["savings"] for result in counted)
    oracle_savings = statistics.fmean(result["oracle_savings"] for result in counted)
    return {"series": len(counted), "savings": savings, "oracle_savings": oracle_savings,
            "share_of_oracle": savings / oracle_savings if oracle_savings > 0 else None}


def backtest_rules(series: Mapping[str, Sequence[Decimal]], window: int = DEFAULT_WINDOW_DAYS,
                   rules: Mapping[str, Rule] = RULES) -> dict:
    """Every rule on every dense daily series, shaped like `gpuprices backtest --json` (issue 18):
    {"series": [{"series": key, "<rule>": as_dict, ...}], "overall": {"signal": {...}, "baselines": {...}}}."""
    rows = [{"series": key, **{name: backtest(prices, rule(prices), window).as_dict() for name, rule in rules.items()}}
            for key, prices in series.items()]
    totals = {name: overall(row[name] for row in rows) for name in rules}
    return {"window": window, "series": rows,
            "overall": {SIGNAL: totals[SIGNAL], "baselines": {n: f for n, f in totals.items() if n != SIGNAL}}}
