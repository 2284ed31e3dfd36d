"""Inference economics briefing: sources in, a static site out."""
