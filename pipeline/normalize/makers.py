"""Pure: who makes a model, and whether its weights are published, from the editors' patterns
(`makers:` in `sources/catalogues.yaml`, models/catalogues.py `Maker`).

A price index of the same model across sellers needs segments a reader can name: a maker's own
models at the maker (OpenAI selling gpt-5), and open-weight models at hosts that did not make
them (Llama at Together). Both need the maker of a listing's model, which no catalogue states
the same way: it is read off the canonical id (normalize/model_ids.py), so every host's spelling
of a model gets the one answer.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipeline.models.catalogues import Maker
from pipeline.normalize.model_ids import canonical_model

Patterns = tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]
"""The makers as plain tuples, (maker id, models, open_weight) in file order: what the caches
key by (a pydantic model in a dict is not hashable)."""


def model_maker(model: str, makers: Mapping[str, Maker]) -> tuple[str | None, bool]:
    """Return (the maker's id, whether its weights are published) of a model id as any provider
    spells it; (None, False) when no maker's patterns match its canonical id. Should two makers
    match (which `brief check` refuses for every listed id), the first in the file wins."""
    return _maker(canonical_model(model), as_patterns(makers))


def models_makers(models: Iterable[str], makers: Mapping[str, Maker],
                  ) -> dict[str, tuple[str | None, bool]]:
    """Return model_maker of each distinct id, for a table's column (`column.map(result)`):
    the patterns are turned into tuples once, not once per row."""
    patterns = as_patterns(makers)
    return {m: _maker(canonical_model(m), patterns) for m in set(models)}


def as_patterns(makers: Mapping[str, Maker]) -> Patterns:
    """Return the makers as the hashable tuples the lookups are cached by."""
    return tuple((name, tuple(m.models), tuple(m.open_weight)) for name, m in makers.items())


@functools.lru_cache(maxsize=65_536)  # a catalogue repeats each id once per meter and period
def _maker(name: str, makers: Patterns) -> tuple[str | None, bool]:
    for maker, models, open_weight in _compiled(makers):
        if open_weight and open_weight.match(name):
            return maker, True
        if models and models.match(name):
            return maker, False
    return None, False


@functools.lru_cache(maxsize=16)
def _compiled(makers: Patterns) -> list[tuple[str, re.Pattern | None, re.Pattern | None]]:
    """Return each maker with one expression for its closed and one for its open patterns."""
    return [(maker, _one(models), _one(open_weight)) for maker, models, open_weight in makers]


def _one(patterns: tuple[str, ...]) -> re.Pattern | None:
    return re.compile("|".join(fnmatch.translate(p) for p in patterns)) if patterns else None


@dataclass(frozen=True)
class Clash:
    """Two makers' patterns that match the same listed models: a model has one maker."""

    first: str
    """The maker listed first in the file."""
    first_at: tuple[str, int]
    """Its pattern that matched: (`models` or `open_weight`, position in that list)."""
    second: str
    second_at: tuple[str, int]
    models: tuple[str, ...]
    """The canonical ids both patterns match, sorted."""


def clashes(models: Iterable[str], makers: Mapping[str, Maker]) -> list[Clash]:
    """Return each pair of patterns of two makers that both match some of `models` (ids as any
    provider spells them), with the canonical ids they share, in the file's order."""
    patterns = as_patterns(makers)
    compiled = _compiled(patterns)
    found: dict[tuple, list[str]] = {}
    for name in sorted({canonical_model(m) for m in models}):
        matching = [maker for maker, closed, opened in compiled
                    if (closed and closed.match(name)) or (opened and opened.match(name))]
        for i, first in enumerate(matching):
            for second in matching[i + 1:]:
                key = (first, _first_pattern(name, makers[first]),
                       second, _first_pattern(name, makers[second]))
                found.setdefault(key, []).append(name)
    order = {name: i for i, name in enumerate(makers)}
    return sorted((Clash(a, a_at, b, b_at, tuple(names))
                   for (a, a_at, b, b_at), names in found.items()),
                  key=lambda c: (order[c.second], c.second_at, order[c.first], c.first_at))


def _first_pattern(name: str, maker: Maker) -> tuple[str, int]:
    """Return where the maker's first pattern matching `name` is: open_weight before models,
    as model_maker reads them."""
    for field in ("open_weight", "models"):
        for i, pattern in enumerate(getattr(maker, field)):
            if fnmatch.fnmatchcase(name, pattern):
                return field, i
    raise ValueError(f"no pattern of the maker matches {name}")
