"""Every place the build reads or writes: the repository's own folders, sources/, public/, .cache/.

Paths under a repository are relative to its root, so tests and benchmarks can point a build at
any tree; the folders that ship with the code (templates, the mkdocs project) are constants.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
"""The `pipeline` package."""
REPO = PACKAGE.parent
TEMPLATES = REPO / "templates"
"""The jinja2 templates of pages, the text edition, feeds and e-mail."""
SITE_DIR = REPO / "site"
"""The mkdocs project: mkdocs.yml, theme overrides, hand-written pages."""
MKDOCS_CONFIG = SITE_DIR / "mkdocs.yml"
SITE_DOCS = SITE_DIR / "docs"
"""The hand-written pages, which the generated ones join."""
THEME_OVERRIDES = SITE_DIR / "overrides"
"""Our templates over the theme's (mkdocs' `custom_dir`)."""
CODE_DIRS = (PACKAGE, TEMPLATES, SITE_DIR)
"""The folders of the checkout that shape a build's output: what the code digest of cache keys
covers."""

# Relative to a repository's root: links to a source file use these as they are.
SOURCES = Path("sources")
"""Everything a build reads of a repository: what editors write and the ingests fetch."""
SERIES = SOURCES / "editions.yaml"
"""The series: its title, sections, cadence or dates, and mail settings."""
ENTRIES = SOURCES / "entries"
"""The curated entries, `YYYY/MM-DD-<slug>.yaml`."""
PRICES = SOURCES / "prices"
"""The curated price lists, `<provider>.yaml`."""
HARDWARE = SOURCES / "hardware"
"""The hardware lane's curated files; a repository without this folder has no hardware lane."""
ACCELERATORS = HARDWARE / "accelerators.yaml"
"""The accelerators we follow and the names benchmark submitters give them."""
HARDWARE_COSTS = HARDWARE / "costs.yaml"
"""Hourly costs of accelerators, each with its source."""
BENCHMARKS = SOURCES / "benchmarks"
"""The benchmark result files we publish figures from."""
BENCHMARK_INDEX = BENCHMARKS / "index.yaml"
"""Each benchmark file's suite, round, source and publication date."""
FEEDS = SOURCES / "feeds.yaml"
"""The news feeds we follow."""
FEED_SNAPSHOTS = SOURCES / "snapshots" / "feeds"
"""What `brief ingest feeds` stores of each feed: `<feed id>.json`."""
FX_SNAPSHOT = SOURCES / "snapshots" / "fx" / "eurofxref-hist.zip"
"""Where `brief ingest fx` keeps the ECB history."""


def snapshot_path(root: Path, feed_id: str) -> Path:
    """Return the path of the snapshot file of `feed_id` under `root`."""
    return root / FEED_SNAPSHOTS / f"{feed_id}.json"


CATALOGUES = SOURCES / "catalogues.yaml"
"""The public price catalogues we follow, and the provider ids they use."""
PRICE_SNAPSHOTS = SOURCES / "snapshots" / "prices"
"""What `brief ingest prices` keeps per catalogue: `<id>.csv` (its price periods),
`<id>.health.json` (how its fetches went) and, for a history replayed from the catalogue's git
repository, `<id>.commits.csv` (each commit read)."""


def price_history_path(root: Path, catalogue_id: str) -> Path:
    """Return the price history file of a catalogue under `root`."""
    return root / PRICE_SNAPSHOTS / f"{catalogue_id}.csv"


def price_health_path(root: Path, catalogue_id: str) -> Path:
    """Return the health record of a catalogue under `root`."""
    return root / PRICE_SNAPSHOTS / f"{catalogue_id}.health.json"


def price_commits_path(root: Path, catalogue_id: str) -> Path:
    """Return the log of the commits a replay read of a catalogue under `root`."""
    return root / PRICE_SNAPSHOTS / f"{catalogue_id}.commits.csv"


def price_facts_path(root: Path, catalogue_id: str) -> Path:
    """Return the facts a catalogue gives about its models (names, release dates, open
    weights), from its newest snapshot, under `root`."""
    return root / PRICE_SNAPSHOTS / f"{catalogue_id}.models.csv"


PRINTED = SOURCES / "snapshots" / "printed.csv"
"""What each dated edition printed (`brief seal`; compose/corrections.py)."""
SCHEMAS = Path("schemas")
"""The JSON Schema of each kind of source file (`brief schema`), which editors' YAML tools read."""
PUBLIC = Path("public")
"""Where `brief build` and `brief serve` put the site when not given `--out`."""
CACHE = Path(".cache")
"""What a build keeps for the next one; none when `BRIEF_CACHE=off`."""

# Relative to the cache folder (`.cache/`): each of these is kept only when the cache is on.
STORE = Path("store")
"""What the stages computed, by the digest of the stage's code and of what each value is computed
from: one file of values per stage, large bytes apart by their digest (cache/store.py)."""
STAMPS = Path("stamps")
"""The stamp of the last good build into each output folder (cache/stamp.py)."""

