"""The site's charts in headless Chromium: their text is kept as text (`svg.fonttype: none`, in the
font the SVG asks for, DejaVu Sans first) and laid out by our code from measured widths, not by
matplotlib's layout engine. Shown by a browser, every label is there, inside the drawing, and
overlaps no other. Chromium as in test_browser.py.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from test_browser import browser, site_url  # noqa: F401  (fixtures)

EDITION_CHARTS = [f"tokens-per-dollar-chat-3-1-{day}" for day in
                  ("2026-08-21", "2026-09-04", "2026-09-12", "2026-09-25", "2026-10-16", "2026-11-20")]

# Every <text> of the drawing as the browser lays it out, in CSS px from the drawing's top left.
TEXTS = """() => {
    const root = document.documentElement.getBoundingClientRect();
    const axes = document.getElementById('axes_1').getBoundingClientRect();
    return {width: root.width, height: root.height, axes: [axes.width, axes.height],
            family: getComputedStyle(document.querySelector('text')).fontFamily,
            texts: [...document.querySelectorAll('text')].map(t => {
                const b = t.getBoundingClientRect();
                return [t.textContent, b.left - root.left, b.top - root.top,
                        b.right - root.left, b.bottom - root.top];
            })};
}"""


def _laid_out(browser, url: str) -> dict:  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url)
    drawn = page.evaluate(TEXTS)
    context.close()
    return drawn


def _assert_readable(drawn: dict, labels: list[str]) -> None:
    assert drawn["family"].startswith('"DejaVu Sans"'), drawn["family"]
    assert min(drawn["axes"]) > 100, drawn["axes"]  # the plot itself, not a sliver
    texts = drawn["texts"]
    shown = {text for text, *_ in texts}
    assert set(labels) <= shown, set(labels) - shown
    for text, left, top, right, bottom in texts:
        assert right - left > 0 and bottom - top > 0, text
        # Inside the drawing, half a pixel of rounding aside: nothing cut at an edge.
        assert (left >= -0.5 and top >= -0.5 and right <= drawn["width"] + 0.5
                and bottom <= drawn["height"] + 0.5), (text, left, top, right, bottom, drawn["width"])
    overlaps = [(a[0], b[0]) for i, a in enumerate(texts) for b in texts[i + 1:]
                if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]]
    assert overlaps == []


@pytest.mark.parametrize("name", EDITION_CHARTS)
def test_an_edition_chart_shows_every_label_inside_and_apart(browser, site_url: str,  # noqa: F811
                                                             bundled_site: Path, name: str) -> None:
    rows = list(csv.DictReader(io.StringIO((bundled_site / "data" / f"{name}.csv").read_text("utf-8"))))
    # Each model's name and its figure (3 significant digits, as drawn), and the axis' label.
    labels = [row["Model"] for row in rows] + ["Million tokens per USD, blended"]
    figures = [f"{float(row['Million tokens per USD']):.3g}" for row in rows]
    drawn = _laid_out(browser, f"{site_url}charts/{name}.svg")
    _assert_readable(drawn, labels)
    for figure in figures:
        assert any(text.startswith(figure) for text, *_ in drawn["texts"]), figure


def test_a_hardware_bar_chart_shows_every_label_inside_and_apart(browser, site_url: str,  # noqa: F811
                                                                 bundled_site: Path) -> None:
    name = "hardware-mlperf-inference-v5-1-llama2-70b-99-offline-closed"
    drawn = _laid_out(browser, f"{site_url}charts/{name}.svg")
    # The six accelerators' names, the axis' label, the title and every cost basis of the legend.
    _assert_readable(drawn, ["B200", "GB200", "H100", "H200", "MI300X", "MI325X",
                             "million tokens per US dollar", "cost basis (hatched: placeholder cost)",
                             "owner TCO (hyperscaler)", "owner TCO (neocloud)",
                             "rental contract (3-year)"])
    assert any(text.startswith("llama2-70b (99 % accuracy target) Offline")
               for text, *_ in drawn["texts"])


def test_a_hardware_scatter_shows_every_label_inside_and_apart(browser, tmp_path: Path) -> None:  # noqa: F811
    # The bundled sources hold no InferenceX results: a sweep as the benchmark draws one.
    from benchmarks.charts import inferencex_sweep
    from pipeline.load.sources import load_sources
    from pipeline.render.hardware_charts import interactivity_chart

    path = tmp_path / "scatter.svg"
    rows = inferencex_sweep(load_sources(Path(__file__).resolve().parents[1]))
    path.write_bytes(interactivity_chart(rows, "dsr1", "8192/1024"))
    drawn = _laid_out(browser, path.as_uri())
    _assert_readable(drawn, ["InferenceX dsr1 8192/1024", "interactivity (tokens/s per user)",
                             "throughput per GPU (tokens/s)", "B200", "GB200", "H100", "H200",
                             "MI300X", "MI355X"])


def test_a_model_chart_shows_every_label_inside_and_apart(browser, site_url: str) -> None:  # noqa: F811
    drawn = _laid_out(browser, f"{site_url}charts/model-deepseek-deepseek-v4-flash.svg")
    _assert_readable(drawn, ["Input", "Cached input", "Output", "CNY list cut on 2026-09-10",
                             "CNY list, ≈ USD"])
