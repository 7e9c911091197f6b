{{ config(schema='marts', materialized='table') }}
-- Every assumption behind the estimate marts and `gpuprices estimate`, as built: value, unit and source.
-- Change them in models/dbt_project.yml (vars) or for one build with `gpuprices build --vars '{name: value}'`.
select name, cast(value as double) as value, unit, source from (values
    ('mfu', {{ var('mfu') }}, 'fraction of dense peak',
     'Large dense runs on A100/H100: Megatron-LM 41-56% (A100), Llama 3.1 405B 38-43% (H100), Nemotron-4 41-42%; memory_rules.md section 5'),
    ('mfu_multi_gpu_without_fast_interconnect', {{ var('mfu_multi_gpu_without_fast_interconnect') }}, 'fraction of dense peak',
     'Lower quartile of whole-run MFU over 26 reported runs (0.26); used when a job spans GPUs without NVLink/ICI-class links; memory_rules.md section 5'),
    ('training_bytes_per_param', {{ var('training_bytes_per_param') }}, 'bytes per parameter',
     'Mixed precision + Adam, ZeRO accounting (2 + 2 + 12); memory_rules.md section 1'),
    ('training_sequence_length', {{ var('training_sequence_length') }}, 'tokens', 'Assumption for activation memory'),
    ('training_micro_batch', {{ var('training_micro_batch') }}, 'sequences', 'Assumption: one sequence per micro-batch'),
    ('framework_overhead_gib', {{ var('framework_overhead_gib') }}, 'GiB per GPU',
     'EleutherAI cookbook miscellaneous memory (~5 GiB with Megatron-DeepSpeed); memory_rules.md section 1'),
    ('training_cluster_gpus', {{ var('training_cluster_gpus') }}, 'GPUs',
     'Cluster size for wall-clock days (raised to the smallest GPU count that fits)'),
    ('training_full_recomputation', case when {{ var('training_full_recomputation') }} then 1 else 0 end, '1 = yes',
     'Full activation recomputation: 8*N*D hardware FLOPs instead of 6*N*D; memory_rules.md section 4'),
    ('amortization_years', {{ var('amortization_years') }}, 'years', 'Assumption: service life of a bought card'),
    ('utilization', {{ var('utilization') }}, 'fraction of hours busy', 'Assumption: share of hours an owned card works'),
    ('pue', {{ var('pue') }}, 'ratio', 'Assumption: data-centre power usage effectiveness (industry surveys report ~1.5-1.6)'),
    ('electricity_usd_per_kwh', {{ var('electricity_usd_per_kwh') }}, 'USD per kWh', 'Assumption: industrial/commercial electricity'),
    ('inference_context_tokens', {{ var('inference_context_tokens') }}, 'tokens per sequence', 'Assumption for KV cache'),
    ('inference_batch_size', {{ var('inference_batch_size') }}, 'sequences', 'Assumption: concurrent sequences served'),
    ('inference_memory_overhead', {{ var('inference_memory_overhead') }}, 'x weights',
     'EleutherAI Transformer Math 101: total inference memory ~1.2 x model memory; memory_rules.md section 3'),
    ('inference_bandwidth_utilization', {{ var('inference_bandwidth_utilization') }}, 'fraction of peak bandwidth',
     'Assumption: achieved share of memory bandwidth while decoding'),
    ('kv_cache_bytes_per_value', {{ var('kv_cache_bytes_per_value') }}, 'bytes', 'bf16 KV cache'),
    ('epoch_ai_halving_years', {{ var('epoch_ai_halving_years') }}, 'years',
     'Epoch AI, Trends in GPU price-performance (2022): FLOP/s per dollar doubles every ~2.5 years')
) as assumptions(name, value, unit, source)
