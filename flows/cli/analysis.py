"""`gpuprices estimate`: training or serving cost of a model, on one GPU or ranked across all."""

from __future__ import annotations

import sys

import duckdb

from analytics.estimate import (
    EstimateError,
    EstimateRequest,
    RenterOptions,
    estimate,
    format_renter,
    format_rows,
    model_for,
    renter_costs,
)
from analytics.validate import format_validation, validate
from flows.cli.common import json_text, one_line, positive


# a request the formulas cannot answer (a 0 or negative count, NaN, infinity, an MFU above 1) is one usage line
SHARE = positive(float, "a share of the peak", at_most=1)
WHOLE = positive(int, "a whole number")
THROUGHPUT = positive(float, "a throughput in tokens per second")
DAYS = positive(float, "a number of days")
TERABYTES = positive(float, "a size in TB")
HOURS = positive(float, "a number of hours")


def cmd_estimate(args) -> int:
    try:
        if args.validate:
            result = validate(args.validate)
            print(json_text(result, indent=2) if args.json else format_validation(result))
            return 0
        model = model_for(args.model, args.params, args.active_params, args.tokens, args.layers, args.d_model,
                          args.kv_values, args.sequence_length)
        request = EstimateRequest(
            model=model, gpu=args.gpu, mfu=args.mfu, precision=args.precision, recompute=args.recompute,
            cluster_gpus=args.gpus, inference=args.inference, prompt_tokens=args.prompt_tokens,
            output_tokens=args.output_tokens, tokens_per_second=args.tokens_per_second, term=args.term,
            max_days=args.max_days,
        )
        rows = estimate(request)
        renter = RenterOptions(available=args.available, data_tb=args.data_tb, egress_tb=args.egress_tb,
                               checkpoint_hours=args.checkpoint_hours)
        if renter.wanted():
            rows = renter_costs(rows, request, renter)
    except (EstimateError, FileNotFoundError) as error:
        print(f"gpuprices estimate: {error}", file=sys.stderr)
        return 2
    except (duckdb.ConversionException, duckdb.OutOfRangeException) as error:  # a shape past what the formulas hold
        print(f"gpuprices estimate: the request is out of the formulas' range ({one_line(error)}); check the "
              "counts and shape given", file=sys.stderr)
        return 2
    if args.json:
        print(json_text(rows[0] if args.gpu else rows, indent=2))
    else:
        view = "serving" if args.inference else "training"
        # a cluster is rented from a cloud; one serving machine may be a marketplace's ask
        priced_at = "serving machine at cloud and marketplace prices" if args.inference else "cluster at cloud prices"
        if args.term:
            priced_at += f", and at the cheapest {args.term} commitment"
        print(f"{model.name}: {view} estimate, {args.precision}, {priced_at}"
              + (f", {len(rows)} GPUs ranked" if not args.gpu else ""))
        print(format_rows(rows, args.inference))
        if renter.wanted():
            print(format_renter(rows, request, renter))
    return 0


def register(commands) -> None:
    est = commands.add_parser(
        "estimate", help="training (or --inference serving) cost of a model, on one GPU or ranked across all GPUs")
    est.add_argument("--model", help="a reference model id or name (see reference.reference_models)")
    est.add_argument("--params", help="total parameters, e.g. 70B or 7e9")
    est.add_argument("--active-params", help="active parameters per token for a mixture of experts, e.g. 37B")
    est.add_argument("--tokens", help="training tokens, e.g. 2T")
    est.add_argument("--gpu", help="a canonical GPU id or any alias ('H100-80GB', 'A100 80GB'); default: rank all")
    est.add_argument("--mfu", type=SHARE,
                     help="a stated share of the dense peak instead of the efficiency model (efficiency_basis 'stated')")
    est.add_argument("--precision", default="bf16", choices=["bf16", "fp8", "int4"],
                     help="tensor precision, default bf16; fp8 uses the FP8 peak at the FP8 efficiency "
                          "(int4 = weight-only, serving only)")
    est.add_argument("--recompute", action="store_true", help="full activation recomputation (8*N*D)")
    est.add_argument("--gpus", type=WHOLE,
                     help="a stated cluster size (default: the plan's: what holds the state and finishes within "
                          "--max-days, the configured size where larger, never above the largest cluster the GPU forms)")
    est.add_argument("--max-days", type=DAYS,
                     help="a training plan finishes within this many days of wall clock, or is infeasible on the GPU "
                          "(default: the assumption training_max_days)")
    est.add_argument("--layers", type=WHOLE, help="layers, for activation memory / KV cache (with --params)")
    est.add_argument("--d-model", type=WHOLE, help="hidden size, for activation memory and attention (with --params)")
    est.add_argument("--sequence-length", type=WHOLE,
                     help="training tokens per sequence, for the attention FLOPs (default: the model's, or the assumption)")
    est.add_argument("--kv-values", type=WHOLE, help="KV cache values per token per layer (with --params --inference)")
    est.add_argument("--inference", action="store_true", help="the serving view: GPUs, tokens/s, $ per M tokens")
    est.add_argument("--prompt-tokens", type=WHOLE, help="serving: prompt tokens per request (default: the assumption)")
    est.add_argument("--output-tokens", type=WHOLE, help="serving: output tokens per request (default: the assumption)")
    est.add_argument("--tokens-per-second", type=THROUGHPUT,
                     help="serving: a stated output throughput of the whole deployment (default: roofline estimate)")
    est.add_argument("--term", choices=["1y", "3y"],
                     help="also price the run at the day's cheapest 1- or 3-year commitment (markets reserved_1y / "
                          "reserved_3y), with the break-even utilisation against on-demand")
    est.add_argument("--available", action="store_true",
                     help="also price at the cheapest offer its source said could be launched today "
                          "(marts.gpu_cheapest_available_daily), beside the cheapest listed")
    est.add_argument("--data-tb", type=TERABYTES,
                     help="all in: TB of data stored for the run (checkpoints are added for training), at the "
                          "provider's published storage price (marts.provider_rental_costs)")
    est.add_argument("--egress-tb", type=TERABYTES,
                     help="all in: TB sent out of the provider, at its published egress price")
    est.add_argument("--checkpoint-hours", type=HOURS,
                     help="training: hours between checkpoints, for the spot cost with the expected restarts "
                          "(default 1)")
    est.add_argument("--validate", metavar="FILE.csv",
                     help="estimated vs reported GPU-hours of published runs (analytics/calibration/"
                          "training_runs_calibration.csv), the efficiency model beside the naive 40%% rule")
    est.add_argument("--json", action="store_true", help="an object (a list when ranked), full precision")
    est.set_defaults(func=cmd_estimate)
