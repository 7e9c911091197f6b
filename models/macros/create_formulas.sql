{#
  The estimate formulas, created as DuckDB macros in schema `formulas` at the start of every dbt invocation
  (on-run-start). The marts call them, and so does `gpuprices estimate` on the built warehouse, so a formula
  lives in exactly one place. Defaults come from this project's vars (dbt_project.yml), documented with their
  sources in marts.estimate_assumptions. Byte counts use GiB (2^30) for memory: a "80 GB" H100 holds 80 GiB.
#}
{% macro create_formulas() %}
create schema if not exists formulas;

-- Training compute (memory_rules.md section 4): 6*N*D, or 8*N*D hardware FLOPs with full activation
-- recomputation (one extra forward pass). N = active parameters for a mixture of experts.
create or replace macro formulas.training_flops(active_params, tokens, recompute) as
    (case when recompute then 8::double else 6::double end) * active_params * tokens;

-- GPU-hours = FLOPs / (dense peak x MFU). Peak in TFLOPS, dense (never the 2:4-sparse headline).
create or replace macro formulas.gpu_hours(flops, dense_peak_tflops, mfu) as
    flops / (dense_peak_tflops * 1e12 * mfu * 3600.0);

-- MFU default: measured large-run MFU on NVLink/ICI-class interconnects; lower once a model spans several GPUs
-- that only talk over PCIe or Ethernet.
create or replace macro formulas.default_mfu(has_fast_interconnect, gpu_count) as
    cast(case when gpu_count > 1 and not has_fast_interconnect
        then {{ var('mfu_multi_gpu_without_fast_interconnect') }} else {{ var('mfu') }} end as double);

-- Model states: weights + gradients + optimizer, bytes per parameter (16 = bf16 weights and grads + fp32
-- master copy and Adam moments; memory_rules.md section 1). Total parameters, experts included.
create or replace macro formulas.training_state_bytes(total_params) as
    total_params * {{ var('training_bytes_per_param') }};

-- Activations of one micro-batch (Korthikanti et al. 2022; memory_rules.md section 2): 34*s*b*h per layer with
-- fused attention, or 2*s*b*h per layer plus one layer's working set with full recomputation.
create or replace macro formulas.activation_bytes(layers, d_model, recompute) as
    case when recompute
        then 2::double * {{ var('training_sequence_length') }} * {{ var('training_micro_batch') }} * d_model * layers
             + 34::double * {{ var('training_sequence_length') }} * {{ var('training_micro_batch') }} * d_model
        else 34::double * {{ var('training_sequence_length') }} * {{ var('training_micro_batch') }} * d_model * layers end;

-- Smallest GPU count whose memory holds the training state and one micro-batch's activations, fully sharded
-- (ZeRO-3/FSDP for states, tensor+sequence parallel for activations), after each GPU's framework overhead.
-- NULL when one GPU's memory is smaller than the overhead.
create or replace macro formulas.min_training_gpus(total_params, layers, d_model, recompute, memory_gib) as
    case when memory_gib * power(2, 30) > {{ var('framework_overhead_gib') }} * power(2, 30)
        then greatest(1, ceil(
            (formulas.training_state_bytes(total_params) + formulas.activation_bytes(layers, d_model, recompute))
            / (memory_gib * power(2, 30) - {{ var('framework_overhead_gib') }} * power(2, 30))))::bigint
    end;

-- Days of wall clock for gpu_hours spread over a cluster.
create or replace macro formulas.wall_clock_days(gpu_hours, cluster_gpus) as
    gpu_hours / cluster_gpus / 24.0;

-- Power cost of one GPU-hour: board power x PUE x electricity price.
create or replace macro formulas.power_usd_per_gpu_hour(tdp_w) as
    tdp_w / 1000.0 * {{ var('pue') }} * {{ var('electricity_usd_per_kwh') }};

-- One busy GPU-hour of an owned card: the purchase price spread over the hours it works in its life, plus power.
create or replace macro formulas.owned_usd_per_gpu_hour(purchase_usd, tdp_w) as
    purchase_usd / ({{ var('amortization_years') }} * 8766::double * {{ var('utilization') }})
    + formulas.power_usd_per_gpu_hour(tdp_w);

-- Months of renting at `utilization` whose cost equals buying the card and powering it for those months.
-- NULL when renting costs no more than the power alone (buying never pays back).
create or replace macro formulas.break_even_months(purchase_usd, rent_usd_per_gpu_hour, tdp_w) as
    case when rent_usd_per_gpu_hour > formulas.power_usd_per_gpu_hour(tdp_w)
        then purchase_usd / ((rent_usd_per_gpu_hour - formulas.power_usd_per_gpu_hour(tdp_w))
                             * 730.5::double * {{ var('utilization') }}) end;

-- Serving memory (memory_rules.md section 3): weights x 1.2 (activations and buffers) plus the KV cache.
create or replace macro formulas.weight_bytes(total_params, bytes_per_param) as
    total_params * bytes_per_param;

create or replace macro formulas.kv_cache_bytes(kv_values_per_token_per_layer, layers, context_tokens, batch) as
    kv_values_per_token_per_layer::double * layers * context_tokens * batch * {{ var('kv_cache_bytes_per_value') }};

create or replace macro formulas.inference_gpus(weight_bytes, kv_cache_bytes, memory_gib) as
    greatest(1, ceil(({{ var('inference_memory_overhead') }} * weight_bytes + kv_cache_bytes)
                     / (memory_gib * power(2, 30))))::bigint;

-- Decode throughput of `batch` sequences on `gpus` GPUs: each step reads every weight and the batch's KV cache
-- (memory-bound) unless 2*N_active FLOPs per token take longer (compute-bound).
create or replace macro formulas.decode_tokens_per_second(
        weight_bytes, kv_cache_bytes, active_params, batch, gpus, bandwidth_gbps, dense_peak_tflops) as
    batch / greatest(
        (weight_bytes + kv_cache_bytes) / (gpus * bandwidth_gbps * 1e9 * {{ var('inference_bandwidth_utilization') }}),
        2::double * active_params * batch / (gpus * dense_peak_tflops * 1e12 * {{ var('mfu') }}));

create or replace macro formulas.usd_per_million_tokens(usd_per_gpu_hour, gpus, tokens_per_second) as
    usd_per_gpu_hour * gpus / (tokens_per_second * 3600.0) * 1e6;

-- Years for a price per TFLOPS to halve, from the slope of its natural log per day (NULL unless falling).
create or replace macro formulas.halving_years(log_slope_per_day) as
    case when log_slope_per_day < 0 then ln(2) / (-log_slope_per_day * 365.25) end;
{% endmacro %}
