"""Price alerts: rules (rules.py), their evaluation on each observed day and the alerts.* tables (engine.py),
delivery by webhook and e-mail (delivery.py)."""
