"""`python -m pipeline.cli`: the `brief` executable."""

from pipeline.cli.main import run

run()
