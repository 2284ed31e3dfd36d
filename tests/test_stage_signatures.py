"""No stage receives a store, a memo, a salt or a parse cache (issue 38): the stages are plain
functions of values, and the orchestrator alone decides what is reused. Every public function and
method of a checked package (constructors too) is inspected; a parameter named like one of those,
or annotated with a type named like one, fails the test."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterator
from types import ModuleType

CHECKED = ("pipeline.load", "pipeline.ingest", "pipeline.publish", "pipeline.render",
           "pipeline.compose", "pipeline.tables", "pipeline.normalize", "pipeline.formats",
           "pipeline.models", "pipeline.problems", "pipeline.paths", "pipeline.whole_files",
           "pipeline.limits")
"""Every package and module below the orchestrator."""

NAME = re.compile(r"(?:^|_)(?:cache|caches|cached|parses|memo|memos|store|stores|salt)$")
"""A parameter named for what keeps results: `cache`, `parse_cache`, `memo`, `page_store`,
`salt` (not `cache_hit_rate`, a price's workload, nor `parsed`, a parsed feed: a parse cache
passed under that name is caught by its type)."""

TYPE = re.compile(r"(?:Cache|Memo|Store|Parses)(?![a-z])")
"""A type named so: ParseCache, ChartCache, BytecodeCache, Memo, MemoLog, PageStore, Parses."""


def modules(package: str) -> Iterator[ModuleType]:
    """Yield `package` and every module under it, imported (a module alone: itself)."""
    top = importlib.import_module(package)
    yield top
    for info in pkgutil.walk_packages(getattr(top, "__path__", []), f"{package}."):
        yield importlib.import_module(info.name)


def public_callables(module: ModuleType) -> Iterator[tuple[str, Callable]]:
    """Yield (qualified name, function) for each public function defined in `module` and each
    public method or constructor of the classes defined there."""
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield f"{module.__name__}.{name}", obj
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if inspect.isfunction(member):
                    yield f"{module.__name__}.{name}.{attr}", member


def offending(fn: Callable) -> list[str]:
    """Return `name: annotation` of each parameter of `fn` that names a store, memo, salt or
    parse cache, by its name or its type."""
    found = []
    for p in inspect.signature(fn).parameters.values():
        annotation = "" if p.annotation is inspect.Parameter.empty else (
            p.annotation if isinstance(p.annotation, str)
            else getattr(p.annotation, "__qualname__", repr(p.annotation)))
        if NAME.search(p.name.lower()) or TYPE.search(annotation):
            found.append(f"{p.name}: {annotation}" if annotation else p.name)
    return found


def flagged(packages: tuple[str, ...]) -> dict[str, list[str]]:
    """Return each public function or method of `packages` that takes a store, memo, salt or
    parse cache, with the parameters that do."""
    return {name: bad for package in packages for module in modules(package)
            for name, fn in public_callables(module) if (bad := offending(fn))}


def test_the_finder_finds_caches_by_name_and_by_type() -> None:
    def stage(root, cache: Parses, memo, page_store, salt, cache_hit_rate: float,  # noqa: F821
              charts: ChartCache, parse=None) -> None: ...  # noqa: F821

    assert offending(stage) == ["cache: Parses", "memo", "page_store", "salt",
                                "charts: ChartCache"]


def test_no_stage_receives_a_store_memo_salt_or_parse_cache() -> None:
    assert flagged(CHECKED) == {}
