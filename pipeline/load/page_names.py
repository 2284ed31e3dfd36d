"""The names of the tracked models' pages, which come from ids an editor writes (a curated
file's models, the `track:` list of catalogues.yaml): each short enough for the disk, and no two
the same (issue 50: `GPT-4o`, `gpt.4o` and `gpt-4o` all made `models/openai-gpt-4o/`, the last
written overwriting the others, and a 281-character name failed the build after `brief check`
had passed it)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pipeline.compose.model_pages import chart_name, model_slug
from pipeline.limits import MAX_FILE_NAME_BYTES
from pipeline.models.catalogues import CataloguesFile
from pipeline.models.prices import PriceFile
from pipeline.models.sourced import Sourced, line_of
from pipeline.problems import Problem


def page_name_problems(prices: Mapping[str, Sourced[PriceFile]],
                       catalogues: Sourced[CataloguesFile] | None) -> list[Problem]:
    """Return an error for each tracked model whose chart's file name is over
    MAX_FILE_NAME_BYTES, and for each whose page name an earlier one (in the build's order,
    compose/model_pages.tracked_models) already takes, naming both ids and where each is."""
    problems = []
    first: dict[str, tuple[str, str, int | None]] = {}
    seen = set()
    for provider, model, where in _tracked(prices, catalogues):
        if (provider, model) in seen:
            continue  # the same model again (another record, or also tracked): one page
        seen.add((provider, model))
        path, field, line = where
        page = model_slug(provider, model)
        size = len(chart_name(page).encode("utf-8"))
        if size > MAX_FILE_NAME_BYTES:
            problems.append(Problem(path, field, "the model's chart would be named "
                                    f"model-<provider>-<model>.svg, {size} bytes, more than the "
                                    f"{MAX_FILE_NAME_BYTES} a file name may have "
                                    "(pipeline/limits.py); shorten the provider or the model id",
                                    line=line))
            continue
        if page not in first:
            first[page] = (f"{provider} {model}", path, line)
            continue
        other, other_path, other_line = first[page]
        problems.append(Problem(path, field, f"{provider} {model} and {other} "
                                f"({other_path}:{other_line}) would share the page "
                                f"models/{page}/, one overwriting the other; spell the model as "
                                "its provider's API does, in one way", line=line))
    return problems


def _tracked(prices: Mapping[str, Sourced[PriceFile]], catalogues: Sourced[CataloguesFile] | None,
             ) -> Iterator[tuple[str, str, tuple[str, str, int | None]]]:
    """Yield (provider, model, (file, field, line)) of each id that names a tracked model's
    page, where it is written, curated files by provider first, then the `track:` list."""
    for provider, sourced in sorted(prices.items()):
        for i, plist in enumerate(sourced.model.lists):
            for j, record in enumerate(plist.records):
                loc = ("lists", i, "records", j, "model")
                yield provider, record.model, (sourced.path, ".".join(map(str, loc)),
                                               line_of(sourced.lines, loc))
    if catalogues is not None:
        for i, tracked in enumerate(catalogues.model.track):
            loc = ("track", i, "model")
            yield tracked.provider, tracked.model, (catalogues.path, f"track.{i}.model",
                                                    line_of(catalogues.lines, loc))
