"""Read YAML source files the way editors mean them, keeping the line of every value.

Two departures from PyYAML's defaults, both to avoid silent surprises in hand-written files:
- YAML 1.1 reads unquoted `no`, `off`, `yes`, `on` as booleans (the "Norway problem": a language
  code `no` becomes `false`). We follow YAML 1.2: only `true`/`false` are booleans.
- Dates stay strings, so a bad date reaches the schema and gets a message naming its field, instead
  of failing inside the YAML parser.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from pipeline.problems import Problem

_BOOL = "tag:yaml.org,2002:bool"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc, valid-type]
    pass


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL, _TIMESTAMP)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)

Lines = dict[tuple, int]


def parse_yaml(data: bytes, path: str) -> tuple[Any, Lines, list[Problem]]:
    """Return (document, line of each value by its path, problems) for the bytes of one file."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        return None, {}, [Problem(path, "", f"not valid UTF-8 (byte {err.start}, line {line}); "
                                  "save the file as UTF-8", line=line)]
    text = text.removeprefix("\ufeff")
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, {}, [Problem(path, "", "the file is empty")]
            lines: Lines = {}
            problems: list[Problem] = []
            _walk(node, (), lines, problems, path)
            doc = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        what = err.problem or err.context or "invalid YAML"
        where = f"line {line}, column {col}: " if line else ""
        return None, {}, [Problem(path, "", f"YAML syntax error at {where}{what}",
                                  line=line, column=col)]
    except yaml.YAMLError as err:
        return None, {}, [Problem(path, "", f"YAML error: {err}")]
    return doc, lines, problems


def _walk(node: yaml.Node, loc: tuple, lines: Lines, problems: list[Problem], path: str) -> None:
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            line = key_node.start_mark.line + 1
            if key in seen:
                dotted = ".".join(str(p) for p in (*loc, key))
                problems.append(Problem(path, dotted, f"key appears twice (lines {seen[key]} "
                                        f"and {line}); keep one", line=line))
            seen[key] = line
            _walk(value_node, (*loc, key), lines, problems, path)
            lines[(*loc, key)] = line
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, (*loc, i), lines, problems, path)


def line_of(lines: Mapping[tuple, int], loc: tuple) -> int | None:
    """Return the line of the deepest known value on the way to `loc`."""
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return None
