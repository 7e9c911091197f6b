"""`gpuprices`: the command line. It parses arguments and calls the functions the Prefect flows call; each command
group is one module here with a `register(commands)` that adds its commands."""
