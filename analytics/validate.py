"""`gpuprices estimate --validate FILE.csv`: the training estimate against published runs' reported GPU-hours.

Each run is estimated twice with the warehouse's formulas (analytics.estimate): by the efficiency model, and by the
naive rule it replaced, 6*N*D at 40% of the dense BF16 peak. The file is in the format of
analytics/calibration/training_runs_calibration.csv; a run's layers, hidden size, sequence length and precision
come from the file's own columns when it has them, else from analytics/calibration/training_runs_shapes.csv."""

from __future__ import annotations

import csv
import math
import statistics
from pathlib import Path

from analytics.estimate import EstimateError, EstimateRequest, ModelShape, estimate

CALIBRATION = Path(__file__).parent / "calibration"
SHAPES = CALIBRATION / "training_runs_shapes.csv"
NAIVE_MFU = 0.40  # the rule the efficiency model replaced: 6*N*D at 40% of the dense BF16 peak
SHAPE_COLUMNS = ("layers", "d_model", "sequence_length", "training_precision", "scope_note")


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


def validate(path: str | Path) -> dict:
    """{"runs": [...], "overall": {"model": {...}, "naive": {...}}}; ratio = estimated / reported GPU-hours."""
    runs = []
    for row in read_runs(path):
        reported = _number(row, "gpu_hours_reported")
        if not reported:
            raise EstimateError(f"{row['model']}: no gpu_hours_reported")
        modelled, naive = _estimate_run(row, efficiency_model=True), _estimate_run(row, efficiency_model=False)
        runs.append({
            "model": row["model"], "gpu_type": row["gpu_type"], "gpu_id": modelled["gpu_id"],
            "gpu_count": int(_number(row, "gpu_count")) if row.get("gpu_count") else None,
            "precision": modelled["precision"], "reported_gpu_hours": reported,
            "scope": "; ".join(note for note in (row.get("gpu_hours_scope"), row["scope_note"]) if note),
            "model_estimate": {"gpu_hours": modelled["gpu_hours"], "ratio": modelled["gpu_hours"] / reported,
                               "mfu": modelled["mfu"], "efficiency_basis": modelled["efficiency_basis"],
                               "flops": modelled["flops"]},
            "naive_estimate": {"gpu_hours": naive["gpu_hours"], "ratio": naive["gpu_hours"] / reported,
                               "mfu": naive["mfu"], "flops": naive["flops"]},
        })
    if not runs:
        raise EstimateError(f"{path}: no runs")
    return {"runs": runs, "overall": {
        "model": _summary([run["model_estimate"]["ratio"] for run in runs]),
        "naive": _summary([run["naive_estimate"]["ratio"] for run in runs]),
    }}


def format_validation(result: dict) -> str:
    """One line per run, then the two summaries; rounded for people (--json keeps full precision)."""
    lines = [f"{'run':<38} {'GPU':<16} {'prec':<4} {'reported':>12} {'model':>12} {'ratio':>6} "
             f"{'naive 40%':>12} {'ratio':>6}"]
    for run in result["runs"]:
        model, naive = run["model_estimate"], run["naive_estimate"]
        lines.append(f"{run['model'][:38]:<38} {run['gpu_id'][:16]:<16} {run['precision']:<4} "
                     f"{run['reported_gpu_hours']:>12,.0f} {model['gpu_hours']:>12,.0f} {model['ratio']:>6.2f} "
                     f"{naive['gpu_hours']:>12,.0f} {naive['ratio']:>6.2f}")
    for name, label in (("model", "efficiency model"), ("naive", "naive 40% rule")):
        summary = result["overall"][name]
        lines.append(f"{label}: median absolute error {summary['median_abs_error']:.1%}, "
                     f"{summary['share_within_2x']:.0%} of {summary['runs']} runs within 2x, "
                     f"worst ratio {summary['worst_ratio']:.2f}")
    scoped = [f"  {run['model']}: {run['scope']}" for run in result["runs"] if run["scope"]]
    if scoped:
        lines += ["reported scope:", *scoped]
    return "\n".join(lines)
