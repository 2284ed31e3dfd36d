"""The GitHub workflows: audited, schema-valid, pinned, and calling only commands that exist."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from conftest import REPO

from pipeline.cli.main import main
from pipeline.load.yaml_lines import parse_yaml

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))

# Commands other lanes add; until their branches merge, their tests are expected to fail (strict,
# so the marker has to go once the command exists).
PENDING = {"brief ingest feeds": "needs the feeds lane", "brief ingest fx": "needs the prices lane"}

BRIEF_CALL = re.compile(r"(?:(?<![\w/.-])brief|\.venv/bin/brief|\$\{?BRIEF\}?)\s+(?P<rest>.*)")
SCRIPT_CALL = re.compile(r"(?<![\w/.-])(?P<path>scripts/[\w.-]+\.sh)\b")
MAKE_CALL = re.compile(r"(?<![\w/.-])make\s+(?P<target>[\w./-]+)")
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(?:/[\w./-]+)?@[0-9a-f]{40}$")
SHELL_BREAK = {"|", "||", "&&", ";", ";;", "&"}


def tool(name: str) -> str:
    """Return the path of a console script installed beside this Python (or on PATH)."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    assert found, f"{name} is not installed: it comes with the project's `test` extra"
    return found


def load(path: Path) -> dict:
    doc, _, problems = parse_yaml(path.read_bytes(), path.name)
    assert problems == [] and isinstance(doc, dict)
    return doc


def run_blocks(doc: dict) -> list[str]:
    return [step["run"] for job in doc["jobs"].values() for step in job.get("steps", [])
            if "run" in step]


def shell_lines(text: str) -> list[str]:
    """Return the lines of shell code, without comment lines."""
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def scripts_called(text: str) -> list[str]:
    return [m["path"] for line in shell_lines(text) for m in SCRIPT_CALL.finditer(line)]


def brief_calls(text: str) -> list[list[str]]:
    """Return the argument lists of every `brief …` command in shell code (variables left out)."""
    calls = []
    for line in shell_lines(text):
        for match in BRIEF_CALL.finditer(line):
            try:
                tokens = shlex.split(match["rest"], comments=True)
            except ValueError:
                continue
            args = []
            for token in tokens:
                if token in SHELL_BREAK or token.startswith((">", "2>", "<")):
                    break
                args.append(token)
            # A command word held in a variable (`$BRIEF ingest "$step" --help`) is checked
            # where it is spelled out; skip the call.
            words = args[: next((i for i, a in enumerate(args) if a.startswith("-")), len(args))]
            if args and not any(w.startswith("$") for w in words):
                calls.append(args)
    return calls


def all_calls() -> list[tuple[str, list[str]]]:
    found = []
    for workflow in WORKFLOWS:
        for block in run_blocks(load(workflow)):
            found += [(workflow.name, args) for args in brief_calls(block)]
            for script in scripts_called(block):
                text = (REPO / script).read_text(encoding="utf-8")
                found += [(script, args) for args in brief_calls(text)]
    return found


def resolve(args: list[str]) -> tuple[click.Command | None, str, list[str]]:
    """Return (the command `brief ARGS` runs or None, its name, the arguments left for it)."""
    command: click.Command = main
    name = "brief"
    rest = list(args)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.commands.get(rest[0])
        if sub is None:
            return None, f"{name} {rest[0]}", rest[1:]
        command, name, rest = sub, f"{name} {rest[0]}", rest[1:]
    return command, name, rest


def command_name(args: list[str]) -> str:
    words = []
    for arg in args:
        if arg.startswith("-"):
            break
        words.append(arg)
    return " ".join(["brief", *words[:2]])


CALLS = all_calls()


def test_workflows_exist() -> None:
    assert [w.name for w in WORKFLOWS] == ["check.yml", "publish.yml"]


def test_zizmor_finds_nothing_of_medium_severity_or_above() -> None:
    result = subprocess.run([tool("zizmor"), "--offline", "--min-severity", "medium",
                             "--no-progress", str(REPO / ".github" / "workflows")],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflows_match_githubs_schema() -> None:
    result = subprocess.run([tool("check-jsonschema"), "--builtin-schema",
                             "vendor.github-workflows", *map(str, WORKFLOWS)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_workflows_run_brief_commands() -> None:
    names = {command_name(args) for _, args in CALLS}
    assert {"brief check", "brief ingest feeds", "brief ingest fx",
            "brief ingest prices"} <= names


@pytest.mark.parametrize(("where", "args"), [
    pytest.param(where, args, marks=pytest.mark.xfail(
        resolve(args)[0] is None, strict=True, reason=PENDING[command_name(args)]))
    if command_name(args) in PENDING else (where, args)
    for where, args in CALLS], ids=[f"{w}: brief {' '.join(a)}" for w, a in CALLS])
def test_brief_command_exists_and_accepts_its_options(where: str, args: list[str]) -> None:
    command, name, rest = resolve(args)
    assert command is not None, f"{where} runs `{name}`, which the CLI does not have"
    assert not isinstance(command, click.Group), f"{where} runs the group `{name}` alone"
    rest = [a for a in rest if a != "--help"]
    # Parsing the arguments catches a misspelt option or a choice that does not exist.
    command.make_context(name, rest)


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_scripts_and_make_targets_exist(workflow: Path) -> None:
    for block in run_blocks(load(workflow)):
        for script in scripts_called(block):
            assert (REPO / script).is_file(), f"{workflow.name} calls missing {script}"
        for line in shell_lines(block):
            for match in MAKE_CALL.finditer(line):
                dry = subprocess.run(["make", "-n", "-C", str(REPO), match["target"]],
                                     capture_output=True, text=True, timeout=60, check=False)
                assert dry.returncode == 0, f"no make target {match['target']}: {dry.stderr}"


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit_with_its_version(workflow: Path) -> None:
    doc = load(workflow)
    text = workflow.read_text(encoding="utf-8")
    uses = [step["uses"] for job in doc["jobs"].values() for step in job.get("steps", [])
            if "uses" in step]
    assert uses
    for ref in uses:
        assert PINNED.match(ref), f"{ref} is not pinned to a full commit SHA"
        assert re.search(rf"uses: {re.escape(ref)} # v\d+(\.\d+)*$", text, re.MULTILINE), (
            f"{ref} has no `# vX.Y.Z` comment naming its version")


def test_publish_permissions_are_least_per_job() -> None:
    doc = load(REPO / ".github" / "workflows" / "publish.yml")
    assert set(doc["on"]) == {"schedule", "push", "workflow_dispatch"}
    assert doc["on"]["push"] == {"branches": ["main"]}
    assert doc["permissions"] == {}
    assert doc["concurrency"]["cancel-in-progress"] is False
    jobs = doc["jobs"]
    assert {name: job["permissions"] for name, job in jobs.items()} == {
        "ingest": {"contents": "write"},
        "build": {"contents": "read"},
        "deploy": {"pages": "write", "id-token": "write"},
    }
    assert jobs["build"]["needs"] == "ingest" and jobs["deploy"]["needs"] == "build"
    assert jobs["deploy"]["environment"]["name"] == "github-pages"
    for name, job in jobs.items():
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                # Only the job that pushes keeps the token in .git/config.
                assert step["with"]["persist-credentials"] is (name == "ingest")
            if step.get("uses", "").startswith("actions/setup-python@"):
                assert step["with"]["cache"] == "pip"


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_installs_come_from_the_lock_files_and_pips_cache_is_keyed_on_them(workflow: Path) -> None:
    doc = load(workflow)
    for job in doc["jobs"].values():
        for step in job.get("steps", []):
            if step.get("uses", "").startswith("actions/setup-python@"):
                keyed = step["with"]["cache-dependency-path"].split()
                assert keyed and all(path.startswith("requirements/") for path in keyed), keyed
                assert all((REPO / path).is_file() for path in keyed), keyed
            for line in shell_lines(step.get("run", "")):
                if "pip install" in line:
                    assert "--require-hashes -r requirements/" in line or "--no-deps" in line, (
                        f"{workflow.name} installs from outside the lock: {line}")


def test_the_publish_build_restores_the_newest_build_cache_first() -> None:
    # The scheduled build is incremental only if it gets the last good build's .cache/.
    steps = load(REPO / ".github" / "workflows" / "publish.yml")["jobs"]["build"]["steps"]
    cache = [i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/cache@")]
    build = [i for i, s in enumerate(steps) if "make site" in s.get("run", "")]
    assert len(cache) == 1 and len(build) == 1 and cache[0] < build[0]
    settings = steps[cache[0]]["with"]
    assert settings["path"] == ".cache"
    # A key no earlier run has, so every good build saves; the prefix restores the newest one.
    assert "${{ github.run_id }}" in settings["key"]
    assert settings["key"].startswith(settings["restore-keys"])


def test_check_workflow_reads_only() -> None:
    doc = load(REPO / ".github" / "workflows" / "check.yml")
    assert set(doc["on"]) == {"pull_request"}
    assert doc["permissions"] == {"contents": "read"}
    # Strict: a warning (a home-page link, an entry after the last edition) fails a pull request.
    assert ["check", "--strict", "--format", "github"] in [a for _, a in CALLS]


def test_the_command_walk_catches_mistakes() -> None:
    assert brief_calls("make site && .venv/bin/brief chekc --root . | tee log\n# brief gone") == [
        ["chekc", "--root", "."]]
    assert resolve(["chekc"])[0] is None
    command, name, rest = resolve(["check", "--format", "github"])
    assert name == "brief check" and rest == ["--format", "github"]
    with pytest.raises(click.BadParameter):
        command.make_context(name, ["--format", "gitlab"])
