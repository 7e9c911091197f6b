"""Analyses that are not SQL models: the estimator and price alerts. Each owns its tables and reads the marts."""
