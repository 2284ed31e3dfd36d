"""Every place the build reads or writes: the repository's own folders, sources/, public/, .cache/.

Paths under a repository are functions of its root, so tests and benchmarks can point a build at
any tree; the folders that ship with the code (templates, the mkdocs project) are constants.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
"""The `pipeline` package: what the code digest of cache keys covers."""
REPO = PACKAGE.parent
TEMPLATES = REPO / "templates"
"""The jinja2 templates of pages, the text edition, feeds and e-mail."""
SITE_DIR = REPO / "site"
"""The mkdocs project: mkdocs.yml, theme overrides, hand-written pages."""

# Relative to a repository's root: links to a source file use these as they are.
FEED_SNAPSHOTS = Path("sources") / "snapshots" / "feeds"
"""What `brief ingest feeds` stores of each feed: `<feed id>.json`."""
FX_SNAPSHOT = Path("sources") / "snapshots" / "fx" / "eurofxref-hist.zip"
"""Where `brief ingest fx` keeps the ECB history."""


def snapshot_path(root: Path, feed_id: str) -> Path:
    """Return the path of the snapshot file of `feed_id` under `root`."""
    return root / FEED_SNAPSHOTS / f"{feed_id}.json"


CATALOGUES = Path("sources") / "catalogues.yaml"
"""The public price catalogues we follow, and the provider ids they use."""
PRICE_SNAPSHOTS = Path("sources") / "snapshots" / "prices"
"""What `brief ingest prices` keeps per catalogue: `<id>.csv` (its price periods) and
`<id>.health.json` (how its fetches went)."""


def price_history_path(root: Path, catalogue_id: str) -> Path:
    """Return the price history file of a catalogue under `root`."""
    return root / PRICE_SNAPSHOTS / f"{catalogue_id}.csv"


def price_health_path(root: Path, catalogue_id: str) -> Path:
    """Return the health record of a catalogue under `root`."""
    return root / PRICE_SNAPSHOTS / f"{catalogue_id}.health.json"
PRINTED = Path("sources") / "snapshots" / "printed.csv"
"""What each dated edition printed (`brief seal`; compose/corrections.py)."""
