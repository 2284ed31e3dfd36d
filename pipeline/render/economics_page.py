"""Pure: the Market economics page as Markdown, its charts and its data files: the same-model
price index beside the average of everything listed, and the cost to serve beside the price
(compose/economics.py), with the method, a worked example from the data, and the limits."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd

from pipeline.compose.economics import (
    COST_ANCHOR,
    INDEX_ANCHOR,
    Economics,
    headline_costs,
    reading_text,
)
from pipeline.compose.numbers import (
    change_words,
    computed_usd,
    count,
    fixed,
    grouped,
    money,
    share_percent,
)
from pipeline.normalize.items import md_link
from pipeline.render.chart_image import IN_PROCESS, ChartDrawer, ChartImage
from pipeline.render.economics_anchors import LAUNCH_CHART, anchors_section, launch_points
from pipeline.render.economics_charts import cost_chart, index_chart, launch_chart
from pipeline.render.escape import md_cell
from pipeline.tables import index_readings as ir
from pipeline.tables import price_index as pi
from pipeline.tables.cost_to_serve import COLUMNS as COST_COLUMNS
from pipeline.tables.frames import csv_bytes
from pipeline.tables.launch_prices import LAUNCH_COLUMNS

METER_NAMES = {"blend_3_1": "3:1 blend", "input": "input", "cached_input": "cached input",
               "output": "output"}
CHARTS = {"index": "charts/economics-index.svg", "segments": "charts/economics-segments.svg",
          "cost": "charts/economics-cost-to-serve.svg"}


def _rows(index: pd.DataFrame, segment: str, meter: str) -> pd.DataFrame:
    return index[(index["segment"] == segment) & (index["meter"] == meter)].set_index("date")


def _change(rows: pd.DataFrame, since: dt.date, until: dt.date, column: str = "index") -> str:
    if since not in rows.index or until not in rows.index:
        return "–"
    change = float(rows.at[until, column] / rows.at[since, column] - 1)
    return change_words(change) if math.isfinite(change) else "–"


def worked_example(econ: Economics) -> list[str]:
    """Return the method's worked example: the step of the overall 3:1 blend index that moved
    most, its relatives that moved, and the arithmetic of its link."""
    rows = _rows(econ.index, pi.OVERALL, "blend_3_1")
    moved = rows[rows["matched"] >= ir.MIN_MATCHED]
    if moved.empty:
        return [f"No step of the index has matched {ir.MIN_MATCHED} listings yet."]
    day = abs(np.log(moved["link"])).idxmax()
    before = econ.dates[econ.dates.index(day) - 1]
    step = econ.prices[econ.prices["date"].isin([before, day])]
    rel = pi.relatives(step, "blend_3_1", [before, day])
    changed = rel[rel["relative"] != 1].sort_values("relative", kind="stable")
    n, k = len(rel), len(changed)
    logs = float(np.log(rel["relative"]).sum())
    out = [f"The step of the overall 3:1 blend index that moved most, of those matching "
           f"{ir.MIN_MATCHED} listings or more, ends on {day}: "
           f"{grouped(n)} listings were priced on both {before} and {day}; {grouped(k)} of them changed.", "",
           "| Provider | Model | Source | 3:1 blend then | now | Relative | ln(relative) |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for r in changed.head(8).itertuples(index=False):
        out.append(f"| {md_cell(r.provider)} | {md_cell(r.model)} | {md_cell(r.source)} | "
                   f"{money(float(r.old_usd_per_mtok), 'USD', computed=True)} | "
                   f"{money(float(r.new_usd_per_mtok), 'USD', computed=True)} | {fixed(r.relative, 4)} | "
                   f"{fixed(math.log(r.relative), 4, signed=True)} |")
    if k > 8:
        out.append(f"| … {grouped(k - 8)} more | | | | | | |")
    out += ["", f"The other {grouped(n - k)} relatives are 1 (ln 0). The link is the geometric "
            f"mean of all {grouped(n)}: exp({fixed(logs, 4, signed=True)} ÷ {grouped(n)}) = "
            f"{fixed(math.exp(logs / n), 6)}, so the index went from "
            f"{fixed(rows.at[before, 'index'], 2)} to {fixed(rows.at[day, 'index'], 2)}. "
            "A listing that was not priced on both dates is in no relative of this step."]
    return out


def _moves(econ: Economics, segment: str, meter: str) -> pd.DataFrame:
    """Return the contributions of one segment's and meter's steps (the overall 3:1 blend's
    are computed once, in Economics.moves)."""
    if segment == pi.OVERALL and meter == "blend_3_1":
        return econ.moves
    if segment == pi.OVERALL:
        return ir.contributions(econ.prices, econ.dates, meter)
    members = econ.membership.loc[econ.membership["segment"] == segment, "listing"].to_numpy()
    return ir.contributions(econ.prices, econ.dates, meter, members, known=econ.moves)


def _share(fraction: float) -> str:
    return share_percent(fraction) if math.isfinite(fraction) else "–"


def last_read_line(econ: Economics, as_of: dt.date) -> str:
    """Return when each catalogue was last read by `as_of`: the index holds its prices since."""
    read = sorted(econ.last_read(as_of).items(), key=lambda p: p[1])
    return ("- **Catalogues last read:** "
            + "; ".join(f"{md_cell(name)} on {day}" for name, day in read)
            + f". The index holds each one's prices of that day up to {as_of}: after it, no "
            "step can move for that catalogue's listings.")


def segment_table(econ: Economics, first: dt.date, year: dt.date) -> list[str]:
    """Return the segments' table, a change that is no market figure (fewer than MIN_MATCHED
    listings, or mostly one listing) shown as what it rests on, and a list saying what each
    such change is."""
    out = ["| Segment | Meter | Since " + str(first) + " | Since " + str(year) + " | "
           "Last step | Matched in the last step | Listed now |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    notes = []
    for segment, title in pi.SEGMENT_TITLES.items():
        meters = pi.INDEX_METERS if segment == pi.OVERALL else ("blend_3_1",)
        for meter in (("blend_3_1", *[m for m in meters if m != "blend_3_1"])):
            rows = _rows(econ.index, segment, meter)
            if rows.empty:
                continue
            moves = _moves(econ, segment, meter)
            last = rows.index[-1]
            before = rows.index[-2] if len(rows) > 1 else last
            cells = []
            for since, span in ((first, f"since {first}"), (year, f"since {year}"),
                                (before, f"in the last step (since {before})")):
                if since == last:
                    cells.append("–")
                    continue
                r = ir.reading(rows, moves, since, last)
                if r.is_market_figure:
                    cells.append(change_words(r.change))
                    continue
                mark = len(notes) + 1
                cells.append(f"({'one listing' if r.one_listing else count(r.fewest, 'listing')})"
                             f" [{mark}](#index-note-{mark})")
                notes.append(f"- <span id=\"index-note-{mark}\"></span>{mark}. {title}, "
                             f"{METER_NAMES[meter]}: " + reading_text(r, econ.names, span) + ".")
            out.append(f"| {title} | {METER_NAMES[meter]} | {' | '.join(cells)} | "
                       f"{grouped(int(rows.at[last, 'matched']))} | "
                       f"{grouped(int(rows.at[last, 'listed']))} |")
    if notes:
        out += ["", f"A change that rests on a step of fewer than {ir.MIN_MATCHED} matched "
                f"listings, or more than {share_percent(ir.ONE_LISTING_SHARE)} of whose log-change is "
                "one listing, is not a figure of the market; the table shows what it rests on "
                "instead:", "", *notes]
    return out


def contributions_table(econ: Economics, count: int = 10, per_step: int = 3) -> list[str]:
    """Return the `count` steps of the overall 3:1 blend index that moved most (by the size of
    their log-change), each with the listings that moved it most."""
    rows = _rows(econ.index, pi.OVERALL, "blend_3_1")
    steps = rows[(rows["matched"] > 0) & (rows["link"] != 1)]
    if steps.empty:
        return ["No step of the index has moved yet.", ""]
    top = steps.assign(size=np.abs(np.log(steps["link"]))).sort_values(
        "size", ascending=False, kind="stable").head(count).sort_index()
    out = [f"The {len(top)} steps of the overall 3:1 blend index that moved most, and the "
           f"listings that moved each one most (every step's, in "
           f"[index-contributions.csv](data/index-contributions.csv)). A share is the "
           "listing's ln(new ÷ old) over the sum of the step's: above 100 % where other "
           "listings moved the other way.", "",
           "| Step to | Matched at both ends | Change | Source | Provider | Model | "
           "3:1 blend then → now | Share of the step |",
           "| --- | ---: | ---: | --- | --- | --- | ---: | ---: |"]
    for day, step in top.iterrows():
        moves = econ.moves[econ.moves["date"] == day]
        change = change_words(float(step["link"]) - 1)
        flags = []
        if step["matched"] < ir.MIN_MATCHED:
            flags.append(f"under {ir.MIN_MATCHED} listings")
        if len(moves) and float(moves["share_of_step"].abs().max()) > ir.ONE_LISTING_SHARE:
            flags.append("mostly one listing")
        if flags:
            change += f" ({', '.join(flags)})"
        for i, m in enumerate(moves.head(per_step).itertuples(index=False)):
            lead = (f"| {day} | {grouped(int(step['matched']))} | {change} |" if i == 0 else "| | | |")
            late = (f" (listed by {md_cell(econ.names.get(m.elsewhere_source, ''))} from "
                    f"{m.elsewhere_since})" if m.elsewhere_since else "")
            share = _share(m.share_of_step)
            out.append(f"{lead} {md_cell(econ.names.get(m.source, m.source))} | "
                       f"{md_cell(m.provider)} | {md_cell(m.model)} | "
                       f"{computed_usd(m.old_usd_per_mtok)} → {computed_usd(m.new_usd_per_mtok)}{late} | "
                       f"{share} |")
        if len(moves) > per_step:
            out.append(f"| | | | … {grouped(len(moves) - per_step)} more | | | | |")
    return [*out, ""]


def index_section(econ: Economics, as_of: dt.date, previous: dt.date | None) -> list[str]:
    """Return the index's part of the page."""
    first = econ.dates[0]
    year = pi.year_before(econ.dates, as_of)
    blend = _rows(econ.index, pi.OVERALL, "blend_3_1")
    heading = [f"## Same-model price index {{#{INDEX_ANCHOR}}}", ""]
    steps = blend["matched"].iloc[1:]
    if as_of not in blend.index or steps.empty:
        return [*heading, f"Not enough prices for an index yet: it needs listings with an "
                f"input and an output price on two dates of its grid ({first} to {as_of}).", ""]
    spans = [reading_text(ir.reading(blend, econ.moves, first, as_of), econ.names,
                          f"since {first}")]
    if year != first:
        spans.append(reading_text(ir.reading(blend, econ.moves, year, as_of), econ.names,
                                  f"since {year}"))
    if previous in blend.index and previous != as_of:
        spans.append(reading_text(ir.reading(blend, econ.moves, previous, as_of), econ.names,
                                  "since the last edition", str(previous)))
    out = [*heading,
           f"How much the same listings got cheaper, apart from cheaper new ones arriving: a "
           f"chained index of every listing priced at two successive dates, weekly from "
           f"{first} (where the first catalogue's replayed history is whole) and on each "
           f"edition's date, to {as_of}. Beside it, the average of everything listed at each "
           "date.", "",
           "- **Same listings, 3:1 blend:** " + "; ".join(spans) + ".",
           f"- **Everything listed (geometric mean), 3:1 blend:** "
           f"{_change(blend, first, as_of, 'average_index')} since {first} "
           f"({computed_usd(blend.at[first, 'average_usd_per_mtok'])} → "
           f"{computed_usd(blend.at[as_of, 'average_usd_per_mtok'])} per million "
           f"tokens); {_change(blend, year, as_of, 'average_index')} since {year}.",
           f"- **Listings matched per step:** {grouped(int(steps.min()))} at the fewest (the step to "
           f"{steps.idxmin()}), {grouped(int(steps.median()))} at the median, "
           f"{grouped(int(steps.iloc[-1]))} in the last; {grouped(int(blend.at[as_of, 'listed']))} listed on "
           f"{as_of}.", last_read_line(econ, as_of), ""]
    if econ.whole_since:
        whole = "; ".join(f"{md_cell(name)} from {day}" for name, day in
                          sorted(econ.whole_since.items(), key=lambda p: p[1]))
        out += [f"The catalogues' snapshots are whole only from a date ({whole}); before it, "
                "a catalogue's history holds just the models an editor followed back through "
                "its file's history. So the average of everything listed drops where the whole "
                "catalogue arrives, with thousands of cheaper listings: that is coverage, not a "
                "price cut, and the same-listings index does not move there.", ""]
    out += [f"![The same-model 3:1 blend index and the average of everything listed, "
            f"{first} to {as_of}]({CHARTS['index']})", "", *segment_table(econ, first, year)]
    out += ["", "### The steps that moved it", "", *contributions_table(econ)]
    out += [f"![The 3:1 blend index by segment]({CHARTS['segments']})", "",
            "### How it is computed", "",
            "A listing is one provider's price of one model from one source, as the "
            "[Market](market.md) has it on a date: realtime, all day, the base context band, "
            "in US dollars per million tokens; a curated price wins over the catalogues for the "
            "same provider and model, and listings held back as implausible are out. For each "
            "pair of successive dates, every listing priced (above zero) at both gives a price "
            "relative, new ÷ old. The step's link is their geometric mean, and the index is the "
            "product of the links since the first date (100): a chained Jevons index, how "
            "statistical offices combine prices without weights. A listing that enters or "
            "leaves is in no relative of that step, so the index follows only prices that "
            "changed; the average of everything listed follows what is on offer. The 3:1 blend "
            "is three input tokens to one output token: (3 × input + output) ÷ 4. Segments: "
            "first-party is a listing whose seller made the model; open-weight at third-party "
            "hosts is a model with published weights sold by someone else (the makers and "
            "which models are open are listed in `sources/catalogues.yaml`); the price bands "
            "are fixed by each listing's 3:1 blend the first time the index sees it.", "",
            *worked_example(econ), "",
            "### Limits", "",
            "- Every listing weighs the same: a host's long tail of old models counts as much "
            "as a frontier model that carries most traffic. No source says which listings sell.",
            "- The index follows list prices: discounts, batch and off-peak prices and context "
            "bands above the base are not in it, and the 3:1 blend has no cache hits (cached "
            "input has an index of its own).",
            "- Its dates are weekly, and each edition's: a price that came and went between two "
            "of them is not seen. A chained index depends on its dates, so an edition added "
            "between two others changes the steps after it.",
            "- A listing that changes source (a catalogue's price replaced by a curated one) "
            "leaves and re-enters rather than giving a relative.",
            "- A catalogue's history dates a price change by when its editors recorded it, not "
            "when the provider made it: a step can be a catalogue catching up with an old cut. "
            "Where another source listed the same provider's model at the new price at least "
            f"{ir.CATCH_UP_DAYS} days before, the steps' table says so.",
            f"- A change resting on a step of fewer than {ir.MIN_MATCHED} matched listings, or "
            f"more than half of whose log-change is one listing, is not printed as the "
            "market's: the page and the editions say which listing it is instead.", ""]
    return out


def cost_section(costs: pd.DataFrame, as_of: dt.date) -> list[str]:
    """Return the cost to serve's part of the page."""
    out = [f"## Cost to serve beside the price {{#{COST_ANCHOR}}}", "",
           "What a million output tokens cost in hardware, from an MLPerf result's throughput per "
           "accelerator and the hourly cost of that accelerator, beside what the market sells "
           "the same model at. **This is not a margin.** It is a lower bound at full load, on "
           "the benchmark's own workload (whose prompts the hardware also processes, which the "
           "market bills as input), with none of an operator's other costs: idle capacity, "
           "staff, networking, power beyond what the hourly basis includes, profit. MLPerf "
           "counts generated tokens, so the market side is each listing's output price.", ""]
    if costs.empty:
        return [*out, "No model has both an MLPerf token result and a market price "
                f"as of {as_of}.", ""]
    out += [f"![Hardware cost beside the cheapest and median market price, per model, "
            f"as of {as_of}]({CHARTS['cost']})", "",
            "A benchmark model matches a market listing when both names reduce to the same "
            "key: the model's own name without a host's prefix (`meta-`, `us.`, `databricks-`) "
            "or packaging (`-instruct`, `-chat`, `-hf`, `-turbo`, a version or context-length "
            "suffix), without hyphens and dots. Distillations, other sizes, dated revisions "
            "(`deepseek-r1-0528`) and quantized ids (`-fp8`) are other models. Per model and "
            "scenario (Offline and Server apart), each accelerator's best result of the newest "
            "round in the closed division at the base (99 %) accuracy target, on each cost "
            "basis:", "",
            "| Model | Scenario | Accelerator | Result | Cost basis | Hardware per M output | "
            "Cheapest listing | Median of listings | Cheapest ÷ hardware | Median ÷ hardware |",
            "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in costs.itertuples(index=False):
        basis = md_link(r.cost_basis_label, r.cost_source_url) + (
            " (placeholder)" if r.cost_placeholder else "")
        cheapest = (f"{money(float(r.cheapest_output_usd_per_mtok), 'USD', computed=True)} "
                    f"({md_link(f'{r.cheapest_provider} {r.cheapest_model}', r.cheapest_source_url)})")
        out.append(f"| {md_cell(r.mlperf_model)} | {md_cell(r.scenario)} | "
                   f"{md_cell(r.accelerator)} | {md_link(r.result_id, r.details_url)} | {basis} | "
                   f"{money(float(r.hardware_usd_per_mtok), 'USD', computed=True)} | {cheapest} | "
                   f"{money(float(r.median_output_usd_per_mtok), 'USD', computed=True)} "
                   f"({int(r.listings)}) | {fixed(r.cheapest_ratio, 1)}× | {fixed(r.median_ratio, 1)}× |")
    out += ["", "A ratio below 1 says the cheapest listing sells under this floor: the host "
            "runs a cheaper or quantized stack, a shorter prompt mix than the benchmark's, or "
            "prices below cost. Ratios compare accelerators and cost bases of one model, not "
            "models: each benchmark has its own prompt and answer lengths.", ""]
    return out


def fitted(lines: list[str]) -> list[str]:
    """Return the page's lines with each table in a `economics-table` block, whose style
    (assets/extra.css) sizes its columns by their content so that it fits a 390 px screen:
    a table wider than the screen scrolls in a box no keyboard can reach (axe's
    scrollable-region-focusable)."""
    out, inside = [], False
    for line in [*lines, ""]:
        if line.startswith("|") != inside:
            out += ['<div class="economics-table" markdown>', ""] if not inside else ["", "</div>"]
            inside = not inside
        out.append(line)
    return out


def economics_files(econ: Economics | None, costs: pd.DataFrame, as_of: dt.date,
                    previous: dt.date | None, drawer: ChartDrawer = IN_PROCESS
                    ) -> dict[str, str | bytes | ChartImage]:
    """Return the Market economics page, its charts and data files as of `as_of` (the newest
    edition; `previous`: the one before it); `costs`: the cost to serve as of `as_of`."""
    if econ is None:
        return {"economics.md": "# Market economics\n\nNo prices in this repository.\n"}
    out = ["# Market economics", "",
           f"Two figures computed from the sources of this site, as of {as_of}: how much the "
           "same models got cheaper, and what serving a model costs in hardware beside what it "
           "sells for. Every input is a row of the [data files](data.md); both tables are "
           "below as [index.csv](data/index.csv) and "
           "[cost-to-serve.csv](data/cost-to-serve.csv), and every price the index read, with "
           "the file it comes from, as [index-prices.csv](data/index-prices.csv).", "",
           *index_section(econ, as_of, previous), *anchors_section(econ, as_of),
           *cost_section(costs, as_of)]
    files: dict[str, str | bytes | ChartImage] = {
        "economics.md": "\n".join(fitted(out)),
        "data/index.csv": csv_bytes(econ.index.assign(date=econ.index["date"].astype(str)),
                                    pi.INDEX_COLUMNS),
        "data/cost-to-serve.csv": csv_bytes(costs, COST_COLUMNS),
        "data/index-prices.csv": csv_bytes(pi.price_spells(econ.prices, econ.dates,
                                                           econ.source_files), pi.SPELL_COLUMNS),
        "data/index-contributions.csv": csv_bytes(
            econ.moves.assign(date=econ.moves["date"].astype(str),
                              previous_date=econ.moves["previous_date"].astype(str)),
            ir.CONTRIBUTION_COLUMNS),
        "data/launch-prices.csv": csv_bytes(econ.launches, LAUNCH_COLUMNS)}
    blend = _rows(econ.index, pi.OVERALL, "blend_3_1")
    points = list(blend.index)
    marks = [(day, f"{name} whole from {day}") for name, day in sorted(econ.whole_since.items())]
    files[CHARTS["index"]] = drawer.submit(index_chart, [
        ("same listings (chained index)", list(zip(points, blend["index"]))),
        ("everything listed (average)", list(zip(points, blend["average_index"])))], marks)
    segments = [(title, list(zip(rows.index, rows["index"])))
                for segment, title in pi.SEGMENT_TITLES.items()
                if not (rows := _rows(econ.index, segment, "blend_3_1")).empty]
    files[CHARTS["segments"]] = drawer.submit(index_chart, segments, marks)
    points = launch_points(econ.launches)
    if points:
        files[LAUNCH_CHART] = drawer.submit(launch_chart, points)
    head = headline_costs(costs)
    if len(head):
        files[CHARTS["cost"]] = drawer.submit(cost_chart, [
            (r.mlperf_model, r.hardware_usd_per_mtok, r.cheapest_output_usd_per_mtok,
             r.median_output_usd_per_mtok) for r in head.itertuples(index=False)])
    return files
