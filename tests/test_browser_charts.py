"""The site's charts in headless Chromium: their text is kept as text (`svg.fonttype: none`, in the
font the SVG asks for, DejaVu Sans first) and laid out by our code from measured widths, not by
matplotlib's layout engine. Shown by a browser, every label is there, inside the drawing, and
overlaps no other. Chromium as in test_browser.py.
"""

from __future__ import annotations

import csv
import io
import re
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


# Every page that shows charts: an edition, the Prices page, a model's page, Hardware, Archive.
CHART_PAGES = ["briefings/2026-09-12/", "prices/", "models/deepseek-deepseek-v4-flash/",
               "hardware/", "archive/"]
PHONE_PX, DESKTOP_PX = 390, 1280
LEAST_TEXT_PX = 11
"""The smallest text a chart may show, in CSS px, at a 390 px viewport (issue 39)."""

# Of each <img> whose source is an SVG: how wide it shows, its natural width, its filter, and
# from the SVG itself (fetched and parsed, not shown): its viewBox width (the unit of its font
# sizes), every text's font size, and the fill of each background patch (the figure's, each
# axes', a legend's frame or a label's box, all `g#patch_…`; hatching lives in <defs>).
CHART_IMAGES = """async () => {
    const out = [];
    for (const img of document.querySelectorAll('img')) {
        if (!new URL(img.src).pathname.endsWith('.svg')) continue;
        img.scrollIntoView();
        const svg = new DOMParser().parseFromString(await (await fetch(img.src)).text(),
                                                    'image/svg+xml').documentElement;
        const style = (e, key) => ((e.getAttribute('style') || '').match(
            new RegExp(key + ':\\\\s*([^;]+)')) || [null, null])[1];
        out.push({src: img.src, shown: img.getBoundingClientRect().width,
                  natural: img.naturalWidth, filter: getComputedStyle(img).filter,
                  viewBox: svg.viewBox.baseVal.width,
                  sizes: [...svg.querySelectorAll('text')].map(t => parseFloat(style(t, 'font-size'))),
                  fills: [...svg.querySelectorAll('g[id^="patch"] > path')].map(p => style(p, 'fill'))});
    }
    return out;
}"""
WHITE = {"#ffffff", "#fff", "white", "rgb(255, 255, 255)"}

# The plot areas (each axes' first patch) and the legends of a drawing, as the browser lays it out.
LEGENDS_AND_PLOTS = """() => {
    const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
    return {plots: [...document.querySelectorAll('g[id^="axes_"] > g[id^="patch"]:first-child')].map(box),
            legends: [...document.querySelectorAll('g[id^="legend_"]')].map(box)};
}"""


def _chart_images(browser, url: str, width: int) -> list[dict]:  # noqa: F811
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme="dark")
    page = context.new_page()
    page.goto(url)
    # Material follows the reader's scheme on a first visit; set it as its toggle does, too.
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    images = page.evaluate(CHART_IMAGES)
    context.close()
    return images


@pytest.mark.parametrize("width", [PHONE_PX, DESKTOP_PX])
@pytest.mark.parametrize("path", CHART_PAGES)
def test_every_chart_reads_in_the_dark_and_on_a_phone(browser, site_url: str,  # noqa: F811
                                                      path: str, width: int) -> None:
    images = _chart_images(browser, site_url + path, width)
    assert images, f"no chart on {path}"
    for image in images:
        name = image["src"].rsplit("/", 1)[-1]
        # Transparent: no white figure, axes or label box that stays a white block on slate,
        # and the drawing turned light on dark (assets/charts.css).
        assert not WHITE & set(image["fills"]), (name, image["fills"])
        assert "invert(1)" in image["filter"], (name, image["filter"])
        # At most its natural width, never wider than the column.
        assert image["shown"] <= image["natural"] + 0.5, (name, image["shown"], image["natural"])
        # Its smallest text as shown: font size in the SVG's units × shown width / viewBox width.
        shown_px = min(image["sizes"]) * image["shown"] / image["viewBox"]
        if width == PHONE_PX:
            assert shown_px >= LEAST_TEXT_PX, (name, min(image["sizes"]), image["shown"],
                                               image["viewBox"], shown_px)


@pytest.mark.parametrize("path", ["prices/", "models/deepseek-deepseek-v4-flash/", "hardware/"])
def test_no_legend_is_drawn_over_the_data(browser, site_url: str, path: str) -> None:  # noqa: F811
    context = browser.new_context(viewport={"width": DESKTOP_PX, "height": 900})
    page = context.new_page()
    for image in _chart_images(browser, site_url + path, DESKTOP_PX):
        page.goto(image["src"])
        drawn = page.evaluate(LEGENDS_AND_PLOTS)
        for legend in drawn["legends"]:
            for plot in drawn["plots"]:
                apart = (legend[2] <= plot[0] or plot[2] <= legend[0] or legend[3] <= plot[1]
                         or plot[3] <= legend[1])
                assert apart, (image["src"], legend, plot)
    context.close()


def test_date_axes_read_as_dates(browser, site_url: str) -> None:  # noqa: F811
    # Each tick a whole date ("Jul 2026"), not ConciseDateFormatter's "Jul · 2026 · Jul".
    for name in ("price-history", "model-deepseek-deepseek-v4-flash"):
        ticks = [t for t, *_ in _laid_out(browser, f"{site_url}charts/{name}.svg")["texts"]
                 if re.fullmatch(r"(\d{1,2} )?[A-Z][a-z]{2} 20\d\d|20\d\d", t)]
        assert len(ticks) >= 2, (name, ticks)
        assert all(re.search(r"20\d\d$", t) for t in ticks), (name, ticks)


def test_every_value_axis_names_its_unit(browser, site_url: str) -> None:  # noqa: F811
    units = {"price-history": "USD per Mtok (log)", "hour-of-week": "USD per Mtok, input",
             "cheapest": "million tokens per USD",
             "model-deepseek-deepseek-v4-flash": "USD per Mtok",
             "hardware-mlperf-inference-v5-1-deepseek-r1-99-offline-closed":
                 "million tokens per US dollar"}
    for name, unit in units.items():
        texts = {t for t, *_ in _laid_out(browser, f"{site_url}charts/{name}.svg")["texts"]}
        assert unit in texts, (name, unit)


# Each <text> of a price-path chart: its text, its width as laid out and its box, in the
# drawing's units (the SVG opened by itself, at its own size).
STEP_TEXTS = """() => [...document.querySelectorAll('text')].map(t => {
    const b = t.getBBox();
    return [t.textContent, t.getComputedTextLength(), t.getAttribute('transform') !== null,
            b.x, b.x + b.width];
})"""


@pytest.mark.parametrize("name", ["o4-mini", "gpt-oss-120b", "claude-opus-4-6-fast"])
def test_a_price_path_charts_width_estimate_holds_in_chromium(browser, site_url: str,  # noqa: F811
                                                              name: str) -> None:
    """render/step_chart.py places its labels by an upper bound of their widths, which
    test_step_chart.py checks for every bundled chart: here the bound holds for the font
    Chromium uses, and every label is whole inside the drawing."""
    from pipeline.render.step_chart import WIDTH, text_width_px

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{site_url}charts/models/{name}.svg")
    texts = page.evaluate(STEP_TEXTS)
    context.close()
    assert len(texts) > 8
    for text, length, rotated, left, right in texts:
        assert 0 < length <= text_width_px(text), (text, length, text_width_px(text))
        if not rotated:  # a rotated label's box is in its own turned coordinates
            assert left >= -0.5 and right <= WIDTH + 0.5, (text, left, right)
