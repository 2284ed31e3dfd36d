"""Pure: benchmark records → normalized rows on canonical accelerators, with the comparability
guards (costing them is tables/hardware_costs.py). The row type is models/hardware_results.py.

No files, no clock: the loader (load/hardware.py) hands records in.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pipeline.formats.benchmark_record import NO_COUNT, BenchmarkRecord
from pipeline.models.hardware import HourlyCost
from pipeline.models.hardware_results import HardwareRow
from pipeline.models.rates import RateTable
from pipeline.normalize.accelerators import NameMatch, match_accelerator
from pipeline.normalize.fx import RateNotFound, rate_on


def can_be_fresh(row: HardwareRow) -> bool:
    """May this row make its group fresh in the edition whose window holds its publication date?
    Headline token results outside InferenceX (its sweeps need an interactivity target to name
    one figure)."""
    return (row.published is not None and row.units == TOKEN_UNITS
            and row.suite != "InferenceX" and row.is_headline)


def is_public(row: HardwareRow, as_of: dt.date) -> bool:
    """Was the row's round published by `as_of`? A round whose date is not set in the benchmark
    index is not: its results stay out of every figure and comparison until it is."""
    return row.published is not None and row.published <= as_of


def target_text(target: str) -> str:
    """Return an accuracy target as headings and figures give it: `99 % accuracy target`."""
    return f"{target} % accuracy target" if target else "accuracy target not stated"


def needs_cost(row: HardwareRow) -> bool:
    """Does a figure need an hourly cost of this row's accelerator? A headline token result."""
    return row.units == TOKEN_UNITS and row.is_headline


SECONDS_PER_HOUR = 3600
TOKEN_UNITS = "Tokens/s"


@dataclass(frozen=True)
class FileInfo:
    """Where a batch of records came from and when it became public."""

    path: str
    """Repository-relative path of the benchmark file."""
    published: dt.date | None
    source_url: str
    official: bool = True


def normalize_records(records: Sequence[BenchmarkRecord], info: FileInfo,
                      patterns: list) -> tuple[list[HardwareRow], Counter[str]]:
    """Return the table rows of one file's records and the records left out, by reason.

    A result MLPerf lists under both -99 and -99.9 stays two rows, one per accuracy target, as
    the publisher lists it: each is compared only with results at its own target."""
    rows: list[HardwareRow] = []
    skipped: Counter[str] = Counter()
    for rec in records:
        if rec.metric != "throughput":
            skipped["latency result (single/multi-stream), not a throughput"] += 1
            continue
        match: NameMatch = match_accelerator(rec.accelerator_text, patterns)
        if match.is_heterogeneous:
            skipped["several accelerator types in one system"] += 1
            continue
        if match.canonical is None:
            skipped[f"accelerator not in sources/hardware/accelerators.yaml: "
                    f"{rec.accelerator_text}"] += 1
            continue
        if not rec.accelerator_count:
            skipped[NO_COUNT] += 1
            continue
        rows.append(_row(rec, match.canonical, rec.accelerator_count, info))
    return rows, skipped


def _row(rec: BenchmarkRecord, accelerator: str, count: int, info: FileInfo) -> HardwareRow:
    per_accelerator = rec.value_per_accelerator or rec.value / count
    tokens_per_joule = (rec.value / rec.power_w
                        if rec.power_w and rec.units == TOKEN_UNITS else None)
    return HardwareRow(
        suite=rec.suite, round=rec.round, result_id=rec.result_id, submitter=rec.submitter,
        system=rec.system, accelerator=accelerator, accelerator_text=rec.accelerator_text,
        accelerator_count=count, model=rec.model,
        accuracy_target=rec.accuracy_target, scenario=rec.scenario, division=rec.division,
        availability=rec.availability, inferred=rec.inferred, official=info.official,
        metric=rec.metric, value=rec.value, units=rec.units,
        value_per_accelerator=per_accelerator, power_w=rec.power_w,
        tokens_per_joule=tokens_per_joule, ttft_bound_ms=rec.ttft_bound_ms,
        tpot_bound_ms=rec.tpot_bound_ms, interactivity_tok_s_user=rec.interactivity_tok_s_user,
        isl=rec.isl, osl=rec.osl, concurrency=rec.concurrency, precision=rec.precision,
        source_file=info.path, row_ref=rec.row_ref, citation_id=rec.result_id,
        published=info.published, details_url=rec.details_url or info.source_url,
        platform=rec.platform)


def round_over_round(rows: Sequence[HardwareRow]) -> list[tuple[HardwareRow, HardwareRow]]:
    """Return (earlier, later) pairs of headline token results of one system (same submitter,
    platform, or system name where there is none, and accelerator count) on one benchmark
    (model, accuracy target, scenario, division) in two rounds, the rounds in order of
    publication; only rows with a date.

    The platform, not the system name: v5.1 writes some names without the product (5.1-0071's
    is " (72x GB200-186GB_aarch64, TensorRT)"), while both rounds give the same `Platform`."""
    same: dict[tuple, dict[str, HardwareRow]] = {}
    for r in rows:
        if r.published is None or not r.is_headline or r.units != TOKEN_UNITS:
            continue
        key = (r.suite, r.submitter, r.platform or r.system, r.accelerator_count, r.model,
               r.accuracy_target, r.scenario, r.division)
        same.setdefault(key, {}).setdefault(r.round, r)
    pairs = []
    for key in sorted(same):
        by_round = sorted(same[key].values(), key=lambda r: (r.published, r.round))
        pairs += list(zip(by_round, by_round[1:]))
    return pairs


# --- cost (the scalar rules; tables/hardware_costs.py applies them to whole tables) -----

UsdPerUnit = Callable[[str, dt.date], tuple[float, dt.date]]
"""(currency, date) -> (USD per unit of the currency, the rate's own date)."""

BASIS_LABELS = {"cloud_on_demand": "cloud on-demand list price",
                "rental_contract": "rental contract", "owner_tco": "owner TCO"}


class CostError(ValueError):
    """A cost cannot be turned into USD; the message says which and why."""


def basis_label(basis: str, scenario: str = "") -> str:
    """Return a basis as readers see it: `owner TCO (hyperscaler)`."""
    label = BASIS_LABELS.get(basis, basis)
    return f"{label} ({scenario})" if scenario else label


def usd_identity(currency: str, date: dt.date) -> tuple[float, dt.date]:
    """Return (1.0, date) for USD; raise CostError for any other currency (no FX table given)."""
    if currency != "USD":
        raise CostError(f"cost in {currency} on {date.isoformat()} needs an exchange rate; "
                        "pass the cost core's usd_per_unit")
    return 1.0, date


def usd_at_ecb_rates(rates: RateTable | None) -> UsdPerUnit:
    """Return the conversion the build uses: a cost in another currency at the ECB reference
    rate of its own date (or the last earlier fixing), with that rate's date."""
    def convert(currency: str, date: dt.date) -> tuple[float, dt.date]:
        if currency == "USD":
            return 1.0, date
        if rates is None:
            raise CostError(f"cost in {currency} on {date.isoformat()} needs ECB rates, and "
                            "this repository has none (sources/snapshots/fx/)")
        try:
            fx = rate_on(rates, currency, date)
        except RateNotFound as err:
            raise CostError(f"cost in {currency} on {date.isoformat()}: {err}") from None
        return fx.usd_per_unit, fx.date
    return convert


def tokens_per_usd(tokens_per_s_per_accelerator: float, usd_per_accelerator_hour: float) -> float:
    """Return tokens per US dollar: tokens/s per accelerator × 3600 / USD per accelerator-hour."""
    check_hourly(usd_per_accelerator_hour)
    return tokens_per_s_per_accelerator * SECONDS_PER_HOUR / usd_per_accelerator_hour


def usd_per_mtok(tokens_per_s_per_accelerator: float, usd_per_accelerator_hour: float) -> float:
    """Return USD per million tokens at that throughput and hourly cost."""
    return 1_000_000 / tokens_per_usd(tokens_per_s_per_accelerator, usd_per_accelerator_hour)


def check_hourly(usd_per_accelerator_hour: float) -> None:
    if usd_per_accelerator_hour <= 0:
        raise CostError("an hourly cost must be above zero; a missing cost is never $0")


def rows_missing_cost(rows: Sequence[HardwareRow], costs: Sequence[HourlyCost],
                      as_of: dt.date) -> list[HardwareRow]:
    """Return the first headline token-throughput row of each accelerator that has no cost."""
    in_force = {c.accelerator for c in costs if c.date <= as_of}
    missing: dict[str, HardwareRow] = {}
    for row in rows:
        if row.accelerator not in in_force and row.accelerator not in missing and needs_cost(row):
            missing[row.accelerator] = row
    return list(missing.values())
