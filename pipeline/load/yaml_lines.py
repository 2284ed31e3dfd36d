"""Read YAML source files the way editors mean them, keeping the line of every value.

Two departures from PyYAML's defaults, both to avoid silent surprises in hand-written files:
- YAML 1.1 reads unquoted `no`, `off`, `yes`, `on` as booleans (the "Norway problem": a language
  code `no` becomes `false`). We follow YAML 1.2: only `true`/`false` are booleans.
- Dates stay strings, so a bad date reaches the schema and gets a message naming its field, instead
  of failing inside the YAML parser.
"""

from __future__ import annotations

import math
import re
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


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # a value used twice is written out twice: the reader refuses aliases


def dump_yaml(doc: Any, *, width: int = 80) -> str:
    """Return `doc` as YAML this reader reads back as it was: keys in order, no aliases."""
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=width)


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
            try:
                problems = _walk(node, lines, path)
            except _Refused as refused:
                return None, {}, [refused.problem]
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


MAX_DEPTH = 32
"""How deeply values may nest: our formats need six levels; a deeper file is refused before it is
built, so no nesting can exhaust the stack of the code that reads it."""


class _Refused(Exception):
    """A file refused before its document is built (_walk)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem


def _walk(root: yaml.Node, lines: Lines, path: str) -> list[Problem]:
    """Fill `lines` from the node tree and return its duplicate keys; raise _Refused when the
    file must not be built at all.

    Refused before any value is built: an alias (`*name`) of a list or a mapping, since a value
    reached twice could be reached exponentially often (nine levels of nine aliases in 756 bytes
    expand to 387 million values), and no format of ours needs one (an alias of a single value
    cannot multiply; PyYAML writes them for a date used twice); a key that is not plain text
    (`? [a, b]`); nesting deeper than MAX_DEPTH. Each node is visited once, so this is linear in
    the file."""
    problems: list[Problem] = []
    seen_nodes: set[int] = set()
    # Each node with its place and the line it is reached from (its key's, or its list's).
    stack: list[tuple[yaml.Node, tuple, int]] = [(root, (), 1)]
    while stack:
        node, loc, reached_from = stack.pop()
        if id(node) in seen_nodes and not isinstance(node, yaml.ScalarNode):
            # An alias's node is its anchor's: its own line is where it was reached from.
            line = reached_from
            raise _Refused(Problem(path, _dotted(loc), f"line {line} repeats a list or mapping "
                                   "by YAML alias (*name); write it out: such aliases are not "
                                   "read in these files", line=line))
        seen_nodes.add(id(node))
        line = node.start_mark.line + 1
        if len(loc) > MAX_DEPTH:
            raise _Refused(Problem(path, _dotted(loc), f"values nest more than {MAX_DEPTH} "
                                   f"levels deep (line {line}); no field of these files nests "
                                   "that far", line=line))
        lines.setdefault(loc, line)
        # Children pushed last first, so nodes are visited in the file's order: an anchor is
        # then met before its aliases, and the alias is what a problem names.
        if isinstance(node, yaml.MappingNode):
            keys: dict[Any, int] = {}
            children = []
            for key_node, value_node in node.value:
                key_line = key_node.start_mark.line + 1
                if not isinstance(key_node, yaml.ScalarNode):
                    raise _Refused(Problem(path, _dotted(loc), f"line {key_line} has a key that "
                                           "is a list or a mapping (`? ...`); keys are plain "
                                           "names", line=key_line))
                key = key_node.value
                if key in keys:
                    problems.append(Problem(
                        path, _dotted((*loc, key)), f"key appears twice "
                        f"(lines {keys[key]} and {key_line}); keep one", line=key_line))
                keys[key] = key_line
                lines[(*loc, key)] = key_line
                children.append((value_node, (*loc, key), key_line))
            stack.extend(reversed(children))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed([(item, (*loc, i), line) for i, item in enumerate(node.value)]))
        elif (not node.style and node.value[:1] in _NUMBER_START
              # Without an exponent, 15 characters can write neither inf nor a number that
              # reads as 0: the year's 200,000 plain prices skip the check.
              and ("e" in node.value or "E" in node.value or len(node.value) > 15)
              and (why := _unreadable_number(node.value))):
            shown = (node.value if len(node.value) <= 40 else
                     f"{node.value[:20]}… ({len(node.value)} characters)")
            problems.append(Problem(path, _dotted(loc), f"{shown} {why}", line=line))
    return problems


_NUMBER_START = frozenset("0123456789+-.")
_NUMBER = re.compile(r"[-+]?(?:\d[\d_]*)?(?:\.[\d_]*)?(?:[eE][-+]?\d+)?")


def _unreadable_number(text: str) -> str | None:
    """Say why a plain scalar written as a number cannot be the number it says, or None: one
    past a float's range (read as inf), or so small it would read as 0 (`1e-400`, which a
    price field would silently take as free)."""
    if not any(c.isdigit() for c in text) or not _NUMBER.fullmatch(text):
        return None
    try:
        number = float(text.replace("_", ""))
    except ValueError:
        return None
    if math.isinf(number):
        return "is beyond the range of numbers these files hold; write the figure itself"
    mantissa = text.lower().split("e")[0]
    if number == 0 and any(c in "123456789" for c in mantissa):
        return ("is too small to be told from 0 (it would read as 0, a free price); write "
                "the figure itself")
    return None


def _dotted(loc: tuple) -> str:
    # A problem's field, as editors read it (`lists.0.records.3`); made only for a problem:
    # a year's price files have 450,000 values.
    return ".".join(str(p) for p in loc)
