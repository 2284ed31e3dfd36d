"""The model pages' price-path charts (render/step_chart.py, SVG written directly): every label
whole inside the drawing, by its anchor, its position and an upper bound of its width (issue 52:
the last month's label was cut at the right edge, a value label of "$800.00" at the left). The
bound itself is checked against Chromium's layout in test_browser_charts.py."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from pipeline.compose.prices_page import PriceHistory
from pipeline.render.step_chart import step_svg, text_width_px

SVG = "{http://www.w3.org/2000/svg}"


def outside(svg: bytes) -> list[tuple[str, float, float]]:
    """Return each label (text, left, right) that reaches past the viewBox's sides or is cut at
    its top or bottom, estimated from its anchor, x and `text_width_px`."""
    root = ET.fromstring(svg)
    _, _, width, height = (float(v) for v in root.get("viewBox").split())
    size = float(root.get("font-size"))
    out = []
    for text in root.iter(f"{SVG}text"):
        label, x, y = text.text or "", float(text.get("x")), float(text.get("y"))
        extent = text_width_px(label, size)
        if (rotated := re.fullmatch(r"rotate\(-90 ([\d.]+) ([\d.]+)\)", text.get("transform", ""))):
            # Turned a quarter left about (x, y): its length runs up the drawing, centred.
            left, right = x - size, x + size * 0.3
            top, bottom = float(rotated[2]) - extent / 2, float(rotated[2]) + extent / 2
        else:
            shift = {"start": 0.0, "middle": extent / 2, "end": extent}[text.get("text-anchor",
                                                                                  "start")]
            left, right, top, bottom = x - shift, x - shift + extent, y - size, y + size * 0.3
        if left < 0 or right > width or top < 0 or bottom > height:
            out.append((label, round(left, 1), round(right, 1)))
    return out


def test_every_bundled_price_path_chart_keeps_its_labels_inside(bundled_site: Path) -> None:
    charts = sorted((bundled_site / "charts" / "models").glob("*.svg"))
    assert len(charts) > 800
    cut = {p.name: found for p in charts if (found := outside(p.read_bytes()))}
    assert cut == {}


def test_labels_stay_inside_at_the_extremes() -> None:
    """Month ticks at both ends of the plot, prices in the thousands, a long provider id."""
    utc = dt.UTC
    start, end = dt.datetime(2026, 7, 1, tzinfo=utc), dt.datetime(2026, 11, 1, tzinfo=utc)
    chart = PriceHistory(title="t", unit="USD per Mtok", end=end, lines=(
        ("a-provider-with-a-very-long-identifier-MWMW", ((start, 1234.5),)),
        ("b", ((start, 0.0004), (end - dt.timedelta(days=3), 1.0)))))
    svg = step_svg(chart)
    assert outside(svg) == []
    assert b"Jul 2026" in svg and b"Nov 2026" in svg and b"$1,500.00" in svg
