"""Load the catalogues with their price histories (`sources/snapshots/prices/<id>.csv`, tables)
and health records, for `brief ingest prices` and the market's pages."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pipeline.load.catalogues import load_catalogue_health
from pipeline.load.read import FRESH, Parses, read_model, rel
from pipeline.models.catalogues import CatalogueHealth, CataloguesFile
from pipeline.paths import CATALOGUES, price_history_path
from pipeline.problems import Problem
from pipeline.tables.catalogue_history import read_history_csv


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
    for catalogue in sourced.model.catalogues:
        history = price_history_path(root, catalogue.id)
        if history.is_file():
            try:
                histories[catalogue.id] = read_history_csv(history.read_bytes())
            except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
                problems.append(Problem(rel(history, root), "", f"not a readable price history "
                                        f"({err}); the next ingest starts it over",
                                        severity="warning"))
    healths, found = load_catalogue_health(root, sourced.model)
    problems += found
    return sourced.model, histories, healths, problems
