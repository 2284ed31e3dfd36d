"""CLI commands of each lane, registered on the main group by `pipeline.cli`."""
