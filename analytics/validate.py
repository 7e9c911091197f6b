"""`gpuprices estimate --validate FILE.csv`: the training estimate against published runs' reported GPU-hours.

Each run is estimated twice with the warehouse's formulas (analytics.estimate): by the efficiency model, and by the
naive rule it replaced, 6*N*D at 40% of the dense BF16 peak. The file is in the format of
analytics/calibration/training_runs_calibration.csv; a run's layers, hidden size, sequence length and precision
come from the file's own columns when it has them, else from analytics/calibration/training_runs_shapes.csv.

Two of the model's factors were fitted on these runs: the A100 share (the median over the A100 runs) and the Hopper
share (the median over the dense BF16 H100/H800 runs). In sample, each run helped choose the factor it is judged by;
out of sample (leave-one-out), each run is estimated with its group's factor fitted without it. Those errors give the
error band every estimate carries (dbt vars estimate_error_band_low/high)."""

from __future__ import annotations

import csv
import math
import statistics
from collections.abc import Callable
from pathlib import Path

from analytics.estimate import EstimateError, EstimateRequest, ModelShape, estimate

CALIBRATION = Path(__file__).parent / "calibration"
SHAPES = CALIBRATION / "training_runs_shapes.csv"
NAIVE_MFU = 0.40  # the rule the efficiency model replaced: 6*N*D at 40% of the dense BF16 peak
SHAPE_COLUMNS = ("layers", "d_model", "sequence_length", "training_precision", "scope_note")

# The factors fitted on the calibration runs (models/dbt_project.yml efficiency_ampere, efficiency_hopper;
# monitoring.estimate_assumptions): a run's efficiency family, and which runs of it the median was taken over.
FITTED_FACTORS: dict[str, Callable[[dict], bool]] = {
    "ampere": lambda run: True,  # every A100 run
    "hopper": lambda run: run["precision"] == "bf16" and not run["is_moe"],  # the dense BF16 H100/H800 runs
}


def _number(row: dict, column: str, scale: float = 1.0) -> float | None:
    text = (row.get(column) or "").replace(",", "").strip()
    if not text:
        return None
    try:
        value = float(text) * scale
    except ValueError as error:
        raise EstimateError(f"{row.get('model')}: {column} {text!r} is not a number") from error
    if not math.isfinite(value):  # float() reads "nan" and "inf": no run reports them
        raise EstimateError(f"{row.get('model')}: {column} {text!r} is not a finite number")
    return value


def _shapes() -> dict[str, dict]:
    with SHAPES.open(newline="") as handle:
        return {row["model"]: row for row in csv.DictReader(handle)}


def read_runs(path: str | Path) -> list[dict]:
    """The file's runs, each with its shape columns (its own, else the shapes file's by model name)."""
    try:
        with Path(path).open(newline="") as handle:
            rows = list(csv.DictReader(handle))
    except FileNotFoundError as error:
        raise EstimateError(f"no such file: {path}") from error
    except IsADirectoryError as error:
        raise EstimateError(f"{path}: a directory, not a CSV file") from error
    except UnicodeDecodeError as error:  # a binary file, or text not saved as UTF-8
        raise EstimateError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start}); expected a CSV of "
                            "runs (the format of analytics/calibration/training_runs_calibration.csv)") from None
    except csv.Error as error:  # a NUL byte, a field past the csv module's limit
        raise EstimateError(f"{path}: not a CSV it can read ({error})") from None
    required = {"model", "gpu_type", "params_total_b", "training_tokens_t", "gpu_hours_reported"}
    if not rows or not required <= set(rows[0]):
        raise EstimateError(f"{path}: expected a CSV with columns {', '.join(sorted(required))} "
                            "(the format of analytics/calibration/training_runs_calibration.csv)")
    shapes = _shapes()
    for row in rows:
        known = shapes.get(row["model"], {})
        for column in SHAPE_COLUMNS:
            if not row.get(column):
                row[column] = known.get(column, "")
    return rows


def _estimate_run(row: dict, efficiency_model: bool) -> dict:
    total = _number(row, "params_total_b", 1e9)
    active = _number(row, "params_active_b", 1e9) or total
    gpu_count = _number(row, "gpu_count")
    model = ModelShape(
        name=row["model"], total_params=total, active_params=active, tokens=_number(row, "training_tokens_t", 1e12),
        # the naive rule counts 6*N*D only: no shape, so no attention term
        layers=int(_number(row, "layers")) if efficiency_model and row["layers"] else None,
        d_model=int(_number(row, "d_model")) if efficiency_model and row["d_model"] else None,
        sequence_length=int(_number(row, "sequence_length")) if row["sequence_length"] else None,
    )
    request = EstimateRequest(
        model=model, gpu=row["gpu_type"], cluster_gpus=int(gpu_count) if gpu_count else None,
        precision=(row["training_precision"] or "bf16") if efficiency_model else "bf16",
        mfu=None if efficiency_model else NAIVE_MFU,
    )
    try:
        return estimate(request)[0]
    except EstimateError as error:
        raise EstimateError(f"{row['model']}: {error}") from error


def _summary(ratios: list[float]) -> dict:
    return {
        "median_abs_error": statistics.median(abs(ratio - 1) for ratio in ratios),
        "share_within_2x": sum(0.5 <= ratio <= 2 for ratio in ratios) / len(ratios),
        "worst_ratio": max(ratios, key=lambda ratio: max(ratio, 1 / ratio)),
        "runs": len(ratios),
    }


def out_of_sample_ratio(run: dict, runs: list[dict]) -> float:
    """The run's ratio had its group's factor been fitted without it. A fitted share f is the median over the group
    of s_j (each run's achieved share over its width factor), and a run's ratio is s_i / f; fitting without run i gives
    f x median of the others' ratios, so its ratio becomes ratio_i / median_(j != i) ratio_j. A run in no fitted group
    (its factors all come from throughput measurements) is out of sample already."""
    group = run["fitted_group"]
    if group is None:
        return run["model_estimate"]["ratio"]
    others = [other["model_estimate"]["ratio"] for other in runs if other is not run and other["fitted_group"] == group]
    if not others:  # the group's only run: nothing is left to fit on
        return math.nan
    return run["model_estimate"]["ratio"] / statistics.median(others)


def error_band(ratios: list[float]) -> dict:
    """The band the runs' errors out of sample support: the lowest and highest actual / estimated GPU-hours. For runs
    exchangeable with these n, a next run falls between the lowest and the highest with probability (n-1)/(n+1); the
    dbt vars round them outward to two decimals."""
    actual_over_estimate = [1 / ratio for ratio in ratios]
    low, high = min(actual_over_estimate), max(actual_over_estimate)
    return {"low": low, "high": high, "vars_low": math.floor(low * 100) / 100, "vars_high": math.ceil(high * 100) / 100,
            "runs": len(ratios), "coverage": (len(ratios) - 1) / (len(ratios) + 1),
            "method": "leave-one-out: each run estimated with the efficiency factors fitted without it"}


def validate(path: str | Path) -> dict:
    """{"runs": [...], "overall": {"model": {...}, "model_out_of_sample": {...}, "naive": {...}, "error_band": {...}}};
    ratio = estimated / reported GPU-hours."""
    runs = []
    for row in read_runs(path):
        reported = _number(row, "gpu_hours_reported")
        if not reported:
            raise EstimateError(f"{row['model']}: no gpu_hours_reported")
        modelled, naive = _estimate_run(row, efficiency_model=True), _estimate_run(row, efficiency_model=False)
        run = {
            "model": row["model"], "gpu_type": row["gpu_type"], "gpu_id": modelled["gpu_id"],
            "gpu_count": int(_number(row, "gpu_count")) if row.get("gpu_count") else None,
            "precision": modelled["precision"], "reported_gpu_hours": reported,
            "efficiency_family": modelled["efficiency_family"],
            "is_moe": (_number(row, "params_active_b") or 0) < (_number(row, "params_total_b") or 0),
            "scope": "; ".join(note for note in (row.get("gpu_hours_scope"), row["scope_note"]) if note),
            "model_estimate": {"gpu_hours": modelled["gpu_hours"], "ratio": modelled["gpu_hours"] / reported,
                               "mfu": modelled["mfu"], "efficiency_basis": modelled["efficiency_basis"],
                               "flops": modelled["flops"]},
            "naive_estimate": {"gpu_hours": naive["gpu_hours"], "ratio": naive["gpu_hours"] / reported,
                               "mfu": naive["mfu"], "flops": naive["flops"]},
        }
        fitted = FITTED_FACTORS.get(run["efficiency_family"])
        run["fitted_group"] = run["efficiency_family"] if fitted and fitted(run) else None
        runs.append(run)
    if not runs:
        raise EstimateError(f"{path}: no runs")
    for run in runs:
        ratio = out_of_sample_ratio(run, runs)
        run["model_estimate"]["ratio_out_of_sample"] = ratio
        run["model_estimate"]["gpu_hours_out_of_sample"] = ratio * run["reported_gpu_hours"]
    out_of_sample = [run["model_estimate"]["ratio_out_of_sample"] for run in runs
                     if not math.isnan(run["model_estimate"]["ratio_out_of_sample"])]
    return {"runs": runs, "overall": {
        "model": _summary([run["model_estimate"]["ratio"] for run in runs]),
        "model_out_of_sample": _summary(out_of_sample),
        "naive": _summary([run["naive_estimate"]["ratio"] for run in runs]),
        "error_band": error_band(out_of_sample),
    }}


def format_validation(result: dict) -> str:
    """One line per run, then the summaries and the band; rounded for people (--json keeps full precision)."""
    lines = [f"{'run':<38} {'GPU':<16} {'prec':<4} {'reported':>12} {'model':>12} {'ratio':>6} {'out of sample':>13} "
             f"{'naive 40%':>12} {'ratio':>6}"]
    for run in result["runs"]:
        model, naive = run["model_estimate"], run["naive_estimate"]
        lines.append(f"{run['model'][:38]:<38} {run['gpu_id'][:16]:<16} {run['precision']:<4} "
                     f"{run['reported_gpu_hours']:>12,.0f} {model['gpu_hours']:>12,.0f} {model['ratio']:>6.2f} "
                     f"{model['ratio_out_of_sample']:>13.2f} {naive['gpu_hours']:>12,.0f} {naive['ratio']:>6.2f}")
    for name, label in (("model", "efficiency model, in sample"),
                        ("model_out_of_sample", "efficiency model, out of sample (leave-one-out)"),
                        ("naive", "naive 40% rule (nothing fitted)")):
        summary = result["overall"][name]
        lines.append(f"{label}: median absolute error {summary['median_abs_error']:.1%}, "
                     f"{summary['share_within_2x']:.0%} of {summary['runs']} runs within 2x, "
                     f"worst ratio {summary['worst_ratio']:.2f}")
    model, naive = result["overall"]["model_out_of_sample"], result["overall"]["naive"]
    if model["median_abs_error"] > naive["median_abs_error"]:
        lines.append(f"out of sample the efficiency model's median error ({model['median_abs_error']:.1%}) is worse "
                     f"than the naive rule's ({naive['median_abs_error']:.1%}); its worst run is "
                     + ("closer" if abs(math.log(model["worst_ratio"])) < abs(math.log(naive["worst_ratio"]))
                        else "no closer"))
    band = result["overall"]["error_band"]
    lines.append(f"error band: actual GPU-hours were {band['low']:.3f}x-{band['high']:.3f}x the out-of-sample estimate "
                 f"over the {band['runs']} runs ({band['method']}); a next run like them falls inside with probability "
                 f"~{band['coverage']:.0%}; the estimates carry {band['vars_low']:.2f}x-{band['vars_high']:.2f}x "
                 "(models/dbt_project.yml estimate_error_band_low/high)")
    scoped = [f"  {run['model']}: {run['scope']}" for run in result["runs"] if run["scope"]]
    if scoped:
        lines += ["reported scope:", *scoped]
    return "\n".join(lines)
