"""Load `sources/catalogues.yaml` (strict: ours) and each catalogue's health record (written by
`brief ingest prices`; a damaged one is a warning, and ingest rewrites it). Without pandas: the
price histories, tables, are load/price_histories.py's."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from pipeline.load.parse import Parser, parse_file, read_model
from pipeline.load.read import rel, validation_problems
from pipeline.models.catalogues import CatalogueHealth, CataloguesFile
from pipeline.models.sourced import Sourced, line_of
from pipeline.normalize.makers import clashes
from pipeline.paths import CATALOGUES, price_health_path
from pipeline.problems import Problem

SHOWN_MODELS = 5
"""How many of the models two makers' patterns share a problem names; the rest are counted."""


def load_catalogues_file(root: Path, parse: Parser = parse_file,
                         ) -> tuple[CataloguesFile | None, list[Problem]]:
    """Return `sources/catalogues.yaml` (None when there is none) and its problems."""
    sourced, problems = load_sourced_catalogues(root, parse)
    return (sourced.model if sourced else None), problems


def load_sourced_catalogues(root: Path, parse: Parser = parse_file,
                            ) -> tuple[Sourced[CataloguesFile] | None, list[Problem]]:
    """Return `sources/catalogues.yaml` with its lines (None when there is none or it does not
    read) and its problems."""
    path = root / CATALOGUES
    if not path.exists():
        return None, []
    return read_model(path, CataloguesFile, root, parse)


def maker_problems(sourced: Sourced[CataloguesFile], models: Iterable[str]) -> list[Problem]:
    """Return an error for each pair of patterns of two makers that match the same listed model
    (`models`: every id the price files and histories list): a model has one maker, and which
    of the two would win depends on the order of the file, not on what the editor meant.

    Checked against the listed ids, not pattern against pattern: whether two shell patterns can
    match a common id is no question an editor needs answered for ids no one lists."""
    problems = []
    for clash in clashes(models, sourced.model.makers):
        loc = ("makers", clash.second, *clash.second_at)
        first_field, first_i = clash.first_at
        first = sourced.model.makers[clash.first]
        first_line = line_of(sourced.lines, ("makers", clash.first, *clash.first_at))
        second_pattern = getattr(sourced.model.makers[clash.second], clash.second_at[0])
        shown = ", ".join(clash.models[:SHOWN_MODELS])
        more = len(clash.models) - SHOWN_MODELS
        problems.append(Problem(
            sourced.path, ".".join(map(str, loc)),
            f"{clash.second} `{second_pattern[clash.second_at[1]]}` and {clash.first} "
            f"`{getattr(first, first_field)[first_i]}` (line {first_line}) both match "
            f"{shown}{f' and {more} more' if more > 0 else ''}: a model has one maker; narrow "
            "one of the patterns", line=line_of(sourced.lines, loc)))
    return problems


def load_catalogue_health(root: Path, catalogues: CataloguesFile
                          ) -> tuple[dict[str, CatalogueHealth], list[Problem]]:
    """Return the health record of each catalogue that has a readable one, and warnings for
    the rest (the next ingest rewrites them)."""
    healths: dict[str, CatalogueHealth] = {}
    problems: list[Problem] = []
    for catalogue in catalogues.catalogues:
        health = price_health_path(root, catalogue.id)
        if health.is_file():
            try:
                healths[catalogue.id] = CatalogueHealth.model_validate_json(health.read_bytes())
            except ValidationError as err:
                name = rel(health, root)
                problems += [Problem(p.path, p.field, f"{p.message}; the record is ignored until "
                                     "the next ingest rewrites it", severity="warning")
                             for p in validation_problems(err, CatalogueHealth, name, {})]
    return healths, problems
