"""Date axes that read as dates: every tick label a whole date at the ticks' step ("2026",
"Jul 2026", "12 Sep 2026"), never a part of one.

matplotlib's ConciseDateFormatter writes the year in place of January ("Jul · 2026 · Jul") and
the rest of the date once, as an offset beside the axis (issue 39). Here each label carries its
year; the labels being wider, the locator asks for fewer ticks, and a label that would run into
the one before it is left out. matplotlib is imported only when a date axis is made.
"""

from __future__ import annotations

import datetime as dt

from pipeline.render.chart_figures import text_width_pt
from pipeline.render.charts import FONT_PT

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
"""Month names, not strftime's %b: the same in every locale."""
GAP_PT = FONT_PT
"""The least room between two tick labels."""


def date_label(when: dt.datetime, step: str) -> str:
    """Return a tick's label at a step of "year", "month", "day" or "hour"."""
    month = f"{MONTHS[when.month - 1]} {when.year}"
    return {"year": str(when.year), "month": month, "day": f"{when.day} {month}",
            "hour": f"{when.day} {month} {when:%H:%M}"}[step]


def step_of(ticks: list[dt.datetime]) -> str:
    """Return the coarsest step that all of the ticks fall on."""
    if all(t.hour == t.minute == 0 for t in ticks):
        if all(t.day == 1 for t in ticks):
            return "year" if all(t.month == 1 for t in ticks) and len(ticks) > 1 else "month"
        return "day"
    return "hour"


def set_date_axis(axis) -> None:
    """Give an axis of dates (UTC) ticks that fit FONT_PT labels and whole dates as labels."""
    from matplotlib.dates import (
        DAILY,
        HOURLY,
        MICROSECONDLY,
        MINUTELY,
        MONTHLY,
        SECONDLY,
        YEARLY,
        AutoDateLocator,
        num2date,
    )
    from matplotlib.ticker import Formatter

    class DateLabels(Formatter):
        """Whole dates at the ticks' step; a label that would overlap the last one shown is
        left out (with whole dates, days in month steps, 29 Sep and 1 Oct, are close)."""

        def __call__(self, x: float, pos: int | None = None) -> str:
            return self.format_ticks([x])[0]

        def format_ticks(self, values) -> list[str]:
            ticks = [num2date(v, tz=dt.UTC) for v in values]
            step = step_of(ticks)
            labels = [date_label(t, step) for t in ticks]
            if self.axis is None or len(values) < 2:
                return labels
            # Each label centred on its tick, in points along the axis.
            to_pt = 72 / self.axis.axes.figure.dpi
            at = self.axis.axes.transData.transform([(v, 0) for v in values])[:, 0] * to_pt
            shown, end_pt = [], -float("inf")
            for label, x_pt in zip(labels, at):
                half = text_width_pt(label) / 2
                if x_pt - half >= end_pt + GAP_PT:
                    shown.append(label)
                    end_pt = x_pt + half
                else:
                    shown.append("")
            return shown

    # Few ticks: whole dates are wide. minticks 2: a span of two months is ticked by month.
    locator = AutoDateLocator(minticks=2, maxticks={
        YEARLY: 6, MONTHLY: 5, DAILY: 5, HOURLY: 5, MINUTELY: 5, SECONDLY: 5, MICROSECONDLY: 5})
    # Spans under two months (61 days) in steps of up to three weeks: matplotlib's own steps, up
    # to 14 days, cover 56 at 5 ticks.
    locator.intervald[DAILY] = [1, 2, 4, 7, 14, 21]
    axis.set_major_locator(locator)
    axis.set_major_formatter(DateLabels())
