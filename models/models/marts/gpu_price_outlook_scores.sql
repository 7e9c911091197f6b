-- Each price series' own backtested outlook figures (analytics/outlook.py write_scores): written by Python beside
-- meta.gpu_price_outlooks after each build (scoring a fitted model is not SQL); this view is their place among the
-- marts, where the pages read them.
select * from {{ source('meta', 'gpu_price_outlook_scores') }}
