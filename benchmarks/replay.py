"""Time `brief ingest prices --history` (issue 49): the replay of each catalogue's whole git
history, from a clone of its bundle in ../shared/data/real/catalogue-histories/, into a scratch
copy of the bundled sources without that catalogue's history. Each run is a child process;
prints the median wall time and the peak RSS of the runs.

    python -m benchmarks.replay --runs 3
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUNDLES = REPO.parent / "shared" / "data" / "real" / "catalogue-histories"
CATALOGUES = {"genai-prices": "genai-prices.bundle", "models-dev": "models.dev.bundle"}
GOALS_S = {"genai-prices": 60, "models-dev": 180}
"""Issue 49's goals: the whole history of each in at most this many seconds."""


def one_run(catalogue: str, repo: Path, scratch: Path) -> tuple[float, int, str]:
    """Replay `repo` into a fresh copy of the sources; return (seconds, peak RSS in KiB of the
    child, its last line)."""
    root = scratch / "root"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(REPO / "sources", root / "sources")
    for suffix in (".csv", ".commits.csv", ".health.json", ".models.csv"):
        (root / "sources" / "snapshots" / "prices" / f"{catalogue}{suffix}").unlink(
            missing_ok=True)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", "prices", "--root",
                           str(root), "--only", catalogue, "--history", str(repo)],
                          capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    # ru_maxrss of the children is the largest any of them reached (KiB on Linux).
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, peak, done.stderr.strip().splitlines()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=sorted(CATALOGUES), action="append")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for catalogue in args.only or sorted(CATALOGUES):
            repo = scratch / catalogue
            subprocess.run(["git", "clone", "--quiet", str(BUNDLES / CATALOGUES[catalogue]),
                            str(repo)], check=True)
            runs = [one_run(catalogue, repo, scratch) for _ in range(args.runs)]
            seconds = [r[0] for r in runs]
            results[catalogue] = {"seconds": seconds, "median_s": statistics.median(seconds),
                                  "peak_rss_mib": max(r[1] for r in runs) / 1024,
                                  "said": runs[-1][2], "goal_s": GOALS_S[catalogue]}
            print(f"{catalogue}: median {statistics.median(seconds):.1f} s of {len(runs)} "
                  f"(goal ≤ {GOALS_S[catalogue]} s), peak RSS "
                  f"{results[catalogue]['peak_rss_mib']:.0f} MiB; {runs[-1][2]}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
