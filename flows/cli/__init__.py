"""`gpuprices`: the command line. It parses arguments and calls the functions the Prefect flows call; each command
group is one module here with a `register(commands)` that adds its commands."""

import os

# polars' allocator (jemalloc) keeps what a frame frees for 10 s by default: a long import then held ~130 MB more
# through the build that follows it (`gpuprices bench import`). Returned at once instead; set before polars loads.
os.environ.setdefault("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")
