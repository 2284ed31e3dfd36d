"""`python -m benchmarks.reuse --out FILE [--scales 1,year] [--runs 3]`: what each reuse saves.

A build reuses the whole output (the stamp), parsed files, each stage's values in the store
(compose, render, charts, publish) and jinja2's compiled templates (cache/stamp.py REUSES). For
each scale a tree is generated (benchmarks/generate.py) and built cold; then each of the builds
a reuse serves (nothing changed, a new edition, a changed price) is timed from that warm state
with every reuse on, and again with each reuse turned off in turn (`BRIEF_REUSE_OFF`). A reuse
is worth its code where turning it off makes one of those builds more than 5 % slower (issue
38); the table gives each one's share.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
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
from benchmarks.run import _env, build_cmd, timed

REUSES = ("stamp", "load", "compose", "render", "charts", "publish", "bytecode")
"""As cache/stamp.py names them (not imported: this times the checkout on PYTHONPATH)."""


def _new_edition(root: Path, scale: Scale) -> str:
    return add_edition(root, scale).isoformat()


def _changed_price(root: Path, scale: Scale) -> str:
    change_one_price(root)
    return last_day(scale).isoformat()


CHANGES: dict[str, Callable[[Path, Scale], str]] = {
    "new_edition": _new_edition, "changed_price": _changed_price}
"""Each change a reuse serves, made to a copy of the warm tree; returns the day to build."""


def measure(scale: Scale, runs: int, work: Path, say) -> dict[str, dict[str, list[float]]]:
    """Return the wall seconds of each build (by name) with each reuse off ("" for none)."""
    generated = work / f"scale-{scale.name}"
    generate(scale, generated)
    warm = work / f"warm-{scale.name}"
    shutil.rmtree(warm, ignore_errors=True)
    shutil.copytree(generated, warm)
    day = last_day(scale).isoformat()
    timed(build_cmd(warm, day), _env())
    seconds: dict[str, dict[str, list[float]]] = {"unchanged": {}, **{c: {} for c in CHANGES}}
    root = work / f"build-{scale.name}"
    for i in range(runs):
        # Nothing changed: in place (the stamp knows the tree by its files' inodes), each reuse
        # off in turn; such a build keeps what it computed, the same values as before.
        for off in ("", *REUSES):
            say(f"  [{scale.name}] run {i + 1}/{runs} unchanged off={off or '-'}")
            run = timed(build_cmd(warm, day), _env(BRIEF_REUSE_OFF=off))
            seconds["unchanged"].setdefault(off, []).append(run.seconds)
        for build, change in CHANGES.items():
            for off in ("", *REUSES[1:]):  # the stamp serves only a build with nothing to do
                # A copy of the warm tree: the output's data files are read and compared once
                # (their inodes are new), alike in every variant.
                shutil.rmtree(root, ignore_errors=True)
                shutil.copytree(warm, root, symlinks=True)
                try:
                    today = change(root, scale)
                except KindNotAvailable:
                    continue
                say(f"  [{scale.name}] run {i + 1}/{runs} {build} off={off or '-'}")
                run = timed(build_cmd(root, today), _env(BRIEF_REUSE_OFF=off))
                seconds[build].setdefault(off, []).append(run.seconds)
    shutil.rmtree(root, ignore_errors=True)
    return seconds


def table(results: dict[str, dict[str, dict[str, list[float]]]]) -> str:
    """Return, per scale and build, the median with every reuse on and each reuse's share: how
    much slower the build is with it off."""
    lines = [f"{'scale':>8} {'build':<14} {'reuse off':<10} {'median s':>9} {'saves':>8}"]
    for scale, builds in results.items():
        for build, by_off in builds.items():
            if "" not in by_off:
                continue
            base = statistics.median(by_off[""])
            lines.append(f"{scale:>8} {build:<14} {'(none)':<10} {base:9.3f}")
            for off, runs in by_off.items():
                if off:
                    median = statistics.median(runs)
                    lines.append(f"{scale:>8} {build:<14} {off:<10} {median:9.3f} "
                                 f"{(median - base) / median:8.1%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reuse",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="Write the results as JSON here.")
    parser.add_argument("--scales", default="1,year", help="As benchmarks.run takes them.")
    parser.add_argument("--runs", type=int, default=3, help="Runs per measurement (median).")
    args = parser.parse_args(argv)
    scales = [parse_scale(s.strip()) for s in args.scales.split(",") if s.strip()]

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    results = {}
    with tempfile.TemporaryDirectory(prefix="brief-reuse-") as tmp:
        for scale in scales:
            say(f"scale {scale.name}: generating and building")
            results[scale.name] = measure(scale, args.runs, Path(tmp), say)
    print(table(results))
    args.out.write_text(json.dumps({"python": sys.version.split()[0], "runs": args.runs,
                                    "scales": results}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
