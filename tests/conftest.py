"""Shared fixtures: a tiny sources tree, tree hashes, the real third-party data folder."""

from __future__ import annotations

import contextlib
import csv
import fcntl
import hashlib
import io
import os
import re
import shutil
import subprocess
import textwrap
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pipeline.load.fx import package_history_path

REPO = Path(__file__).resolve().parents[1]
# BRIEF_REAL_DATA: set by scripts/mutate.py, whose copy of the repo sits one folder deeper (mutants/).
REAL_DATA = Path(os.environ.get("BRIEF_REAL_DATA") or REPO.parent / "shared" / "data" / "real")
IN_CI = os.environ.get("CI") == "true"


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """Ids of string parameters in plain characters: a test id must survive being given back on
    a command line (`make mutate` re-runs tests by id), and a hostile string's control
    characters, brackets or `::` would not."""
    if not isinstance(val, str):
        return None
    return re.sub(r"[^A-Za-z0-9_.,@%+=-]", "_", val.encode("unicode_escape").decode())[:80] or "empty"


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The real third-party data in ../shared/data/real; skipped when absent, failing under CI."""
    if not REAL_DATA.is_dir():
        if IN_CI:
            pytest.fail(f"{REAL_DATA} is missing and CI=true: the real-data tests must run")
        pytest.skip(f"{REAL_DATA} is absent")
    return REAL_DATA


@pytest.fixture
def machine_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """Give a function that puts the machine's local time zone in `tz` (a TZ value: an IANA name
    or POSIX `JST-9`) for the rest of the test: what `astimezone()` without a zone and naive
    local times use. The zone the test started in is restored after."""
    def put(tz: str) -> None:
        monkeypatch.setenv("TZ", tz)
        time.tzset()

    yield put
    monkeypatch.undo()
    time.tzset()


SERIES = """\
title: "Test Brief — {date}"
description: A tiny series for tests.
site_url: https://example.org/brief/
source_url: https://example.org/repo/blob/main/
dates: [2026-09-05, 2026-09-12]
sections:
  - {id: top, title: Top developments}
  - {id: local, title: Local view}
  - {id: numbers, title: Context & numbers}
  - {id: radar, title: On the radar}
"""

ENTRY = """\
date: {date}
section: {section}
headline: {headline}
summary: A short paragraph about {headline}.
links:
  - url: https://example.org/{slug}
    publisher: Example News
"""


def write_entry(root: Path, date: str, slug: str, section: str = "top",
                headline: str | None = None, body: str | None = None) -> Path:
    """Write an entry file under root/sources/entries and return its path."""
    year, month, day = date.split("-")
    path = root / "sources" / "entries" / year / f"{month}-{day}-{slug}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = body if body is not None else ENTRY.format(
        date=date, section=section, headline=headline or slug.replace("-", " ").title(), slug=slug)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def brief_here(*args: str) -> subprocess.CompletedProcess:
    """Run `brief ARGS` from the repository in this process, by click's runner: the same command
    as the executable, without a process's start (importing pandas and the pipeline, 0.75 s of a 1 s
    check). An exception the command lets out is written to stderr as a traceback, as the
    executable would write it."""
    import traceback

    from click.testing import CliRunner

    from pipeline.cli.main import main

    with contextlib.chdir(REPO):
        result = CliRunner().invoke(main, list(args))
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, stderr)


def stop(process: subprocess.Popen) -> None:
    """Stop a server a test started: asked first, killed if it has not gone in 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A minimal sources tree: two editions, a few entries."""
    return tiny_tree(tmp_path / "repo")


def tiny_tree(root: Path) -> Path:
    """Write the `tiny` sources tree under `root` (also for scripts/regen_golden.py) and return it."""
    (root / "sources").mkdir(parents=True)
    (root / "sources" / "editions.yaml").write_text(SERIES, encoding="utf-8")
    write_entry(root, "2026-09-01", "early-news")
    write_entry(root, "2026-09-05", "boundary-news")
    write_entry(root, "2026-09-06", "after-boundary")
    write_entry(root, "2026-09-12", "price-figure", section="numbers", headline="Price figure")
    write_entry(root, "2026-09-12", "local-story", section="local", headline="Local story")
    write_entry(root, "2026-09-13", "too-late")
    return root


def tree_digest(root: Path) -> dict[str, str]:
    """Return {relative path: sha256} of every file under root."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def seed_cache(root: Path, built: Path = REPO) -> None:
    """Give `root` a copy of the cache of the build of `built` (`.cache/` of this checkout, warm
    once `bundled_site` has run), as CI restores one: a build of a copy of those sources then
    computes only what the test changed, not all of it cold (19 s of the bundled sources'
    build). A key is a digest of what its value is computed from, so a copied cache serves any
    tree; copied, not linked: a build appends to its logs."""
    cache = built / ".cache"
    if cache.is_dir() and not (root / ".cache").exists():
        shutil.copytree(cache, root / ".cache", ignore=shutil.ignore_patterns("stamps"))


def copy_sources(root: Path, built: Path = REPO) -> Path:
    """Copy the bundled sources/ under `root`, with the cache of the build of `built`
    (seed_cache)."""
    shutil.copytree(REPO / "sources", root / "sources")
    seed_cache(root, built)
    return root


@pytest.fixture
def copy_repo_sources(tmp_path: Path, bundled_site: Path):
    """Copy the bundled sources/ into a scratch root, so tests can change them freely; with the
    bundled build's cache (copy_sources)."""
    return lambda: copy_sources(tmp_path / "bundled")


FEW_MODELS = re.compile(r"deepseek|glm")
"""The catalogue models `copy_few_models_sources` keeps: DeepSeek's and Zhipu's (GLM), curated
too, listed by many providers, some moved and some held back as implausible."""


def cut_to_few_models(root: Path) -> None:
    """Cut each catalogue's price history under `root` to the rows of the FEW_MODELS models; a
    replay's commit log (no `model` column) is kept whole."""
    for history in (root / "sources" / "snapshots" / "prices").glob("*.csv"):
        with history.open(newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        if "model" not in rows[0]:
            continue
        model = rows[0].index("model")
        kept = [rows[0], *(r for r in rows[1:] if FEW_MODELS.search(r[model]))]
        with history.open("w", newline="", encoding="utf-8") as f:
            csv.writer(f, lineterminator="\n").writerows(kept)


@pytest.fixture
def copy_few_models_sources(tmp_path: Path, few_models_site: Path):
    """Copy the bundled sources into a scratch root with each catalogue's price history cut to
    the rows of the FEW_MODELS models (~700 of 9,100 rows): the same curated sources, editions,
    feeds and hardware, a Market, Changes and Discrepancies page, and ~120 model pages (written
    from the mkdocs shell, shell_pages.py) instead of ~1,600. For tests of a mechanism (the
    cache, linking) that would otherwise build 1,600 pages again and again. With the cache of
    `few_models_site`'s build of the same tree (seed_cache): a first build takes 0.8 s, not
    the 5 s it takes from the bundled build's cache, where everything the cut changes is cold."""
    def make() -> Path:
        root = copy_sources(tmp_path / "few-models", few_models_site)
        cut_to_few_models(root)
        return root
    return make


BUILD_DAY = __import__("datetime").date(2026, 11, 30)


def shared_build(tmp_path_factory: pytest.TempPathFactory, name: str,
                 build: Callable[[Path], None]) -> Path:
    """Return the folder `name` of this test run, made once by `build(folder)` and shared by
    the xdist workers: the first to ask builds it, under a lock the others wait on."""
    # xdist gives each worker a basetemp of its own under one folder of this run.
    run = tmp_path_factory.getbasetemp()
    shared = (run.parent if os.environ.get("PYTEST_XDIST_WORKER") else run) / name
    shared.mkdir(exist_ok=True)
    with (shared / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "built").exists():
            build(shared)
            (shared / "built").touch()
    return shared


@pytest.fixture(scope="session")
def bundled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the bundled sources, built once per test run (shared_build); read only."""
    from pipeline.orchestrate.site import build_site

    return shared_build(tmp_path_factory, "bundled-site",
                        lambda shared: build_site(REPO, shared / "public", today=BUILD_DAY)
                        ) / "public"


@pytest.fixture(scope="session")
def few_models_site(tmp_path_factory: pytest.TempPathFactory, bundled_site: Path) -> Path:
    """The root of the bundled sources cut to the FEW_MODELS models, with their site built
    once per test run in `public/` (shared_build); read only. For browser tests of the Market's
    mechanisms (its sorts, filters and calculator): 666 rows to the bundled sources' 6,460,
    which take Chromium 10 s to lay out at each load."""
    from pipeline.orchestrate.site import build_site

    def build(shared: Path) -> None:
        cut_to_few_models(copy_sources(shared))
        build_site(shared, shared / "public", today=BUILD_DAY)
    return shared_build(tmp_path_factory, "few-models-site", build)


def ecb_fixing(currency: str, day: str) -> tuple[str, float]:
    """Return (date, USD per unit of `currency`) of the last ECB fixing on or before `day`,
    read straight from the ECB's CSV (units per euro), not through the code under test."""
    best: tuple[str, float] | None = None
    with zipfile.ZipFile(package_history_path()) as z:
        with z.open(z.namelist()[0]) as raw:
            for row in csv.DictReader(io.TextIOWrapper(raw, "utf-8-sig")):
                row = {k.strip(): v.strip() for k, v in row.items() if k}
                per_euro = "1" if currency == "EUR" else row.get(currency)  # EUR: the base
                if row["Date"] <= day and per_euro not in (None, "", "N/A") and (
                        best is None or row["Date"] > best[0]):
                    best = (row["Date"], float(row["USD"]) / float(per_euro))
    assert best is not None, f"no ECB fixing of {currency} on or before {day}"
    return best


def ecb_usd_per_unit(currency: str, day: str) -> float:
    """USD per unit of `currency` at the fixing of `day` itself (see ecb_fixing)."""
    date, rate = ecb_fixing(currency, day)
    assert date == day, f"no ECB fixing on {day} (the last was {date})"
    return rate
