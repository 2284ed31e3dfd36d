"""Pure: the market's economics as of each edition, and the edition figures that quote them.

Two figures no catalogue computes: how much the same listings got cheaper (the chained Jevons
index of tables/price_index.py, beside the average of everything listed), and what serving a
model costs in hardware beside what the market sells it at (tables/cost_to_serve.py). Both are
computed once for a build over the index's grid (weeks from the start of the histories, and the
edition dates), and each edition reads its own date's rows, so no edition sees a later price.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pipeline.compose.hardware import PREFERRED_BASIS
from pipeline.compose.numbers import change_words, count, figures, money, share_percent
from pipeline.compose.types import Citation, Figure
from pipeline.models.sources import Sources
from pipeline.normalize.items import md_text
from pipeline.normalize.makers import models_makers
from pipeline.normalize.model_identity import identity_key
from pipeline.paths import price_history_path
from pipeline.tables import index_readings as ir
from pipeline.tables import price_index as pi
from pipeline.tables.catalogue_history import snapshot_time
from pipeline.tables.catalogue_records import open_weight_by_model
from pipeline.tables.cost import day_end
from pipeline.tables.cost_to_serve import cost_to_serve, mlperf_matches
from pipeline.tables.hardware import TOKEN_UNITS, is_public, usd_at_ecb_rates
from pipeline.tables.hardware_costs import costed_table, rows_table
from pipeline.tables.launch_prices import launch_prices

PAGE = "economics/"
"""The Market economics page, under the site's URL."""
INDEX_ANCHOR = "same-model-index"
COST_ANCHOR = "cost-to-serve"


@dataclass(frozen=True)
class Economics:
    """The index and what it was computed from, for every date of its grid."""

    dates: list[dt.date]
    """The grid: every seventh day from the first price the histories hold, and the editions."""
    prices: pd.DataFrame
    """The listings priced at each date (tables/price_index.listed_prices)."""
    index: pd.DataFrame
    """tables/price_index.INDEX_COLUMNS at each date."""
    whole_since: dict[str, dt.date]
    """Each published catalogue's name → the day its snapshots became whole (before it, its
    history holds only the models an editor tracked, so the listed average jumps there)."""
    serving: pd.DataFrame
    """The rows of `prices` whose model an MLPerf benchmark model matches: all the cost to
    serve reads of the market, a few hundred rows a date where `prices` has thousands."""
    blend: pd.DataFrame
    """The rows of `index` of every listing's 3:1 blend, by date: what the editions quote."""
    source_files: dict[str, str]
    """Each source's file in the repository: a catalogue's history by its id, a curated
    provider's file by `curated/<provider>` (tables/price_index.price_spells)."""
    membership: pd.DataFrame
    """Each listing's segments (tables/price_index.segments)."""
    moves: pd.DataFrame
    """Every move of a listing's 3:1 blend in a step of the overall index, with its share of
    the step (tables/index_readings.CONTRIBUTION_COLUMNS)."""
    names: dict[str, str]
    """Each source (`curated`, a catalogue's id) → its name as the pages print it."""
    reads: dict[str, tuple[str, ...]]
    """Each published catalogue's name → the times it was read, sorted (as its history writes
    them): its commits replayed, the snapshots that changed it and its last successful fetch."""
    launches: pd.DataFrame
    """Each maker's model launched within the histories, its launch price and its price on the
    grid's last date (tables/launch_prices.LAUNCH_COLUMNS)."""

    def last_read(self, date: dt.date) -> dict[str, str]:
        """Return each catalogue's name → the day it was last read by the end of `date`
        (none read by then: left out)."""
        end = snapshot_time(day_end(date))
        return {name: [t for t in times if t <= end][-1][:10]
                for name, times in self.reads.items() if times and times[0] <= end}

    def read_between(self, since: dt.date, until: dt.date) -> list[str]:
        """Return the names of the catalogues read after the end of `since` and by the end of
        `until`."""
        start, end = snapshot_time(day_end(since)), snapshot_time(day_end(until))
        return [name for name, times in self.reads.items()
                if any(start < t <= end for t in times)]


def market_economics(sources: Sources, editions: Sequence[dt.date]) -> Economics | None:
    """Return the index over the grid ending at the last of `editions`; None without prices."""
    published = sources.published_catalogues()
    histories = {c.id: sources.price_histories[c.id] for c in published}
    curated = sources.prices if sources.rates is not None else {}
    whole = {c.id: h.whole_since for c in published
             if (h := sources.catalogue_health.get(c.id)) is not None and h.whole_since}
    # The index starts where the first catalogue's history is whole (its replayed commits):
    # before it, the histories hold a few models an editor followed back, and a step of two or
    # three listings is no market figure.
    start = (min(whole.values()).date() if whole
             else pi.history_start(histories, curated))
    if start is None or not editions:
        return None
    dates = pi.grid_dates(start, editions, max(editions))
    parts = [pi.curated_prices(curated, sources.rates, dates) if curated
             else pd.DataFrame(columns=pi.PRICE_COLUMNS)]
    parts += [pi.catalogue_prices(histories[c.id], c.id, str(c.page), dates) for c in published]
    prices = pi.listed_prices(parts)
    makers = sources.catalogues.makers if sources.catalogues else {}
    found = models_makers(prices["model"].unique(), makers)
    # The editors' patterns decide; a model they leave unclassified is open where the
    # catalogues' facts say its weights are published (models.dev's open_weights).
    open_facts = open_weight_by_model(sources.model_facts)
    found = {m: (maker, open_weight or (maker is None
                                        and open_facts.get(identity_key(m), False)))
             for m, (maker, open_weight) in found.items()}
    membership = pi.segments(prices, pd.DataFrame(
        [(m, maker or "", open_weight) for m, (maker, open_weight) in found.items()],
        columns=["model", "maker", "open_weight"]))
    names = {"curated": "curated files", **{c.id: c.name for c in published}}
    benchmarked = {r.model for r in sources.hardware_rows if r.units == TOKEN_UNITS}
    models = pd.Series(prices["model"].unique())
    served = models[[any(mlperf_matches(b, m) for b in benchmarked) for m in models]]
    files = {c.id: price_history_path(Path(), c.id).as_posix() for c in published}
    files |= {f"curated/{provider}": sourced.path for provider, sourced in curated.items()}
    index = pi.price_index(prices, membership, dates)
    blend = index[(index["segment"] == pi.OVERALL) & (index["meter"] == "blend_3_1")]
    arrivals = {c: min((d for d in dates if d >= at.date()), default=None)
                for c, at in whole.items()}
    facts = [f[["provider", "model", "release_date"]] for f in sources.model_facts.values()
             if len(f)]
    launches = launch_prices(
        prices, {m: maker for m, (maker, _) in found.items() if maker}, dates,
        pd.concat(facts, ignore_index=True) if facts
        else pd.DataFrame(columns=["provider", "model", "release_date"]), arrivals)
    return Economics(dates, prices, index,
                     {names[c]: at.date() for c, at in whole.items()},
                     prices[prices["model"].isin(set(served))], blend.set_index("date"), files,
                     membership, ir.contributions(prices, dates, every=pd.concat(
                         [p for p in parts if len(p)], ignore_index=True)), names,
                     catalogue_reads(sources), launches)


def catalogue_reads(sources: Sources) -> dict[str, tuple[str, ...]]:
    """Return each published catalogue's name → the times it was read (Economics.reads)."""
    out = {}
    for c in sources.published_catalogues():
        h = sources.price_histories[c.id]
        log = sources.catalogue_commits.get(c.id)
        health = sources.catalogue_health.get(c.id)
        times = {*h["first_seen"], *h["gone_seen"],
                 *(log["at"] if log is not None else ()),
                 *([snapshot_time(health.last_success)]
                   if health is not None and health.last_success else [])} - {""}
        out[c.name] = tuple(sorted(times))
    return out


def market_at(prices: pd.DataFrame, date: dt.date) -> pd.DataFrame:
    """Return the listings of `prices` (Economics.prices or .serving) at a date of the grid:
    provider, model, the listed prices, `free` (a zero input or output price), the source's
    page."""
    rows = prices[prices["date"] == date]
    free = (rows["input_usd_per_mtok"] == 0) | (rows["output_usd_per_mtok"] == 0)
    return rows.assign(free=free.to_numpy())


def economics_as_of(econ: Economics | None, cost_table_at: Callable[[dt.date], pd.DataFrame],
                    as_of: dt.date) -> tuple[Economics | None, pd.DataFrame]:
    """Return the economics the Market economics page shows as of `as_of`: the index and the
    cost to serve then (`cost_table_at`, compose/parts.EditionTables.cost_table), an empty table when
    there is no index (no prices)."""
    return econ, cost_table_at(as_of) if econ else pd.DataFrame()


def cost_table(sources: Sources, econ: Economics, date: dt.date) -> pd.DataFrame:
    """Return the cost to serve beside the price as of `date` (a date of the grid): the MLPerf
    results public then, the hourly costs in force then, the Market's listings then."""
    # Only the results of models the market sells: a year's benchmark tree has 20,000 rows,
    # costed once an edition.
    served = set(econ.serving["model"])
    models = {r.model for r in sources.hardware_rows if r.units == TOKEN_UNITS
              and any(mlperf_matches(r.model, m) for m in served)} if served else set()
    rows = [r for r in sources.hardware_rows if r.model in models and is_public(r, date)]
    if sources.hardware is None or not rows:
        return cost_to_serve(pd.DataFrame(), pd.DataFrame())
    costed = costed_table(rows_table(rows), sources.hardware.costs, date,
                          usd_at_ecb_rates(sources.rates))
    return cost_to_serve(costed, market_at(econ.serving, date))


def headline_costs(table: pd.DataFrame) -> pd.DataFrame:
    """Return one row per MLPerf model: its Offline result of the lowest hardware cost on the
    preferred basis (InferenceX's own default), a measured cost before a placeholder, else on
    any basis."""
    offline = table[table["scenario"] == "Offline"]
    rank = ((offline["cost_basis"] != PREFERRED_BASIS).astype(int) * 2
            + offline["cost_placeholder"].astype(bool).astype(int))
    ranked = offline.assign(rank=rank.to_numpy()).sort_values(
        ["rank", "hardware_usd_per_mtok"], kind="stable")
    return (ranked.drop_duplicates("mlperf_model").drop(columns="rank")
            .sort_values("mlperf_model", ignore_index=True))


CODE = {INDEX_ANCHOR: "pipeline/tables/price_index.py",
        COST_ANCHOR: "pipeline/tables/cost_to_serve.py"}
"""What computes each figure: its "source entry" (the numbers come from every price source)."""


def page_citation(sources: Sources, anchor: str) -> Citation:
    """Return the citation of the economics page, where the figure is computed and explained:
    the page itself (the figure's label links to its section, `anchor`), so the address stays
    within a text e-mail's line after its reference number."""
    return Citation("Inference Brief, Market economics", f"{sources.series.site_url}{PAGE}",
                    CODE[anchor], anchor)


def ratio(value: float) -> str:
    """Return a cost-to-serve ratio as the editions print it: three significant digits."""
    return f"{figures(value, 3)}×"


def listing_move(moves: pd.DataFrame, names: dict[str, str]) -> str:
    """Return one listing's moves within a period (rows of Economics.moves, oldest first) as
    Markdown: whose price in which source, old → new, when, and how late where another source
    had listed the new price first."""
    first, last = moves.iloc[0], moves.iloc[-1]
    when = (f"on {last['date']}" if len(moves) == 1
            else f"in {len(moves)} moves from {first['date']} to {last['date']}")
    text = (f"{md_text(names.get(first['source'], first['source']))}'s "
            f"{md_text(first['provider'])} {md_text(first['model'])}, "
            f"{money(float(first['old_usd_per_mtok']), 'USD', computed=True)} → "
            f"{money(float(last['new_usd_per_mtok']), 'USD', computed=True)} per million tokens "
            f"{when}")
    late = moves[moves["elsewhere_since"] != ""]
    if len(late):
        row = late.iloc[-1]
        since = dt.date.fromisoformat(row["elsewhere_since"])
        other = names.get(row["elsewhere_source"], row["elsewhere_source"])
        text += (f", catching up in {row['date']:%B %Y} with the price {md_text(other)} had "
                 f"listed since {since:%B %Y} ({since})")
    return text


def reading_text(r: ir.Reading, names: dict[str, str], span: str, note: str = "") -> str:
    """Return a change of the index as an edition or the page prints it (`span`: "since the last
    edition"; `note`: said first within its parenthesis): with the listings its steps matched
    where it is a market figure, else what it is instead (tables/index_readings.py)."""
    steps = count(r.steps, "step")
    first = f"{note}; " if note else ""
    if r.is_market_figure:
        each = "matching" if r.steps == 1 else "each matching"
        return (f"{change_words(r.change)} {span} ({first}{steps}, {each} "
                f"{count(r.fewest, 'listing')} or more at both ends)")
    if r.one_listing:
        return (f"{span} ({first}{steps}), one listing's move rather than the market's: "
                f"{share_percent(r.top_share)} of the index's {change_words(r.change)} is "
                f"{listing_move(r.top, names)}")
    text = (f"{span} ({first}{steps}), no market figure: its step to {r.thinnest} matched only "
            f"{count(r.fewest, 'listing')} at both ends (fewer than {ir.MIN_MATCHED}); the index "
            f"moved {change_words(r.change)}")
    if len(r.top):
        text += f", {share_percent(r.top_share)} of it {listing_move(r.top, names)}"
    return text


def economics_figures(sources: Sources, econ: Economics | None, date: dt.date,
                      previous: dt.date | None,
                      costs: Callable[[dt.date], pd.DataFrame] | None = None) -> list[Figure]:
    """Return the figures of an edition: the same-model index since the last edition and over
    the last twelve months (with the average of everything listed beside it), and the cost to
    serve of each model whose ratio moved since the last edition (each, on the first).
    `costs`: cost_table of a date (computed once a date by a caller composing many editions)."""
    if econ is None or date not in econ.dates or date not in econ.blend.index:
        return []
    figures = []
    year = pi.year_before(econ.dates, date)
    listed = econ.blend
    span, note = (("over the last 12 months", f"since {year}") if (date - year).days >= 364
                  else (f"since {year}", "where the histories start"))
    sentences = []
    if previous is not None and previous in econ.dates:
        recent = ir.reading(listed, econ.moves, previous, date)
        if not econ.read_between(previous, date) and change_words(recent.change) == "unchanged":
            # Not "unchanged": nothing was compared that could have changed.
            sentences.append(
                "no catalogue was read again since the last edition ("
                + ", ".join(f"{md_text(name)} last read on {day}" for name, day
                            in sorted(econ.last_read(date).items(), key=lambda p: p[1]))
                + "), so the index has no new prices to compare")
        else:
            sentences.append(reading_text(recent, econ.names, "since the last edition"))
    over = ir.reading(listed, econ.moves, year, date)
    sentences.append(reading_text(over, econ.names, span, note))
    average = float(listed.at[date, "average_usd_per_mtok"]
                    / listed.at[year, "average_usd_per_mtok"])
    arrived = sorted(f"{md_text(name)} on {day}" for name, day in econ.whole_since.items()
                     if year < day <= date)
    why = (" (the span holds the catalogues' first whole snapshots, "
           f"{', '.join(arrived)}, which added thousands of listings)" if arrived else "")
    text = "Same listings, 3:1 blend of input and output: " + "; ".join(sentences) + "."
    if math.isfinite(average):  # nothing listed with a blend on the first date: no average
        text += (f" The average of everything listed moved {change_words(average - 1)} over the "
                 f"same span: the gap is listings arriving and leaving{why}, not price changes.")
    figures.append(Figure(label="Same-model prices", text_md=text,
                          citations=(page_citation(sources, INDEX_ANCHOR),),
                          id="economics-index", page=f"{PAGE}#{INDEX_ANCHOR}"))
    costs = costs or (lambda day: cost_table(sources, econ, day))
    now = headline_costs(costs(date))
    before = (headline_costs(costs(previous)).set_index("mlperf_model")
              if previous is not None and previous in econ.dates else None)
    lines = []
    for row in now.itertuples(index=False):
        was = (before["cheapest_ratio"].get(row.mlperf_model) if before is not None else None)
        # A move the printed ratio shows: "3.0× (was 3.0×)" says nothing.
        if was is not None and ratio(row.cheapest_ratio) == ratio(was):
            continue
        moved = f" (was {ratio(was)})" if was is not None else ""
        lines.append(f"{md_text(row.mlperf_model)}: cheapest listing "
                     f"{money(float(row.cheapest_output_usd_per_mtok), 'USD', computed=True)} per "
                     f"million output tokens, {ratio(row.cheapest_ratio)} the hardware cost of "
                     f"{money(float(row.hardware_usd_per_mtok), 'USD', computed=True)} on "
                     f"{md_text(row.accelerator)} ({md_text(row.round)} {md_text(row.scenario)}, "
                     f"{md_text(row.cost_basis_label)}){moved}")
    if lines:
        text = ("Price over the hardware cost of serving it at full load (a lower bound: MLPerf's "
                "workload, no operator costs beyond the hourly basis): " + "; ".join(lines) + ".")
        figures.append(Figure(label="Cost to serve", text_md=text,
                              citations=(page_citation(sources, COST_ANCHOR),),
                              id="economics-cost-to-serve", page=f"{PAGE}#{COST_ANCHOR}"))
    return figures
