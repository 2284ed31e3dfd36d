"""The network edge for price catalogues: fetch each one politely, read it, and update its price
history and health record under `sources/snapshots/prices/`.

A catalogue that fails to fetch, does not read as its format, or comes back much smaller than
its last good snapshot (truncated) keeps its history; only its health record says so. A run that
sees no price change rewrites only the health record.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import fnmatch
import hashlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
import pandas as pd

from pipeline.formats.genai_prices import read_genai_data
from pipeline.formats.litellm import read_litellm
from pipeline.formats.llm_prices import read_llm_prices
from pipeline.formats.models_dev import read_models_dev
from pipeline.formats.price_map import ImportResult
from pipeline.ingest.http import FetchSettings, Refused, describe, get
from pipeline.ingest.snapshot import held_now, take_snapshot
from pipeline.models.catalogues import Catalogue, CatalogueHealth, CataloguesFile
from pipeline.paths import price_facts_path, price_health_path, price_history_path
from pipeline.tables.catalogue_history import empty_history, history_csv, prices_in_force
from pipeline.tables.catalogue_records import facts_csv, facts_table
from pipeline.whole_files import write_whole

READERS: Mapping[str, Callable[[bytes], ImportResult]] = {
    "litellm": read_litellm, "genai-prices": read_genai_data, "llm-prices": read_llm_prices,
    "models-dev": read_models_dev}


@dataclass(frozen=True)
class CatalogueRun:
    """How one catalogue's run went."""

    catalogue_id: str
    ok: bool
    message: str
    changes: pd.DataFrame | None = None
    """The moves this run recorded (None when it failed or nothing was read)."""
    history_written: bool = False
    seconds: float = 0.0
    implausible_listings: int = 0
    """Listings held back as implausible after this run (tables/plausibility.py)."""


def ingest_prices(root: Path, catalogues: CataloguesFile,
                  histories: Mapping[str, pd.DataFrame],
                  healths: Mapping[str, CatalogueHealth], *, now: dt.datetime,
                  settings: FetchSettings = FetchSettings(),
                  only: tuple[str, ...] = ()) -> list[CatalogueRun]:
    """Fetch every catalogue (or those in `only`), update its files, and say how each went."""
    chosen = [c for c in catalogues.catalogues if not only or c.id in only]
    return asyncio.run(_run(root, catalogues, chosen, histories, healths, now, settings))


async def _run(root: Path, catalogues: CataloguesFile, chosen: list[Catalogue],
               histories: Mapping[str, pd.DataFrame], healths: Mapping[str, CatalogueHealth],
               now: dt.datetime, settings: FetchSettings) -> list[CatalogueRun]:
    timeout = httpx.Timeout(settings.deadline_s, connect=settings.connect_timeout_s)
    # trust_env=False: no proxy from the environment, so the address we check is the one we reach.
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False,
                                 headers={"User-Agent": settings.user_agent}) as client:
        return [await _one(root, client, catalogues, c, histories, healths.get(c.id), now,
                           settings) for c in chosen]


async def _one(root: Path, client: httpx.AsyncClient, catalogues: CataloguesFile,
               catalogue: Catalogue, histories: Mapping[str, pd.DataFrame],
               health: CatalogueHealth | None, now: dt.datetime,
               settings: FetchSettings) -> CatalogueRun:
    start = time.monotonic()
    url = str(catalogue.url)
    health = health or CatalogueHealth(catalogue_id=catalogue.id, url=url)
    same = health.url == url

    def failed(message: str, status: int | None) -> CatalogueRun:
        return _failed(root, catalogue, health, now, start, message, status)

    if catalogue.files:
        return await _files(root, client, catalogues, catalogue, histories, health, now,
                            settings, failed, start)
    try:
        async with asyncio.timeout(settings.deadline_s):
            answer = await get(client, url, settings, now,
                               accept="application/json, */*;q=0.5",
                               etag=health.etag if same else None,
                               last_modified=health.last_modified if same else None)
    except Refused as err:
        return failed(str(err), err.status)
    except (TimeoutError, httpx.HTTPError, OSError) as err:
        return failed(describe(err, settings), None)
    if answer.unchanged:
        write_health(root, health.model_copy(update={
            "url": url, "last_attempt": now, "last_success": now, "status": 304,
            "consecutive_failures": 0, "last_error": None}))
        return CatalogueRun(catalogue.id, True, "unchanged (304)",
                            seconds=time.monotonic() - start)
    if answer.gone:
        return failed("the catalogue is gone (HTTP 410)", 410)
    if answer.retry_after is not None:
        return failed(f"HTTP {answer.status} {answer.reason}; asked to wait until "
                      f"{answer.retry_after:%Y-%m-%d %H:%M} UTC", answer.status)
    assert answer.body is not None
    return _take(root, catalogues, catalogue, answer.body, answer.headers, histories, health,
                 now, start)


async def _files(root: Path, client: httpx.AsyncClient, catalogues: CataloguesFile,
                 catalogue: Catalogue, histories: Mapping[str, pd.DataFrame],
                 health: CatalogueHealth,
                 now: dt.datetime, settings: FetchSettings,
                 failed: Callable[[str, int | None], CatalogueRun], start: float) -> CatalogueRun:
    """Fetch a catalogue published as several files, each with the same checks and the whole
    run within one deadline, and read them as one snapshot (a JSON array of the bodies). No
    conditional GET: one validator per catalogue cannot stand for several files, and these
    are small. Any file that fails fails the run, which keeps the history."""
    bodies = []
    try:
        async with asyncio.timeout(settings.deadline_s):
            for name in catalogue.files:
                url = f"{catalogue.url}{name}"
                answer = await get(client, url, settings, now,
                                   accept="application/json, */*;q=0.5")
                if answer.body is None or answer.status != 200:
                    return failed(f"{name}: HTTP {answer.status} {answer.reason}", answer.status)
                bodies.append(answer.body)
    except Refused as err:
        return failed(f"{str(err)}", err.status)
    except (TimeoutError, httpx.HTTPError, OSError) as err:
        return failed(describe(err, settings), None)
    return _take(root, catalogues, catalogue, b"[" + b",".join(bodies) + b"]", {}, histories,
                 health, now, start)


def ingest_file(root: Path, catalogues: CataloguesFile, catalogue: Catalogue, data: bytes,
                histories: Mapping[str, pd.DataFrame], health: CatalogueHealth | None, *,
                at: dt.datetime) -> CatalogueRun:
    """Take a copy of a catalogue read elsewhere (`data`, as published) as its snapshot at `at`:
    for a download an editor made, or to replay a catalogue's past. `histories`: every
    catalogue's, by id (the others judge its listings' plausibility)."""
    url = str(catalogue.url)
    return _take(root, catalogues, catalogue, data, {}, histories,
                 health or CatalogueHealth(catalogue_id=catalogue.id, url=url), at,
                 time.monotonic())


def _take(root: Path, catalogues: CataloguesFile, catalogue: Catalogue, body: bytes,
          headers: Mapping[str, str], histories: Mapping[str, pd.DataFrame],
          health: CatalogueHealth, now: dt.datetime, start: float) -> CatalogueRun:
    """Read a catalogue's body and update its history and health; a body that does not read,
    reads much smaller than the prices in force, or reads as a whole map in another unit keeps
    the history."""
    url = str(catalogue.url)
    history = histories.get(catalogue.id)
    history = history if history is not None else empty_history()

    def failed(message: str) -> CatalogueRun:
        return _failed(root, catalogue, health, now, start, message, 200)

    try:
        result = read_catalogue(catalogue, body)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError,
            ArithmeticError) as err:
        # json's errors are ValueErrors: a truncated body lands here; RecursionError: a body
        # nested thousands deep; ArithmeticError: a number no float holds, wherever a reader
        # meets one. One catalogue's fault never stops the next from being fetched.
        return failed(f"not read as {catalogue.format}: {str(err)[:200]}")
    taken = take_snapshot(catalogues, catalogue, result, history, health.held, now,
                          digest=hashlib.sha256(body).hexdigest(),
                          checked=_server_date(headers) or now.date())
    if isinstance(taken, str):
        return failed(taken)
    implausible = held_now(catalogues, histories, catalogue.id, taken.history)
    problems = taken.problems + [
        f"{r.provider} {r.model} {r.meter}: {r.usd_per_mtok:g} USD per Mtok held back as "
        f"implausible, {r.cause}" for r in implausible.itertuples()]
    listings = implausible.drop_duplicates(["provider", "catalogue_provider", "model"])
    if result.facts:
        write_whole(price_facts_path(root, catalogue.id),
                    facts_csv(facts_table(result.facts, catalogues.providers)), durable=True)
    path = price_history_path(root, catalogue.id)
    data = history_csv(taken.history)
    written = not path.is_file() or path.read_bytes() != data
    if written:
        write_whole(path, data, durable=True)
    write_health(root, health.model_copy(update={
        "url": url, "last_attempt": now, "last_success": now, "status": 200,
        "consecutive_failures": 0, "last_error": None, "etag": headers.get("etag"),
        "last_modified": headers.get("last-modified"), "checked": taken.checked,
        "prices": prices_in_force(taken.history), "held": taken.held,
        "problems": problems, "whole_since": health.whole_since or now}))
    moves = taken.changes
    message = (f"{taken.prices} prices of {result.models} models; {len(moves)} moves"
               + (f", {len(taken.held)} held back" if taken.held else "")
               + (f", {len(listings)} listings held back as implausible" if len(listings) else ""))
    return CatalogueRun(catalogue.id, True, message, moves, written, time.monotonic() - start,
                        implausible_listings=len(listings))


def read_catalogue(catalogue: Catalogue, body: bytes) -> ImportResult:
    """Return what `body` holds as the catalogue's format, without the providers it skips."""
    result = READERS[catalogue.format](body)
    return without_skipped(result, catalogue.skip_providers)


def without_skipped(result: ImportResult, patterns: list[str]) -> ImportResult:
    """Return `result` without the listings of the catalogue's providers matching `patterns`
    (subscription plans, local runtimes: no per-token price), counted in `skipped`."""
    if not patterns:
        return result
    skipped = {p.provider for p in result.prices
               if any(fnmatch.fnmatchcase(p.provider, pattern) for pattern in patterns)}
    if skipped:
        gone = {(p.provider, p.model) for p in result.prices if p.provider in skipped}
        result.prices = [p for p in result.prices if p.provider not in skipped]
        result.facts = [f for f in result.facts if f.provider not in skipped]
        result.models -= len(gone)
        result.skipped["a provider without per-token prices (skip_providers)"] += len(gone)
    return result


def _failed(root: Path, catalogue: Catalogue, health: CatalogueHealth, now: dt.datetime,
            start: float, message: str, status: int | None) -> CatalogueRun:
    """Count a failed run in the catalogue's health record (its history is left as it was)."""
    write_health(root, health.model_copy(update={
        "url": str(catalogue.url), "last_attempt": now, "status": status, "last_error": message,
        "consecutive_failures": health.consecutive_failures + 1}))
    return CatalogueRun(catalogue.id, False, message, seconds=time.monotonic() - start)


def _server_date(headers: Mapping[str, str]) -> dt.date | None:
    """Return the date of the server's Last-Modified header, if it gave a readable one."""
    value = headers.get("last-modified")
    try:
        return email.utils.parsedate_to_datetime(value).date() if value else None
    except (TypeError, ValueError):
        return None


def write_health(root: Path, health: CatalogueHealth) -> None:
    """Write a catalogue's health record whole."""
    text = health.model_dump_json(indent=1) + "\n"
    write_whole(price_health_path(root, health.catalogue_id), text.encode("utf-8"), durable=True)
