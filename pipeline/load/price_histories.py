"""Load the catalogues with their price histories (`sources/snapshots/prices/<id>.csv`, tables)
and health records, for `brief ingest prices` and the market's pages."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pipeline.load.catalogues import load_catalogue_health
from pipeline.load.parse import Parse, Parser, parse_file, read_model
from pipeline.load.read import rel
from pipeline.models.catalogues import CatalogueHealth, CataloguesFile
from pipeline.paths import CATALOGUES, price_history_path
from pipeline.problems import Problem


def load_histories(root: Path, catalogues: CataloguesFile, parse: Parser = parse_file,
                   ) -> tuple[dict[str, pd.DataFrame], list[Problem]]:
    """Return each catalogue's price history that reads, and a warning for each that does not
    (the next ingest starts it over)."""
    histories: dict[str, pd.DataFrame] = {}
    problems: list[Problem] = []
    for catalogue in catalogues.catalogues:
        path = price_history_path(root, catalogue.id)
        if not path.is_file():
            continue
        name = rel(path, root)
        try:
            history, _ = parse(Parse("price-history", name, path.read_bytes()))
        except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
            problems.append(Problem(name, "", f"not a readable price history ({err}); the next "
                                    "ingest starts it over", severity="warning"))
            continue
        histories[catalogue.id] = history
    return histories, problems


def load_catalogues(root: Path, parse: Parser = parse_file,
                    ) -> tuple[CataloguesFile | None, dict[str, pd.DataFrame],
                               dict[str, CatalogueHealth], list[Problem]]:
    """Return (the catalogues file, histories and health records by catalogue id, problems);
    no catalogues.yaml means no catalogues."""
    path = root / CATALOGUES
    if not path.exists():
        return None, {}, {}, []
    sourced, problems = read_model(path, CataloguesFile, root, parse)
    if sourced is None:
        return None, {}, {}, problems
    histories, found = load_histories(root, sourced.model, parse)
    healths, more = load_catalogue_health(root, sourced.model)
    return sourced.model, histories, healths, problems + found + more
