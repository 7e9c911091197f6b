{#
  The estimate formulas, created as DuckDB macros in schema `formulas` at the start of every dbt invocation
  (on-run-start). The marts call them, and so does `gpuprices estimate` on the built warehouse, so a formula
  lives in exactly one place. Defaults come from this project's vars (dbt_project.yml), documented with their
  sources in monitoring.estimate_assumptions. Byte counts use GiB (2^30) for memory: a "80 GB" H100 holds 80 GiB.
#}
{% macro create_formulas() %}
create schema if not exists formulas;

-- Attention score and value FLOPs of one training token (PaLM, Chowdhery et al. 2022, appendix B: 12*L*d*T,
-- forward and backward); 0 when the shape is unknown. `context_tokens` is the training sequence length.
create or replace macro formulas.attention_flops_per_token(layers, d_model, context_tokens) as
    coalesce(12::double * layers * d_model * context_tokens, 0);

-- Training compute (memory_rules.md section 4): 6*N*D plus the attention term per token, or 8/6 of that hardware
-- FLOPs with full activation recomputation (one extra forward pass). N = active parameters for a mixture of experts.
create or replace macro formulas.training_flops(active_params, tokens, recompute, attention_flops_per_token) as
    (case when recompute then 8 / 6::double else 1::double end)
    * (6::double * active_params + coalesce(attention_flops_per_token, 0)) * tokens;

-- GPU-hours = FLOPs / (dense peak x efficiency). Peak in TFLOPS, dense (never the 2:4-sparse headline).
create or replace macro formulas.gpu_hours(flops, dense_peak_tflops, efficiency) as
    flops / (dense_peak_tflops * 1e12 * efficiency * 3600.0);

-- The share of the dense BF16 peak a whole run of a large dense model keeps on a GPU family (int_gpu_specs
-- efficiency_family): measured families from published runs and throughput; the rest a conservative default.
create or replace macro formulas.architecture_efficiency(efficiency_family) as
    cast(case efficiency_family
        when 'ampere' then {{ var('efficiency_ampere') }}
        when 'hopper' then {{ var('efficiency_hopper') }}
        when 'blackwell' then {{ var('efficiency_blackwell') }}
        when 'cdna3' then {{ var('efficiency_cdna3') }}
        when 'gaudi2' then {{ var('efficiency_gaudi2') }}
        when 'tpu_v4' then {{ var('efficiency_tpu_v4') }}
        when 'volta' then {{ var('efficiency_volta') }}
        else {{ var('efficiency_unmeasured') }} end as double);

create or replace macro formulas.efficiency_basis(efficiency_family) as
    case when efficiency_family = 'unmeasured' then 'unmeasured' else 'measured' end;

-- Model width for the size factor: the hidden size, or the one a dense transformer of this many parameters has
-- (N = 12*L*d^2 with d/L = 128, the ratio of GPT-3 and Llama).
create or replace macro formulas.model_width(d_model, active_params) as
    coalesce(d_model, power(128 * active_params / 12::double, 1 / 3::double));

-- Training efficiency, the share of the dense peak at `training_precision` a whole run keeps: the family's share,
-- x the FP8 factor (FP8 runs keep a smaller share of the doubled FP8 peak), x d/(d + c*FLOP per byte) (a narrow
-- model spends more of its time in memory-bound non-matmul work, more so on a GPU with more FLOPs per byte), x the
-- MoE factor, x the factor for a job spanning GPUs without a scale-up fabric.
create or replace macro formulas.training_efficiency(
        efficiency_family, training_precision, width, bf16_dense_tflops, memory_bandwidth_gbps, is_moe,
        has_fast_interconnect, gpu_count) as
    formulas.architecture_efficiency(efficiency_family)
    * case when training_precision = 'fp8' then {{ var('efficiency_fp8_vs_bf16') }} else 1 end
    * coalesce(width / (width + {{ var('efficiency_width_per_flop_per_byte') }}
                        * bf16_dense_tflops * 1e12 / (memory_bandwidth_gbps * 1e9)), 1)
    * case when is_moe then {{ var('efficiency_moe') }} else 1 end
    * case when gpu_count > 1 and not has_fast_interconnect then {{ var('efficiency_without_fast_interconnect') }}
           else 1 end;

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

-- A training plan: the cluster a run needs to hold its state (min_gpus) and to finish within max_days, in whole
-- machines of node_gpus once it spans more than one; the plan rents the configured cluster size
-- (training_cluster_gpus) when that is larger and the GPU forms it, and is infeasible when it needs more GPUs than the
-- largest cluster the GPU forms (int_gpu_clusters__daily.max_training_gpus).
create or replace macro formulas.deadline_gpus(gpu_hours, max_days) as
    ceil(gpu_hours / (max_days * 24.0))::bigint;

create or replace macro formulas.whole_machines(gpus, node_gpus) as
    case when gpus <= node_gpus then gpus::bigint else (ceil(gpus / node_gpus::double) * node_gpus)::bigint end;

create or replace macro formulas.training_required_gpus(min_gpus, gpu_hours, max_days, node_gpus) as
    formulas.whole_machines(greatest(min_gpus, formulas.deadline_gpus(gpu_hours, max_days)), node_gpus);

-- The plan's cluster; an infeasible plan is shown on the largest cluster the GPU forms.
create or replace macro formulas.training_plan_gpus(required_gpus, max_cluster_gpus, preferred_gpus) as
    case when required_gpus <= max_cluster_gpus
         then greatest(required_gpus, least(preferred_gpus, max_cluster_gpus))
         else max_cluster_gpus end::bigint;

-- Why a training plan cannot be done (NULL when it can): what it needs against the largest cluster the GPU forms.
create or replace macro formulas.training_infeasible_reason(
        min_gpus, required_gpus, max_cluster_gpus, scale_out_network, gpu_hours, max_days) as
    case when required_gpus > max_cluster_gpus then
        case when min_gpus > max_cluster_gpus
             then format('needs {:,} GPUs to hold its training state ({:,} to finish within {} days); ', min_gpus,
                         required_gpus, max_days::bigint)
             else format('needs {:,} GPUs to finish within {} days ({:,.0f} days on {:,}); ', required_gpus,
                         max_days::bigint, gpu_hours / max_cluster_gpus / 24.0, max_cluster_gpus) end
        || case when scale_out_network = 'none'
                then format('not sold with a cluster network, it forms one machine of {:,} at most', max_cluster_gpus)
                else format('the largest cluster sold is {:,} GPUs', max_cluster_gpus) end
    end;

-- Why a feasible training plan has no price although clouds rented the GPU on demand that day (NULL otherwise): no
-- cloud rented its cluster as one job (marts.gpu_cluster_prices_daily has no size tier holding it).
create or replace macro formulas.training_unpriced_reason(is_feasible, cluster_price, cluster_gpus, gpu_provider_count) as
    case when is_feasible and cluster_price is null and gpu_provider_count > 0 then
        format('no cloud rented {:,} of these GPUs as one job that day (one machine that large, or nodes sold with '
               || 'InfiniBand, RoCE or EFA between them): {:,} rented smaller machines of them on demand',
               cluster_gpus, gpu_provider_count)
    end;

-- Why a model cannot be served on a GPU (NULL when it can): the GPUs that hold it against the most one served model
-- can span (int_gpu_clusters__daily.max_serving_gpus): one machine without a GPU fabric.
create or replace macro formulas.serving_infeasible_reason(gpus, max_serving_gpus, has_scale_up_fabric, scale_out_network) as
    case when gpus > max_serving_gpus then
        format('needs {:,} GPUs to hold the weights and a sequence''s KV cache; ', gpus)
        || case when not has_scale_up_fabric
                then format('without a GPU fabric it is served from one machine, of {:,} at most', max_serving_gpus)
                when scale_out_network = 'none'
                then format('not sold with a cluster network, one machine holds {:,} at most', max_serving_gpus)
                else format('the largest cluster sold is {:,} GPUs', max_serving_gpus) end
    end;

-- The error band of an estimate: what the published runs' errors out of sample support (`gpuprices estimate
-- --validate analytics/calibration/training_runs_calibration.csv`: each run estimated with the efficiency factors fitted
-- without it; the actual GPU-hours of every run fell within these multiples of its estimate). It scales GPU-hours,
-- days and cost alike (the prices are observed, not estimated).
create or replace macro formulas.error_band_low(estimate) as estimate * cast({{ var('estimate_error_band_low') }} as double);
create or replace macro formulas.error_band_high(estimate) as estimate * cast({{ var('estimate_error_band_high') }} as double);

-- Whether the validation set holds a run on the GPU's family (A100: Ampere; H100, H800: Hopper): elsewhere the band
-- is the same multiples, carried over from GPUs it was measured on.
create or replace macro formulas.error_band_basis(efficiency_family) as
    case when efficiency_family in ('ampere', 'hopper') then 'validated_family' else 'family_not_in_validation' end;

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

-- Months of a commitment (billed every hour, used or not) whose cost equals buying the card and powering it at
-- `utilization` for those months. NULL when the commitment costs no more than that power.
create or replace macro formulas.break_even_months_vs_commitment(purchase_usd, committed_usd_per_gpu_hour, tdp_w) as
    case when committed_usd_per_gpu_hour > formulas.power_usd_per_gpu_hour(tdp_w) * {{ var('utilization') }}
        then purchase_usd / ((committed_usd_per_gpu_hour
                              - formulas.power_usd_per_gpu_hour(tdp_w) * {{ var('utilization') }}) * 730.5::double)
    end;

-- Serving memory (memory_rules.md section 3): weights x 1.2 (activations and buffers) plus the KV cache.
create or replace macro formulas.weight_bytes(total_params, bytes_per_param) as
    total_params * bytes_per_param;

create or replace macro formulas.kv_cache_bytes_per_token(kv_values_per_token_per_layer, layers) as
    kv_values_per_token_per_layer::double * layers * {{ var('kv_cache_bytes_per_value') }};

-- The smallest GPU count whose memory holds the weights and one sequence's KV cache.
create or replace macro formulas.inference_gpus(weight_bytes, kv_cache_bytes_per_sequence, memory_gib) as
    greatest(1, ceil(({{ var('inference_memory_overhead') }} * weight_bytes + kv_cache_bytes_per_sequence)
                     / (memory_gib * power(2, 30))))::bigint;

-- Expected distinct experts that `tokens` tokens route to in one layer, each picking k of E experts:
-- E * (1 - (1 - k/E)^tokens). NULL for a dense model.
create or replace macro formulas.expected_distinct_experts(num_experts, experts_per_token, tokens) as
    num_experts * (1 - power(1 - experts_per_token / num_experts::double, tokens));

-- Weight bytes one decode step of `batch` sequences reads: every weight of a dense model; for a mixture of experts
-- the shared part (attention, dense layers, shared experts) plus the experts the batch routes to. One expert's
-- parameters (P_e) and the shared part follow from total = shared + E*P_e and active = shared + k*P_e.
create or replace macro formulas.weight_bytes_read_per_step(
        total_params, active_params, num_experts, experts_per_token, batch, bytes_per_param) as
    bytes_per_param * case when num_experts is null or num_experts <= experts_per_token then total_params
        else active_params - experts_per_token * (total_params - active_params) / (num_experts - experts_per_token)
             + formulas.expected_distinct_experts(num_experts, experts_per_token, batch)
               * (total_params - active_params) / (num_experts - experts_per_token) end;

-- FLOPs of one token's forward pass at `context_tokens` of context: 2*N_active plus attention (4*L*d*context).
create or replace macro formulas.forward_flops_per_token(active_params, layers, d_model, context_tokens) as
    2::double * active_params + formulas.attention_flops_per_token(layers, d_model, context_tokens) / 3;

-- Seconds per prompt token of prefill on `gpus` GPUs (compute-bound; causal attention over half the prompt).
create or replace macro formulas.prefill_seconds_per_token(
        active_params, layers, d_model, prompt_tokens, gpus, dense_peak_tflops) as
    formulas.forward_flops_per_token(active_params, layers, d_model, prompt_tokens / 2)
    / (gpus * dense_peak_tflops * 1e12 * {{ var('inference_compute_utilization') }});

-- One decode step of `batch` sequences: reading the weights the step needs and the KV cache at the mean context
-- (bandwidth), or the step's FLOPs (compute), whichever takes longer.
create or replace macro formulas.decode_step_bandwidth_seconds(weight_bytes_read, kv_cache_bytes_read, gpus, bandwidth_gbps) as
    (weight_bytes_read + kv_cache_bytes_read)
    / (gpus * bandwidth_gbps * 1e9 * {{ var('inference_bandwidth_utilization') }});

create or replace macro formulas.decode_step_compute_seconds(batch, forward_flops_per_token, gpus, dense_peak_tflops) as
    batch * forward_flops_per_token / (gpus * dense_peak_tflops * 1e12 * {{ var('inference_compute_utilization') }});

-- The largest batch a serving engine would run: whose KV cache (at prompt + output tokens per sequence) fits beside
-- the weights, at most inference_max_batch, and whose decode step stays within inference_max_ms_per_output_token
-- (solved with every weight read, an upper bound for a mixture of experts). At least 1.
create or replace macro formulas.memory_batch(weight_bytes, kv_cache_bytes_per_sequence, gpus, memory_gib) as
    floor((gpus * memory_gib * power(2, 30) - {{ var('inference_memory_overhead') }} * weight_bytes)
          / kv_cache_bytes_per_sequence)::bigint;

create or replace macro formulas.latency_batch(
        weight_bytes, kv_cache_bytes_per_sequence_read, forward_flops_per_token, gpus, bandwidth_gbps,
        dense_peak_tflops) as
    floor(least(
        ({{ var('inference_max_ms_per_output_token') }} / 1000.0 * gpus * bandwidth_gbps * 1e9
            * {{ var('inference_bandwidth_utilization') }} - weight_bytes) / kv_cache_bytes_per_sequence_read,
        {{ var('inference_max_ms_per_output_token') }} / 1000.0 * gpus * dense_peak_tflops * 1e12
            * {{ var('inference_compute_utilization') }} / forward_flops_per_token))::bigint;

create or replace macro formulas.serving_batch(memory_batch, latency_batch) as
    greatest(1, least(memory_batch, latency_batch, {{ var('inference_max_batch') }}))::bigint;

-- What stops the batch growing: 'memory' (the KV cache fills the GPUs), 'latency' (a bigger step would exceed the
-- per-token latency limit) or 'batch cap'.
create or replace macro formulas.batch_limited_by(memory_batch, latency_batch) as
    case when memory_batch <= least(latency_batch, {{ var('inference_max_batch') }}) then 'memory'
         when latency_batch <= {{ var('inference_max_batch') }} then 'latency'
         else 'batch cap' end;

-- What sets the serving throughput: 'memory' when the KV cache capacity limits the batch (more memory, more
-- tokens per second), else the decode step's binding resource, 'compute' or 'bandwidth'.
create or replace macro formulas.throughput_bound(batch_limited_by, compute_seconds, bandwidth_seconds) as
    case when batch_limited_by = 'memory' then 'memory'
         when compute_seconds >= bandwidth_seconds then 'compute'
         else 'bandwidth' end;

create or replace macro formulas.usd_per_million_tokens(usd_per_gpu_hour, gpus, tokens_per_second) as
    usd_per_gpu_hour * gpus / (tokens_per_second * 3600.0) * 1e6;

-- Serving a model on a GPU as a serving engine would run it, the steps above in order: one row of what
-- marts.inference_cost_daily and `gpuprices estimate --inference` report (they add the prices:
-- formulas.usd_per_million_tokens). A table macro, called per row with `cross join lateral formulas.serving(...)`:
-- the fewest GPUs that hold the weights and one sequence's KV cache, the largest batch whose KV cache fits beside
-- them within the latency limit, decode steps that read the weights the batch needs and its KV cache at the mean
-- context (the prompt and half the output), prefill of the prompt. Its CTE and column names start with serving_ or
-- are the outputs, so an argument that names a column of the caller (`priced.layers`) cannot bind to them.
create or replace macro formulas.serving(
        total_params, active_params, num_experts, experts_per_token, layers, d_model, kv_values_per_token_per_layer,
        bytes_per_param, prompt_tokens, output_tokens, memory_gib, memory_bandwidth_gbps, dense_peak_tflops) as table
    with serving_sized as (
        select
            formulas.weight_bytes(total_params, bytes_per_param) as serving_weight_bytes,
            formulas.kv_cache_bytes_per_token(kv_values_per_token_per_layer, layers) as serving_kv_bytes_per_token,
            prompt_tokens + output_tokens / 2.0 as serving_mean_context_tokens
    ),
    serving_gpus as (
        select
            *,
            formulas.inference_gpus(serving_weight_bytes, serving_kv_bytes_per_token * (prompt_tokens + output_tokens),
                                    memory_gib) as serving_gpu_count,
            formulas.forward_flops_per_token(active_params, layers, d_model, serving_mean_context_tokens)
                as serving_decode_flops_per_token
        from serving_sized
    ),
    serving_batched as (
        select
            *,
            formulas.memory_batch(serving_weight_bytes, serving_kv_bytes_per_token * (prompt_tokens + output_tokens),
                                  serving_gpu_count, memory_gib) as serving_memory_batch,
            formulas.latency_batch(serving_weight_bytes, serving_kv_bytes_per_token * serving_mean_context_tokens,
                                   serving_decode_flops_per_token, serving_gpu_count, memory_bandwidth_gbps,
                                   dense_peak_tflops) as serving_latency_batch
        from serving_gpus
    ),
    serving_stepped as (
        select
            *,
            formulas.serving_batch(serving_memory_batch, serving_latency_batch) as serving_batch_size,
            formulas.decode_step_bandwidth_seconds(
                formulas.weight_bytes_read_per_step(
                    total_params, active_params, num_experts, experts_per_token,
                    formulas.serving_batch(serving_memory_batch, serving_latency_batch), bytes_per_param),
                formulas.serving_batch(serving_memory_batch, serving_latency_batch) * serving_kv_bytes_per_token
                    * serving_mean_context_tokens,
                serving_gpu_count, memory_bandwidth_gbps) as serving_bandwidth_seconds,
            formulas.decode_step_compute_seconds(formulas.serving_batch(serving_memory_batch, serving_latency_batch),
                                                 serving_decode_flops_per_token, serving_gpu_count, dense_peak_tflops)
                as serving_compute_seconds,
            formulas.prefill_seconds_per_token(active_params, layers, d_model, prompt_tokens, serving_gpu_count,
                                               dense_peak_tflops) as serving_prefill_seconds_per_token
        from serving_batched
    )
    select
        serving_weight_bytes as weight_bytes,
        serving_kv_bytes_per_token * (prompt_tokens + output_tokens) * serving_batch_size as kv_cache_bytes,
        serving_gpu_count as gpus,
        serving_batch_size as batch_size,
        formulas.batch_limited_by(serving_memory_batch, serving_latency_batch) as batch_limited_by,
        formulas.throughput_bound(formulas.batch_limited_by(serving_memory_batch, serving_latency_batch),
                                  serving_compute_seconds, serving_bandwidth_seconds) as throughput_bound,
        greatest(serving_bandwidth_seconds, serving_compute_seconds) * 1000 as ms_per_output_token,
        serving_batch_size / greatest(serving_bandwidth_seconds, serving_compute_seconds) as output_tokens_per_second,
        1 / serving_prefill_seconds_per_token as input_tokens_per_second
    from serving_stepped;

-- A training plan, the one assembly marts.training_cost_daily and `gpuprices estimate` both run. A table macro,
-- called per row with `cross join lateral formulas.training_plan(...)`: the GPUs that hold the state and finish
-- within max_days at the efficiency of a run spanning GPUs, in whole machines (training_required_gpus); the plan's
-- cluster (the preferred size where larger and formed, capped at the GPUs that finish the run in training_min_days,
-- or a stated cluster); its efficiency on that cluster (or a
-- stated MFU); its GPU-hours; why it cannot be done (NULL when it can: a sized plan must fit the largest cluster the
-- GPU forms; a stated cluster must hold the state, be formed and finish in time); and its wall clock (NULL when the
-- cluster cannot hold the state). Pass NULL for stated_cluster_gpus and stated_mfu to size the plan. CTE and column
-- names start with plan_ or are the outputs, so an argument naming a caller's column cannot bind to them.
create or replace macro formulas.training_plan(
        flops, dense_peak_tflops, min_gpus, efficiency_family, training_precision, width, bf16_dense_tflops,
        memory_bandwidth_gbps, is_moe, has_fast_interconnect, node_gpus, max_cluster_gpus, scale_out_network,
        preferred_gpus, max_days, stated_cluster_gpus, stated_mfu) as table
    with plan_spanning as (
        -- the GPU-hours of a run spanning GPUs (a GPU without a fabric loses efficiency across them), to size it
        select formulas.gpu_hours(flops, dense_peak_tflops, coalesce(stated_mfu, formulas.training_efficiency(
                   efficiency_family, training_precision, width, bf16_dense_tflops, memory_bandwidth_gbps, is_moe,
                   has_fast_interconnect, greatest(min_gpus, 2)))) as plan_spanning_gpu_hours
    ),
    plan_sized as (
        select
            *,
            formulas.training_required_gpus(min_gpus, plan_spanning_gpu_hours, max_days, node_gpus)
                as plan_required_gpus,
            -- the preferred cluster, but no more GPUs than finish the run in training_min_days: a small run is not
            -- spread over a thousand GPUs for an hour
            least(preferred_gpus, formulas.whole_machines(
                formulas.deadline_gpus(plan_spanning_gpu_hours, {{ var('training_min_days') }}), node_gpus))
                as plan_preferred_gpus
        from plan_spanning
    ),
    plan_clustered as (
        select
            *,
            coalesce(stated_cluster_gpus,
                     formulas.training_plan_gpus(plan_required_gpus, max_cluster_gpus, plan_preferred_gpus))
                as plan_cluster_gpus
        from plan_sized
    ),
    plan_timed as (
        select
            *,
            coalesce(stated_mfu, formulas.training_efficiency(
                efficiency_family, training_precision, width, bf16_dense_tflops, memory_bandwidth_gbps, is_moe,
                has_fast_interconnect, plan_cluster_gpus)) as plan_mfu
        from plan_clustered
    ),
    plan_hours as (
        select *, formulas.gpu_hours(flops, dense_peak_tflops, plan_mfu) as plan_gpu_hours
        from plan_timed
    ),
    plan_judged as (
        select
            *,
            case when stated_cluster_gpus is null then
                     formulas.training_infeasible_reason(min_gpus, plan_required_gpus, max_cluster_gpus,
                                                         scale_out_network, plan_gpu_hours, max_days)
                 when stated_cluster_gpus < min_gpus then
                     format('{:,} GPUs cannot hold its training state: it needs {:,}', stated_cluster_gpus, min_gpus)
                 when stated_cluster_gpus > max_cluster_gpus then
                     format('{:,} GPUs: more than the largest cluster it forms ({:,})', stated_cluster_gpus,
                            max_cluster_gpus)
                 when formulas.wall_clock_days(plan_gpu_hours, stated_cluster_gpus) > max_days then
                     format('{:,.0f} days on {:,} GPUs, over the {}-day limit: it needs {:,}',
                            formulas.wall_clock_days(plan_gpu_hours, stated_cluster_gpus), stated_cluster_gpus,
                            max_days::bigint, plan_required_gpus)
            end as plan_infeasible_reason
        from plan_hours
    )
    select
        plan_required_gpus as required_gpus,
        plan_cluster_gpus as cluster_gpus,
        plan_mfu as mfu,
        plan_gpu_hours as gpu_hours,
        plan_infeasible_reason is null as is_feasible,
        plan_infeasible_reason as infeasible_reason,
        case when plan_cluster_gpus >= min_gpus then formulas.wall_clock_days(plan_gpu_hours, plan_cluster_gpus) end
            as wall_clock_days,
        case when plan_cluster_gpus >= min_gpus
             then formulas.wall_clock_days(formulas.error_band_high(plan_gpu_hours), plan_cluster_gpus) end
            as wall_clock_days_high
    from plan_judged;

-- The cost of serving per million tokens on a plan: a model that needs more GPUs than one deployment spans on the GPU
-- is priced at nothing (listed with its reason, never ranked). The one rule marts.inference_cost_daily and
-- `gpuprices estimate --inference` price a served model by.
create or replace macro formulas.serving_usd_per_million_tokens(usd_per_gpu_hour, gpus, max_serving_gpus, tokens_per_second) as
    case when gpus <= max_serving_gpus then formulas.usd_per_million_tokens(usd_per_gpu_hour, gpus, tokens_per_second) end;

-- Years for a price per TFLOPS to halve, from the slope of its natural log per day (NULL unless falling).
create or replace macro formulas.halving_years(log_slope_per_day) as
    case when log_slope_per_day < 0 then ln(2) / (-log_slope_per_day * 365.25) end;
{% endmacro %}
