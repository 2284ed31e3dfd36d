"""Parse one YAML source file's bytes into its model, and turn pydantic's errors into problems a
person can act on: the dotted path of the field, a plain message, the line."""

from __future__ import annotations

import datetime as dt
import difflib
import re
import types
import typing
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from pipeline.limits import EARLIEST_DATE, LATEST_DATE
from pipeline.load.yaml_lines import parse_yaml
from pipeline.models.sourced import Sourced, line_of
from pipeline.problems import Problem

M = TypeVar("M", bound=BaseModel)


def rel(path: Path, root: Path) -> str:
    """Return `path` relative to `root` when it is inside it, for messages and links."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f"
                    "\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
"""Characters no curated text may hold: control characters but tab and line ends, the
bidirectional controls (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069: an override shows a
headline reordered from what the file says), zero-width space, word joiner and the invisible
operators (U+200B, U+2060-U+2064), and a byte-order mark inside text (U+FEFF). Joiners
(U+200C/D) stay: scripts and emoji need them."""


def hidden_problems(doc: object, name: str, lines: Mapping[tuple, int],
                    loc: tuple = ()) -> list[Problem]:
    """Return a problem for each text of a parsed file holding a HIDDEN character."""
    if isinstance(doc, dict):
        return [p for key, value in doc.items()
                for p in hidden_problems(value, name, lines, (*loc, key))]
    if isinstance(doc, list):
        return [p for i, value in enumerate(doc)
                for p in hidden_problems(value, name, lines, (*loc, i))]
    if not isinstance(doc, str) or not HIDDEN.search(doc):
        return []
    chars = dict.fromkeys(HIDDEN.findall(doc))
    found = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'control character')}"
                      for c in chars)
    what = "an invisible control character" if len(chars) == 1 else "invisible control characters"
    return [Problem(name, ".".join(map(str, loc)), f"holds {what} ({found}): readers would see "
                    "other text than the file shows; delete it", line=line_of(lines, loc))]


def parse_model(data: bytes, name: str, model: type[M],
                check: Callable[[Sourced[M]], list[Problem]] | None = None,
                ) -> tuple[Sourced[M] | None, list[Problem]]:
    """Parse and validate one YAML file's bytes against `model`; return it or the problems found.

    `check` returns the problems of a valid model that only its own file decides (a file's
    data-quality gates)."""
    doc, lines, problems = parse_yaml(data, name)
    if doc is None or problems:
        return None, problems
    if not isinstance(doc, dict):
        return None, [Problem(name, "", f"expected a mapping of keys to values at the top, "
                              f"found {type(doc).__name__}", line=1)]
    hidden = hidden_problems(doc, name, lines)
    if hidden:
        return None, hidden
    try:
        sourced = Sourced(model.model_validate(doc), name, lines)
    except ValidationError as err:
        return None, validation_problems(err, model, name, lines)
    dates = date_problems(sourced)
    if dates:
        return None, dates
    return sourced, check(sourced) if check else []


def leaves(value: object, loc: tuple = ()) -> Iterator[tuple[tuple, object]]:
    """Yield (loc, value) of every value of a validated model that holds no other, at its path in
    the file (keys as the file writes them: `from`, not `from_`)."""
    if isinstance(value, BaseModel):
        for name, info in type(value).model_fields.items():
            yield from leaves(getattr(value, name), (*loc, info.alias or name))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from leaves(item, (*loc, i))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*loc, key))
    else:
        yield loc, value


def date_problems(sourced: Sourced) -> list[Problem]:
    """Return an error for each date or time of a file outside EARLIEST_DATE to LATEST_DATE: the
    build would fail on it with a traceback, after `brief check` had passed it (issue 50)."""
    problems = []
    for loc, value in leaves(sourced.model):
        if not isinstance(value, dt.date):
            continue
        day = value.date() if isinstance(value, dt.datetime) else value
        if not EARLIEST_DATE <= day <= LATEST_DATE:
            problems.append(Problem(sourced.path, ".".join(map(str, loc)), f"{day.isoformat()} is "
                                    f"outside the dates the build can count to, {EARLIEST_DATE} "
                                    f"to {LATEST_DATE} (pipeline/limits.py); check the year",
                                    line=line_of(sourced.lines, loc)))
    return problems


def validation_problems(err: ValidationError, model: type[BaseModel], path: str,
                        lines: Mapping[tuple, int], prefix: tuple = ()) -> list[Problem]:
    """Turn pydantic's errors into problems: dotted field path, a plain message, the line."""
    problems = []
    for e in err.errors(include_url=False):
        loc = (*prefix, *e["loc"])
        problems.append(Problem(path, ".".join(str(p) for p in loc),
                                _message(e, model, e["loc"]), line=line_of(lines, loc)))
    return problems


def _message(e: dict, model: type[BaseModel], loc: tuple) -> str:
    kind = e["type"]
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        known = sorted(parent.model_fields) if parent else []
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else (
            f"; known keys: {', '.join(known)}" if known else "")
        return f"unknown key{hint}"
    if kind == "url_scheme":
        return "link must start with http:// or https://"
    if _is_empty(e):
        what = _what(model, loc)
        # The values a choice takes, unless its docstring already lists them.
        expected = e.get("ctx", {}).get("expected", "") if kind in ("literal_error", "enum") else ""
        choices = re.findall(r"'([^']*)'", expected)
        listed = not choices or choices[0] in what
        return f"empty; write {what}" + ("" if listed else f": {expected}")
    msg = _date_message(kind, e["msg"])
    if msg.startswith("Value error, "):
        msg = msg.removeprefix("Value error, ")
    if "input" in e and kind not in ("model_type", "dict_type", "list_type"):
        value = e["input"]
        if isinstance(value, (str, int, float, bool)) and len(repr(value)) < 60:
            msg = f"{msg} (got {value!r})"
    return msg


def _is_empty(e: dict) -> bool:
    """Is the error a value left empty (`summary:` with nothing after it, `""`, `[]`) where one
    is needed? pydantic says "Input should be a valid string" of the first."""
    if "input" not in e:
        return False
    value = e["input"]
    blank = value is None or (isinstance(value, str) and not value.strip()) or (
        isinstance(value, (list, dict)) and not value)
    return blank and e["type"].endswith(("_type", "too_short", "literal_error", "enum"))


def _what(model: type[BaseModel], loc: tuple) -> str:
    """Return what the field at `loc` holds, from the first sentence of its docstring ("the
    headline, in our words"), for a message that says what to write there."""
    at = max((i for i, part in enumerate(loc) if isinstance(part, str)), default=None)
    parent = _model_at(model, loc[:at]) if at is not None else None
    info = next((f for name, f in parent.model_fields.items() if loc[at] in (name, f.alias)),
                None) if parent else None
    if info is None or not info.description:
        return "its value"
    first = " ".join(info.description.split()).split(". ")[0].rstrip(".")
    return first if first[1:2].isupper() else first[:1].lower() + first[1:]  # ISO stays ISO


_DATE_FORMS = {"date": "a date as YYYY-MM-DD", "datetime": "a date as YYYY-MM-DD or a UTC "
               "time as YYYY-MM-DDTHH:MM:SSZ"}


def _date_message(kind: str, msg: str) -> str:
    """Return pydantic's message about a date or a time, saying which form is expected."""
    what = kind.split("_", 1)[0]
    if what not in _DATE_FORMS or kind.endswith(("_past", "_future")):
        return msg
    # pydantic's own part after the comma says what is wrong with the text (a month of 13).
    _, _, detail = msg.partition(", ")
    if kind.endswith("_inexact"):
        detail = "without a time of day"
    return f"expected {_DATE_FORMS[what]}" + (f": {detail}" if detail else "")


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """Return the model class that validates the value at `loc`, if one does."""
    current: object = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = current.model_fields.get(str(part))
        if info is None:
            return None
        current = _innermost_model(info.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _innermost_model(annotation: object) -> object:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, dict, typing.Union, types.UnionType, typing.Annotated):
        for arg in typing.get_args(annotation):
            found = _innermost_model(arg)
            if isinstance(found, type) and issubclass(found, BaseModel):
                return found
    return annotation
