"""Massed Compute: the GPU inventory API (`massedcompute`, api.py) and the public pricing page
(`massedcompute-page`, page.py), which reads descriptions with the API's rules."""
