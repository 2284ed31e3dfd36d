"""Charts: deterministic SVG (for the site) and PNG (for e-mail), CSV and alt text from the data, a
cache of SVGs that skips redraws."""

from __future__ import annotations

import datetime as dt
import io
import os
import pickle
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from pipeline.cache.append_log import read_log
from pipeline.cache.store import BLOB_MIN_BYTES, Store
from pipeline.compose.charts import ChartNote, ChartSeries, ChartSpec
from pipeline.compose.prices_page import PriceHistory
from pipeline.orchestrate import charts as build_charts
from pipeline.orchestrate.chart_workers import ChartWorkers
from pipeline.orchestrate.charts import ChartCache
from pipeline.orchestrate.site import build_site
from pipeline.problems import BuildError
from pipeline.render import chart_figures, charts
from pipeline.render.chart_figures import draw
from pipeline.render.chart_image import ready
from pipeline.render.charts import alt_text, chart_csv
from pipeline.render.model_page import chart_svg

PRICES = ChartSpec(
    name="v4-flash-output", kind="line", title="DeepSeek V4 Flash output price", x_label="Date",
    y_label="USD per Mtok", unit="USD per Mtok",
    categories=("2026-08-01", "2026-09-10", "2026-10-01"),
    series=(ChartSeries("Standard", (0.42, 0.28, None)), ChartSeries("Off-peak", (0.21, 0.14, 0.14))),
)
MONTHS = ChartSpec(
    name="editions-per-month", kind="bar", title="Editions per month", x_label="Month",
    y_label="Editions", unit="editions", unit_one="edition",
    categories=("2026-08", "2026-09", "2026-10"),
    series=(ChartSeries("Editions", (1.0, 3.0, 1.0)),),
)


# An edition's chart: gamma and alpha in the top, beta after them because it moved (new).
BARS = ChartSpec(
    name="tokens-per-dollar-chat-2026-03-20", kind="hbar", title="Most tokens per US dollar",
    x_label="Model", y_label="Million tokens per USD, blended", unit="million tokens per USD",
    categories=("Acme gamma", "Acme alpha", "Acme beta", "Acme delta"),
    series=(ChartSeries("Million tokens per USD", (1.333, 0.714, 0.286, 0.25)),
            ChartSeries("Million tokens per USD at the window start", (1.333, 0.571, None, 0.25))),
    since="2026-02-09")


def test_bars_alt_text_names_the_first_bars_and_every_move() -> None:
    assert alt_text(BARS) == (
        "Horizontal bar chart: Most tokens per US dollar. Million tokens per USD, blended, 4 bars, "
        "highest first: Acme gamma 1.333, Acme alpha 0.714, Acme beta 0.286, … million tokens "
        "per USD. Moved since 2026-02-09: Acme alpha from 0.571 to 0.714; Acme beta new at 0.286.")
    still = ChartSpec(**{**BARS.__dict__, "series": (BARS.series[0], ChartSeries(
        BARS.series[1].name, BARS.series[0].values))})
    assert alt_text(still).endswith("None of these moved since 2026-02-09.")
    assert chart_csv(BARS) == (b"Model,Million tokens per USD,Million tokens per USD at the window "
                               b"start\nAcme gamma,1.333,1.333\nAcme alpha,0.714,0.571\n"
                               b"Acme beta,0.286,\nAcme delta,0.25,0.25\n")


def test_bars_read_on_a_phone_and_mark_the_moves() -> None:
    chart = draw(BARS)
    svg = chart.svg.decode()
    # 5 in wide: a row of 0.36 in a bar under 1.3 in of axis and legend, 100 px an inch.
    assert '{ .chart width="500" height="274" }' in chart.markdown()
    assert 'width="360pt" height="197.28pt"' in svg
    # Every text at 12 pt in a 360 pt wide drawing: 11.9 px when shown 358 px wide.
    sizes = {float(x) for x in re.findall(r"font-size: ([\d.]+)px", svg)}
    assert sizes and min(sizes) >= 12, sizes
    # The moved bars in orange, hatched; the earlier figure and the legend say since when.
    assert charts.MOVED.lower() in svg.lower() and "was 0.571" in svg and "(new)" in svg
    assert "moved since 2026-02-09" in svg and "on 2026-02-09" in svg
    assert "was 0.25" not in svg  # delta did not move
    # The site's SVG has no background of its own (the theme shows through); the e-mail's PNG
    # is on white.
    assert 'style="fill: #ffffff"' not in svg
    from PIL import Image

    png = Image.open(io.BytesIO(chart_figures.png(BARS))).convert("RGB")
    assert png.size == (500, 274) and png.getpixel((2, 2)) == (255, 255, 255)


def test_alt_text_says_what_extremes_and_latest() -> None:
    assert alt_text(MONTHS) == (
        "Bar chart: Editions per month. Editions by month, 3 points from 2026-08 to 2026-10. "
        "Highest 3 editions (2026-09), lowest 1 edition (2026-08), latest 1 edition (2026-10).")
    assert alt_text(PRICES) == (
        "Line chart: DeepSeek V4 Flash output price. USD per Mtok by date, 3 points from "
        "2026-08-01 to 2026-10-01. Standard: highest 0.42 USD per Mtok (2026-08-01), lowest "
        "0.28 USD per Mtok (2026-09-10), latest 0.28 USD per Mtok (2026-09-10). Off-peak: "
        "highest 0.21 USD per Mtok (2026-08-01), lowest 0.14 USD per Mtok (2026-09-10), latest "
        "0.14 USD per Mtok (2026-10-01).")


def test_alt_text_of_an_empty_chart() -> None:
    empty = ChartSpec("e", "bar", "Nothing", "Month", "Editions", "editions", (), ())
    assert alt_text(empty) == "Bar chart: Nothing. No data yet."


def test_csv_behind_the_chart() -> None:
    assert chart_csv(PRICES) == (b"Date,Standard,Off-peak\n2026-08-01,0.42,0.21\n"
                                 b"2026-09-10,0.28,0.14\n2026-10-01,,0.14\n")
    assert chart_csv(MONTHS) == b"Month,Editions\n2026-08,1\n2026-09,3\n2026-10,1\n"


def test_series_must_match_categories() -> None:
    with pytest.raises(ValueError, match="series 'A' has 1 values for 2 categories"):
        ChartSpec("x", "line", "T", "X", "Y", "u", ("a", "b"), (ChartSeries("A", (1.0,)),))


@pytest.mark.parametrize("spec", [PRICES, MONTHS, BARS], ids=["line", "bar", "hbar"])
def test_drawing_is_deterministic_and_undated(spec: ChartSpec) -> None:
    a, b = draw(spec), draw(spec)
    assert a.svg == b.svg and chart_figures.png(spec) == chart_figures.png(spec)
    assert a.svg.startswith(b"<?xml") and b"<svg" in a.svg
    assert b"<dc:date>" not in a.svg
    png = chart_figures.png(spec)
    assert png.startswith(b"\x89PNG") and b"matplotlib" not in png.lower()
    # The palette's colours, not matplotlib's defaults.
    assert charts.PALETTE[0].lower().encode() in a.svg.lower()
    # 5 in wide, every text at 12 pt: about 12 px on a phone's 358 px column.
    assert a.svg.count(b'width="360pt"') == 1
    assert min(float(x) for x in re.findall(rb"font-size: ([\d.]+)px", a.svg)) >= 12


# Another edition's chart: more bars, two notes, every bar moved or new.
NOTED = ChartSpec(
    name="tokens-per-dollar-chat-2026-03-27", kind="hbar", title="Most tokens per US dollar",
    x_label="Model", y_label="Million tokens per USD, blended", unit="million tokens per USD",
    categories=tuple(f"Acme model-{i}" for i in range(10)),
    series=(ChartSeries("Million tokens per USD", tuple(10.0 - i for i in range(10))),
            ChartSeries("Million tokens per USD at the window start",
                        (None, *(12.0 - i for i in range(1, 10))))),
    since="2026-03-20",
    notes=(ChartNote(bar=1, short="CNY list cut on 2026-03-25", full="CNY list cut"),
           ChartNote(bar=4, short="USD list raised on 2026-03-26 by a long way", full="raised")))
HISTORY = PriceHistory(
    title="acme alpha: base prices, USD per Mtok", end=dt.date(2026, 9, 10),
    lines=(("Input", ((dt.date(2026, 4, 26), 0.14), (dt.date(2026, 8, 16), 0.22))),
           ("Output", ((dt.date(2026, 4, 26), 0.28), (dt.date(2026, 8, 16), 0.66)))),
    marks=((dt.date(2026, 9, 1), "CNY list cut on 2026-09-01", (("Input, peak", 0.1),)),))
OTHER_HISTORY = PriceHistory(
    title="acme beta: base prices, USD per Mtok", end=dt.date(2025, 12, 1),
    lines=(("Cached input", ((dt.date(2025, 1, 1), 1e-3),)), ("Input", ((dt.date(2025, 1, 1), 40.0),)),
           ("Output", ((dt.date(2025, 1, 1), 80.0), (dt.date(2025, 6, 1), 120.0)))))


def test_a_reused_figure_draws_what_a_new_one_draws() -> None:
    # The edition and model charts are drawn on one figure per process, cleared between charts:
    # a chart drawn after others has the bytes of the same chart drawn first, in a new process.
    code = ("import pickle, sys; from pipeline.render.chart_figures import spec_svg; "
            "from pipeline.render.model_page import chart_svg; "
            "bars, history = pickle.loads(sys.stdin.buffer.read()); "
            "sys.stdout.buffer.write(pickle.dumps((spec_svg(bars), chart_svg(history))))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, input=pickle.dumps((BARS, HISTORY)),
                          capture_output=True, check=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    first_bars, first_history = pickle.loads(proc.stdout)
    chart_figures.spec_svg(NOTED)
    chart_figures.png(NOTED)
    chart_svg(OTHER_HISTORY)
    assert chart_figures.spec_svg(BARS) == first_bars
    assert chart_svg(HISTORY) == first_history
    assert chart_figures.spec_svg(NOTED) != first_bars  # what was drawn between was another chart


def test_markdown_links_image_alt_and_csv() -> None:
    chart = draw(MONTHS)
    md = chart.markdown("../")
    assert md.startswith(f"![{chart.alt}](../charts/editions-per-month.svg)")
    assert "[the data behind this chart (CSV)](../data/editions-per-month.csv)" in md
    assert "(https://e.org/charts/editions-per-month.png)" in chart.markdown("https://e.org/", "png")


def test_cache_draws_a_chart_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path, {})
    first = ChartCache(store).chart(MONTHS)
    assert store.computed == {"charts": 1}
    store.keep()
    # The SVG alone: an e-mail's PNG is drawn when the e-mail is made.
    assert b"<svg" in store.path("charts").read_bytes() and not list(tmp_path.rglob("*.png"))

    def no_drawing(spec: ChartSpec):
        raise AssertionError("drew a chart whose data had not changed")

    monkeypatch.setattr(build_charts, "spec_svg", no_drawing)
    again = ChartCache(Store(tmp_path, {})).chart(MONTHS)
    assert again == first
    changed = ChartSpec(**{**MONTHS.__dict__, "series": (ChartSeries("Editions", (1.0, 3.0, 2.0)),)})
    with pytest.raises(AssertionError, match="drew a chart"):
        ChartCache(Store(tmp_path, {})).chart(changed)


def test_check_does_not_import_matplotlib(tiny: Path) -> None:
    code = ("import sys; from click.testing import CliRunner; from pipeline.cli.main import main; "
            f"r = CliRunner().invoke(main, ['check', '--root', {str(tiny)!r}]); "
            "assert r.exit_code == 0, r.output; print('matplotlib' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_build_draws_charts_outside_its_own_process(tiny: Path) -> None:
    # matplotlib's import and drawing happen in the drawer's worker, off the build's own path.
    code = ("import sys, datetime as dt, pathlib; from pipeline.orchestrate.site import build_site; "
            f"root = pathlib.Path({str(tiny)!r}); "
            "build_site(root, root / 'public', today=dt.date(2026, 9, 30)); "
            "print('matplotlib' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          check=False, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
    svg = (tiny / "public" / "charts" / "editions-per-month.svg").read_bytes()
    assert svg.startswith(b"<?xml") and b"<svg" in svg


def test_workers_import_matplotlib_before_their_first_drawing_only_when_asked() -> None:
    # A build with its drawings kept (most draw none) leaves the import to a worker's first
    # drawing: imported anyway, it took a core 0.3 s and held up the end of a small build.
    code = ("import sys; from pipeline.orchestrate.chart_workers import ChartWorkers\n"
            "def seen(): return 'matplotlib' in sys.modules\n"
            "for ready in (False, True):\n"
            "    with ChartWorkers(1, ready_to_draw=ready) as workers:\n"
            "        print(ready, workers.submit(seen).result())")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          check=False, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["False False", "True True"]
    # Drawn all the same, importing what it needs then.
    with ChartWorkers(1, ready_to_draw=False) as drawer:
        assert drawer.submit(chart_figures.spec_svg, MONTHS).result() == draw(MONTHS).svg


def test_charts_drawn_by_workers_are_the_charts_drawn_here(tmp_path: Path) -> None:
    specs = [ChartSpec(**{**MONTHS.__dict__, "name": f"m{i}",
                          "series": (ChartSeries("Editions", (1.0, float(i), 2.0)),)})
             for i in range(6)]
    with ChartWorkers(2) as drawer:
        store = Store(tmp_path, {})
        cache = ChartCache(store, drawer)
        assert cache.is_empty()
        handed = [cache.chart(spec) for spec in specs]
        assert store.computed == {"charts": 6}
        # Pages need only the spec's text, not the picture: ready before any drawing is.
        assert [c.alt for c in handed] == [alt_text(s) for s in specs]
        assert [c.drawing for c in handed] == [draw(s).drawing for s in specs]
        store.keep()  # waits for each drawing, and keeps its bytes
    assert not cache.is_empty()
    again = Store(tmp_path, {})
    assert [ChartCache(again).chart(spec) for spec in specs] == handed
    assert again.computed == {"charts": 0}


def test_a_build_prunes_the_drawings_it_no_longer_shows(tiny: Path) -> None:
    store = tiny / ".cache" / "store"
    series = tiny / "sources" / "editions.yaml"
    two_dates = series.read_text(encoding="utf-8")

    def kept() -> set[str]:
        [path] = store.glob("charts-*.log")
        return set(read_log(path, pickle.loads).values)

    series.write_text(two_dates.replace("dates: [2026-09-05, 2026-09-12]", "dates: [2026-09-05]"),
                      encoding="utf-8")
    build_site(tiny, tiny / "public", today=dt.date(2026, 9, 12))
    first = kept()
    assert first  # the archive chart, drawn and kept
    # A second edition changes the archive chart (one more edition in its month).
    series.write_text(two_dates, encoding="utf-8")
    build_site(tiny, tiny / "public", today=dt.date(2026, 9, 12))
    second = kept()
    assert second and not first & second and len(second) == len(first)


def test_without_a_cache_folder_every_chart_is_drawn(tmp_path: Path) -> None:
    cache = ChartCache()
    assert cache.is_empty()
    assert cache.chart(MONTHS) == draw(MONTHS) and cache.store.computed == {"charts": 1}


def _fails(spec: ChartSpec) -> bytes:
    raise ValueError(f"cannot draw {spec.name}")


def test_a_drawing_that_fails_fails_where_it_is_asked_for() -> None:
    with ChartWorkers(1) as drawer:
        drawing = drawer.submit(_fails, MONTHS)
        with pytest.raises(ValueError, match="cannot draw editions-per-month"):
            drawing.result()
    with pytest.raises(ValueError, match="cannot draw"):
        ChartWorkers(0).submit(_fails, MONTHS)


def _dies(spec: ChartSpec) -> bytes:
    os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would
    return b""


def _sigint_handler() -> object:
    return signal.getsignal(signal.SIGINT)


def test_a_worker_that_dies_is_a_build_error_not_a_traceback() -> None:
    with ChartWorkers(1) as drawer:
        drawing = drawer.submit(_dies, MONTHS)
        with pytest.raises(BuildError, match="chart-drawing worker died"):
            drawing.result()


def test_handing_a_chart_to_a_dead_worker_is_a_build_error_too() -> None:
    # The build hands out every chart before it asks for any: a worker killed meanwhile breaks
    # the pool, and the next hand-over must say so as plainly as a result does.
    with ChartWorkers(1) as drawer:
        drawing = drawer.submit(_dies, MONTHS)
        with pytest.raises(BuildError):
            drawing.result()
        with pytest.raises(BuildError, match="chart-drawing worker died"):
            drawer.submit(chart_csv, MONTHS)


def test_workers_leave_ctrl_c_to_the_build() -> None:
    # Ctrl-C reaches the whole process group; the build stops its workers as it unwinds.
    with ChartWorkers(1) as drawer:
        assert drawer.submit(_sigint_handler).result() == signal.SIG_IGN


def test_a_drawing_pickles_as_what_it_drew(tmp_path: Path) -> None:
    with ChartWorkers(1) as drawer:
        chart = charts.chart_of(MONTHS, drawer.submit(chart_figures.spec_svg, MONTHS))
        copy = pickle.loads(pickle.dumps(chart))
    assert copy == chart and copy.svg == draw(MONTHS).svg  # no worker needed any more
    # The store keeps a drawing as plain bytes, a large one in a file of its own.
    store = Store(tmp_path, {})
    store.cached("charts", lambda: {"charts/big.svg": ready(b"x" * BLOB_MIN_BYTES)}, ("k",))
    store.keep()
    kept = Store(tmp_path, {}).cached("charts", lambda: None, ("k",))
    assert kept["charts/big.svg"].read() == b"x" * BLOB_MIN_BYTES
    assert len(list((tmp_path / "blobs").iterdir())) == 1


def _site_drawings() -> dict[str, bytes]:
    from pipeline.compose.prices_page import HourOfWeek
    from pipeline.render import prices_page

    week = tuple(0.5 if 8 <= h % 24 < 20 else 0.25 for h in range(168))
    return {"edition": chart_figures.spec_svg(NOTED), "model": chart_svg(HISTORY),
            "price history": prices_page.svg(OTHER_HISTORY),
            "hour of week": prices_page.svg(HourOfWeek("input", (("acme-alpha (USD)", week),),
                                                       ("USD",)))}


def test_every_site_drawing_is_transparent_5_in_wide_with_12_pt_text() -> None:
    # Issue 39: no white block in the dark scheme (assets/charts.css inverts the drawing), and
    # 12 pt in 360 pt shows at 11.9 px in a phone's 358 px column.
    for name, svg in _site_drawings().items():
        assert b'width="360pt"' in svg, name
        assert min(float(x) for x in re.findall(rb"font-size: ([\d.]+)px", svg)) >= 12, name
        patches = re.findall(rb'<g id="patch_\d+">\s*<path d="[^"]*" style="([^"]*)"', svg)
        assert patches and not [p for p in patches if b"fill: #ffffff" in p], name


def test_an_email_png_keeps_its_white_background() -> None:
    from PIL import Image

    chart_figures.spec_svg(BARS)  # the SVG drawn first, transparent, on the same figure
    with Image.open(io.BytesIO(chart_figures.png(BARS))) as png:
        assert png.convert("RGBA").getpixel((0, 0)) == (255, 255, 255, 255)


def test_the_hour_of_week_axis_names_its_currency() -> None:
    from pipeline.compose.prices_page import HourOfWeek
    from pipeline.render.prices_page import hours_unit

    assert hours_unit(HourOfWeek("cached_input", (), ("USD",))) == "USD per Mtok, cached input"
    assert hours_unit(HourOfWeek("input", (), ("CNY", "USD"))) == (
        "input per Mtok, in the\ncurrency each name gives")
