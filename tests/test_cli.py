"""The command line: exit codes, help for every command, every command documented in the README."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import REPO, write_entry

from pipeline.cli.main import main


def all_commands(group: click.Group, prefix: str = "brief") -> dict[str, click.Command]:
    # Through click's own listing, so commands the group imports lazily are found too.
    ctx = click.Context(group)
    found = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, f"{prefix} {name} is listed but cannot be loaded"
        found[f"{prefix} {name}"] = command
        if isinstance(command, click.Group):
            found.update(all_commands(command, f"{prefix} {name}"))
    return found


COMMANDS = all_commands(main)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_documented_and_helped(name: str) -> None:
    readme = (REPO / "README.md").read_text()
    assert f"`{name}" in readme, f"{name} is not in README.md"
    assert COMMANDS[name].help, f"{name} has no help text"
    args = name.split()[1:] + ["--help"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0 and "Usage:" in result.output


def test_an_unchanged_build_imports_no_models_or_libraries(tiny: Path) -> None:
    # An unchanged site is the most common build (the workflow runs on a schedule); it checks the
    # stamp and stops, so it must not import the source models, mkdocs, pydantic or httpx.
    CliRunner().invoke(main, ["build", "--root", str(tiny), "--today", "2026-09-12"])
    code = ("import sys; from click.testing import CliRunner; from pipeline.cli.main import main; "
            f"r = CliRunner().invoke(main, ['build', '--root', {str(tiny)!r}, "
            "'--today', '2026-09-12']); assert r.exit_code == 0, r.output; "
            "print(sorted(m for m in ('pydantic', 'mkdocs', 'httpx', 'yaml', 'matplotlib', "
            "'pipeline.models') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, check=False,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_check_ok_and_failing(tiny: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(main, ["check", "--root", str(tiny)])
    assert ok.exit_code == 0 and "0 problems; 6 entries checked, 1 warning(s)." in ok.output
    write_entry(tiny, "2026-09-10", "bad", body="date: 2026-09-10\n")
    bad = runner.invoke(main, ["check", "--root", str(tiny)])
    assert bad.exit_code == 1
    assert "4 problem(s) found." in bad.output


def test_check_warns_of_an_entry_after_the_last_edition(tiny: Path) -> None:
    # Before issue 21 this passed with "0 problems" and the entry was in no edition.
    runner = CliRunner()
    ok = runner.invoke(main, ["check", "--root", str(tiny), "--format", "github"])
    assert ok.exit_code == 0
    assert ok.output.splitlines()[0] == (
        "::warning file=sources/entries/2026/09-13-too-late.yaml,line=1,title=date::2026-09-13 is "
        "after the last edition (2026-09-12), so this entry will appear in no edition; add an "
        "edition date on or after 2026-09-13 to `dates:` in sources/editions.yaml")
    strict = runner.invoke(main, ["check", "--root", str(tiny), "--strict"])
    assert strict.exit_code == 1 and strict.output.endswith("1 problem(s) found.\n")
    build = runner.invoke(main, ["build", "--root", str(tiny), "--strict", "--today", "2026-11-30"])
    assert build.exit_code == 1 and "will appear in no edition" in build.output
    assert not (tiny / "public").exists()


def test_check_prints_path_line_col_as_compilers_do(tiny: Path) -> None:
    # Issue 40: `path:line:col: field: message`, the form editors' terminals jump to. The
    # column is the YAML parser's for broken YAML, the line's start (1) for a field.
    write_entry(tiny, "2026-09-10", "bad", body=(
        "# yaml-language-server: $schema=../../../schemas/entry.schema.json\n"
        "date: 2026-09-10\nsection: top\nheadlin: H\nsummary: S\n"
        "links:\n  - url: www.example.org/a\n    publisher: X\n"))
    write_entry(tiny, "2026-09-11", "broken", body='date: 2026-09-11\nheadline: "H\n')
    result = CliRunner().invoke(main, ["check", "--root", str(tiny)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "sources/entries/2026/09-10-bad.yaml:2:1: headline: required field is missing",
        "sources/entries/2026/09-10-bad.yaml:4:1: headlin: unknown key; did you mean `headline`?",
        "sources/entries/2026/09-10-bad.yaml:7:1: links.0.url: Input should be a valid URL, "
        "relative URL without a base (got 'www.example.org/a')",
        "sources/entries/2026/09-11-broken.yaml:3:1: YAML syntax error at line 3, column 1: "
        "found unexpected end of stream",
        "4 problem(s) found.",
    ]
    github = CliRunner().invoke(main, ["check", "--root", str(tiny), "--format", "github"])
    assert ("::error file=sources/entries/2026/09-11-broken.yaml,line=3,col=1::YAML syntax "
            "error at line 3, column 1: found unexpected end of stream") in github.stdout


def test_a_problem_with_no_line_names_only_its_file(tiny: Path) -> None:
    (tiny / "sources" / "editions.yaml").unlink()
    result = CliRunner().invoke(main, ["check", "--root", str(tiny)])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        "sources/editions.yaml: missing: the series file is required")


TOO_LATE = ("sources/entries/2026/09-13-too-late.yaml:1:1: date: warning: 2026-09-13 is after the "
            "last edition (2026-09-12), so this entry will appear in no edition; add an edition "
            "date on or after 2026-09-13 to `dates:` in sources/editions.yaml")


def test_build_prints_the_warnings_check_prints(tiny: Path) -> None:
    # Before issue 40 `check` warned of the late entry and `build` said nothing.
    check = CliRunner().invoke(main, ["check", "--root", str(tiny)])
    assert check.exit_code == 0 and check.stdout.splitlines()[0] == TOO_LATE
    for _ in range(2):  # the second build has nothing to do, and says the same
        built = CliRunner().invoke(main, ["build", "--root", str(tiny), "--today", "2026-11-30"])
        assert built.exit_code == 0, built.output
        assert built.stderr.splitlines() == [TOO_LATE]
        assert built.stdout == f"built 2 editions into {tiny / 'public'}\n"


def test_build_strict_fails_on_a_warning_without_a_traceback(tiny: Path) -> None:
    built = CliRunner().invoke(main, ["build", "--root", str(tiny), "--today", "2026-11-30"])
    assert built.exit_code == 0
    strict = CliRunner().invoke(main, ["build", "--root", str(tiny), "--today", "2026-11-30",
                                       "--strict"])
    assert strict.exit_code == 1 and isinstance(strict.exception, SystemExit)
    assert strict.stderr.splitlines() == [TOO_LATE.replace("warning: ", ""),
                                          "1 problem(s) found; nothing was written."]
    assert "Traceback" not in strict.output


def test_check_github_annotations(tiny: Path) -> None:
    write_entry(tiny, "2026-09-10", "bad", body="date: 2026-09-10\nsection: top\nheadlin: H\n"
                "summary: S\nlinks: [{url: 'https://e.org', publisher: X}]\n")
    result = CliRunner().invoke(main, ["check", "--root", str(tiny), "--format", "github"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("::error")]
    assert lines == [
        "::error file=sources/entries/2026/09-10-bad.yaml,line=1,title=headline::"
        "required field is missing",
        "::error file=sources/entries/2026/09-10-bad.yaml,line=3,title=headlin::"
        "unknown key; did you mean `headline`?",
    ]


def test_build_exit_codes(tiny: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(main, ["build", "--root", str(tiny), "--out", str(tmp_path / "o"),
                              "--today", "2026-11-30"])
    assert ok.exit_code == 0, ok.output
    (tiny / "sources" / "editions.yaml").unlink()
    bad = runner.invoke(main, ["build", "--root", str(tiny), "--out", str(tmp_path / "o")])
    assert bad.exit_code == 1
    assert "sources/editions.yaml: missing: the series file is required" in bad.output


def test_the_executable_flushes_its_output_and_keeps_exit_codes(tiny: Path) -> None:
    # `python -m pipeline.cli.main` ends through cli/main.run, which skips the interpreter's teardown:
    # text written to a pipe (block-buffered) must still arrive, and exit codes stay click's.
    def brief(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pipeline.cli.main", *args], cwd=REPO,
                              capture_output=True, text=True, check=False,
                              env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})

    built = brief("build", "--root", str(tiny), "--today", "2026-11-30")
    assert (built.returncode, built.stdout) == (0, f"built 2 editions into {tiny / 'public'}\n")
    checked = brief("check", "--root", str(tiny))
    assert checked.returncode == 0 and checked.stdout.endswith("0 problems; 6 entries checked, "
                                                               "1 warning(s).\n")
    assert brief("frobnicate").returncode == 2
    # Started with stdout or stderr closed (cron, a daemon): Python makes them None.
    for closed in ("1", "2"):
        proc = subprocess.run(f'"{sys.executable}" -m pipeline.cli.main check --root "{tiny}" {closed}>&-',
                              shell=True, cwd=REPO, capture_output=False, check=False,
                              env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
        assert proc.returncode == 0
    write_entry(tiny, "2026-09-10", "bad", body="date: 2026-09-10\n")
    failed = brief("build", "--root", str(tiny), "--today", "2026-11-30")
    assert failed.returncode == 1
    assert failed.stderr.endswith("problem(s) found; nothing was written.\n")


def test_unknown_command_is_usage_error() -> None:
    assert CliRunner().invoke(main, ["frobnicate"]).exit_code == 2


def test_check_github_annotations_count_the_schema_line(tiny: Path) -> None:
    # Bundled files start with the `# yaml-language-server` comment: lines must still match.
    write_entry(tiny, "2026-09-10", "bad", body=(
        "# yaml-language-server: $schema=../../../schemas/entry.schema.json\n"
        "date: 2026-09-31\nsectoin: top\nheadline: H\nsummary: S\n"
        "links: [{url: 'ftp://e.org', publisher: X}]\n"))
    result = CliRunner().invoke(main, ["check", "--root", str(tiny), "--format", "github"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("::error")]
    assert lines == [
        "::error file=sources/entries/2026/09-10-bad.yaml,line=2,title=date::"
        "expected a date as YYYY-MM-DD: day value is outside expected range "
        "(got '2026-09-31')",
        "::error file=sources/entries/2026/09-10-bad.yaml,line=2,title=section::"
        "required field is missing",
        "::error file=sources/entries/2026/09-10-bad.yaml,line=3,title=sectoin::"
        "unknown key; did you mean `section`?",
        "::error file=sources/entries/2026/09-10-bad.yaml,line=6,title=links.0.url::"
        "link must start with http:// or https://",
    ]


def test_github_annotation_of_a_missing_field_points_at_its_mapping(tiny: Path) -> None:
    # The second link lacks its publisher: the annotation sits on that link's first line (5),
    # not on line 1 of the file.
    write_entry(tiny, "2026-09-10", "bad", body=(
        "date: 2026-09-10\nsection: top\nheadline: H\nsummary: S\nlinks:\n"
        "  - url: https://e.org/a\n    publisher: X\n"
        "  - url: https://e.org/b\n    title: B\n"))
    result = CliRunner().invoke(main, ["check", "--root", str(tiny), "--format", "github"])
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if line.startswith("::error")] == [
        "::error file=sources/entries/2026/09-10-bad.yaml,line=8,title=links.1.publisher::"
        "required field is missing"]
    prices = tiny / "sources" / "prices"
    prices.mkdir()
    (prices / "p.yaml").write_text(
        "# A provider\nprovider: p\nname: P\nlists:\n  - currency: USD\n    records:\n"
        "      - model: m\n        from: 2026-09-01\n        source_url: https://e.org/p\n"
        "        prices:\n          - {meter: input}\n", encoding="utf-8")
    (tiny / "sources" / "entries" / "2026" / "09-10-bad.yaml").unlink()
    result = CliRunner().invoke(main, ["check", "--root", str(tiny), "--format", "github"])
    assert [line for line in result.output.splitlines() if line.startswith("::error")] == [
        "::error file=sources/prices/p.yaml,line=7,title=lists.0.records.0.checked::"
        "required field is missing",
        "::error file=sources/prices/p.yaml,line=11,title=lists.0.records.0.prices.0.price::"
        "required field is missing"]


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command's name (state, parent, …); [] when the
    process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _children(pid: int) -> set[int]:
    """The processes whose parent is `pid`."""
    return {int(p.name) for p in Path("/proc").glob("[0-9]*")
            if (fields := _stat(p.name)) and int(fields[1]) == pid}


@pytest.mark.skipif(sys.platform != "linux", reason="the workers follow their build on Linux")
def test_a_build_stopped_by_sigterm_leaves_no_chart_worker_behind(tiny: Path) -> None:
    """A runner stops a job with SIGTERM, which ends the build without unwinding it: its chart
    workers (forked first thing) must end with it, not wait for charts for ever."""
    import signal
    import time

    build = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "build", "--root", str(tiny),
                              "--today", "2026-09-30"], cwd=REPO, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (workers := _children(build.pid)) and build.poll() is None:
        assert time.monotonic() < deadline, "the build started no chart worker in 60 s"
        time.sleep(0.02)
    assert workers, "the build ended before its workers were seen"
    build.send_signal(signal.SIGTERM)
    assert build.wait(timeout=30) == -signal.SIGTERM
    deadline = time.monotonic() + 10
    try:
        while left := {w for w in workers if _alive(w)}:
            assert time.monotonic() < deadline, f"chart workers {left} outlived their build"
            time.sleep(0.05)
    finally:
        for worker in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker, signal.SIGKILL)


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead and not yet reaped, does not)."""
    return (fields := _stat(pid)) != [] and fields[0] != "Z"
