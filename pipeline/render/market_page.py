"""Pure: the Market page, every model with a token price as of the newest edition, and its data
files.

The table is HTML written here (every cell escaped: catalogue text is third-party), sorted by
output price, so it reads without JavaScript, and again in each of a few other orders, a page
each that its column's heading links to (market_sorts.py); `assets/market.js` sorts by any
column in place, filters by mode (realtime: every row; batch: the rows with batch prices),
provider and text, and adds the calculator: a workload's cost and tokens per dollar per model,
two columns it computes from the prices in the rows. Numbers carry their exact value in
`data-value` for sorting; a row whose price depends on the hour carries its off-peak and other
hours' prices, a row with batch input and output prices those (`data-batch`), and every priced
row the build's own figures for each preset (`data-build-<profile>`, at batch prices
`data-build-batch-<profile>`: USD, then tokens per USD), which the browser test holds the
page's to.
"""

from __future__ import annotations

import datetime as dt
import html
import math
from collections.abc import Mapping, Sequence

import pandas as pd

from pipeline.compose.list_moves import ListMove, newest_list_moves
from pipeline.compose.model_pages import model_slug
from pipeline.compose.numbers import catalogue_usd, context_tokens, grouped
from pipeline.compose.provider_pages import provider_path
from pipeline.formats.numbers import finite
from pipeline.models.links import is_allowed_link
from pipeline.models.prices import WorkloadProfile
from pipeline.models.sources import Sources
from pipeline.render.market_past import FOLDER
from pipeline.render.market_sorts import SORT_BY, SORTS, Sort
from pipeline.render.verbatim import verbatim
from pipeline.tables.catalogue_history import COLUMNS as PERIOD_COLUMNS
from pipeline.tables.catalogue_records import MOVE_COLUMNS
from pipeline.tables.cost import day_end
from pipeline.tables.frames import csv_bytes, json_bytes, records
from pipeline.tables.market import (
    COLUMNS,
    TIER_METERS,
    calculator_profiles,
    preset_figures,
)
from pipeline.tables.plausibility import held_per_catalogue

HISTORY_COLUMNS = ("catalogue", *PERIOD_COLUMNS)
"""The columns of `data/price-history.csv`: every period of every published catalogue."""
SHOWN = (("provider", "Provider", False), ("model", "Model", False),
         ("input_usd_per_mtok", "Input", True), ("cached_input_usd_per_mtok", "Cached input", True),
         ("output_usd_per_mtok", "Output", True),
         ("context_window_tokens", "Context", True),
         ("cache_write_usd_per_mtok", "Cache write", True),
         ("batch_input_usd_per_mtok", "Batch input", True),
         ("batch_output_usd_per_mtok", "Batch output", True),
         ("currency", "List", False), ("source", "Source", False),
         ("last_change", "Since", False), ("first_seen", "First seen", False),
         ("released", "Released", False))
"""The table's columns, those a reader needs first first: without JavaScript, on a narrow
screen, the table is read from the left. At a phone's width assets/market.css shows provider,
model, input and output (by position: a class on each cell made the page a third larger); the
rest of a row is on its model's page, one tap away."""
SHOWN_TITLES = {column: title for column, title, _ in SHOWN}
UP = "<up>"
"""Where a row's link starts from the site's root, until a page puts in its own way there: no
escaped text holds `<`."""


def _price(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return '<td data-value=""></td>'
    return f'<td data-value="{value!r}">{catalogue_usd(value, sign="")}</td>'


def _tokens(value: float) -> str:
    text = context_tokens(value)
    return f'<td data-value="{int(value)}">{text}</td>' if text else '<td data-value=""></td>'


def _is_finite(value: object) -> bool:
    return finite(value) is not None


def _row_attributes(row, figures: list[tuple[str, float, float]]) -> str:
    """Return a row's data attributes: its provider, `data-free`, its prices by kind of hour
    where they depend on it, its batch input and output prices where it has both, and the
    build's figures of each preset (`figures`: id, `batch-` and the id for batch prices, USD,
    tokens per USD). Only finite numbers: an empty or absent attribute is the page's blank."""
    attrs = [f'data-provider="{html.escape(row.provider)}"']
    if row.free:
        attrs.append("data-free")
    if _is_finite(row.offpeak_week_share):
        for prefix in ("offpeak", "peak"):
            prices = [getattr(row, f"{prefix}_{m}_usd_per_mtok") for m in TIER_METERS]
            # Input and output, or no prices for those hours; a missing cached price is blank.
            if _is_finite(prices[0]) and _is_finite(prices[-1]):
                text = " ".join(repr(float(v)) if _is_finite(v) else "" for v in prices)
                attrs.append(f'data-{prefix}="{text}"')
        attrs.append(f'data-offpeak-week="{float(row.offpeak_week_share)!r}"')
    batch = (row.batch_input_usd_per_mtok, row.batch_output_usd_per_mtok)
    # Both or none: the Mode filter's batch rows, priced at these two (68 of ~3,000 rows).
    if all(_is_finite(v) for v in batch):
        attrs.append(f'data-batch="{" ".join(repr(float(v)) for v in batch)}"')
    for profile_id, usd, tokens in figures:
        if _is_finite(usd):
            value = f"{float(usd)!r} {repr(float(tokens)) if _is_finite(tokens) else ''}".rstrip()
            attrs.append(f'data-build-{profile_id}="{value}"')
    return " ".join(attrs)


def _field(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def calculator_html(profiles: list[WorkloadProfile], as_of: dt.date | None = None,
                    past: Sequence[dt.date] = (), up: str = "../") -> str:
    """Return the calculator's form, hidden until market.js runs: the date whose prices it
    shows (`as_of`, the table's, then each of `past`: render/market_past.py, whose files are
    fetched from `up`, the page's way to the site's root), a preset select,
    the four fields, a note on how it prices, and the output region that sums up the
    workload."""
    days = ""
    if as_of is not None and past:
        options = "".join(f'<option value="{d.isoformat()}">{d.isoformat()}</option>'
                          for d in past)
        # Relative to the page's own URL (market/), as the rows' model links are.
        days = ('<p><label for="market-on">Prices on</label> <select id="market-on" '
                f'data-base="{up}{FOLDER}/">'
                f'<option value="">{as_of.isoformat()}, the newest edition</option>{options}'
                '</select> <output id="market-on-status" aria-live="polite"></output></p>')
    presets = ['<option value="">your own</option>']
    for p in profiles:
        # A profile is a share of input tokens: as a workload, 1,000,000 tokens split by it.
        input_tokens = 1_000_000 * p.input_share
        offpeak = "" if p.offpeak_share is None else _field(100 * p.offpeak_share)
        presets.append(
            f'<option value="{html.escape(p.id)}" data-input-tokens="{_field(input_tokens)}" '
            f'data-output-tokens="{_field(1_000_000 - input_tokens)}" '
            f'data-cache-hit="{_field(100 * p.cache_hit_rate)}" data-offpeak="{offpeak}">'
            f"{html.escape(p.title)}</option>")
    first = profiles[0] if profiles else None
    # The fields start as the first preset (without one, as the market's usual 3:1 chat).
    start = 1_000_000 * first.input_share if first else 750_000
    hits = _field(100 * first.cache_hit_rate) if first else "0"
    offpeak = ("" if first is None or first.offpeak_share is None
               else _field(100 * first.offpeak_share))

    def field(ident: str, label: str, value: str, extra: str = "") -> str:
        return (f'<p><label for="{ident}">{label}</label> <input id="{ident}" type="number" '
                f'min="0" step="any" value="{value}"{extra}></p>')

    return "".join([
        '<form id="market-calculator" class="market-calculator" hidden>',
        "<fieldset><legend>Price a workload</legend>", days,
        ('<p><label for="market-preset">Preset</label> <select id="market-preset">'
         f'{"".join(presets)}</select></p>' if profiles else ""),
        field("market-input-tokens", "Input tokens", _field(start)),
        field("market-output-tokens", "Output tokens", _field(1_000_000 - start)),
        field("market-cache-hit", "Cache hits, % of input tokens", hits, ' max="100"'),
        field("market-offpeak", "Off-peak share, % of traffic", offpeak,
              ' max="100" placeholder="by the hours"'),
        "</fieldset>",
        ("<p>The <strong>Cost</strong> column is what this workload costs with each model, in "
         "US dollars, and <strong>Tokens per $</strong> how many of its tokens one dollar buys. "
         "Cache hits bill at the cached-input price; a model whose list gives none has no cost "
         "for a workload with cache hits (set them to 0 % to price it), as in the editions' "
         "blends. Where a price depends on the hour (DeepSeek's peak hours), the off-peak share "
         "bills at the model's off-peak prices and the rest at its other hours' prices; left "
         "empty, traffic is spread evenly over the week's hours. A model with one price all "
         "week bills it all at the prices below. Each preset is a workload profile the "
         "editions blend prices for, as 1,000,000 tokens split by its input share and with its "
         "cache-hit rate: its cost is then the blended price per million tokens."
         + (f" {html.escape(first.title)}, for one, is {grouped(start)} input and "
            f"{grouped(1_000_000 - start)} output tokens." if first else "")
         + " Base band, realtime; free models show as free, never ranked. Mode batch keeps "
         "the models with a batch input and output price and bills them at those, one price "
         "all week; no list gives a cached-input batch price, so a workload with cache hits "
         "has no batch cost."
         + (" On a past date the table is the market as it stood at that day's end: each "
            "price as the newest snapshot of its catalogue by then showed it, its Source "
            "naming that snapshot's day and linking to its commit." if days else "")
         + "</p>"),
        '<p><output id="market-workload" for="market-input-tokens market-output-tokens '
        'market-cache-hit market-offpeak" aria-live="polite"></output></p>',
        "</form>"])


def market_page_md(table: pd.DataFrame, as_of: dt.date,
                   profiles: list[WorkloadProfile] | None = None,
                   pages: Sequence[str] = (), held: int = 0,
                   other_modes: Mapping[str, int] | None = None,
                   other_billing: Mapping[str, int] | None = None,
                   elsewhere: Mapping[tuple[str, str], ListMove] | None = None,
                   anchors: Sequence[str] = (), past: Sequence[dt.date] = (),
                   sort: Sort = SORTS[0]) -> str:
    """Return the Market page in the order `sort` (market_pages_md, whose arguments these
    are)."""
    return market_pages_md(table, as_of, profiles, pages, held, other_modes, other_billing,
                           elsewhere, anchors, past, (sort,))[sort.source]


def market_pages_md(table: pd.DataFrame, as_of: dt.date,
                    profiles: list[WorkloadProfile] | None = None,
                    pages: Sequence[str] = (), held: int = 0,
                    other_modes: Mapping[str, int] | None = None,
                    other_billing: Mapping[str, int] | None = None,
                    elsewhere: Mapping[tuple[str, str], ListMove] | None = None,
                    anchors: Sequence[str] = (), past: Sequence[dt.date] = (),
                    sorts: Sequence[Sort] = SORTS) -> dict[str, str]:
    """Return the Market page in each order of `sorts` by its Markdown path (Sort.source): a
    count, how to read it, the calculator (presets: `profiles`), the filters and the table,
    whose rows are made once; `pages`: the slug of each row's model page (models/<slug>/),
    `anchors`: each row's id, in the table's order.
    `held`: the catalogue listings held back as implausible; `other_modes`: the listings of
    each mode other than text, and `other_billing` those billed otherwise than per token, by
    how, left out (all said on the page). `elsewhere`: the models whose
    last change was in a list the row does not show (compose/list_moves.py), whose Since names
    that list and links to the story told under the table. `past`: the earlier dates whose
    table the calculator offers, newest first."""
    rows_shown = set(zip(table["provider"], table["model"]))
    elsewhere = {k: v for k, v in (elsewhere or {}).items() if k in rows_shown}
    profiles = calculator_profiles(profiles or [])
    providers = sorted(set(table["provider"]))
    free = int(table["free"].sum())
    # Each row made once, its links from the site's root written UP: a sorted copy sits a
    # folder deeper than the Market page (market/by-input/).
    rows = _rows(table, profiles, pages, anchors, elsewhere)
    options = "".join(f'<option value="{html.escape(p)}">{html.escape(p)}</option>'
                      for p in providers)
    out = {}
    for sort in sorts:
        # Links are to the built pages' URLs, not to their Markdown files, as the rows' are:
        # mkdocs then has none to rewrite, and keeps a page whose Markdown it has rendered
        # before (cache/page_cache.py), a megabyte-long table it reads for each link. A data
        # file is a file of the docs to mkdocs, which it checks: from the Markdown file.
        up, docs = sort.up, "../" if sort.slug else ""
        order = sort.order(table)
        out[sort.source] = "\n".join([
            # Full width: fourteen columns (with the calculator's two) fit beside no navigation.
            # A sorted copy: not in the search index, its canonical page the Market's
            # (publish/mkdocs_site.py).
            "---", "search:", "  exclude: true", "hide:", "  - navigation", "  - toc",
            *(["canonical: market/"] if sort.slug else []), "---", "",
            "# Market: every model with a token price"
            + (f", by {sort.says.partition(',')[0]}" if sort.slug else ""), "",
            (f"{grouped(len(table))} models from {len(providers)} providers as of {as_of.isoformat()}, "
             "in US dollars per million tokens: the rest-of-week, base-band, realtime prices "
             "(batch beside). Our curated provider files come first and win for the same model; "
             f"the rest are from the public catalogues listed on the [Sources]({up}sources/) "
             "page, each as its newest snapshot by then showed it. Prices in another currency "
             "are converted at the ECB rate of their record's date. Context is the model's "
             "context window in input tokens, as the newest catalogue snapshot gives it (for a "
             f"curated model too). {free} models list a zero price: shown as free, never ranked. "
             f"{_left_out(held, other_modes or {}, other_billing or {}, up)}"
             f"Sorted by {sort.says}{_others(sort)}. The data is in "
             f"[market.csv]({docs}data/market.csv)."), "",
            calculator_html(profiles, as_of, past, up), "",
            '<div class="market-filters" hidden>'
            '<label>Mode <select id="market-mode"><option value="realtime">realtime</option>'
            '<option value="batch">batch</option></select></label> '
            '<label>Provider <select id="market-provider"><option value="">all</option>'
            f"{options}</select></label> "
            '<label>Search <input id="market-search" type="search" placeholder="model"></label> '
            '<output id="market-count"></output></div>', "",
            # No class: Material then styles it as its own tables, scrolling inside its box.
            verbatim("\n".join([f'<table id="market-table"><thead><tr>{_head(sort)}</tr></thead>'
                                 "<tbody>", *(rows[i].replace(UP, up) for i in order),
                                 "</tbody></table>"])), "",
            *_since_notes(elsewhere)])
    return out


def _others(sort: Sort) -> str:
    """Where the table's other orders are, said after the page's own."""
    others = [SHOWN_TITLES[s.column] for s in SORTS if s != sort]
    if not others:
        return ""
    names = f"{', '.join(others[:-1])} and {others[-1]}" if len(others) > 1 else others[0]
    return (f". The headings {names} link to the table sorted by their column; with "
            "JavaScript, every heading sorts it in place")


def _head(sort: Sort) -> str:
    """The table's heading cells: a link to the page of each order that has one (market.js
    sorts in place instead), the column's name for the rest (market.js makes it a button);
    the page's own order marked."""
    cells = []
    for column, title, number in SHOWN:
        own = SORT_BY.get(column)
        name = (f'<a href="{own.href(sort)}">{html.escape(title)}</a>' if own
                else html.escape(title))
        marked = ""
        if column == sort.column:
            marked = f' aria-sort="{"ascending" if sort.ascending else "descending"}"'
        # data-column: market.js finds the prices it prices a workload with by it, not by
        # position.
        cells.append(f'<th scope="col" data-kind="{"number" if number else "text"}" '
                     f'data-column="{column}"{marked}>{name}</th>')
    return "".join(cells)


def _rows(table: pd.DataFrame, profiles: list[WorkloadProfile], pages: Sequence[str],
          anchors: Sequence[str], elsewhere: Mapping[tuple[str, str], ListMove]) -> list[str]:
    """Return each row of the table as HTML, in the table's order, UP standing for the way
    from the page to the site's root."""
    figures = preset_figures(table, profiles)
    columns = [(f"{prefix}{p.id}", figures[f"{p.id}{infix}_usd_per_mtok"].to_numpy(),
                figures[f"{p.id}{infix}_tokens_per_usd"].to_numpy())
               for prefix, infix in (("", ""), ("batch-", "_batch")) for p in profiles]
    rows = []
    for i, row in enumerate(table.itertuples(index=False)):
        cells = []
        for column, _, number in SHOWN:
            value = getattr(row, column)
            if column == "context_window_tokens":
                cells.append(_tokens(value))
            elif column == "provider":
                # Its page: every listing of the provider, its moves and held-back prices.
                cells.append(f'<td><a href="{UP}{provider_path(str(value))}">'
                             f"{html.escape(str(value))}</a></td>")
            elif column == "model" and pages:
                # Its page across providers: every price of the row, one tap away on a phone
                # (the HTML is raw: the built page's URL).
                cells.append(f'<td><a href="{UP}models/{html.escape(pages[i])}/">'
                             f"{html.escape(str(value))}</a></td>")
            elif number:
                cells.append(_price(value))
            elif column == "last_change" and (row.provider, row.model) in elsewhere:
                move = elsewhere[(row.provider, row.model)]
                anchor = f"since-{model_slug(row.provider, row.model)}"
                cells.append(f'<td><a href="#{anchor}">{html.escape(str(value))}, '
                             f"{html.escape(move.currency)} list</a></td>")
            elif column == "source":
                # Raw HTML is not in the tree the SafeLinks guard walks: checked here.
                href = str(row.source_url)
                text = html.escape(str(value))
                cells.append(f'<td><a href="{html.escape(href)}">{text}</a></td>'
                             if is_allowed_link(href) else f"<td>{text}</td>")
            else:
                # A date the sources do not give (a release date, a table made without the
                # histories' dates) is an empty cell, never "nan".
                cells.append(f"<td>{'' if pd.isna(value) else html.escape(str(value))}</td>")
        attrs = _row_attributes(row, [(k, usd[i], tokens[i]) for k, usd, tokens in columns])
        anchor = f' id="{html.escape(anchors[i])}"' if anchors else ""
        rows.append(f'<tr{anchor} {attrs}>{"".join(cells)}</tr>')
    return rows


def _since_notes(elsewhere: Mapping[tuple[str, str], ListMove]) -> list[str]:
    """The stories behind the Since cells that name another list, each at its cell's anchor."""
    if not elsewhere:
        return []
    items = "".join(f'<li id="since-{model_slug(p, m)}">{html.escape(move.sentence())}</li>'
                    for (p, m), move in sorted(elsewhere.items()))
    return [("Since is when the newest price of the model took effect in any of its lists. "
             "Where that list is not the one the row shows:"), "",
            verbatim(f'<ul class="market-notes">{items}</ul>'), ""]


def _left_out(held: int, other_modes: Mapping[str, int],
              other_billing: Mapping[str, int], up: str = "../") -> str:
    """Return the sentences saying which catalogue listings are not in the table, and why;
    `up`: the way from the page's URL to the site's root."""
    text = ""
    if held:
        text += (f"{grouped(held)} catalogue listing{'s are' if held != 1 else ' is'} held back as "
                 "implausible (far from the same model's other providers, or above the ceiling "
                 f"for text models): see the [Discrepancies]({up}discrepancies/) page. ")
    if other_modes:
        modes = ", ".join(f"{grouped(n)} {mode}" for mode, n in sorted(other_modes.items()))
        text += (f"Only text-generation models are ranked here; left out, their token fields "
                 f"not being comparable: {modes} listings. ")
    if other_billing:
        ways = "; ".join(f"{grouped(n)} {how}" for how, n in other_billing.items())
        text += ("Left out too, as not billed per token (their token price, mostly zero, is "
                 f"no free price): {ways}. ")
    return text


def market_files(sources: Sources, as_of: dt.date, changes: pd.DataFrame,
                 table: pd.DataFrame | None, pages: Sequence[str] = (),
                 anchors: Sequence[str] = (),
                 past: Sequence[dt.date] = ()) -> dict[str, str | bytes]:
    """Return the Market page of `table` (market_table_of), its sorted copies (market_sorts.py)
    and its data files as of the newest edition (a page that says so when there is no table);
    `changes`: every move of the published catalogues with their commits
    (tables/catalogue_records.committed_moves), for data/changes.csv; `pages` and `anchors`:
    each row's model page and id, `past`: the calculator's earlier dates (market_pages_md)."""
    if table is None:
        return {"market.md": "# Market\n\nNo prices in this repository.\n"}
    published = sources.published_catalogues()
    held = sum(held_per_catalogue(sources.held_prices).values())
    elsewhere = (newest_list_moves(sources.prices, sources.rates, day_end(as_of))
                 if sources.prices and sources.rates is not None else {})
    files: dict[str, str | bytes] = dict(market_pages_md(
        table, as_of, sources.series.profiles, pages, held, sources.other_modes,
        sources.other_billing, elsewhere, anchors, past))
    files.update({"data/market.csv": market_csv(table), "data/market.json": market_json(table)})
    if published:
        histories = [sources.price_histories[c.id].assign(catalogue=c.id) for c in published]
        files["data/price-history.csv"] = csv_bytes(pd.concat(histories, ignore_index=True),
                                                    HISTORY_COLUMNS)
        files["data/changes.csv"] = csv_bytes(changes, MOVE_COLUMNS)
    return files


def market_csv(table: pd.DataFrame) -> bytes:
    """Return `data/market.csv`: COLUMNS, one row per model, as the page orders them."""
    return csv_bytes(table, COLUMNS)


def market_json(table: pd.DataFrame) -> bytes:
    """Return `data/market.json`: the same rows as an array of objects."""
    return json_bytes(records(table, COLUMNS))
