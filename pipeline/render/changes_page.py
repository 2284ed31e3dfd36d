"""Pure: the Changes pages: every move the published catalogues' histories record up to the
newest edition, each with the commit of the catalogue's repository that made it (its subject
line, the catalogue's own words) or saying our fetch saw it.

`changes.md` is a short index of the months; each month is a page of its own
(`changes/YYYY-MM/`) put into the site's theme through a shell (render/shell_page.py): the
catalogues' replayed histories hold about 30,000 moves, and one Markdown table of only the
newest 2,000 took 5 s of a build through Python-Markdown. On a month's page the moves are
grouped by commit, newest first, and a form (site/docs/assets/changes.js) filters them by
catalogue, provider, meter and kind; without JavaScript every move shows.

Catalogue text (providers, models, commit subjects) is third-party: every cell is escaped
here, and the only links made from a catalogue's data are to a commit of the repository that
`sources/catalogues.yaml` names for it, by a sha the history's reader checked
(tables/catalogue_history.read_history_csv, tables/catalogue_records.read_log_csv).
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import math
import re
from collections.abc import Collection, Iterator, Sequence
from html import escape
from types import SimpleNamespace

import numpy as np
import pandas as pd

from pipeline.compose.catalogue_moves import change_share, tier_words, usd_text
from pipeline.compose.numbers import count, grouped, percent
from pipeline.models.catalogues import Catalogue
from pipeline.render.shell_page import ShellPage
from pipeline.render.table_numbers import nobr_numbers
from pipeline.tables.catalogue_history import day_changes, snapshot_time
from pipeline.tables.cost import day_end

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
KIND_WORDS = {"new": "new", "removed": "no longer listed",
              "relisted": "no longer listed, then listed again the same day",
              "withdrawn": "listed, then no longer listed the same day"}
FILTER_KINDS = (("cut", "cuts"), ("rise", "rises"), ("new", "new listings"),
                ("removed", "no longer listed"), ("day", "listed and withdrawn the same day"))
"""The kinds a reader filters by: `day` is a move undone within its day (day_changes)."""
HEAD = ("Provider", "Model", "Price", "Was", "Now", "Change")
_SHA = re.compile(r"[0-9a-f]{40}")


def month_path(month: str) -> str:
    """Return the file of a month's page (`2026-06` → `changes/2026-06/index.html`)."""
    return f"changes/{month}/index.html"


def month_words(month: str) -> str:
    """Return a month in words: `2026-06` → `June 2026`."""
    return f"{MONTHS[int(month[5:7]) - 1]} {month[:4]}"


def changes_files(moves: pd.DataFrame, catalogues: Sequence[Catalogue],
                  curated: Collection[tuple[str, str]], as_of: dt.date
                  ) -> dict[str, str | ShellPage]:
    """Return the Changes index (`changes.md`) and a page per month of the moves of `moves`
    (tables/catalogue_records.committed_moves) first seen by the end of `as_of`; `curated`:
    the (provider, case-folded model) pairs our files price, marked."""
    # A price withdrawn and listed again (or the reverse) within a day is said once.
    shown = day_changes(moves[moves["at"] <= snapshot_time(day_end(as_of))])
    names = {c.id: c for c in catalogues}
    order = _ordered(shown)
    month_of = order["at"].str[:7].to_numpy(dtype=object)
    months = list(dict.fromkeys(month_of.tolist()))  # newest first
    files: dict[str, str | ShellPage] = {"changes.md": index_md(order, month_of, names, months)}
    if not months:
        return files
    # Sorted once and every row made once: each month is a run of them, its commits too.
    tbodies: dict[str, list[str]] = {month: [] for month in months}
    for month, tbody in _groups(order, _cells(order, curated), names):
        tbodies[month].append(tbody)
    starts = [0, *(np.flatnonzero(month_of[1:] != month_of[:-1]) + 1).tolist(), len(order)]
    for i, month in enumerate(months):
        newer = months[i - 1] if i > 0 else None
        older = months[i + 1] if i + 1 < len(months) else None
        files[month_path(month)] = month_page(month, order.iloc[starts[i]:starts[i + 1]],
                                              tbodies[month], names, older, newer)
    return files


def _ordered(shown: pd.DataFrame) -> pd.DataFrame:
    """Return the moves as the pages list them: newest first; within a commit (or a fetch) the
    cuts and rises first, then by provider, model, meter and the catalogue's provider id."""
    order = shown.assign(price_move=shown["kind"].isin(["cut", "rise"]),
                         canonical=shown["model"].str.casefold())
    return order.sort_values(["at", "catalogue", "commit", "price_move", "provider",
                              "canonical", "meter", "catalogue_provider"],
                             ascending=[False, True, True, False, True, True, True, True],
                             kind="stable", ignore_index=True)


def _kinds(rows: pd.DataFrame) -> dict[str, int]:
    sizes = rows["kind"].value_counts()
    return {kind: int(sizes.get(kind, 0)) for kind in ("cut", "rise", "new", "removed")} | {
        "day": int(sizes.get("withdrawn", 0) + sizes.get("relisted", 0))}


def _name(catalogue: str, names: dict[str, Catalogue]) -> str:
    return names[catalogue].name if catalogue in names else catalogue


def index_md(shown: pd.DataFrame, month_of: np.ndarray, names: dict[str, Catalogue],
             months: list[str]) -> str:
    """Return the Changes index: what the pages show, and one row per month (`months`, newest
    first; `month_of`: each move's)."""
    lines = ["# Price changes in the catalogues", ""]
    if not names:
        return "\n".join([*lines, "This repository follows no price catalogue "
                          "(sources/catalogues.yaml).", ""])
    if shown.empty:
        return "\n".join([*lines, "No catalogue price has moved since its first snapshot.", ""])
    kinds = _kinds(shown)
    committed = int((shown["commit"] != "").sum())
    # No date, and links to built URLs rather than .md files: the page then keeps its HTML
    # between builds until a move is added (cache/page_cache.py).
    lines += [
        (f"{grouped(len(shown))} moves of the public catalogues' prices up to the newest edition: "
         f"{count(kinds['cut'], 'cut')}, {count(kinds['rise'], 'rise')}, "
         f"{count(kinds['new'], 'new listing')} and "
         f"{grouped(kinds['removed'])} no longer listed"
         + (f", and {grouped(kinds['day'])} listed and withdrawn within a day" if kinds["day"] else "")
         + ". A move dates from the first snapshot that showed it, not from a date the "
         "catalogue claims; what a catalogue listed at its first snapshot is where its history "
         "starts, not a move. "
         + (f"{grouped(committed)} of them come from a catalogue's repository, replayed commit by "
            "commit: each links its commit, whose subject line is the catalogue's own words "
            "(a *fix* is a correction of the catalogue, not a move of the market); the others "
            "were seen by our daily fetch. " if committed else "Each was seen by our fetch. ")
         + "Each month's page groups its moves by commit, newest first, and filters them by "
         "catalogue, provider, meter and kind. Where one of our curated provider files "
         "prices a model (marked *curated*), the curated price is the site's and its own "
         "changes are on the [Prices](../prices/) page. Every move is in "
         "[changes.csv](data/changes.csv)."), "",
        "| Month | Moves | Cuts | Rises | New | No longer listed | By catalogue |",
        "|---|--:|--:|--:|--:|--:|---|"]
    for month in months:
        rows = shown[month_of == month]
        k = _kinds(rows)
        per = rows["catalogue"].value_counts()
        # Catalogue names are our own file's (sources/catalogues.yaml); ids are checked ids.
        by = ", ".join(f"{escape(_name(c, names))} {grouped(int(n))}" for c, n in sorted(per.items()))
        lines.append(f"| [{month_words(month)}]({month}/) | {grouped(len(rows))} | {grouped(k['cut'])} | "
                     f"{grouped(k['rise'])} | {grouped(k['new'])} | {grouped(k['removed'])} | {by} |")
    return "\n".join([*lines, ""])


def month_page(month: str, rows: pd.DataFrame, tbodies: Sequence[str],
               names: dict[str, Catalogue], older: str | None, newer: str | None) -> ShellPage:
    """Return the page of the moves first seen in `month` (`2026-06`), `rows`: a form that
    filters them, and a table of them, `tbodies` (`_groups`), one per commit (or fetch) that
    showed them, newest first; links to the months `older` and `newer`."""
    words = month_words(month)
    k = _kinds(rows)
    said = (f"{count(len(rows), 'move')} first seen in {words} (UTC): {count(k['cut'], 'cut')}, "
            f"{count(k['rise'], 'rise')}, {count(k['new'], 'new listing')}, "
            f"{grouped(k['removed'])} no longer listed"
            + (f", {grouped(k['day'])} listed and withdrawn within a day" if k["day"] else "") + ".")
    around = " · ".join(
        [*([f'<a href="../{newer}/">{month_words(newer)}</a>'] if newer else []),
         '<a href="../">all months</a>',
         *([f'<a href="../{older}/">{month_words(older)}</a>'] if older else [])])
    lead = (f"<p>{escape(said)} Grouped by the commit of the catalogue's repository whose "
            "version first showed them, newest first; a commit's subject line is the "
            "catalogue's own words (a <em>fix</em> is a correction of the catalogue, not a "
            "move of the market). US dollars per million tokens. Every move is in "
            f'<a href="../../data/changes.csv">changes.csv</a>.</p><p>{around}</p>')
    body = "".join([lead, _filters(rows, names), '<div class="brief-scroll">',
                    '<table id="changes-table">',
                    f"<caption>Moves first seen in {words}, by commit, newest first</caption>",
                    "<thead><tr>", *(f'<th scope="col">{h}</th>' for h in HEAD),
                    "</tr></thead>", *tbodies, "</table></div>"])
    return ShellPage(f"Price changes, {words}", body,
                     f"{said} By catalogue: " + ", ".join(
                         f"{_name(c, names)} {grouped(int(n))}"
                         for c, n in sorted(rows["catalogue"].value_counts().items())) + ".")


def _options(values: Sequence[tuple[str, str]]) -> str:
    return "".join(f'<option value="{escape(v)}">{escape(t)}</option>' for v, t in values)


def _filters(rows: pd.DataFrame, names: dict[str, Catalogue]) -> str:
    """Return the form above a month's table: hidden until changes.js shows it."""
    def select(name: str, label: str, values: Sequence[tuple[str, str]]) -> str:
        return (f'<label>{label} <select name="{name}"><option value="">all</option>'
                f"{_options(values)}</select></label> ")

    def values(column: str) -> list[str]:
        return sorted(rows[column].unique().tolist())

    catalogues = values("catalogue")
    boxes = "".join(f'<label><input type="checkbox" name="kind" value="{v}" checked> {t}</label> '
                    for v, t in FILTER_KINDS)
    return ('<form class="changes-filters" hidden>'
            + select("catalogue", "Catalogue", [(c, _name(c, names)) for c in catalogues])
            + select("provider", "Provider", [(p, p) for p in values("provider")])
            + select("meter", "Meter", [(m, m.replace("_", " "))
                                        for m in values("meter")])
            + f"<fieldset><legend>Kind</legend>{boxes}</fieldset>"
            + '<output aria-live="polite"></output></form>')


def _groups(order: pd.DataFrame, cells: Sequence[str], names: dict[str, Catalogue]
            ) -> Iterator[tuple[str, str]]:
    """Yield the month and `<tbody>` of each commit (or fetch) of `order` (`_ordered`), whose
    rows are `cells`: a heading row (when, which catalogue, the commit's link and subject, how
    many moves), then its moves."""
    keys = list(zip(*(order[c].to_numpy(dtype=object).tolist()
                      for c in ("at", "catalogue", "commit", "subject")), strict=True))
    starts = [0, *(i + 1 for i in range(len(keys) - 1) if keys[i] != keys[i + 1]), len(keys)]
    for start, end in itertools.pairwise(starts):
        at, catalogue, commit, subject = keys[start]
        yield at[:7], (f'<tbody data-catalogue="{escape(catalogue)}"><tr class="changes-commit">'
                       f'<th scope="rowgroup" colspan="{len(HEAD)}">'
                       f"{_heading(at, catalogue, commit, subject, end - start, names)}</th>"
                       "</tr>" + "".join(cells[start:end]) + "</tbody>")


def _heading(at: str, catalogue: str, commit: str, subject: str, moves: int,
             names: dict[str, Catalogue]) -> str:
    when = f'<span class="brief-date">{escape(at[:10])} {escape(at[11:16])} UTC</span>'
    repository = names[catalogue].repository if catalogue in names else None
    source = escape(_name(catalogue, names))
    if _SHA.fullmatch(commit):
        sha = f"<code>{commit[:7]}</code>"
        if repository is not None:  # an HttpUrl: http or https only (models/catalogues.py)
            href = f"{str(repository).rstrip('/')}/commit/{commit}"
            sha = f'<a href="{escape(href)}">{sha}</a>'
        what = f"commit {sha} “{escape(subject)}”"
    else:  # none (the readers refuse anything but a sha or nothing)
        what = "seen by our fetch"
    return f"{when} · {source} · {what} · {count(moves, 'move')}"


def _cells(order: pd.DataFrame, curated: Collection[tuple[str, str]]) -> list[str]:
    """Return each move's row, in the order of `order`.

    Column by column as Python lists, each distinct text made once: pandas' itertuples over
    the 30,000 moves of the replayed histories took 2 s, formatting each price and escaping each
    id again most of the rest."""
    columns = {c: order[c].to_numpy(dtype=object).tolist() for c in (
        "provider", "catalogue_provider", "model", "kind", "meter", *_TIER)}
    old = order["old_usd_per_mtok"].to_numpy(dtype=float).tolist()
    new = order["new_usd_per_mtok"].to_numpy(dtype=float).tolist()
    tiers = [_tier(t) for t in zip(*(columns[c] for c in _TIER), strict=True)]
    rows = []
    for provider, listed, model, kind, meter, tier, was, now in zip(
            columns["provider"], columns["catalogue_provider"], columns["model"],
            columns["kind"], columns["meter"], tiers, old, new, strict=True):
        share = change_share(was, now)
        mark = " <em>curated</em>" if (provider, model.casefold()) in curated else ""
        # The catalogue's own id beside ours: two of its providers can be one company for us
        # (gemini and vertex_ai are google), each with its own price.
        seller = _escape(provider) + ("" if listed == provider else f" ({_escape(listed)})")
        change = (f'<td class="brief-num">{percent(share, 1, signed=True)}</td>' if share is not None
                  and kind in ("cut", "rise") else f"<td>{KIND_WORDS.get(kind, '')}</td>")
        rows.append(
            f'<tr data-provider="{_escape(provider)}" data-meter="{_escape(meter)}" '
            f'data-kind="{"day" if kind in ("withdrawn", "relisted") else kind}">'
            f"<td>{seller}</td><td>{escape(model)}{mark}</td><td>{tier}</td>"
            f'<td class="brief-num">{_price(was)}</td><td class="brief-num">{_price(now)}</td>'
            f"{change}</tr>")
    return rows


_TIER = ("meter", "ttl_minutes", "window_utc", "context_above_tokens", "mode", "from_date",
         "to_date")


@functools.cache
def _tier(key: tuple[str, ...]) -> str:
    # A tier's words wrap in a narrow column; its dates and token counts do not.
    return nobr_numbers(escape(tier_words(SimpleNamespace(**dict(zip(_TIER, key, strict=True))))))


@functools.cache
def _escape(text: str) -> str:
    return escape(text)


@functools.cache
def _price(value: float) -> str:
    return "" if math.isnan(value) else usd_text(value)
