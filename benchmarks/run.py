"""`python -m benchmarks.run --out FILE [--scales 1,year] [--runs 3]`: time builds at each scale.

For each scale a synthetic sources tree is generated in a scratch folder (benchmarks/generate.py)
and built by `brief build` in a child process, so wall time includes start-up and imports, and the
child's peak RSS comes from `os.wait4`. Measured, each as median, min and max of the runs:

- cold: no cache, no previous output;
- unchanged: the same build again;
- new edition: after adding the next day's edition and its entries;
- changed price: after changing one price (skipped until the prices lane lands);
- template changed: after a Jinja comment is added to the edition page's template of the
  checkout being timed (restored right after): what an edit to a template costs;
- plain mkdocs: `mkdocs build` alone, same mkdocs.yml, of the Markdown our build generated
  (dumped once through BRIEF_KEEP_DOCS), into a fresh folder: the renderer alone;
- floor: loading the sources, composing and rendering the templates alone, in a child process,
  every chart drawn in it;
- floor undrawn: the same with no chart drawn, so floor minus it is matplotlib's share.

Each run also records the CPU seconds of its process and the workers it waited for (user +
system): on two cores a build cannot take less wall time than half of that.

This prints and writes what it measured; the goals of issue 8 are ratios read off the table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.generate import (
    KindNotAvailable,
    Scale,
    add_edition,
    change_one_price,
    generate,
    last_day,
    parse_scale,
)

REPO = Path(__file__).resolve().parents[1]
METRICS = ("cold", "unchanged", "new_edition", "changed_price", "template_changed",
           "plain_mkdocs", "floor", "floor_undrawn")
TEMPLATE = Path("templates") / "briefing.md.j2"
"""The template the template-changed build edits (a comment: the site stays the same)."""


@dataclass
class Run:
    """One child process: wall seconds, peak RSS in MiB, and CPU seconds (its own and those of
    the processes it waited for: the chart workers)."""

    seconds: float
    rss_mib: float
    cpu_s: float = 0.0


@dataclass
class ScaleResult:
    scale: str
    editions: int = 0
    site_bytes: int = 0
    skipped: list[str] = field(default_factory=list)
    runs: dict[str, list[Run]] = field(default_factory=dict)

    def summary(self) -> dict:
        out: dict = {"editions": self.editions, "site_bytes": self.site_bytes,
                     "skipped": self.skipped, "metrics": {}}
        for name in METRICS:
            runs = self.runs.get(name)
            if not runs:
                out["metrics"][name] = None
                continue
            secs = [r.seconds for r in runs]
            out["metrics"][name] = {
                "median_s": statistics.median(secs), "min_s": min(secs), "max_s": max(secs),
                "peak_rss_mib": max(r.rss_mib for r in runs), "runs_s": secs,
                "median_cpu_s": statistics.median(r.cpu_s for r in runs)}
        return out


def _env(code: Path = REPO, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(code), "NO_MKDOCS_2_WARNING": "1", **extra}
    env.pop("BRIEF_KEEP_DOCS", None)
    env.update(extra)
    return env


def timed(cmd: list[str], env: dict[str, str], cwd: Path = REPO) -> Run:
    """Run `cmd` to completion; return its wall time and the child's own peak RSS."""
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=log)
        # os.wait4 gives this child's rusage, not the sum over every child so far.
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            log.seek(0)
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{log.read().decode(errors='replace')}")
    # ru_maxrss is in KiB on Linux; the times count the children the child waited for too.
    return Run(seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime)


def build_cmd(root: Path, today: str) -> list[str]:
    """Return the command that builds `root` as of `today` (run with the code on PYTHONPATH)."""
    return [sys.executable, "-m", "pipeline.cli", "build", "--root", str(root),
            "--out", str(root / "public"), "--today", today]


def floor(root: str, today: str, draw: bool = True) -> None:
    """Load, compose and render templates alone (what our build does before mkdocs), drawing
    every chart in this process; with `draw=False`, no chart is drawn (`floor_undrawn`), which
    tells matplotlib's share of the floor from the rest."""
    import datetime as dt

    from pipeline.compose.edition import compose_editions
    from pipeline.load.sources import load_sources
    from pipeline.orchestrate.charts import ChartCache
    from pipeline.orchestrate.files import site_files
    from pipeline.render.chart_image import ready

    class Undrawn:
        def submit(self, fn, *args, then=None):
            return ready(b"")  # never asked for: the floor writes no file

    sources = load_sources(Path(root))
    editions = compose_editions(sources, sources.series.edition_dates(dt.date.fromisoformat(today)))
    site_files(sources, editions, charts=None if draw else ChartCache(drawer=Undrawn()))


def dump_docs(root: Path, today: str, keep: Path) -> None:
    """Build once with BRIEF_KEEP_DOCS, and lay out a plain mkdocs project of its Markdown."""
    timed(build_cmd(root, today), _env(BRIEF_CACHE="off", BRIEF_KEEP_DOCS=str(keep)))
    shutil.copy(REPO / "site" / "mkdocs.yml", keep / "mkdocs.yml")
    shutil.copytree(REPO / "site" / "overrides", keep / "overrides")


def tree_bytes(top: Path) -> int:
    return sum(p.stat().st_size for p in top.rglob("*") if p.is_file())


def measure(scale: Scale, runs: int, work: Path, say,
            codes: dict[str, Path] | None = None, floors: bool = True) -> list[ScaleResult]:
    """Generate the tree of `scale` and time every kind of build `runs` times, for each checkout
    of `codes` (label → its folder; this one by default) in turn within each run, each on a fresh
    copy of the same generated tree, so a slower moment of the machine hits both alike."""
    codes = codes or {"": REPO}
    results = {label: ScaleResult(scale.name + (f"@{label}" if label else ""),
                                  runs={m: [] for m in METRICS}) for label in codes}
    generated = work / f"scale-{scale.name}"
    skipped = generate(scale, generated)
    for kind in skipped:
        say(f"  [{scale.name}] skipped {kind}: no generator for its format yet")
    first_day = last_day(scale).isoformat()
    keep = work / f"docs-{scale.name}"
    dump_docs(generated, first_day, keep)
    epoch = str(int(time.mktime(time.strptime(first_day, "%Y-%m-%d"))))
    root = work / f"build-{scale.name}"
    for i in range(runs):
        for label, code in codes.items():
            result = results[label]
            result.skipped = skipped
            say(f"  [{result.scale}] run {i + 1}/{runs}")
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(generated, root)
            env = _env(code)
            today = first_day
            result.runs["cold"].append(timed(build_cmd(root, today), env, cwd=code))
            result.runs["unchanged"].append(timed(build_cmd(root, today), env, cwd=code))
            today = add_edition(root, scale).isoformat()
            result.runs["new_edition"].append(timed(build_cmd(root, today), env, cwd=code))
            try:
                change_one_price(root)
                result.runs["changed_price"].append(timed(build_cmd(root, today), env, cwd=code))
            except KindNotAvailable:
                pass
            template = code / TEMPLATE
            original = template.read_bytes()
            try:
                template.write_bytes(original + b"{# benchmarks.run: a changed template #}\n")
                result.runs["template_changed"].append(
                    timed(build_cmd(root, today), env, cwd=code))
            finally:
                template.write_bytes(original)
            site = work / f"plain-{scale.name}-{i}"
            result.runs["plain_mkdocs"].append(timed(
                [sys.executable, "-m", "mkdocs", "build", "-q", "--strict", "-f",
                 str(keep / "mkdocs.yml"), "-d", str(site)], _env(code, SOURCE_DATE_EPOCH=epoch)))
            shutil.rmtree(site, ignore_errors=True)
            for name, draw in (("floor", True), ("floor_undrawn", False)) if floors else ():
                try:
                    result.runs[name].append(timed(
                        [sys.executable, "-c", f"from benchmarks.run import floor; "
                         f"floor({str(root)!r}, {today!r}{'' if draw else ', draw=False'})"],
                        env, cwd=code))
                except RuntimeError:
                    if draw:
                        raise
                    # An older checkout's floor() draws always: that row stays empty for it.
            result.editions = len(list((root / "public" / "briefings").glob("*.txt")))
            result.site_bytes = tree_bytes(root / "public")
    if "changed_price" in skipped:
        say(f"  [{scale.name}] skipped the changed-price rebuild: no prices format yet")
    return list(results.values())


def table(results: list[ScaleResult]) -> str:
    """Return the results as a fixed-width table, with each build against plain mkdocs."""
    lines = [f"{'scale':>10} {'build':<14} {'median s':>9} {'min s':>7} {'max s':>7} "
             f"{'× mkdocs':>8} {'RSS MiB':>8} {'CPU s':>7}"]
    for r in results:
        summary = r.summary()["metrics"]
        plain = summary["plain_mkdocs"]["median_s"] if summary["plain_mkdocs"] else None
        for name in METRICS:
            m = summary[name]
            if m is None:
                lines.append(f"{r.scale:>10} {name:<14} {'skipped':>9}")
                continue
            ratio = f"{m['median_s'] / plain:8.3f}" if plain else f"{'':>8}"
            lines.append(f"{r.scale:>10} {name:<14} {m['median_s']:9.3f} {m['min_s']:7.3f} "
                         f"{m['max_s']:7.3f} {ratio} {m['peak_rss_mib']:8.1f} "
                         f"{m['median_cpu_s']:7.2f}")
        lines.append(f"{r.scale:>10} {r.editions} editions, site {r.site_bytes / 2**20:.1f} MiB")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="Write the results as JSON here.")
    parser.add_argument("--scales", default="1,year",
                        help="Comma-separated: 1 (bundled), year (365 daily editions), <N>d.")
    parser.add_argument("--runs", type=int, default=3, help="Runs per measurement (median).")
    parser.add_argument("--against", type=Path, default=None, metavar="CHECKOUT",
                        help="Another checkout (say a `git worktree` of an older commit) to time "
                             "in turn with this one, on the same trees.")
    parser.add_argument("--no-floor", action="store_true",
                        help="Leave out the floor rows (no longer a goal: issue 38), a third of "
                             "the time at year scale.")
    parser.add_argument("--keep-trees", type=Path, default=None, metavar="DIR",
                        help="Generate the trees here and keep them (to build and compare).")
    args = parser.parse_args(argv)
    try:
        scales = [parse_scale(s.strip()) for s in args.scales.split(",") if s.strip()]
    except ValueError as err:
        parser.error(str(err))

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    results = []
    codes = {"this": REPO, "other": args.against.resolve()} if args.against else None
    with tempfile.TemporaryDirectory(prefix="brief-bench-") as tmp:
        work = args.keep_trees.resolve() if args.keep_trees else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for scale in scales:
            say(f"scale {scale.name}: generating and building")
            results += measure(scale, args.runs, work, say, codes, floors=not args.no_floor)
    print(table(results))
    args.out.write_text(json.dumps({
        "python": sys.version.split()[0], "runs": args.runs,
        "scales": {r.scale: r.summary() for r in results}}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
