"""Speed and memory measurements of the build (issue 8); not tests, run by `make bench`."""
