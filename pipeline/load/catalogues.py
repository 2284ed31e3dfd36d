"""Load `sources/catalogues.yaml` (strict: ours) and each catalogue's price history and health
record (written by `brief ingest prices`; a damaged one is a warning, and ingest starts it over)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pydantic import ValidationError

from pipeline.load.read import FRESH, Parses, read_model, rel, validation_problems
from pipeline.models.catalogues import CatalogueHealth, CataloguesFile
from pipeline.paths import CATALOGUES, price_health_path, price_history_path
from pipeline.problems import Problem
from pipeline.tables.catalogue_history import read_history_csv


def load_catalogues_file(root: Path) -> tuple[CataloguesFile | None, list[Problem]]:
    """Return `sources/catalogues.yaml` (None when there is none) and its problems."""
    path = root / CATALOGUES
    if not path.exists():
        return None, []
    sourced, problems = read_model(path, CataloguesFile, root)
    return (sourced.model if sourced else None), problems


def load_catalogues(root: Path, cache: Parses = FRESH
                    ) -> tuple[CataloguesFile | None, dict[str, pd.DataFrame],
                               dict[str, CatalogueHealth], list[Problem]]:
    """Return (the catalogues file, histories and health records by catalogue id, problems);
    no catalogues.yaml means no catalogues."""
    path = root / CATALOGUES
    if not path.exists():
        return None, {}, {}, []
    sourced, problems = read_model(path, CataloguesFile, root, cache)
    if sourced is None:
        return None, {}, {}, problems
    histories: dict[str, pd.DataFrame] = {}
    healths: dict[str, CatalogueHealth] = {}
    for catalogue in sourced.model.catalogues:
        history = price_history_path(root, catalogue.id)
        if history.is_file():
            try:
                histories[catalogue.id] = read_history_csv(history.read_bytes())
            except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
                problems.append(Problem(rel(history, root), "", f"not a readable price history "
                                        f"({err}); the next ingest starts it over",
                                        severity="warning"))
        health = price_health_path(root, catalogue.id)
        if health.is_file():
            try:
                healths[catalogue.id] = CatalogueHealth.model_validate_json(health.read_bytes())
            except ValidationError as err:
                name = rel(health, root)
                problems += [Problem(p.path, p.field, f"{p.message}; the record is ignored until "
                                     "the next ingest rewrites it", severity="warning")
                             for p in validation_problems(err, CatalogueHealth, name, {})]
    return sourced.model, histories, healths, problems
