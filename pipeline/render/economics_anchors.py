"""Pure: the Market economics page's section that sets the same-model index beside the figures
readers know (a16z's "LLMflation", Epoch AI's price trends), with the two effects they mix
shown from the histories: what a model costs now against its launch price, and what new models
launch at, per quarter (tables/launch_prices.py)."""

from __future__ import annotations

import datetime as dt
import math

import pandas as pd

from pipeline.compose.economics import Economics
from pipeline.compose.numbers import change_words, computed_usd, grouped
from pipeline.render.escape import md_cell
from pipeline.tables.launch_prices import LAUNCH_WINDOW_DAYS, quarterly

ANCHORS_ANCHOR = "price-of-capability"
LAUNCH_CHART = "charts/economics-launch-prices.svg"
LLMFLATION = "https://a16z.com/llmflation-llm-inference-cost/"
EPOCH = "https://epoch.ai/data-insights/llm-inference-price-trends"


def anchors_section(econ: Economics, as_of: dt.date) -> list[str]:
    """Return the section: the two outside figures in our words, what each measures, and the
    launch prices from the histories beside the prices on `as_of` (the grid's last date)."""
    launches = econ.launches
    out = [f"## Beside LLMflation and Epoch AI {{#{ANCHORS_ANCHOR}}}", "",
           f"Two figures are often quoted for how fast inference gets cheaper. Guido Appenzeller "
           f"at a16z, in [\"LLMflation\"]({LLMFLATION}) (November 2024), followed the cheapest "
           "model that reaches a given benchmark score and found its price falling about ten "
           f"times a year. [Epoch AI]({EPOCH}) (March 2025) measured the same kind of price per "
           "benchmark threshold and found it falling between 9 and 900 times a year, depending "
           "on the task.", "",
           "Both follow the price of a level of capability, and that price falls mostly because "
           "new models reach the level for less than the model that reached it first. The "
           "index above follows something else: how the listings already on sale are repriced. "
           "The two do not contradict each other: a market can get ten times cheaper per unit "
           "of capability in a year while the price of each model it sells barely moves. Both "
           "effects can be seen in the histories:", ""]
    if launches.empty:
        return [*out, "No maker's model was launched within the histories yet.", ""]
    listed = launches[launches["today_blend_3_1_usd_per_mtok"].notna()]
    repriced = listed[listed["change"].abs() > 1e-9]
    dated = int((launches["release_date"] != "").sum())
    out += [f"- **Repricing of what is sold:** of the {grouped(len(launches))} makers' models launched "
            f"since {econ.dates[0]} (sold by their maker, first priced after the histories "
            f"start), {grouped(len(listed))} are listed on {as_of}; {grouped(len(repriced))} of those cost "
            f"something else than at launch, and the median price on {as_of} is "
            f"{change_words(float(listed['change'].median())) if len(listed) else '–'} from the "
            "launch price (3:1 blend).",
            "- **What new models arrive at:** the median launch price of each quarter's new "
            "models, below. It mixes small and frontier models: our sources have no benchmark "
            "scores, so capability cannot be held constant here, and a quarter of frontier "
            "launches can raise it.", "",
            "| Quarter | New models | Median launch price | Listed on " + str(as_of)
            + " | Their median price then | Median change since launch | Repriced |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for q in quarterly(launches).itertuples(index=False):
        change = change_words(q.median_change) if math.isfinite(q.median_change) else "–"
        out.append(f"| {q.quarter} | {grouped(q.models)} | "
                   f"{computed_usd(q.median_launch_blend_3_1_usd_per_mtok)} | {grouped(q.listed_today)} | "
                   f"{computed_usd(q.median_today_blend_3_1_usd_per_mtok)} | {change} | "
                   f"{grouped(q.repriced)} |")
    out += ["", f"![The median launch price of each quarter's new models, and their median "
            f"price on {as_of}, US dollars per million tokens (3:1 blend)]({LAUNCH_CHART})", "",
            f"Prices are the 3:1 blend, US dollars per million tokens. A model is a maker's own "
            f"listing, one per provider and model however the sources spell it. Its launch "
            f"date is its release date where models.dev gives one ({grouped(dated)} of "
            f"{grouped(len(launches))}), else the first date the index saw it priced; its launch "
            f"price is its first price in the histories (one first priced more than "
            f"{LAUNCH_WINDOW_DAYS} days after its release date is left out; without a release "
            "date, so is one first seen when its source first listed its provider at all or when "
            "a catalogue's first whole snapshot arrived, which is coverage, not a launch). "
            "Every model, with both prices, is in [launch-prices.csv](data/launch-prices.csv). "
            "A price \"on\" a date is the one each catalogue listed when last read by then "
            "(the index's section says when)."
            + ("" if dated else " No release dates are read yet, so a first price can still "
               "be an older model a source began to list late."), ""]
    if len(repriced):
        moved = repriced.assign(size=repriced["change"].abs()).sort_values(
            ["size", "provider", "model"], ascending=[False, True, True], kind="stable")
        out += [f"The models repriced most since launch ({min(10, len(moved))} of "
                f"{grouped(len(moved))}):", "",
                "| Provider | Model | Launched | Launch price | Price on " + str(as_of)
                + " | Change |", "| --- | --- | --- | ---: | ---: | ---: |"]
        for r in moved.head(10).itertuples(index=False):
            out.append(f"| {md_cell(r.provider)} | {md_cell(r.model)} | {r.launch_date} | "
                       f"{computed_usd(r.launch_blend_3_1_usd_per_mtok)} | "
                       f"{computed_usd(r.today_blend_3_1_usd_per_mtok)} | {change_words(r.change)} |")
        out.append("")
    return out


def launch_points(launches: pd.DataFrame) -> list[tuple[str, int, float, float]]:
    """Return the launch chart's points: (quarter, models, median launch, median today)."""
    return [(q.quarter, q.models, q.median_launch_blend_3_1_usd_per_mtok,
             q.median_today_blend_3_1_usd_per_mtok)
            for q in quarterly(launches).itertuples(index=False)]
