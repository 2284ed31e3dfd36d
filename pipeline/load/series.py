"""The checks of `sources/editions.yaml` that need its lines: the edition dates oldest first,
each once (issue 50: they were sorted without a word, and a date given twice was reported at the
file's first line without naming it)."""

from __future__ import annotations

from pipeline.models.series import Series
from pipeline.models.sourced import Sourced, line_of
from pipeline.problems import Problem


def date_order_problems(sourced: Sourced[Series]) -> list[Problem]:
    """Return an error for each edition date listed after a later one, and for each listed
    again, naming the lines of both."""
    problems: list[Problem] = []
    first_line: dict = {}
    latest = None
    for i, day in enumerate(sourced.model.dates):
        line = line_of(sourced.lines, ("dates", i))
        where = (sourced.path, f"dates.{i}")
        if day in first_line:
            problems.append(Problem(*where, f"{day} is listed twice, on lines {first_line[day]} "
                                    f"and {line}; list each date once", line=line))
            continue
        first_line[day] = line
        if latest is not None and day < latest:
            problems.append(Problem(*where, f"{day} is listed after {latest} (line "
                                    f"{first_line[latest]}); list the dates oldest first",
                                    line=line))
        latest = day if latest is None else max(latest, day)
    return problems
