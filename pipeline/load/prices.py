"""Load `sources/prices/<provider>.yaml`, each checked by the data-quality gates of issue 3.

Schema errors and the gates that read one file alone come from its parse (load/parse.py runs
load/price_checks.py); a file with an error is left out of what is returned.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.load.parse import Parser, parse_file, read_model
from pipeline.models.prices import PriceFile
from pipeline.models.sourced import Sourced
from pipeline.paths import PRICES
from pipeline.problems import Problem


def load_prices(root: Path, parse: Parser = parse_file,
                ) -> tuple[dict[str, Sourced[PriceFile]], list[Problem]]:
    """Return {provider: validated price file} and every problem found in `sources/prices/`."""
    files: dict[str, Sourced[PriceFile]] = {}
    problems: list[Problem] = []
    for path in sorted((root / PRICES).glob("*.y*ml")):
        sourced, found = read_model(path, PriceFile, root, parse)
        problems += found
        if sourced is not None and not any(p.severity == "error" for p in found):
            files[sourced.model.provider] = sourced
    return files, problems
