"""The schemas of every kind of source file, one module per kind."""

from pipeline.models.base import SourceModel

__all__ = ["SourceModel"]
