"""`python -m benchmarks.charts --runs 20`: what one chart of the site costs to draw, against the
barest SVG matplotlib draws, in one process (issue 38).

Six drawings, each drawn once in turn per run (so a busy machine slows all three alike), after
one warm-up draw of each:

- edition: an edition's chart as the build draws it (render/chart_figures.spec_svg), of the bundled
  sources' edition of `--date` (2026-09-12 by default: eight bars and a note under them, the
  fullest legend of the bundled editions);
- model: a tracked model's chart (render/model_page.chart_svg), of the bundled model page with
  the most to draw (most marks, then most points);
- hw bars: a Hardware page chart of tokens per dollar (render/hardware_charts.py), as the build
  calls it, of the bundled comparison group with the most bars;
- hw scatter: a Hardware page chart of InferenceX throughput against interactivity, of a sweep
  shaped as InferenceX publishes one (the bundled sources hold no InferenceX results): six
  accelerators, four parallelisms, eight concurrencies each, 192 points;
- bare: one figure, one axes, one line, saved as SVG into a BytesIO with matplotlib's defaults
  (its text as paths, `svg.fonttype: path`); the ratios are to it;
- bare, text: the same with its text kept as text (`svg.fonttype: none`, as the site's charts),
  for comparison.

Prints each one's median CPU time (of this process, so other work on a shared machine slows it
less than it does wall time) and median wall time in ms, and their ratios to the bare one. Speed
is reported here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import statistics
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def bare_svg() -> bytes:
    """Return the barest SVG matplotlib draws: a new figure with one axes and one line."""
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="svg")
    return buf.getvalue()


def bare_svg_text() -> bytes:
    """Return the barest SVG with its text kept as text."""
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none"}):
        return bare_svg()


def drawings(day: dt.date) -> dict[str, Callable[[], object]]:
    """Return the drawings to time, by name, from the bundled sources."""
    from pipeline.compose.edition_tables import EditionTables
    from pipeline.compose.model_pages import model_page, tracked_models
    from pipeline.load.sources import load_sources
    from pipeline.render.chart_figures import spec_svg
    from pipeline.render.hardware_page import interactivity_chart, tokens_per_dollar_chart
    from pipeline.render.model_page import chart_svg

    sources = load_sources(REPO)
    dates = [d for d in sources.series.edition_dates(day) if d <= day]
    if not dates or dates[-1] != day:
        raise SystemExit(f"{day} is not an edition date of the bundled sources")
    spec = EditionTables(sources, dates).cheapest_spec(day, dates[-2] if len(dates) > 1 else None)
    pages = [model_page(sources, provider, model, day) for provider, model in tracked_models(sources)]
    page = max((p for p in pages if p.lists), key=lambda p: (
        len(p.chart.marks), sum(len(points) for _, points in p.chart.lines)))
    key, bars = hardware_group(sources, day)
    rows = inferencex_sweep(sources)
    print(f"edition chart: {spec.name} ({len(spec.categories)} bars, {len(spec.notes)} notes); "
          f"model chart: {page.slug} ({len(page.chart.lines)} lines, {len(page.chart.marks)} marks); "
          f"hardware bars: {' '.join(key)} ({sum(len(per) for _, per in bars)} bars); "
          f"hardware scatter: {len(rows)} points")
    return {"edition": lambda: spec_svg(spec), "model": lambda: chart_svg(page.chart),
            "hw bars": lambda: tokens_per_dollar_chart(key, bars),
            "hw scatter": lambda: interactivity_chart(rows, "dsr1", "8192/1024"),
            "bare": bare_svg, "bare, text": bare_svg_text}


def hardware_group(sources, day: dt.date):
    """Return (key, bars) of the bundled comparison group with the most bars, as the Hardware
    page hands them to its chart (render/hardware_page.py)."""
    from pipeline.render.hardware_page import basis_bars, headline_groups
    from pipeline.tables.hardware import is_public, usd_at_ecb_rates
    from pipeline.tables.hardware_costs import bases_of, best_per_group, costed_table, rows_table

    public = [r for r in sources.hardware_rows if is_public(r, day)]
    costed = costed_table(rows_table(public), sources.hardware.costs, day,
                          usd_at_ecb_rates(sources.rates))
    best = best_per_group(costed)
    charts = [(key, basis_bars([(b, list(best.get((group, b), costed.iloc[:0]).itertuples(
        index=False))) for b in bases_of(costed, group)])) for group, key in headline_groups(costed)]
    return max(charts, key=lambda chart: sum(len(per) for _, per in chart[1]))


def inferencex_sweep(sources) -> list:
    """Return the rows of an InferenceX sweep of one model and sequence lengths: six bundled
    accelerators, tensor parallelism 1 to 8, concurrency 4 to 512, throughput falling as
    interactivity rises."""
    import json

    from pipeline.formats.inferencex import read_inferencex_rows
    from pipeline.normalize.accelerators import compiled_patterns
    from pipeline.tables.hardware import FileInfo, normalize_records

    records = [{"hw": hw, "conc": conc, "infmax_model_prefix": "dsr1", "isl": 8192, "osl": 1024,
                "tp": tp, "tput_per_gpu": speed * conc ** 0.7 / tp ** 0.3,
                "median_intvty": speed * 40 / conc ** 0.6 * tp ** 0.2}
               for hw, speed in (("h100", 60.0), ("h200", 80.0), ("b200", 150.0),
                                 ("gb200", 170.0), ("mi300x", 70.0), ("mi355x", 140.0))
               for tp in (1, 2, 4, 8) for conc in (4, 8, 16, 32, 64, 128, 256, 512)]
    parsed = read_inferencex_rows(json.dumps(records).encode(), "benchmark")
    rows, _ = normalize_records(parsed.records, FileInfo("sweep.json", None, "https://example.com"),
                                compiled_patterns(sources.hardware.accelerators))
    return rows


def medians_ms(draws: dict[str, Callable[[], object]],
               runs: int) -> dict[str, tuple[float, float]]:
    """Return the median (CPU, wall) time of each drawing in ms, drawn in turn `runs` times."""
    for draw in draws.values():
        draw()  # warm-up: imports, font cache, first text measured
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in draws}
    for _ in range(runs):
        for name, draw in draws.items():
            cpu, wall = time.process_time(), time.perf_counter()
            draw()
            times[name].append(((time.process_time() - cpu) * 1000,
                                (time.perf_counter() - wall) * 1000))
    return {name: (statistics.median(c for c, _ in t), statistics.median(w for _, w in t))
            for name, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.charts",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="draws of each chart timed")
    parser.add_argument("--date", type=dt.date.fromisoformat, default=dt.date(2026, 9, 12),
                        help="the edition whose chart to draw")
    args = parser.parse_args(argv)
    medians = medians_ms(drawings(args.date), args.runs)
    bare_cpu, bare_wall = medians["bare"]
    print(f"{'':10} {'CPU':>9} {'':>6}  {'wall':>9}")
    for name, (cpu, wall) in medians.items():
        print(f"{name:10} {cpu:6.1f} ms {cpu / bare_cpu:5.2f}x  {wall:6.1f} ms {wall / bare_wall:5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
