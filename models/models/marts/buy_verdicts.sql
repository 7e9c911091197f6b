-- Buy now or wait, per price series on its last day, with the series' own backtest (analytics/buy_verdicts.py):
-- written by Python after each build from the same series the outlook reads; this view is its place among the marts.
select * from {{ source('meta', 'buy_verdicts') }}
