"""Mutation testing of the modules that decide a figure or a page's safety (`make mutate`).

mutmut (configured under [tool.mutmut] in pyproject.toml) copies the package to mutants/, makes one
small wrong change at a time inside a function and runs the tests that cover that function: a test
must fail for each change, or the change "survived". This script runs it, then writes
scripts/mutation-results.md: per module the mutants made, killed, survived, not covered, and the
kill ratio; every survivor with its file, line and change; the survivors we judged equivalent (the
change cannot alter any output) listed with why, from scripts/mutation-equivalents.toml.

    .venv/bin/python scripts/mutate.py [--max-children N] [--report-only] [mutant-name-glob ...]

--report-only rewrites the report from the last run's results. Not part of `make test`: a full run
takes tens of minutes. Results are kept in mutants/ between runs; mutmut re-runs only the mutants of
functions whose code or tests changed.
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import os
import subprocess
import sys
import time
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EQUIVALENTS = REPO / "scripts" / "mutation-equivalents.toml"
REPORT = REPO / "scripts" / "mutation-results.md"
LOG = REPO / "mutants" / "run.log"
MAX_FRAMES = 5
"""A test judges a function it reaches through at most this many frames of the package."""
WHOLE_BUILD = ("orchestrate", "site.py")
"""The module whose `build_site` a whole build runs through: it reaches nearly every function
within MAX_FRAMES (the pipeline is shallow), in seconds, and would be run for every survivor."""
JUDGED_BY_BUILDS = "pipeline.publish."
"""What a whole build judges: the swap into public/, which only a build exercises for real..."""
SWAP_TESTS = ("tests", "test_build.py")
"""...in the tests of the swap (kill points, the exchange and its fallback); the other tests that
build a site check pages, not the swap, and judge nothing through the build."""

UNJUDGED = ("not checked", "check was interrupted by user", "skipped")
"""Statuses of mutants no test run judged."""
CRASHED = "segfault"
"""mutmut's status for a test run that a signal ended, whichever signal: the mutant made the
tests' process die (a build that SIGKILLs itself at every kill point), so no test passed with
it. Counted as detected, and listed."""


@dataclass(frozen=True)
class Mutant:
    name: str  # mutmut's: pipeline.tables.cost.x_blend__mutmut_3
    module: str  # pipeline/tables/cost.py
    status: str


def run_mutmut(max_children: int, names: list[str]) -> int:
    """Run mutmut in a child process of this script (see `_mutmut_child`), its output to LOG."""
    env = dict(os.environ)
    real = REPO.parent / "shared" / "data" / "real"
    if real.is_dir():
        env.setdefault("BRIEF_REAL_DATA", str(real))
    LOG.parent.mkdir(exist_ok=True)
    print(f"mutmut run (log: {LOG.relative_to(REPO)}) …", flush=True)
    args = [sys.executable, __file__, "--mutmut-child", "--max-children", str(max_children), *names]
    with LOG.open("w") as log:
        return subprocess.run(args, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT).returncode


def _mutmut_child(max_children: int, names: list[str]) -> int:
    _limit_tracing_depth()
    _fast_tests_first()
    from mutmut.__main__ import cli

    try:
        cli(["run", "--max-children", str(max_children), *names])
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def _limit_tracing_depth() -> None:
    """Count a test as covering a function only within MAX_FRAMES of our frames, and a whole
    build as covering only the swap (JUDGED_BY_BUILDS), in the swap's tests (SWAP_TESTS).

    mutmut's own `max_stack_depth` resolves every frame's file and fails on code without one
    (`<string>` of a generated __init__, `<frozen runpy>` in a child `brief`); this counts by path.
    """
    import mutmut.mutation.trampoline as trampoline
    import mutmut.stats as stats

    ours = str(REPO / "mutants" / "pipeline") + os.sep
    build = ours + os.sep.join(WHOLE_BUILD)
    swap_tests = str(REPO / "mutants" / os.path.join(*SWAP_TESTS))
    record = stats.record_trampoline_hit

    def record_near_hits(name: str, caller: str | None = None) -> None:
        frame, depth, in_build, swap_test = inspect.currentframe(), 0, False, False
        while frame is not None and "_pytest" not in frame.f_code.co_filename:
            file = frame.f_code.co_filename
            depth += file.startswith(ours)
            in_build = in_build or file == build
            swap_test = swap_test or file == swap_tests
            frame = frame.f_back
        if depth <= MAX_FRAMES and (not in_build or swap_test and name.startswith(JUDGED_BY_BUILDS)):
            record(name, caller)

    stats.record_trampoline_hit = trampoline.record_trampoline_hit = record_near_hits


def _fast_tests_first() -> None:
    """Run a mutant's tests fastest first (mutmut hands pytest a set, in no order): `-x` stops
    at the first failure, so a killed mutant rarely waits for a slow test."""
    from mutmut.runners.harness import PytestRunner
    from mutmut.state import state

    args_of = PytestRunner._pytest_args_regular_run

    def fastest_first(self, tests):
        durations = state().duration_by_test
        return args_of(self, sorted(tests, key=lambda test: (durations.get(test, 0.0), test)))

    PytestRunner._pytest_args_regular_run = fastest_first


def load_results() -> list[Mutant]:
    # mutmut's own reader of its result files, so the statuses are the ones `mutmut results` prints.
    from mutmut.__main__ import SourceFileMutationData, status_by_exit_code, walk_mutatable_files

    os.chdir(REPO)
    mutants = []
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        for name, code in data.exit_code_by_key.items():
            mutants.append(Mutant(name, str(path), status_by_exit_code[code]))
    return mutants


def change_of(mutant: Mutant) -> tuple[int, str, str]:
    """The mutated line: its number in the original file, the line before and after."""
    original = (REPO / mutant.module).read_text().splitlines()
    from mutmut.__main__ import get_diff_for_mutant

    diff = get_diff_for_mutant(mutant.name, path=mutant.module).splitlines()
    before = [line[1:] for line in diff if line.startswith("-") and not line.startswith("---")]
    after = [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")]
    line_no = 0
    if before:
        matches = difflib.get_close_matches(before[0], original, n=1, cutoff=1.0)
        if matches:
            line_no = original.index(matches[0]) + 1
    return line_no, "\n".join(before).strip(), "\n".join(after).strip()


def equivalents() -> list[dict]:
    if not EQUIVALENTS.exists():
        return []
    return tomllib.loads(EQUIVALENTS.read_text()).get("equivalent", [])


def matching_equivalent(mutant: Mutant, before: str, after: str, known: list[dict]) -> dict | None:
    for entry in known:
        if (entry["module"] == mutant.module and entry["before"].strip() == before
                and entry["after"].strip() == after):
            return entry
    return None


def report(mutants: list[Mutant], wall_s: float | None, names: list[str] | None = None,
           earlier: str = "") -> str:
    """Return mutation-results.md. After a run of only some mutants (`names`), the wall time of
    the full run stays as `earlier` (the report it replaces) gave it, and that run's follows."""
    known = equivalents()
    rows, survivors, judged, crashed = [], [], [], []
    by_module: dict[str, Counter] = {}
    for mutant in mutants:
        counts = by_module.setdefault(mutant.module, Counter())
        counts["made"] += 1
        status = mutant.status
        if status in ("survived", "no tests", "suspicious"):
            line_no, before, after = change_of(mutant)
            entry = matching_equivalent(mutant, before, after, known)
            if entry is not None:
                counts["equivalent"] += 1
                judged.append((mutant, line_no, before, after, entry["why"]))
                continue
            survivors.append((mutant, line_no, before, after))
        if status == CRASHED:
            crashed.append((mutant, *change_of(mutant)))
        counts["not checked" if status in UNJUDGED else status] += 1
    total = Counter()
    for module in sorted(by_module):
        counts = by_module[module]
        total.update(counts)
        rows.append(_row(module, counts))
    lines = ["# Mutation testing: results of `make mutate`", ""]
    kept = [line for line in earlier.splitlines()
            if line.startswith(("Wall time of the run", "Re-run of the mutants"))]
    if names and wall_s is not None:
        lines += [*kept, f"Re-run of the mutants matching {' '.join(names)} afterwards: "
                  f"{wall_s / 60:.1f} min.", ""]
    elif wall_s is not None:
        lines += [f"Wall time of the run: {wall_s / 60:.1f} min.", ""]
    elif kept:
        lines += [*kept, ""]
    lines += ["Kill ratio = (killed + timed out + crashed) / (made − equivalent − not checked).",
              "Mutants a run did not reach (interrupted, or left for a later run) are not checked and"
              " count in no ratio.", "",
              "| module | made | killed | timed out | crashed | survived | not covered | equivalent "
              "| not checked | kill ratio |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|", *rows, _row("**all**", total), ""]
    lines += ["## Survivors", ""]
    for mutant, line_no, before, after in sorted(survivors, key=lambda s: (s[0].module, s[1])):
        lines.append(f"- `{mutant.module}:{line_no}` ({mutant.status}, `{mutant.name}`): "
                     f"`{before}` → `{after}`")
    if not survivors:
        lines.append("None.")
    if crashed:
        lines += ["", "## Crashed (the tests' process died: detected)", ""]
        lines += [f"- `{mutant.module}:{line_no}` (`{mutant.name}`): `{before}` → `{after}`"
                  for mutant, line_no, before, after in sorted(crashed, key=lambda c: (c[0].module, c[1]))]
    lines += ["", "## Judged equivalent (scripts/mutation-equivalents.toml)", ""]
    for mutant, line_no, before, after, why in sorted(judged, key=lambda s: (s[0].module, s[1])):
        lines.append(f"- `{mutant.module}:{line_no}`: `{before}` → `{after}`: {why}")
    return "\n".join(lines) + "\n"


def _row(module: str, counts: Counter) -> str:
    detected = counts["killed"] + counts["timeout"] + counts[CRASHED]
    judged = counts["made"] - counts["equivalent"] - sum(counts[k] for k in UNJUDGED)
    ratio = f"{100 * detected / judged:.1f} %" if judged else "–"
    kinds = ("made", "killed", "timeout", CRASHED, "survived", "no tests", "equivalent",
             "not checked")
    cells = [module, *(counts[kind] for kind in kinds), ratio]
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--mutmut-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", help="mutant names or globs to (re)run; all by default")
    args = parser.parse_args()
    if args.mutmut_child:
        return _mutmut_child(args.max_children, args.names)
    wall_s = None
    if not args.report_only:
        started = time.monotonic()
        code = run_mutmut(args.max_children, args.names)
        wall_s = time.monotonic() - started
        if code != 0:
            print(f"mutmut run exited with {code}; its log: {LOG}", file=sys.stderr)
            return code
    earlier = REPORT.read_text() if REPORT.exists() else ""
    REPORT.write_text(report(load_results(), wall_s, args.names, earlier))
    print(REPORT.read_text().split("## Survivors")[0].rstrip())
    print(f"\nWritten: {REPORT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
