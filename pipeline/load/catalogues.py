"""Load `sources/catalogues.yaml` (strict: ours) and each catalogue's health record (written by
`brief ingest prices`; a damaged one is a warning, and ingest rewrites it). Without pandas: the
price histories, tables, are load/price_histories.py's."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from pipeline.load.parse import Parser, parse_file, read_model
from pipeline.load.read import rel, validation_problems
from pipeline.models.catalogues import CatalogueHealth, CataloguesFile
from pipeline.paths import CATALOGUES, price_health_path
from pipeline.problems import Problem


def load_catalogues_file(root: Path, parse: Parser = parse_file,
                         ) -> tuple[CataloguesFile | None, list[Problem]]:
    """Return `sources/catalogues.yaml` (None when there is none) and its problems."""
    path = root / CATALOGUES
    if not path.exists():
        return None, []
    sourced, problems = read_model(path, CataloguesFile, root, parse)
    return (sourced.model if sourced else None), problems


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
