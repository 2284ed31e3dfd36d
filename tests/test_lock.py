"""The lock files: every dependency of pyproject.toml pinned exactly, with hashes, and installed from them."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib

import pytest
from conftest import REPO
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
RUN = REPO / "requirements" / "run.txt"
TEST = REPO / "requirements" / "test.txt"
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)\s*\\$")
HASH = re.compile(r"^\s+--hash=sha256:[0-9a-f]{64}(\s*\\)?$")


def pins(path) -> dict[str, str]:
    """Return {canonical name: version} of a compiled lock file; fail on any line not `name==version`
    followed by its hashes, comments or blank lines."""
    found: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#") or HASH.match(line):
            continue
        match = PIN.match(line)
        assert match, f"{path.name}:{number}: not an exact pin with hashes: {line!r}"
        assert HASH.match(lines[number]), f"{path.name}:{number}: {match['name']} has no hash"
        found[canonicalize_name(match["name"])] = match["version"]
    return found


def required(group: list[str]) -> list[Requirement]:
    return [Requirement(spec) for spec in group]


RUNTIME = required(PYPROJECT["project"]["dependencies"])
TEST_EXTRA = required(PYPROJECT["project"]["optional-dependencies"]["test"])
BUILD = required(PYPROJECT["build-system"]["requires"])


@pytest.mark.parametrize(("lock", "wanted"), [
    (RUN, RUNTIME + BUILD),
    (TEST, RUNTIME + TEST_EXTRA + BUILD),
], ids=["run.txt", "test.txt"])
def test_the_lock_pins_every_dependency_within_pyprojects_range(lock, wanted) -> None:
    # Fails when pyproject.toml changed and `make lock` was not run (CONTRIBUTING: "The lock files").
    pinned = pins(lock)
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement.name} is not in {lock.name}: run `make lock`"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"{lock.name} pins {requirement.name}=={pinned[name]}, outside {requirement}: run `make lock`")


def test_pip_itself_is_pinned_with_hashes() -> None:
    assert list(pins(REPO / "requirements" / "pip.txt")) == ["pip"]


def test_the_runtime_lock_is_the_test_locks_versions() -> None:
    # `make site` and `make test` build with the same libraries; the test extras only add.
    run, test = pins(RUN), pins(TEST)
    assert set(run) <= set(test)
    assert {name: test[name] for name in run} == run
    test_only = {canonicalize_name(r.name) for r in TEST_EXTRA}
    assert not test_only & set(run), "a test extra leaked into the runtime lock"


def test_the_lock_parser_rejects_a_loose_pin(tmp_path) -> None:
    loose = tmp_path / "loose.txt"
    loose.write_text("ruff>=0.5 \\\n    --hash=sha256:" + "0" * 64 + "\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="not an exact pin"):
        pins(loose)
    unhashed = tmp_path / "unhashed.txt"
    unhashed.write_text("ruff==0.17.6 \\\n    # via x\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="has no hash"):
        pins(unhashed)


def test_make_installs_from_the_locks_with_hashes_and_site_needs_no_test_extra() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    rules = dict(re.findall(r"^([\w$().-]+):[^\n]*\n((?:\t[^\n]*\n)+)", makefile, re.MULTILINE))
    assert "--require-hashes -r requirements/pip.txt" in rules["$(RUN_STAMP)"]
    assert "--require-hashes -r requirements/run.txt" in rules["$(RUN_STAMP)"]
    assert "--no-deps --no-build-isolation -e ." in rules["$(RUN_STAMP)"]
    assert "--require-hashes -r requirements/test.txt" in rules["$(TEST_STAMP)"]
    assert re.search(r"^site: \$\(RUN_STAMP\)$", makefile, re.MULTILINE)
    assert re.search(r"^test: \$\(TEST_STAMP\)$", makefile, re.MULTILINE)
    # No other install of a dependency by range, but mutmut's, which the lock leaves out.
    loose = [line for body in rules.values() for line in body.splitlines()
             if "pip install" in line.replace("$(PIP) install", "pip install")
             and "requirements/" not in line and "--no-deps" not in line
             and "$(PIP_TOOLS)" not in line]  # `make lock`'s own venv, pip-tools at one version
    assert loose == ["\t$(PIP) install -e '.[test,mutate]'"]


def test_axe_core_is_pinned_to_one_release() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^AXE_CORE_VERSION=\d+\.\d+\.\d+$", ci, re.MULTILINE)
    assert '"axe-core@$AXE_CORE_VERSION"' in ci
    assert not re.search(r"npm install[^\n]* axe-core(\s|$)", ci)


def test_the_editable_install_warns_nothing(tmp_path) -> None:
    """`make site`'s `pip install -e .` passes on setuptools' warnings: with the checkout's own
    pyproject.toml, building the editable wheel emits none."""
    project = tmp_path / "project"
    shutil.copytree(REPO / "pipeline", project / "pipeline", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, project / name)
    build = ("import warnings\nwarnings.simplefilter('error')\n"
             "from setuptools import build_meta\nprint(build_meta.build_editable('dist'))")
    done = subprocess.run([sys.executable, "-c", build], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (project / "dist" / done.stdout.split()[-1]).is_file()
