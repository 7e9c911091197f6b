-- The buy signal and its baselines backtested on every long-enough series (analytics/buy_verdicts.py): what
-- `gpuprices backtest --json` prints, written by Python after each build; this view is its place among the marts.
select * from {{ source('meta', 'buy_signal_backtest') }}
