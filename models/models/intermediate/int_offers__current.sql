-- Offers of every loaded source-run at its newest loaded parser version (a re-parse supersedes, never deletes),
-- with the canonical gpu_id resolved from the alias seed (a provider-scoped alias wins over a global one) and
-- every price in USD: as given, or converted at the ECB rate of its observation day (fx_rate_date says which).
-- Names and exchange rates are matched once per distinct name / (currency, day), not once per offer row: a few
-- hundred names and days against millions of rows.
{{ current_offers(ref('stg_raw__offers'), ref('stg_raw__ingest_runs'), source('meta', 'gpu_name_matches'),
                  ref('int_fx_rates__daily')) }}
