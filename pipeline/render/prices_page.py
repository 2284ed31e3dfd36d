"""The Prices page: Markdown text and matplotlib SVG charts, each returned as data (no files)."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Mapping

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from pipeline.cost import blended_usd, day_end, effective_price, models_of, quoted_models
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.normalize.fx import RateNotFound, RateTable
from pipeline.price_tables import blended_rows
from pipeline.render.charts import ChartSeries, ChartSpec
from pipeline.render.datasets import EDITION_DATE, Column, DataFile
from pipeline.sources import Sourced

plt.rcParams["svg.hashsalt"] = "inference-brief"  # stable ids: same bytes on every build


def _svg(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def current_rows(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                 profile: WorkloadProfile, as_of: dt.date) -> list[tuple]:
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


def prices_page_md(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   profiles: list[WorkloadProfile], as_of: dt.date) -> str:
    """Return the Markdown of the Prices page as of `as_of` (charts referenced by file name)."""
    lines = [f"# Prices as of {as_of.isoformat()}", "",
             ("Blended USD per million tokens, converted at the ECB reference rate of each "
             "price's effective date. Data: [prices.csv](data/prices.csv), "
             "[blended.csv](data/blended.csv)."), ""]
    for profile in profiles:
        lines += [f"## {profile.title}", "",
                  "| Provider | Model | List | USD per Mtok | Tokens per USD | FX date |",
                  "| --- | --- | --- | ---: | ---: | --- |"]
        for name, model, cur, usd, tpu, fx_date in current_rows(files, rates, profile, as_of):
            fx = fx_date.isoformat() if cur != "USD" else ""
            lines.append(f"| {name} | `{model}` | {cur} | {usd:.4g} | {tpu:,.0f} | {fx} |")
        lines.append("")
    lines += ["## Charts", "", "![Blended price history](charts/price-history.svg)", "",
              "![Effective price by hour of the week](charts/hour-of-week.svg)", "",
              "![Cheapest tokens per dollar](charts/cheapest.svg)", ""]
    return "\n".join(lines)


HISTORY_MODELS = 12
"""Models drawn in the price history: more lines than this cannot be told apart."""


def price_history_svg(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                      profile: WorkloadProfile, dates: list[dt.date],
                      blended: list[dict] | None = None) -> bytes:
    """Return an SVG of the blended USD per Mtok over `dates` (log scale) of the models that give
    the most tokens per dollar on the last date; every model is in data/blended.csv.

    `blended`: the rows of `price_tables.blended_rows` for these dates, when already computed.
    """
    names = {provider: sourced.model.name for provider, sourced in files.items()}
    shown = {(name, model) for name, model, *_ in
             current_rows(files, rates, profile, max(dates))[:HISTORY_MODELS]}
    rows = blended if blended is not None else blended_rows(files, rates, [profile], dates)
    lines: dict[tuple[str, str], list[tuple[dt.date, float]]] = {}
    for r in rows:
        line = (names[r["provider"]], r["model"])
        if r["profile"] == profile.id and line in shown:
            lines.setdefault(line, []).append((dt.date.fromisoformat(r["as_of"]),
                                               r["usd_per_mtok"]))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for (name, model), points in sorted(lines.items()):
        # Rows mark changes only; the last value holds to the last date.
        points = [*points, (max(dates), points[-1][1])]
        ax.step(*zip(*points), where="post", label=f"{name} {model}")
    ax.set_yscale("log")
    ax.set_ylabel(f"USD per Mtok ({profile.title})")
    if lines:
        ax.legend(fontsize=6, ncols=2)
    return _svg(fig)


def hour_of_week_svg(files: Mapping[str, Sourced[PriceFile]], week_monday: dt.date,
                     meter: str = "input") -> bytes:
    """Return an SVG of the effective price by UTC hour of the week for lists with windows."""
    fig, ax = plt.subplots(figsize=(8, 3.5))
    start = dt.datetime.combine(week_monday, dt.time(0), dt.UTC)
    for _, sourced in sorted(files.items()):
        for plist in sourced.model.lists:
            if not plist.windows:
                continue
            for model in models_of(plist):
                values = [effective_price(plist, model, meter, start + dt.timedelta(hours=h,
                                                                                    minutes=30))
                          for h in range(168)]
                if any(values) and len({v.per_mtok for v in values if v}) > 1:
                    ax.step(range(168), [v.per_mtok if v else float("nan") for v in values],
                            where="post", label=f"{model} ({plist.currency})")
    ax.set_xticks(range(0, 169, 24), ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", ""])
    ax.set_ylabel(f"{meter} price per Mtok, list currency")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6)
    return _svg(fig)


def cheapest_svg(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                 profiles: list[WorkloadProfile], as_of: dt.date, top: int = 8) -> bytes:
    """Return an SVG bar chart of the most tokens per dollar per profile."""
    fig, axes = plt.subplots(1, len(profiles), figsize=(4 * len(profiles), 4), squeeze=False)
    for ax, profile in zip(axes[0], profiles):
        rows = current_rows(files, rates, profile, as_of)[:top][::-1]
        ax.barh([r[1] for r in rows], [r[4] / 1e6 for r in rows])
        ax.set_title(profile.title, fontsize=8)
        ax.set_xlabel("million tokens per USD")
        ax.tick_params(labelsize=6)
    return _svg(fig)


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
