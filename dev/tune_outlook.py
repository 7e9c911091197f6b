"""Fits and measures the price outlook (analytics/outlook.py, analytics/outlook_fit.py) on the bundled real
histories only, out of sample, per kind of market (issue 40, part 3):
`GPUPRICES_HOME=... uv run python dev/tune_outlook.py [--write] [--horizons 30]`.

It reads the series of the three bundled real sources (keepa-amazon, idealo-de, gcp-list-history) from the warehouse
of GPUPRICES_HOME, built by `gpuprices run --offline` (which imports them), per source x GPU x market (one source
each: GCP's list-price series are the provider's own), each split at its splices (outlook.segments), with its GPU's
context (launch, successor). Then, per horizon, walk-forward (every feature of day t from what was known by t):
  * leave one series out: for each source x GPU (all its markets: GCP's on-demand, spot and commitment prices of one
    GPU move together, so they leave together), fit on every other, score its series;
  * later period: fit on the days whose outcome was known before each segment's midpoint, score the later halves;
and prints, overall and per kind of market, the Brier skill of P(drop >= 5%) and P(drop >= 10%) against the
series' own base rate (the climatology), the 80% range's coverage and the quantile skill against the naive
quantiles. A kind's model is used where the worse of its two out-of-sample skills of P(drop >= 5%) is at least
outlook.MIN_SKILL (else the pages and `gpuprices outlook` show the base rate). The pooled cut rate of flat list
prices (unchanged for outlook.FLAT_LIST_DAYS days) is measured the same two ways. --write stores the fit on every
series with these figures in analytics/outlook_model.json.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
import polars as pl

from analytics import outlook, outlook_features, outlook_fit, outlook_scoring
from analytics.price_history import series as price_series
from warehouse.store import db

SOURCES = ("keepa-amazon", "idealo-de", "gcp-list-history")
SOURCE_PROVIDER = {"gcp-list-history": "gcp"}  # a list-price history is its provider's own series


def load_series() -> list:
    """The bundled sources' series with a segment long enough for an outlook (outlook.segments), with context."""
    found = []
    with db.connect(read_only=True) as connection:
        contexts = outlook_features.gpu_context(connection)
        for source in SOURCES:
            for one in price_series(connection, source):
                one.context = contexts.get(one.gpu_id)
                one.provider = SOURCE_PROVIDER.get(source)
                found.append(one)
    return [one for one in found if any(stop - start >= outlook.MIN_HISTORY_DAYS
                                        for start, stop in outlook.segment_bounds(one))]


def segments_of(whole: list) -> list:
    return [part for one in whole for part in outlook.segments(one) if len(part.prices) >= outlook.MIN_HISTORY_DAYS]


def group_of(one) -> tuple[str, str]:
    return one.source, one.gpu_id


def train(frames: list[pl.DataFrame], parts: list, horizon: int) -> dict:
    """A fit on the given frames' training days; every kind uses the model (the split scores the model itself)."""
    rows = outlook.training_rows(frames)
    groups = [f"{group_of(part)}" for part, frame in zip(parts, frames, strict=True)
              for _ in range(outlook.training_rows([frame]).height)]
    fit = outlook_fit.fit_model(rows, groups, horizon)
    fit["kinds"] = {kind: {"uses_model": True} for kind in outlook_features.KINDS}
    return fit


def scored(part, frame, fit, horizon) -> outlook_scoring.ScoredSeries:
    return outlook_scoring.ScoredSeries({"source": part.source, "gpu_id": part.gpu_id, "market": part.market}, part.days,
                                frame, outlook.predict_frame(frame, fit, None, horizon))


def percent(value) -> str:
    return "   n/a" if value is None else f"{value:6.3f}"


def line(label: str, summary: dict) -> str:
    return (f"{label:30} n {summary['drop_5pct']['n']:6}  skill5 {percent(summary['drop_5pct']['skill'])}"
            f"  skill10 {percent(summary['drop_10pct']['skill'])}  brier5 {percent(summary['drop_5pct']['brier'])}"
            f" (base {percent(summary['drop_5pct']['brier_climatology'])})"
            f"  cover80 {percent(summary['interval_80']['coverage'])}"
            f"  qskill {percent(summary['quantile_loss']['skill'])}")


def by_kind(rows: list[dict], parts: list) -> dict[str, dict]:
    return {kind: outlook_scoring.summarize(mine) for kind in outlook_features.KINDS
            if (mine := [row for row in rows if outlook_features.kind_of(parts[row["series"]].market) == kind])}


def flat_days(frame: pl.DataFrame) -> pl.DataFrame:
    """A rental list series' days whose price has not moved in FLAT_LIST_DAYS days, with an outcome."""
    return frame.filter((pl.col("log_days_unchanged").exp() - 1 >= outlook.FLAT_LIST_DAYS - 0.5)
                        & pl.col("end_ratio").is_not_null() & (pl.col("t") >= outlook.MIN_HISTORY_DAYS - 1))


def flat_rates(frames: list[pl.DataFrame]) -> dict:
    days = pl.concat([flat_days(frame) for frame in frames]) if frames else pl.DataFrame()
    if days.is_empty():
        return {"windows": 0, "series": 0, "any_cut": 0.0, "drop_5pct": 0.0, "drop_10pct": 0.0}
    return {"windows": days.height, "series": sum(1 for frame in frames if not flat_days(frame).is_empty()),
            "any_cut": float((days["low_ratio"] < 1 - 1e-9).mean()),
            **{name: float((days["low_ratio"] <= 1 - level).mean()) for name, level in outlook.DROPS.items()}}


def flat_score(parts: list, frames: list, rates_for) -> dict:
    """The pooled flat-list cut rate (rates_for(index): fitted without that series' group) against each series' own
    base rate, on the flat days of the rental list series, by Brier of P(drop >= 5%) and of P(any cut)."""
    model = base = model_cut = base_cut = 0.0
    n = 0
    for index, (part, frame) in enumerate(zip(parts, frames, strict=True)):
        if outlook_features.kind_of(part.market) != "rental_list":
            continue
        rates = rates_for(index)
        for row in flat_days(frame).iter_rows(named=True):
            if row["past_windows"] < 1:
                continue
            drop = row["low_ratio"] <= 0.95
            own = row["past_drop_5pct"] / row["past_windows"]
            model += (rates["drop_5pct"] - drop) ** 2
            base += (own - drop) ** 2
            n += 1
    return {"n": n, "brier": model / n if n else None, "brier_base": base / n if n else None,
            "skill": outlook_scoring.skill(model / n, base / n) if n else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizons", default="30", help="comma-separated horizons to fit (days)")
    parser.add_argument("--write", action="store_true", help="store the fit in analytics/outlook_model.json")
    arguments = parser.parse_args()
    started = time.monotonic()
    whole = load_series()
    parts = segments_of(whole)
    groups = sorted({group_of(one) for one in parts})
    print(f"{len(whole)} series, {len(parts)} segments with {outlook.MIN_HISTORY_DAYS}+ days in {len(groups)} "
          "source x GPU groups: " + ", ".join(f"{s} {sum(1 for o in parts if o.source == s)}" for s in SOURCES))
    model = {"horizons": {}}
    for horizon in [int(h) for h in arguments.horizons.split(",")]:
        frames = [outlook.segment_frame(part, 0, len(part.prices), horizon) for part in parts]
        print(f"\nhorizon {horizon} days")
        # leave one series (source x GPU) out
        held: dict[int, outlook_scoring.ScoredSeries] = {}
        flat_held: dict[int, dict] = {}
        for group in groups:
            inside = [i for i, part in enumerate(parts) if group_of(part) != group]
            fit = train([frames[i] for i in inside], [parts[i] for i in inside], horizon)
            rates = flat_rates([frames[i] for i in inside
                                if outlook_features.kind_of(parts[i].market) == "rental_list"])
            for index, part in enumerate(parts):
                if group_of(part) == group:
                    held[index] = scored(part, frames[index], fit, horizon)
                    flat_held[index] = rates
        loo_rows = outlook_scoring.score_rows([held[i] for i in range(len(parts))], horizon)
        print(line("leave one series out", outlook_scoring.summarize(loo_rows)))
        loo_kinds = by_kind(loo_rows, parts)
        for kind, summary in loo_kinds.items():
            print(line(f"  {kind}", summary))
        # the later period
        middles = [outlook.MIN_HISTORY_DAYS - 1 + (len(o.prices) - horizon - outlook.MIN_HISTORY_DAYS + 1) // 2
                   for o in parts]
        early_frames = [f.filter(f["t"] + horizon < middle) for f, middle in zip(frames, middles, strict=True)]
        kept = [i for i, f in enumerate(early_frames) if not outlook.training_rows([f]).is_empty()]
        early = train([early_frames[i] for i in kept], [parts[i] for i in kept], horizon)
        early_rates = flat_rates([early_frames[i] for i in kept
                                  if outlook_features.kind_of(parts[i].market) == "rental_list"])
        late = [scored(part, frame, early, horizon) for part, frame in zip(parts, frames, strict=True)]
        for one, middle in zip(late, middles, strict=True):
            one.predictions = [row for row in one.predictions if row["t"] >= middle]
        late_rows = outlook_scoring.score_rows(late, horizon)
        print(line("later period (fit on earlier)", outlook_scoring.summarize(late_rows)))
        late_kinds = by_kind(late_rows, parts)
        for kind, summary in late_kinds.items():
            print(line(f"  {kind}", summary))
        late_frames = [f.filter(f["t"] >= middle) for f, middle in zip(frames, middles, strict=True)]
        flat_loo = flat_score(parts, frames, lambda i: flat_held[i])
        flat_late = flat_score(parts, late_frames, lambda i: early_rates)
        print(f"flat list prices ({outlook.FLAT_LIST_DAYS}+ days unchanged), pooled cut rate vs own base rate, "
              f"P(drop >= 5%): leave one out n {flat_loo['n']} skill {percent(flat_loo['skill'])} (brier "
              f"{percent(flat_loo['brier'])} vs {percent(flat_loo['brier_base'])}); later period n {flat_late['n']} "
              f"skill {percent(flat_late['skill'])}")
        # the stored fit: every series; each kind's figures and whether its model is shown
        full = train(frames, parts, horizon)
        full["flat_list"] = flat_rates([f for f, part in zip(frames, parts, strict=True)
                                        if outlook_features.kind_of(part.market) == "rental_list"])
        full["flat_list"]["out_of_sample"] = {"leave_one_out": flat_loo, "later": flat_late}
        full["kinds"] = {}
        for kind in outlook_features.KINDS:
            figures = [one[kind]["drop_5pct"]["skill"] for one in (loo_kinds, late_kinds) if kind in one]
            worst = None if len(figures) < 2 or None in figures else min(figures)
            full["kinds"][kind] = {
                "skill_drop_5pct": worst, "uses_model": worst is not None and worst >= outlook.MIN_SKILL,
                "leave_one_out": loo_kinds.get(kind), "later": late_kinds.get(kind)}
            print(f"{kind:12} out-of-sample skill (worse of the two) {percent(worst)}: "
                  + ("the model" if full["kinds"][kind]["uses_model"] else "the base rate"))
        full["out_of_sample"] = {"leave_one_out": outlook_scoring.summarize(loo_rows), "later": outlook_scoring.summarize(late_rows)}
        model["horizons"][str(horizon)] = full
    if arguments.write:
        outlook.MODEL_PATH.write_text(json.dumps(model, indent=1, default=_plain) + "\n")
        print(f"\nwrote {outlook.MODEL_PATH}")
    print(f"\n({time.monotonic() - started:.0f} s)")


def _plain(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    raise TypeError(f"{value!r} is not JSON")


if __name__ == "__main__":
    main()
