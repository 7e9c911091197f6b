"""Hot Aisle: the available-VMs API (`hotaisle`, api.py) and the public pricing page (`hotaisle-page`, page.py)."""
