"""The text of a new source file for `brief new`: every field, each under a comment saying what it is.

The comments are the models' field docstrings, so the skeleton, the JSON Schema and `brief check`
never disagree. Required fields are left empty: `brief check` then lists exactly what is still to
fill in. Optional nested blocks (a cadence, corrections) are written commented out, ready to enable.
"""

from __future__ import annotations

import datetime as dt
import json
import textwrap
import types
import typing

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from pipeline.models import SourceKind
from pipeline.models.schemas import schema_comment

COMMENT_WIDTH = 96


def skeleton_text(kind: SourceKind, path: str, values: dict[str, object]) -> str:
    """Return the text of a new file of `kind` at `path` (from the root), with `values` (by
    dotted key, as in `SourceKind.prefill`) filled in."""
    head = [schema_comment(kind, path),
            f"# A new {kind.name} file: fill in every empty field, then run `brief check`."]
    return "\n".join([*head, *_model_lines(kind.model, values, indent=0)]) + "\n"


def record_text(kind: SourceKind, values: dict[str, object], indent: int) -> str:
    """Return one new record of the list `kind.appends_to`, as an item of a list indented by
    `indent` spaces, with `values` (by dotted key from the file's top) filled in."""
    assert kind.appends_to is not None
    item, _ = _nested_model(kind.model.model_fields[kind.appends_to].annotation)
    assert item is not None
    pad = " " * indent
    inner = _model_lines(item, values, indent + 2, f"{kind.appends_to}.")
    return "\n".join([f"{pad}# A new record: fill in every empty field, then run `brief check`.",
                      f"{pad}- {inner[0].lstrip()}", *inner[1:]]) + "\n"


def _model_lines(model: type[BaseModel], values: dict[str, object], indent: int,
                 prefix: str = "") -> list[str]:
    lines: list[str] = []
    for name, info in model.model_fields.items():
        if not info.exclude:  # a field no new file should carry (Entry.draft)
            lines += _field_lines(info.alias or name, info, values, indent, prefix)
    return lines


def _field_lines(name: str, info: FieldInfo, values: dict[str, object], indent: int,
                 prefix: str) -> list[str]:
    pad = " " * indent
    lines = _comment(info.description or "", pad)
    nested, is_list = _nested_model(info.annotation)
    key = prefix + name
    if key in values:
        return [*lines, f"{pad}{name}: {_scalar(values[key])}"]
    if nested is None:
        value = "" if info.is_required() else " " + _scalar(info.get_default(call_default_factory=True))
        return [*lines, f"{pad}{name}:{value}"]
    block = [f"{pad}{name}:"]
    if is_list:
        # The first line of an item's mapping sits after "- "; the rest line up under it.
        inner = _model_lines(nested, values, indent + 4, f"{key}.")
        block.append(f"{pad}  - {inner[0].lstrip()}")
        block += inner[1:]
    else:
        block += _model_lines(nested, values, indent + 2, f"{key}.")
    if info.is_required():
        return lines + block
    # An optional block left empty would be invalid (or mean something), so it is offered
    # commented out: the editor removes the `# ` to use it.
    lines += [f"{pad}# (optional: remove the leading `# ` of the lines below to use it)"]
    return lines + [f"{pad}# {line[indent:]}" for line in block]


def _comment(text: str, pad: str) -> list[str]:
    paragraph = " ".join(line.strip() for line in text.splitlines() if line.strip())
    if not paragraph:
        return []
    return [f"{pad}# {line}" for line in textwrap.wrap(paragraph, COMMENT_WIDTH - len(pad) - 2)]


def _nested_model(annotation: object) -> tuple[type[BaseModel] | None, bool]:
    """Return (the model a field holds, whether it is a list of them), or (None, False)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            if arg is not type(None):
                return _nested_model(arg)
    if origin is list:
        model, _ = _nested_model(typing.get_args(annotation)[0])
        return model, model is not None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    return None, False


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, dt.date):
        return value.isoformat()
    # JSON is YAML: strings come out quoted, so `no` or `2026-01-01` keep their meaning.
    return json.dumps(value, ensure_ascii=False, default=str)
