"""Hyperstack: the pricebook and flavors API (`hyperstack`, api.py) and the public pricing page (`hyperstack-page`,
page.py)."""
