"""The code each stage's kept values depend on, as one digest per stage.

One digest of the whole checkout in every key made any edit cold: a comment in the Market page's
renderer threw away every parsed source file and every composed edition. Here a stage's digest
covers the modules of its own folder and every module of `pipeline` they import (inside functions
too), transitively; the templates for what is rendered, the mkdocs project (and the Markdown
extensions it names from `pipeline`) for what mkdocs makes; and the versions of Python and of the
libraries that read, compute, render and draw. So a template change re-renders without
recomposing, and a change to a compose module recomposes without parsing the sources again.

Imports are found by reading the source text, not by importing it: a build of another checkout
(tests change one in a copy) digests that checkout's code, not the code that runs.
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from pipeline.cache.stamp import Code, versions

_IMPORT = re.compile(r"^\s*(?:from\s+(pipeline(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n#]+)"
                     r"|import\s+(pipeline(?:\.\w+)*))", re.MULTILINE)
_EXTENSION = re.compile(r"^\s*-\s*(pipeline(?:\.\w+)+)\s*:?\s*$", re.MULTILINE)
"""A Markdown extension of ours that mkdocs.yml names (`  - pipeline.render.safe_links`)."""

# Each stage: the folders and modules whose code it runs (and what they import), the files it
# reads. The cache's modules that decide what a stage's kept value holds are in its key.
_STAGES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # What parses one file; putting the files' values together (load/sources.py, the market
    # check) is done afresh every build, so a change there keeps every parsed file.
    "load": (("load", "-load/sources.py", "-load/market_check.py", "cache/parse_cache.py"), ()),
    "compose": (("compose", "orchestrate/compose.py", "cache/store.py"), ()),
    "render": (("render", "orchestrate/editions.py", "orchestrate/files.py", "orchestrate/families.py",
                "orchestrate/prices.py", "orchestrate/models.py", "cache/store.py"),
               ("templates",)),
    "charts": (("render/charts.py", "render/model_page.py", "render/prices_page.py",
                "render/hardware_page.py", "orchestrate/charts.py", "cache/store.py"), ()),
    "publish": (("publish", "cache/page_cache.py"), ("site/mkdocs.yml", "site/overrides")),
}


@dataclass(frozen=True)
class StageCode:
    """The digest of the code (and templates, and library versions) each stage depends on."""

    load: str
    compose: str
    render: str
    charts: str
    publish: str


def _modules(package: Path) -> dict[str, bytes]:
    """Return the source of every module under `package` (the `pipeline` folder), by name."""
    if not package.is_dir():
        return {}
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path.read_bytes()
    return found


def _imported(source: bytes, modules: dict[str, bytes]) -> set[str]:
    """Return the modules of `modules` that `source` imports (a name imported from a package
    may be a module of it: `from pipeline.render import charts`)."""
    out = set()
    for m in _IMPORT.finditer(source.decode("utf-8", errors="replace")):
        package, names, plain = m.groups()
        if plain:
            out.add(plain)
            continue
        out.add(package)
        out |= {f"{package}.{name}" for name in re.findall(r"\w+", names)}
    return {name for name in out if name in modules}


def _closure(roots: set[str], modules: dict[str, bytes]) -> set[str]:
    seen: set[str] = set()
    todo = [r for r in roots if r in modules]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += _imported(modules[name], modules) - seen
    return seen


def _roots(spec: tuple[str, ...], modules: dict[str, bytes]) -> set[str]:
    """Return the modules a stage's folders and files name (`compose`, `render/charts.py`),
    less those named with a leading `-`."""
    def named(part: str) -> set[str]:
        name = "pipeline." + part.removesuffix(".py").replace("/", ".")
        return {m for m in modules if m == name or m.startswith(name + ".")}

    return (set().union(*(named(p) for p in spec if not p.startswith("-")))
            - set().union(*(named(p[1:]) for p in spec if p.startswith("-"))))


def _files_digest(top: Path, digest: hashlib._Hash) -> None:
    paths = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
    for path in paths:
        digest.update(path.relative_to(top.parent).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")


def stage_code(code: Code) -> StageCode:
    """Return the digest of what each stage of a build of `code`'s checkout depends on."""
    modules = _modules(code.root / "pipeline")
    config = code.root / "site" / "mkdocs.yml"
    extensions = set(_EXTENSION.findall(config.read_text(encoding="utf-8"))
                     if config.is_file() else ())
    libraries = f"{sys.version}\n{versions()}".encode()
    digests = {}
    for stage, (folders, files) in _STAGES.items():
        roots = _roots(folders, modules) | (extensions if stage == "publish" else set())
        digest = hashlib.sha256(f"{stage}\0".encode() + libraries)
        for name in sorted(_closure(roots, modules)):
            digest.update(f"\0{name}\0".encode() + modules[name])
        for name in files:
            if name.split("/")[0] in code.dirs:  # a checkout without it: nothing to read
                _files_digest(code.root / name, digest)
        digests[stage] = digest.hexdigest()
    return StageCode(**digests)
