-- The price outlook per GPU, market and day (analytics/outlook.py): written by Python at the end of each build into
-- meta.gpu_price_outlooks (a fitted model, not SQL); this view is its place among the marts.
select * from {{ source('meta', 'gpu_price_outlooks') }}
