"""The network edge: fetch what the build needs and write it into sources/snapshots/."""
