"""`python -m benchmarks.serve --out FILE [--scales 1,year] [--runs 5] [--tree DIR]`: how long from a
saved edit of one entry to the reloaded page in `brief serve` (issue 40).

For each scale a tree is generated (benchmarks/generate.py; `1` is a copy of the bundled sources),
or `--tree DIR` is copied (say a year tree built before, with its `.cache/`, so the first build
is not a cold one). `brief serve` runs on it in a child process (the code on PYTHONPATH, as
benchmarks/run.py builds); once it serves, headless Chromium opens the edition page of one
entry, and each run rewrites that entry's headline and times from the saved file to the moment
the page, reloaded by itself, shows the new headline. The next run starts once the server said
the build is done.

With `--plain-mkdocs`, each run also times `mkdocs build` alone of the same pages (as
benchmarks/run.py's `plain_mkdocs` row: the Markdown our build generated, dumped once), right
after the edit, so a loaded machine slows both alike and the ratio stays meaningful.

Issue 40's goals: a median ≤ 1 s on the bundled sources, and ≤ 0.15× a plain mkdocs build of the
year's pages.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import queue
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.generate import generate, parse_scale
from benchmarks.run import REPO, _env, dump_docs, timed

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
PLAIN_HEADLINE = re.compile(r"^headline: (['\"]?)([A-Za-z0-9][A-Za-z0-9 ()#-]*)\1$", re.MULTILINE)
"""A headline (quoted or not: the year tree's are) of characters that Markdown and HTML leave as
they are, so the page shows it as written."""
WAIT_S = 3600.0
"""The longest a build may take before the benchmark gives up (a cold year takes minutes)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """`brief serve` of a tree in a child process, with what it prints, line by line."""

    def __init__(self, root: Path, code: Path = REPO) -> None:
        self.port = _free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pipeline.cli", "serve", "--root", str(root), "--port",
             str(self.port)], cwd=code, env=_env(code), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def printed(self, wanted: str) -> str:
        """Wait for a line that starts with `wanted` and return it."""
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"`brief serve` printed no {wanted!r} "
                                   f"(exit {self.process.poll()})") from None
            if line.startswith(wanted):
                return line
            if "failed" in line or line.startswith(("error", "Traceback")):
                raise RuntimeError(f"`brief serve`: {line.rstrip()}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def edited_entry(root: Path) -> tuple[Path, re.Match, str]:
    """Return an entry with a plain headline, the line of its headline and the edition page (a
    path under the site) that shows it; the newest such entry."""
    pages = sorted((root / "public" / "briefings").glob("*/index.html"), reverse=True)
    texts = [(page, page.read_text("utf-8")) for page in pages]
    for entry in sorted((root / "sources" / "entries").rglob("*.yaml"), reverse=True):
        found = PLAIN_HEADLINE.search(entry.read_text("utf-8"))
        if found is None:
            continue
        for page, text in texts:
            if f">{found[2]}<" in text:
                return entry, found, page.parent.relative_to(root / "public").as_posix() + "/"
    raise RuntimeError(f"no entry of {root} with a plain headline shown on an edition page")


def plain_mkdocs_seconds(keep: Path, epoch: str) -> float:
    """Time `mkdocs build` alone of the pages dumped in `keep` (benchmarks.run.dump_docs)."""
    with tempfile.TemporaryDirectory(prefix="brief-plain-") as site:
        return timed([sys.executable, "-m", "mkdocs", "build", "-q", "--strict", "-f",
                      str(keep / "mkdocs.yml"), "-d", site], _env(SOURCE_DATE_EPOCH=epoch)).seconds


def measure(root: Path, runs: int, say, keep: Path | None = None) -> dict[str, list[float]]:
    """Return the seconds from each saved edit of one entry to its reloaded page (`reload`), and
    with `keep` (the dumped pages of the tree) those of a plain mkdocs build of them after each
    (`plain_mkdocs`)."""
    from playwright.sync_api import sync_playwright

    epoch = str(int(time.time()))
    seconds: dict[str, list[float]] = {"reload": [], "plain_mkdocs": []}
    served = Served(root)
    try:
        say(f"  first build of {root} (brief serve)")
        served.printed("serving ")
        entry, found, page_path = edited_entry(root)
        quote, headline = found[1], found[2]
        original = entry.read_text("utf-8")
        say(f"  editing {entry.relative_to(root)}, shown on /{page_path}")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{served.port}/{page_path}")
            page.get_by_text(headline, exact=True).first.wait_for()
            for run in range(1, runs + 1):
                new = f"{headline} edited {run}"
                text = original.replace(found[0], f"headline: {quote}{new}{quote}", 1)
                start = time.perf_counter()
                entry.write_text(text, encoding="utf-8")
                page.get_by_text(new, exact=True).first.wait_for(timeout=WAIT_S * 1000)
                seconds["reload"].append(time.perf_counter() - start)
                built = served.printed("built ")
                say(f"  run {run}/{runs}: {seconds['reload'][-1]:.3f} s to the reloaded page "
                    f"({built.strip()})")
                if keep is not None:
                    seconds["plain_mkdocs"].append(plain_mkdocs_seconds(keep, epoch))
                    say(f"  run {run}/{runs}: plain mkdocs {seconds['plain_mkdocs'][-1]:.3f} s")
            browser.close()
        entry.write_text(original, encoding="utf-8")
    finally:
        served.stop()
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.serve",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="Write the results as JSON here.")
    parser.add_argument("--scales", default="1",
                        help="Comma-separated, as benchmarks.run takes them (1, year, <N>d).")
    parser.add_argument("--tree", type=Path, default=None, metavar="DIR",
                        help="Time a copy of this tree instead of generating one (its .cache/ "
                             "too, if any); --scales then only names it.")
    parser.add_argument("--runs", type=int, default=5, help="Edits per tree (median).")
    parser.add_argument("--plain-mkdocs", action="store_true",
                        help="Also time a plain mkdocs build of the same pages after each edit.")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        parser.error(f"{CHROMIUM} is missing: the benchmark times the page in Chromium")

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    results = {}
    with tempfile.TemporaryDirectory(prefix="brief-serve-") as tmp:
        for name in [s.strip() for s in args.scales.split(",") if s.strip()]:
            root = Path(tmp) / f"tree-{name}"
            if args.tree is not None:
                say(f"scale {name}: copying {args.tree}")
                shutil.copytree(args.tree, root, symlinks=True)
            else:
                say(f"scale {name}: generating")
                generate(parse_scale(name), root)
            keep = None
            if args.plain_mkdocs:
                say(f"scale {name}: dumping its pages for plain mkdocs (a build without cache)")
                aside = Path(tmp) / f"aside-{name}"
                shutil.copytree(root / "sources", aside / "sources")
                keep = Path(tmp) / f"docs-{name}"
                dump_docs(aside, dt.date.today().isoformat(), keep)
                shutil.rmtree(aside)
            seconds = measure(root, args.runs, say, keep)
            results[name] = {kind: {"runs_s": runs, "median_s": statistics.median(runs),
                                    "min_s": min(runs), "max_s": max(runs)}
                             for kind, runs in seconds.items() if runs}
            shutil.rmtree(root, ignore_errors=True)
    print(f"{'scale':>8} {'measured':<13} {'median s':>9} {'min s':>7} {'max s':>7} {'× mkdocs':>8}")
    for name, kinds in results.items():
        plain = kinds.get("plain_mkdocs", {}).get("median_s")
        for kind, r in kinds.items():
            ratio = f"{r['median_s'] / plain:8.3f}" if plain else ""
            print(f"{name:>8} {kind:<13} {r['median_s']:9.3f} {r['min_s']:7.3f} "
                  f"{r['max_s']:7.3f} {ratio}")
    args.out.write_text(json.dumps({"python": sys.version.split()[0], "runs": args.runs,
                                    "cpus": os.cpu_count(), "scales": results}, indent=2) + "\n",
                        encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
