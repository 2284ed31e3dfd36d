"""Pure: which catalogue listings are implausible, and the histories without them.

A listing is one provider's prices for one model in one catalogue. Its listings across
providers are grouped by model identity (normalize/model_identity.py, the rule that groups the
model pages: OCI's `meta.llama-3.2-11b-vision-instruct` and Fireworks'
`llama-v3p2-11b-vision-instruct` are one model). A base price (realtime,
all day, the base context band; input, cached input or output) is implausible when it is more
than FACTOR times above or below the median of the other providers' prices of the same model
and meter (at least MIN_OTHERS of them, each provider counted once, the middle ones within
FACTOR of each other), or above its mode's ceiling
(`sources/catalogues.yaml`). Only the catalogues' prices make the medians: a curated price is
judged against them (load/market_check.py), never a judge of them, or one editor's slip would
hold back every correct listing of its model (issue 50). The 20× jump check of
catalogue_history.py sees only a move between two snapshots; this sees a listing that starts
wrong (LiteLLM's Weights & Biases entries of 2026-07-24 hold per-token prices about 100,000×
too high).

A held listing is out of everything the site publishes from the catalogues: when its newest
prices are implausible, all of its rows; when only an earlier period was, that period's rows.
Listings of a mode other than text are left out too (`mode_listings` counts them), and so are
listings billed otherwise than per token (a SageMaker endpoint by the instance hour, a router
at the model it picks: `billing` in `sources/catalogues.yaml`), whose zero is no free price
(`billing_listings` counts them).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.models.catalogues import Billing, CataloguesFile
from pipeline.normalize.model_identity import identity_key
from pipeline.normalize.model_ids import TEXT, model_mode, other_billing
from pipeline.tables.catalogue_history import base_prices

FACTOR = 20.0
"""A price more than this many times above or below its model's median is held back."""
MIN_OTHERS = 2
"""Other providers needed for a median to judge by: with one, which of two is wrong is unknown."""
METERS = ("input", "cached_input", "output")
JUDGED_METERS = ("input", "output")
"""The meters held to the median. Cached input is held to the ceiling only: a host's cache
discount is its policy (DeepSeek bills a cache hit at 1/120 of input, a host without a cache
discount at the input price), so its spread across hosts is no sign of a slip."""
LISTING = ["catalogue", "provider", "catalogue_provider", "model"]
HELD_COLUMNS = [*LISTING, "identity", "meter", "usd_per_mtok", "median_usd_per_mtok",
                "providers", "factor", "ceiling_usd_per_mtok", "first_seen", "gone_seen", "cause"]
"""One implausible price: the listing, its meter and price, the median of the other providers'
prices of the model (`providers` of them; NaN when too few) and how far it is (`factor`, above 1
when above), the ceiling it broke (NaN when none), its period, and the likely cause, for people."""


def reference_prices(histories: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Return one row per provider, model identity and meter: the median of that provider's
    base prices in force in every catalogue, zero prices (free) left out."""
    parts = [base_prices(h, METERS).loc[lambda t: t["gone_seen"] == "",
                                        ["provider", "model", "meter", "usd_per_mtok"]]
             for h in histories.values()]
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=["provider", "model", "meter", "usd_per_mtok"])
    table = table[table["usd_per_mtok"].astype(float) > 0]
    table = table.assign(identity=_each(table["model"], identity_key),
                         usd_per_mtok=table["usd_per_mtok"].astype(float))
    return table.groupby(["identity", "meter", "provider"], as_index=False)[
        "usd_per_mtok"].median()


def others_median(reference: pd.DataFrame) -> pd.DataFrame:
    """Return, per model identity, meter and provider, the median of the *other* providers'
    prices and how many there are (`providers`), where there are at least MIN_OTHERS and their
    middle values agree within FACTOR."""
    group = ["identity", "meter"]
    r = reference.sort_values([*group, "usd_per_mtok"], kind="stable", ignore_index=True)
    by = r.groupby(group, sort=False)["usd_per_mtok"]
    n = by.transform("size").to_numpy()
    rank = by.cumcount().to_numpy()
    first = np.arange(len(r)) - rank  # where each row's group starts in the sorted values
    values = r["usd_per_mtok"].to_numpy(dtype=float)
    rest = n - 1
    odd = rest % 2 == 1
    lower = np.where(odd, (rest - 1) // 2, rest // 2 - 1)
    upper = np.where(odd, (rest - 1) // 2, rest // 2)

    def kth_of_rest(k: np.ndarray) -> np.ndarray:
        # The k-th of the group's sorted values once this row's own (at `rank`) is taken out.
        return values[np.clip(first + np.where(k < rank, k, k + 1), 0, len(values) - 1)]

    low, high = (kth_of_rest(lower), kth_of_rest(upper)) if len(r) else (values, values)
    out = r[group + ["provider"]].assign(median_usd_per_mtok=(low + high) / 2, providers=rest)
    # Middle values more than FACTOR apart make no median to judge by: with two others, one
    # of them wrong, their mean is far from both and would hold the right price too (xAI's own
    # grok-4.1-fast at $0.50 beside OCI's $25 and ZenMux's $0.50).
    agreed = high <= low * FACTOR
    return out[(out["providers"] >= MIN_OTHERS) & agreed].reset_index(drop=True)


def implausible_prices(histories: Mapping[str, pd.DataFrame], reference: pd.DataFrame,
                       ceilings: Mapping[str, float], modes: Mapping[str, list[str]],
                       confirmed: Collection[tuple[str, str, str]] = ()) -> pd.DataFrame:
    """Return HELD_COLUMNS for every base price period of `histories` (by catalogue id) that is
    implausible against `reference` (reference_prices) or its mode's ceiling; `confirmed`:
    (catalogue, provider, model) an editor checked."""
    found = []
    # A price above its ceiling is no reference for the others (W&B's Phi-4-mini at $8,000
    # would make the median of two other providers $4,000).
    over = _broken_ceiling(reference.rename(columns={"identity": "model"}), ceilings, modes)
    clean = reference[over.isna().to_numpy() & reference["meter"].isin(JUDGED_METERS)]
    medians = _with_whole_medians(others_median(clean), clean)
    for catalogue, history in histories.items():
        h = base_prices(history, METERS)
        h = h[h["usd_per_mtok"].astype(float) > 0].assign(catalogue=catalogue)
        if h.empty:
            continue
        h = h.assign(identity=_each(h["model"], identity_key),
                     usd_per_mtok=h["usd_per_mtok"].astype(float))
        own, whole = medians
        h = h.merge(own, on=["identity", "meter", "provider"], how="left")
        outside = h[["identity", "meter"]].merge(whole, on=["identity", "meter"], how="left")
        listed = pd.MultiIndex.from_frame(h[["identity", "meter", "provider"]]).isin(
            pd.MultiIndex.from_frame(clean[["identity", "meter", "provider"]]))
        for column in ("median_usd_per_mtok", "providers"):
            h[column] = h[column].where(listed, outside[column].to_numpy())
        h.loc[~h["meter"].isin(JUDGED_METERS), ["median_usd_per_mtok", "providers"]] = np.nan
        h["ceiling_usd_per_mtok"] = _broken_ceiling(h, ceilings, modes)
        ratio = h["usd_per_mtok"] / h["median_usd_per_mtok"]
        h["factor"] = ratio
        far = (ratio > FACTOR) | (ratio < 1 / FACTOR)
        h = h[far | h["ceiling_usd_per_mtok"].notna()]
        if confirmed:
            sure = pd.MultiIndex.from_tuples(list(confirmed))
            h = h[~pd.MultiIndex.from_frame(h[["catalogue", "provider", "model"]]).isin(sure)]
        found.append(h.assign(cause=[_cause(r) for r in h.itertuples()]))
    if not found:
        return pd.DataFrame(columns=HELD_COLUMNS)
    table = pd.concat(found, ignore_index=True)
    return table.sort_values(["catalogue", "provider", "model", "meter", "first_seen"],
                             kind="stable", ignore_index=True)[HELD_COLUMNS]


def _with_whole_medians(medians: pd.DataFrame, clean: pd.DataFrame) -> pd.DataFrame:
    """Return `medians` (others_median of `clean`) and, for a provider none of whose prices of
    a model and meter is in `clean` (it broke the ceiling), the median of all of clean's."""
    group = ["identity", "meter"]
    whole = clean.groupby(group)["usd_per_mtok"].agg(["median", "size"]).reset_index()
    whole = whole[whole["size"] >= MIN_OTHERS].rename(
        columns={"median": "median_usd_per_mtok", "size": "providers"})
    return medians, whole


def _each(values: pd.Series, fn) -> pd.Series:
    """Return `fn` of each value, computed once per distinct value (ids repeat per meter)."""
    distinct = pd.unique(values)
    return values.map(dict(zip(distinct, map(fn, distinct), strict=True)))


def _broken_ceiling(table: pd.DataFrame, ceilings: Mapping[str, float],
                    modes: Mapping[str, list[str]]) -> pd.Series:
    """Return each row's mode ceiling where its `usd_per_mtok` is above it, else NaN."""
    ceiling = _each(table["model"], lambda m: ceilings.get(model_mode(m, modes), np.inf))
    return ceiling.where(table["usd_per_mtok"].astype(float) > ceiling)


def _cause(row) -> str:
    """Say why a price is held and what likely went wrong, for the Discrepancies page."""
    parts = []
    if not np.isnan(row.factor) and (row.factor > FACTOR or row.factor < 1 / FACTOR):
        above = row.factor > 1
        times = row.factor if above else 1 / row.factor
        parts.append(f"×{round_times(times)} {'above' if above else 'below'} the median of "
                     f"{row.providers:.0f} other providers")
    if not np.isnan(row.ceiling_usd_per_mtok):
        parts.append(f"above the ceiling of ${row.ceiling_usd_per_mtok:,.0f} per Mtok")
    high = row.factor > 1 if not np.isnan(row.factor) else True
    times = row.factor if high else 1 / row.factor
    if np.isnan(times) or times >= 1e4:
        guess = ("a per-token field holding a per-Mtok (or per-1k) price?" if high else
                 "a per-Mtok field holding a per-token price?")
    elif times >= 300:
        guess = ("a per-token field holding a per-1k-token price?" if high else
                 "a per-1k-token price read as per token?")
    else:
        guess = "a listing far from every other provider's; check it at its source"
    return "; ".join(parts) + ": " + guess


def round_times(times: float) -> str:
    """Return a factor as a reader takes it in: two significant figures (×100,000, ×37)."""
    return f"{float(f'{times:.2g}'):,.0f}"


def held_listings(held: pd.DataFrame) -> pd.DataFrame:
    """Return one row per held listing and period (LISTING and `first_seen`), whether its
    newest prices are the implausible ones (`current`: its whole history is held)."""
    if held.empty:
        return pd.DataFrame(columns=[*LISTING, "first_seen", "current"])
    rows = held[[*LISTING, "first_seen", "gone_seen"]].assign(current=held["gone_seen"] == "")
    current = rows.groupby(LISTING)["current"].transform("any")
    return rows.assign(current=current).drop_duplicates([*LISTING, "first_seen"])[
        [*LISTING, "first_seen", "current"]].reset_index(drop=True)


def held_per_catalogue(held: pd.DataFrame | None) -> dict[str, int]:
    """Return how many listings (not prices) each catalogue has held back, by catalogue id."""
    if held is None or held.empty:
        return {}
    counts = held.drop_duplicates(LISTING)["catalogue"].value_counts()
    return {str(c): int(n) for c, n in counts.items()}


def without_held(history: pd.DataFrame, catalogue: str, held: pd.DataFrame,
                 modes: Mapping[str, list[str]],
                 billing: Mapping[str, Billing] | None = None) -> pd.DataFrame:
    """Return a catalogue's history without its held listings (held_listings: every row of a
    listing held as it is now, the rows of the snapshot that showed an earlier implausible
    price), without the listings of a mode other than text and without those `billing` says
    are billed otherwise than per token."""
    mine = held[held["catalogue"] == catalogue]
    keys = pd.MultiIndex.from_frame(history[["provider", "catalogue_provider", "model"]])
    whole = mine[mine["current"]]
    drop = keys.isin(pd.MultiIndex.from_frame(whole[LISTING[1:]])) if len(whole) else \
        np.zeros(len(history), dtype=bool)
    past = mine[~mine["current"]]
    if len(past):
        at = pd.MultiIndex.from_frame(history[["provider", "catalogue_provider", "model",
                                               "first_seen"]])
        drop |= at.isin(pd.MultiIndex.from_frame(past[[*LISTING[1:], "first_seen"]]))
    if modes:
        other = _each(history["model"], lambda m: model_mode(m, modes) != TEXT).to_numpy(bool)
        drop |= other
    if billing:
        drop |= _billed(history, billing).to_numpy() != ""
    return history[~drop].reset_index(drop=True)


def _billed(listings: pd.DataFrame, billing: Mapping[str, Billing]) -> pd.Series:
    """Return how each listing (`catalogue_provider`, `model`) is billed when not per token,
    empty when per token (normalize/model_ids.other_billing)."""
    pairs = pd.Series(list(zip(listings["catalogue_provider"], listings["model"], strict=True)),
                      index=listings.index, dtype=object)
    return _each(pairs, lambda pair: other_billing(*pair, billing))


def mode_listings(histories: Mapping[str, pd.DataFrame],
                  modes: Mapping[str, list[str]]) -> pd.Series:
    """Return how many listings (provider and model) of each mode other than text the
    catalogues hold now, by mode."""
    rows = [h.loc[h["gone_seen"] == "", ["provider", "model"]] for h in histories.values()]
    if not rows or not modes:
        return pd.Series(dtype=int)
    listed = pd.concat(rows).drop_duplicates()
    mode = _each(listed["model"], lambda m: model_mode(m, modes))
    return mode[mode != TEXT].value_counts().sort_index()


def billing_listings(histories: Mapping[str, pd.DataFrame], modes: Mapping[str, list[str]],
                     billing: Mapping[str, Billing]) -> dict[str, int]:
    """Return how many text listings (provider and model) the catalogues hold now that are
    billed otherwise than per token, by how they are billed, in `billing`'s order."""
    rows = [h.loc[h["gone_seen"] == "", ["provider", "catalogue_provider", "model"]]
            for h in histories.values()]
    if not rows or not billing:
        return {}
    listed = pd.concat(rows).drop_duplicates(["provider", "model"])
    listed = listed[_each(listed["model"], lambda m: model_mode(m, modes)) == TEXT]
    counts = _billed(listed, billing).value_counts()
    return {how: int(counts[how]) for how in billing if counts.get(how, 0)}


@dataclass(frozen=True)
class Plausible:
    """The catalogues' histories as the site publishes them, and what was kept out."""

    histories: dict[str, pd.DataFrame]
    """By catalogue id: without held listings, without models of a mode other than text and
    without listings billed otherwise than per token."""
    held: pd.DataFrame
    """HELD_COLUMNS: every implausible price."""
    other_modes: dict[str, int]
    """Mode → listings of that mode left out (published catalogues only)."""
    other_billing: dict[str, int]
    """How billed when not per token → listings so billed left out (published catalogues
    only)."""


def plausible_histories(histories: Mapping[str, pd.DataFrame],
                        catalogues: CataloguesFile) -> Plausible:
    """Return `histories` (by catalogue id) with their implausible listings held back, judged
    against every catalogue's prices, with `catalogues`' ceilings, modes and confirmed
    listings."""
    modes, ceilings = catalogues.modes, catalogues.ceilings_usd_per_mtok
    sure = [(c.catalogue, c.provider, c.model) for c in catalogues.confirmed_listings]
    held = implausible_prices(histories, reference_prices(histories), ceilings, modes, sure)
    listings = held_listings(held)
    kept = {c: without_held(h, c, listings, modes, catalogues.billing)
            for c, h in histories.items()}
    published = {c.id for c in catalogues.catalogues if c.use == "published"}
    shown = {c: h for c, h in histories.items() if c in published}
    other = mode_listings(shown, modes)
    return Plausible(kept, held, {str(k): int(v) for k, v in other.items()},
                     billing_listings(shown, modes, catalogues.billing))

