"""CLI commands of each lane, registered on the `brief` group by `pipeline.cli`."""
