"""Find, parse and validate every source file; collect every problem before giving up.

Curated sources are checked strictly (ARCHITECTURE.md, "Our files and the world's"): each problem
is reported with its file, the dotted path of the field and a message a person can act on, and the
build stops once, writing nothing.
"""

from __future__ import annotations

import dataclasses
import os
from functools import partial
from pathlib import Path

import pandas as pd

from pipeline.compose.claims import entry_claim_problems
from pipeline.compose.corrections import LEDGER_COLUMNS
from pipeline.load.catalogues import load_catalogue_health, load_sourced_catalogues, maker_problems
from pipeline.load.entries import load_entries
from pipeline.load.feeds import load_feeds
from pipeline.load.fx import load_rate_table
from pipeline.load.hardware import load_hardware, undated_round_quotes
from pipeline.load.market_check import market_problems
from pipeline.load.page_names import page_name_problems
from pipeline.load.parse import Deriver, Parser, derive_now, parse_file, read_model
from pipeline.load.price_histories import load_catalogue_records, load_histories
from pipeline.load.prices import load_prices
from pipeline.load.read import rel
from pipeline.models.hardware_results import Hardware
from pipeline.models.rates import RateTable
from pipeline.models.series import Series
from pipeline.models.sourced import CuratedEntry, Sourced, line_of
from pipeline.models.sources import Sources
from pipeline.paths import (
    CATALOGUES,
    HARDWARE,
    HARDWARE_COSTS,
    PRICES,
    PRINTED,
    SERIES,
    SOURCES,
    price_history_path,
)
from pipeline.problems import Problem, SourceError
from pipeline.tables.hardware import CostError, usd_at_ecb_rates
from pipeline.tables.plausibility import plausible_histories


def load_sources(root: Path, parse: Parser = parse_file, *, strict: bool = False,
                 derive: Deriver = derive_now) -> Sources:
    """Load and validate every source under `root/sources`; raise SourceError with all problems.

    `parse`: what turns a file's bytes into its value (load/parse.py; the build passes one that
    reuses what an earlier build parsed); `derive`, what computes a value of several parsed files
    (the build's reuses what an earlier build computed of the same). `strict`: every warning is
    an error (`--strict`)."""
    problems: list[Problem] = outside_links(root)
    if problems:
        # Nothing is read through them: a link is refused before any file is opened.
        raise SourceError(problems)
    series_path = root / SERIES
    series: Sourced[Series] | None = None
    if not series_path.exists():
        problems.append(Problem(rel(series_path, root), "", "missing: the series file is required"))
    else:
        series, found = read_model(series_path, Series, root)
        problems += found
    entries, found = load_entries(root, series.model if series else None, parse)
    problems += found
    hardware, hardware_rows = None, []
    if (root / HARDWARE).is_dir():
        hardware, hardware_rows, found = load_hardware(root, parse)
        problems += found
        if hardware is not None:
            problems += undated_round_quotes(entries, hardware, hardware_rows)
    prices, rates = {}, None
    if (root / PRICES).is_dir():
        prices, found = load_prices(root, parse)
        problems += found
        rates = load_rate_table(root, parse)
        # A price file refused is not read: its claims wait for it, not a cascade of "no price".
        unread = {Path(p.path).stem for p in found if p.severity == "error"}
        problems += claim_problems(entries, prices, rates, series.model if series else None,
                                   unread)
    if hardware is not None:
        if rates is None and any(c.currency != "USD" for c in hardware.costs):
            rates = load_rate_table(root, parse)
        problems += cost_currency_problems(hardware, rates)
    feeds, snapshots, found = load_feeds(root, parse)
    problems += found
    # Checked with the curated sources, so an editor's slip in it fails `brief check`.
    sourced_catalogues, found = load_sourced_catalogues(root, parse)
    catalogues = sourced_catalogues.model if sourced_catalogues else None
    problems += found
    health, found = load_catalogue_health(root, catalogues) if catalogues else ({}, [])
    problems += found
    histories, found = load_histories(root, catalogues, parse) if catalogues else ({}, [])
    problems += found
    commit_logs, model_facts, found = (load_catalogue_records(root, catalogues) if catalogues
                                       else ({}, {}, []))
    problems += found
    problems += page_name_problems(prices, sourced_catalogues)
    if sourced_catalogues is not None:
        problems += maker_problems(sourced_catalogues, listed_models(prices, histories))
    plausible = None
    if catalogues is not None:
        # Of the catalogues file and the histories as parsed: most builds read the same.
        read = [CATALOGUES.as_posix(),
                *(rel(price_history_path(root, c), root) for c in sorted(histories))]
        plausible = derive(read, partial(plausible_histories, histories, catalogues))
        histories = plausible.histories
        problems += market_problems(prices, rates, histories, catalogues)
    printed, found = load_printed(root)
    problems += found
    if strict:
        problems = [dataclasses.replace(p, severity="error") for p in problems]
    errors = [p for p in problems if p.severity == "error"]
    if errors or series is None:
        raise SourceError(problems)
    entries.sort(key=lambda c: (c.entry.date, c.path))
    return Sources(root=root, series=series.model, entries=entries,
                   warnings=[p for p in problems if p.severity != "error"],
                   hardware=hardware, hardware_rows=hardware_rows, prices=prices, rates=rates,
                   feeds=feeds, snapshots=snapshots, catalogues=catalogues,
                   catalogue_health=health, price_histories=histories,
                   catalogue_commits=commit_logs, model_facts=model_facts,
                   held_prices=plausible.held if plausible else None,
                   other_modes=plausible.other_modes if plausible else {},
                   other_billing=plausible.other_billing if plausible else {}, printed=printed)


def listed_models(prices: dict, histories: dict[str, pd.DataFrame]) -> set[str]:
    """Return every model id the price files and the catalogues' histories list, as spelt."""
    models = {record.model for sourced in prices.values() for plist in sourced.model.lists
              for record in plist.records}
    for history in histories.values():
        models.update(history["model"].unique())
    return models


def outside_links(root: Path) -> list[Problem]:
    """Return an error for each symbolic link under `root/sources` that leads outside the
    repository (or nowhere): sources are read only from inside it, or a pull request could
    publish any file of the machine that builds it."""
    top = root.resolve()
    problems = []
    for folder, dirs, files in os.walk(root / SOURCES):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            if not path.is_symlink():
                continue
            target = path.resolve()
            if not target.is_relative_to(top) or not target.exists():
                problems.append(Problem(rel(path, root), "", f"a symbolic link to {os.readlink(path)}, "
                                        "outside the repository (or to nothing): sources are "
                                        "read only from inside it; put the file itself here"))
    return problems


def load_printed(root: Path) -> tuple[pd.DataFrame | None, list[Problem]]:
    """Return the ledger of what each dated edition printed (None when there is none yet),
    and a warning when it does not read (the next `brief seal` starts it over)."""
    path = root / PRINTED
    if not path.is_file():
        return None, []
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        return None, [Problem(str(PRINTED), "", f"not a readable ledger ({err}); the next "
                              "`brief seal` starts it over", severity="warning")]
    missing = [c for c in LEDGER_COLUMNS if c not in table.columns]
    if missing:
        return None, [Problem(str(PRINTED), "", f"not a ledger: no column {', '.join(missing)}; "
                              "the next `brief seal` starts it over", severity="warning")]
    return table[LEDGER_COLUMNS], []


def cost_currency_problems(hardware: Hardware, rates: RateTable | None) -> list[Problem]:
    """Return an error for each hourly cost in a currency we cannot convert to USD on its date
    (the build converts at the ECB reference rate, as it does prices)."""
    convert, problems = usd_at_ecb_rates(rates), []
    for i, cost in enumerate(hardware.costs):
        try:
            convert(cost.currency, cost.date)
        except CostError as err:
            problems.append(Problem(str(HARDWARE_COSTS), f"costs.{i}.currency", f"{err}; give "
                                    "the cost in USD or in a currency the ECB quotes"))
    return problems


def claim_problems(entries: list[CuratedEntry], prices: dict, rates: RateTable,
                   series: Series | None, unread: set[str]) -> list[Problem]:
    """Return an error for each price figure an entry states (its `claims`) that differs from
    ours, or names a price, a profile or a rate we do not have (compose/claims.py); the claims
    of the price files in `unread` (refused, each with its own problems) are left for later."""
    files = {name: sourced.model for name, sourced in prices.items()}
    profiles = series.profiles if series else []
    problems = []
    for c in entries:
        problems += entry_claim_problems(c.path, c.entry.claims, files, rates, profiles,
                                         lambda loc, c=c: line_of(c.lines, loc), unread)
    return problems
