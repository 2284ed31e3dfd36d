"""The `brief` command line: click commands, the only place that prints or exits."""
