"""Load the catalogues with their price histories (`sources/snapshots/prices/<id>.csv`, tables)
and health records, for `brief ingest prices` and the market's pages."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pipeline.load.catalogues import load_catalogue_health
from pipeline.load.parse import Parse, Parser, parse_file, read_model
from pipeline.load.read import rel
from pipeline.models.catalogues import CatalogueHealth, CataloguesFile
from pipeline.paths import CATALOGUES, price_commits_path, price_facts_path, price_history_path
from pipeline.problems import Problem
from pipeline.tables.catalogue_records import read_facts_csv, read_log_csv


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


def load_catalogue_records(root: Path, catalogues: CataloguesFile,
                           ) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame],
                                      list[Problem]]:
    """Return each catalogue's commit log and model facts that read (tables/catalogue_records),
    by catalogue id, and a warning for each file that does not (its moves then link to no
    commit, its models show no release date)."""
    logs: dict[str, pd.DataFrame] = {}
    facts: dict[str, pd.DataFrame] = {}
    problems: list[Problem] = []
    for catalogue in catalogues.catalogues:
        for path, reader, into in ((price_commits_path(root, catalogue.id), read_log_csv, logs),
                                   (price_facts_path(root, catalogue.id), read_facts_csv, facts)):
            if not path.is_file():
                continue
            try:
                into[catalogue.id] = reader(path.read_bytes())
            except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
                problems.append(Problem(rel(path, root), "", f"does not read ({err}); left out",
                                        severity="warning"))
    return logs, facts, problems


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
