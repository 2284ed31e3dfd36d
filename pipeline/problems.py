"""Problems found in sources: what is wrong, where, and how bad."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One problem in one source file: `str()` gives `path: field.path: message`, `located()`
    the same with its line and column, as the commands print it."""

    path: str
    """The file, relative to the repository root where possible."""
    field: str
    """Dotted location inside the file (`links.0.url`); empty for the file as a whole."""
    message: str
    line: int | None = None
    """1-based line in the file, when known (for editors' annotations)."""
    column: int | None = None
    severity: str = "error"
    """`error` stops the build; `warning` is printed and the build goes on."""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line and not self.field else self.path
        field = f" {self.field}:" if self.field else ""
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{where}:{field} {prefix}{self.message}"

    def located(self) -> str:
        """Return the problem as the commands print it: `path:line:col: field: message`.

        The shape of compilers, ruff and mypy, which editors' terminals and problem matchers turn
        into a jump to the place. The column is the YAML parser's for a syntax error and 1 (the
        line's start) otherwise: problems know their line, not their column. A problem with no
        line (a CSV row, a file missing, a file as a whole) prints as `path: field: message`,
        claiming no place it does not know."""
        if not self.line:
            return str(self)
        field = f" {self.field}:" if self.field else ""
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{self.path}:{self.line}:{self.column or 1}:{field} {prefix}{self.message}"


class SourceError(Exception):
    """Raised when sources have problems; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (p.path, p.line or 0, p.field))
        super().__init__(f"{len(problems)} problem(s) in sources")


class BuildError(Exception):
    """A build step failed for a reason a person can act on (message is shown as is)."""
