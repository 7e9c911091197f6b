"""DigitalOcean: the GPU Droplet sizes API (`digitalocean`, api.py) and the public docs pricing page
(`digitalocean-page`, page.py)."""
