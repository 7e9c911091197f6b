"""How old a figure is by the clock, and when it is too old to head an answer: one definition for the site, `status`
and every command that shows a headline.

A figure's age is the number of whole UTC days from its day (a price's `price_date`, a verdict's or an outlook's
day, a source's last loaded observation) to the clock's UTC date when it is shown. Over `stale_after_days()` days
(GPUPRICES_STALE_AFTER_DAYS, default 14) it is stale: shown with its date and greyed, never a "buy now", and a
source that last loaded then is stale too. A daily feed is fresh while its last load is at most FEED_MAX_AGE old by
the clock (the default of `status --check --max-age`); between the two it is late.

The warehouse's own "newest day" is no clock: an offline run replays recordings of months ago, and a job that
stopped keeps its last day as its newest; both read as today against themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from config.settings import stale_after_days

# A daily feed whose last load is older than this by the clock is late (status --check's default --max-age): a day's
# schedule plus two hours of slack.
FEED_MAX_AGE = timedelta(hours=26)


def clock() -> datetime:
    """Now, in UTC: what every age is measured against."""
    return datetime.now(UTC)


def _day(value: date | datetime) -> date:
    return value.astimezone(UTC).date() if isinstance(value, datetime) else value


@dataclass(frozen=True)
class Age:
    """How old a day is on the clock's date `today`."""

    day: date
    today: date
    limit_days: int

    @property
    def days(self) -> int:
        return (self.today - self.day).days

    @property
    def is_stale(self) -> bool:
        return self.days > self.limit_days

    def words(self) -> str:
        """'today', '1 day old', '211 days old', or 'dated N days ahead of the clock'."""
        if self.days == 0:
            return "today"
        if self.days < 0:
            return f"dated {-self.days} day{'s' if self.days != -1 else ''} ahead of the clock"
        return f"{self.days} day{'s' if self.days != 1 else ''} old"

    def label(self) -> str:
        """'2026-05-01, 211 days old (over the 14-day limit)': the day, its age, and whether it is stale."""
        text = f"{self.day.isoformat()}, {self.words()}"
        return f"{text} (over the {self.limit_days}-day limit)" if self.is_stale else text

    def as_dict(self) -> dict:
        return {"day": self.day, "age_days": self.days, "is_stale": self.is_stale,
                "stale_after_days": self.limit_days, "measured_on": self.today}


def age_of(day: date | datetime | None, now: datetime | None = None) -> Age | None:
    """The age of a day (or of a timestamp's UTC day) by the clock; None for no day."""
    if day is None:
        return None
    return Age(day=_day(day), today=_day(now or clock()), limit_days=stale_after_days())


@dataclass(frozen=True)
class SourceAge:
    """A feed's freshness by the clock: `state` fresh | late | stale | never loaded | imported."""

    state: str
    words: str
    hours: float | None = None
    age: Age | None = None


def source_age(last_loaded_at: datetime | None, now: datetime | None = None, imported: bool = False) -> SourceAge:
    """How fresh a source is by the clock: fresh within FEED_MAX_AGE of its last loaded observation, late after
    that, stale over the stale_after_days() limit. An imported history is no feed: it has no freshness."""
    if imported:
        return SourceAge("imported", "imported history: no daily feed")
    if last_loaded_at is None:
        return SourceAge("never loaded", "never loaded")
    now = now or clock()
    hours = round((now - last_loaded_at).total_seconds() / 3600, 1)
    age = age_of(last_loaded_at, now)
    if age.is_stale:
        return SourceAge("stale", f"stale: last loaded {age.label()}", hours, age)
    if now - last_loaded_at > FEED_MAX_AGE:
        return SourceAge("late", f"late: last loaded {hours:g} h ago ({age.label()})", hours, age)
    return SourceAge("fresh", f"fresh: last loaded {hours:g} h ago", hours, age)
