"""Retail sources (card prices): one module per shop, shared page readers in pages.py, the watch list."""
