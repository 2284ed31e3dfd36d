"""The base every source schema shares: strict about keys, documented field by field."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SourceModel(BaseModel):
    """A model of a curated source file.

    `extra="forbid"` turns a misspelt key into an error; `allow_inf_nan=False` refuses NaN and
    infinities (`.nan`, `'NaN'`, `.inf`, `1e400`) in every number; attribute docstrings become
    the field descriptions that the JSON Schema (and so the editors' completion) shows.
    """

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        use_attribute_docstrings=True,
        str_strip_whitespace=True,
        allow_inf_nan=False,
    )
