"""The code each kept value depends on, as a digest derived from the function that computes it.

One digest of the whole checkout in every key made any edit cold: a comment in the Market page's
renderer threw away every parsed source file and every composed edition. Here a value's digest
covers the module of the function that computes it (`Store.cached(stage, fn, ...)`: `fn`'s module)
and every module of `pipeline` that module imports (inside functions too), transitively; the
templates for what is rendered, the mkdocs project (and the Markdown extensions it names from
`pipeline`) for what mkdocs makes; and the versions of Python and of the libraries that read,
compute, render and draw. No table says which code is whose: a parsed file is kept by
load/parse.py and what it imports, a lane's items by compose/edition_tables.py and what it imports, a
page family's files by orchestrate/families.py and what it imports. So a template change
re-renders without recomposing, and a change to a compose module recomposes without parsing the
sources again.

Imports are found by reading the source text, not by importing it: a build of another checkout
(tests change one in a copy) digests that checkout's code, not the code that runs.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

from pipeline.cache.stamp import Code, versions

_IMPORT = re.compile(r"^\s*(?:from\s+(pipeline(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n#]+)"
                     r"|import\s+(pipeline(?:\.\w+)*))", re.MULTILINE)
_EXTENSION = re.compile(r"^\s*-\s*(pipeline(?:\.\w+)+)\s*:?\s*$", re.MULTILINE)
"""A Markdown extension of ours that mkdocs.yml names (`  - pipeline.render.safe_links`)."""

_FILES: dict[str, tuple[str, ...]] = {
    "render": ("templates",),
    "publish": ("site/mkdocs.yml", "site/overrides"),
}
"""What a stage reads besides code: the templates it renders with, the mkdocs project."""


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


def _files_digest(top: Path, digest: hashlib._Hash) -> None:
    paths = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
    for path in paths:
        digest.update(path.relative_to(top.parent).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")


class CodeDigests:
    """The digest of the code each kept value depends on, derived from the module of the
    function that computes it: that module and every module of `pipeline` it imports, with the
    files its stage reads besides code (`_FILES`), the library versions, and for publishing the
    Markdown extensions mkdocs.yml names (mkdocs imports them by name). Computed once a module."""

    def __init__(self, code: Code) -> None:
        self._modules = _modules(code.root / "pipeline")
        config = code.root / "site" / "mkdocs.yml"
        self._extensions = set(_EXTENSION.findall(config.read_text(encoding="utf-8"))
                               if config.is_file() else ())
        self._libraries = f"{sys.version}\n{versions()}".encode()
        self._code = code
        self._files: dict[str, str] = {}
        self._digests: dict[tuple[str, str], str] = {}

    def files(self, stage: str) -> str:
        """Return the digest of what `stage` reads besides code (its templates, the mkdocs
        project) and of the library versions."""
        if stage not in self._files:
            digest = hashlib.sha256(f"{stage}\0".encode() + self._libraries)
            for name in _FILES.get(stage, ()):
                if name.split("/")[0] in self._code.dirs:  # a checkout without it: nothing
                    _files_digest(self._code.root / name, digest)
            self._files[stage] = digest.hexdigest()
        return self._files[stage]

    def modules(self, module: str, stage: str) -> set[str]:
        """Return the modules a value of `stage` computed by `module` depends on."""
        roots = {module} | (self._extensions if stage == "publish" else set())
        return _closure(roots, self._modules)

    def __call__(self, stage: str, module: str) -> str:
        """Return the digest of the code of a value of `stage` computed by `module`."""
        if (stage, module) not in self._digests:
            digest = hashlib.sha256(self.files(stage).encode())
            for name in sorted(self.modules(module, stage)):
                digest.update(f"\0{name}\0".encode() + self._modules[name])
            self._digests[(stage, module)] = digest.hexdigest()
        return self._digests[(stage, module)]
