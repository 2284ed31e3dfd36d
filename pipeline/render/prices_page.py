"""The Prices page: Markdown text and SVG charts, each returned as data (no files).

The page shows the prices in force at the newest edition and nothing that changes with that date
alone, so its Markdown stays byte-identical while no price changes and the build reuses its HTML
(render/page_cache.py; issue 8). Each chart is computed in two steps: the numbers it plots, as a
frozen value (`PriceHistory`, `HourOfWeek`, `Cheapest`), then the drawing (`svg`). The build keeps
the drawings of the charts that rarely change by those numbers (build.price_files), so a chart
whose numbers did not change is not drawn again; matplotlib is imported only to draw.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from pipeline.tables.cost import blended_usd, day_end, effective_price, models_of, quoted_models
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.normalize.fx import RateNotFound, RateTable
from pipeline.tables.prices import blended_rows, instant_text
from pipeline.render.charts import ChartSeries, ChartSpec, svg_bytes
from pipeline.render.datasets import EDITION_DATE, Column, DataFile
from pipeline.load.sources import Sourced

CurrentRow = tuple[str, str, str, float, float, dt.date]
"""(provider name, model, list currency, usd_per_mtok, tokens_per_usd, fx date)."""


def current_rows(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                 profile: WorkloadProfile, as_of: dt.date) -> list[CurrentRow]:
    """Return (provider name, model, currency, usd_per_mtok, tokens_per_usd, fx date), cheapest
    first."""
    rows = []
    for _, sourced in sorted(files.items()):
        for model, plist in quoted_models(sourced.model).items():
            try:
                b = blended_usd(plist, model, profile, day_end(as_of), rates)
            except RateNotFound:
                b = None
            if b:
                rows.append((sourced.model.name, model, plist.currency, b.usd_per_mtok,
                             b.tokens_per_usd, b.fx.date))
    return sorted(rows, key=lambda r: (r[3], r[0], r[1]))


def current_tables(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   profiles: list[WorkloadProfile], as_of: dt.date) -> dict[str, list[CurrentRow]]:
    """Return the `current_rows` of each profile, by profile id: what the page's tables and two
    of its charts show, computed once for all of them."""
    return {p.id: current_rows(files, rates, p, as_of) for p in profiles}


def in_force_since(files: Mapping[str, Sourced[PriceFile]], as_of: dt.date) -> dt.datetime | None:
    """Return the newest instant, up to the end of `as_of`, when the price the page quotes for
    some model changed (a record took effect or ended), or None when none is in force yet.

    Only the lists the page quotes count (`quoted_models`): a change to a list it does not show
    (DeepSeek's yuan list beside its dollar one) leaves the page as it was."""
    at = day_end(as_of)
    edges = []
    for sourced in files.values():
        for model, plist in quoted_models(sourced.model).items():
            starts, records = plist.periods[model]
            # A model's periods never overlap, so its newest edge by `at` is the start of the
            # last record to start by then, or that record's end when it has passed.
            i = bisect.bisect_right(starts, at)
            if i:
                last = records[i - 1]
                edges.append(last.to if last.to is not None and last.to <= at else last.from_)
    return max(edges, default=None)


def prices_page_md(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   profiles: list[WorkloadProfile], as_of: dt.date,
                   current: Mapping[str, list[CurrentRow]] | None = None) -> str:
    """Return the Markdown of the Prices page: the prices in force at the end of `as_of` (charts
    referenced by file name).

    The text holds no date but that of the newest price change, so it is the same for every
    `as_of` with the same prices in force. `current`: the `current_tables` of `as_of`, when
    already computed."""
    current = current if current is not None else current_tables(files, rates, profiles, as_of)
    since = in_force_since(files, as_of)
    when = (f"The prices in force since {instant_text(since)}, when the newest change among them "
            "took effect" if since else "No prices are in force yet")
    lines = ["# Prices", "",
             (f"{when}. Blended USD per million tokens, converted at the ECB reference rate of "
              "each price's effective date. Every price and its history: "
              "[prices.csv](data/prices.csv), [blended.csv](data/blended.csv)."), ""]
    for profile in profiles:
        lines += [f"## {profile.title}", "",
                  "| Provider | Model | List | USD per Mtok | Tokens per USD | FX date |",
                  "| --- | --- | --- | ---: | ---: | --- |"]
        for name, model, cur, usd, tpu, fx_date in current[profile.id]:
            fx = fx_date.isoformat() if cur != "USD" else ""
            lines.append(f"| {name} | `{model}` | {cur} | {usd:.4g} | {tpu:,.0f} | {fx} |")
        lines.append("")
    lines += ["## Charts", "", "![Blended price history](charts/price-history.svg)", "",
              "![Effective price by hour of the week](charts/hour-of-week.svg)", "",
              "![Cheapest tokens per dollar](charts/cheapest.svg)", ""]
    return "\n".join(lines)


HISTORY_MODELS = 12
"""Models drawn in the price history: more lines than this cannot be told apart."""


@dataclass(frozen=True)
class PriceHistory:
    """What the price-history chart plots: blended USD per Mtok of a few models up to `end`."""

    profile_title: str
    end: dt.date
    """The last date drawn: each line holds its last value to it."""
    lines: tuple[tuple[str, tuple[tuple[dt.date, float], ...]], ...]
    """(label, the (date, usd_per_mtok) of each change), sorted by label."""


@dataclass(frozen=True)
class HourOfWeek:
    """What the hour-of-week chart plots: one meter's price through a UTC week, per list."""

    meter: str
    lines: tuple[tuple[str, tuple[float, ...]], ...]
    """(label, the price per Mtok in the list's currency at each of the week's 168 hours, NaN
    where there is none)."""


@dataclass(frozen=True)
class Cheapest:
    """What the cheapest chart plots: per profile, the models with the most tokens per USD."""

    panels: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]
    """(profile title, (provider and model, million tokens per USD) with the most last, as
    bars go up)."""


PricesChart = PriceHistory | HourOfWeek | Cheapest


def price_history(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                  profile: WorkloadProfile, dates: list[dt.date], blended: list[dict] | None = None,
                  current: list[CurrentRow] | None = None) -> PriceHistory:
    """Return the blended USD per Mtok over `dates` of the models that give the most tokens per
    dollar on the last date; every model is in data/blended.csv.

    `blended`: the rows of `price_tables.blended_rows` for these dates, `current`: the
    `current_rows` of the last date, when already computed."""
    end = max(dates)
    names = {provider: sourced.model.name for provider, sourced in files.items()}
    current = current if current is not None else current_rows(files, rates, profile, end)
    shown = {(name, model) for name, model, *_ in current[:HISTORY_MODELS]}
    rows = blended if blended is not None else blended_rows(files, rates, [profile], dates)
    lines: dict[tuple[str, str], list[tuple[dt.date, float]]] = {}
    for r in rows:
        line = (names[r["provider"]], r["model"])
        if r["profile"] == profile.id and line in shown:
            lines.setdefault(line, []).append((dt.date.fromisoformat(r["as_of"]),
                                               r["usd_per_mtok"]))
    return PriceHistory(profile.title, end, tuple(
        (f"{name} {model}", tuple(points)) for (name, model), points in sorted(lines.items())))


def hour_of_week(files: Mapping[str, Sourced[PriceFile]], week_monday: dt.date,
                 meter: str = "input") -> HourOfWeek:
    """Return the price of `meter` at each UTC hour of the week from `week_monday` of every model
    whose list has windows and whose price varies in that week."""
    start = dt.datetime.combine(week_monday, dt.time(0), dt.UTC)
    lines = []
    for _, sourced in sorted(files.items()):
        for plist in sourced.model.lists:
            if not plist.windows:
                continue
            for model in models_of(plist):
                # Mid-hour, so a window starting on the hour is in force at its first hour.
                values = [effective_price(plist, model, meter, start + dt.timedelta(hours=h,
                                                                                    minutes=30))
                          for h in range(168)]
                if any(values) and len({v.per_mtok for v in values if v}) > 1:
                    lines.append((f"{model} ({plist.currency})",
                                  tuple(v.per_mtok if v else float("nan") for v in values)))
    return HourOfWeek(meter, tuple(lines))


def cheapest(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
             profiles: list[WorkloadProfile], as_of: dt.date, top: int = 8,
             current: Mapping[str, list[CurrentRow]] | None = None) -> Cheapest:
    """Return the `top` models with the most tokens per dollar per profile at the end of `as_of`.

    `current`: the `current_tables` of `as_of`, when already computed."""
    current = current if current is not None else current_tables(files, rates, profiles, as_of)
    return Cheapest(tuple(
        (p.title, tuple((f"{r[0]} {r[1]}", r[4] / 1e6) for r in current[p.id][:top][::-1]))
        for p in profiles))


def svg(chart: PricesChart) -> bytes:
    """Return the SVG drawing of a chart's numbers (deterministic bytes)."""
    draw = {PriceHistory: _draw_price_history, HourOfWeek: _draw_hour_of_week,
            Cheapest: _draw_cheapest}[type(chart)]
    return draw(chart)


def _figure(width_in: float, height_in: float, layout: str | None = None):
    # The object-oriented API, not pyplot: no global figure registry, no GUI backend, and
    # matplotlib is imported only when a chart is drawn (most builds reuse all three).
    from matplotlib.figure import Figure

    return Figure(figsize=(width_in, height_in), layout=layout)


def _plain_log_formatter():
    from matplotlib.ticker import LogFormatter

    class PlainLogFormatter(LogFormatter):
        """LogFormatter's choice of which ticks to label (fewer minor ones as the range grows),
        each written as a plain number (0.06, not 6e-02)."""

        def __call__(self, x: float, pos: int | None = None) -> str:
            return f"{x:g}" if super().__call__(x, pos) else ""

    return PlainLogFormatter(labelOnlyBase=False)


def _draw_price_history(chart: PriceHistory) -> bytes:
    # Drawn on every new edition, so fixed margins rather than a layout engine (which measures
    # every text twice: about half the drawing time). What sits in them is short and bounded:
    # the y label, price ticks and month ticks; the profile's title, of any length, is on top.
    # The legend sits right of the plot, in its own margin, so it never covers a line.
    fig = _figure(8, 4.5)
    fig.subplots_adjust(left=0.09, right=0.72, bottom=0.13, top=0.93)  # room for the year
    ax = fig.add_subplot()
    for i, (label, points) in enumerate(chart.lines):
        # Rows mark changes only; the last value holds to the last date.
        steps = [*points, (chart.end, points[-1][1])]
        # Ten colours in matplotlib's cycle: past them, dashes tell a line from its namesake.
        ax.step(*zip(*steps), where="post", label=label, linestyle=("-", "--")[i // 10 % 2])
    ax.set_yscale("log")
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

    # Short date labels ("Sep", "15", the year once): full dates ran into each other.
    locator = AutoDateLocator(maxticks=8)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    # Plain numbers (0.06, 1, 10), not 10^x: a price reads as one, and the default labels go
    # through mathtext, whose parsing was most of this chart's drawing time.
    for set_formatter in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
        set_formatter(_plain_log_formatter())
    ax.set_ylabel("USD per Mtok (log scale)")
    ax.set_title(f"Blended price, {chart.profile_title}", loc="left", fontsize=10)
    if chart.lines:
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    else:
        _say_empty(ax, "No price in force yet")
    return svg_bytes(fig)


def _say_empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="#555555")


def _draw_hour_of_week(chart: HourOfWeek) -> bytes:
    # Redrawn only when a windowed price changes: a layout engine keeps any label inside.
    fig = _figure(8, 3.5, layout="constrained")
    ax = fig.add_subplot()
    for label, values in chart.lines:
        ax.step(range(168), values, where="post", label=label)
    ax.set_xticks(range(0, 169, 24), ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", ""])
    ax.set_ylabel(f"{chart.meter} price per Mtok, list currency")
    if chart.lines:
        ax.legend(fontsize=6)
    else:
        _say_empty(ax, "No price varies with the hour this week")
    return svg_bytes(fig)


def _draw_cheapest(chart: Cheapest) -> bytes:
    # Redrawn only when the cheapest models change; the layout engine keeps the model names of
    # one panel clear of the panel to their left.
    fig = _figure(4 * len(chart.panels), 4, layout="constrained")
    for i, (title, bars) in enumerate(chart.panels):
        ax = fig.add_subplot(1, len(chart.panels), i + 1)
        # By position, labelled after: bars given as category names merge when two providers
        # quote the same model id.
        ax.barh(range(len(bars)), [mtok for _, mtok in bars])
        ax.set_yticks(range(len(bars)), [label for label, _ in bars])
        ax.set_title(title, fontsize=8)
        ax.set_xlabel("million tokens per USD")
        ax.tick_params(labelsize=6)
    return svg_bytes(fig)


def cheapest_chart_spec(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                        profile: WorkloadProfile, as_of: dt.date, top: int = 8) -> ChartSpec:
    """Return the spec of an edition's chart: the models with the most tokens per dollar for
    `profile`, as of the edition's date (so a later price never changes an earlier edition)."""
    rows = current_rows(files, rates, profile, as_of)[:top]
    return ChartSpec(
        name=_cheapest_chart_name(profile, as_of.isoformat()), kind="bar",
        title=f"Most tokens per US dollar, {profile.title}, as of {as_of.isoformat()}",
        x_label=_MODEL, y_label="Million tokens per USD (blended)", unit="million tokens per USD",
        categories=tuple(f"{name} {model}" for name, model, *_ in rows),
        series=(ChartSeries(_MTOK_PER_USD, tuple(round(tpu / 1e6, 3) for *_, tpu, _fx in rows)),))


def cheapest_chart_data(profile: WorkloadProfile) -> DataFile:
    """Return the Data page entry of the CSVs behind every edition's chart for `profile`: one
    family, whose files differ only by date (the spec above gives each the same columns)."""
    return DataFile(
        f"data/{_cheapest_chart_name(profile, EDITION_DATE)}.csv",
        f"Tokens per dollar behind each edition's chart, {profile.title}",
        ("The data behind the chart in each edition's Context & numbers: the models with the most "
         f"tokens per US dollar for the workload profile {profile.id}, at the prices of the "
         "edition's date, most tokens per dollar first."),
        (Column(_MODEL, "The provider and the model id."),
         Column(_MTOK_PER_USD, "Million tokens per US dollar, blended for the profile "
                               "(1 ÷ blended USD per million tokens), to three decimals.")))


def _cheapest_chart_name(profile: WorkloadProfile, day: str) -> str:
    # One place for the name, so the family's pattern matches every chart's file.
    return f"tokens-per-dollar-{profile.id}-{day}"


_MODEL = "Model"
_MTOK_PER_USD = "Million tokens per USD"
