"""Pure: the providers' pages (compose/provider_pages.py) as HTML bodies put into a shell
(render/shell_page.py: Material takes about 45 ms a page, and the catalogues name over 150
providers), and `providers/index.md`, every provider with its counts. Every id, name, cause and
link comes from third-party catalogues: each is escaped here, and a source is linked only when
its URL is one the site allows (models/links.is_allowed_link)."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable

from pipeline.compose.numbers import catalogue_usd, count, grouped, money
from pipeline.compose.provider_pages import ProviderPage, ProviderPages
from pipeline.models.links import is_allowed_link
from pipeline.normalize.units import METER_TITLES
from pipeline.render.changes_page import month_path
from pipeline.render.escape import md_cell
from pipeline.render.shell_page import ShellPage
from pipeline.render.table_numbers import nobr_numbers

ROOT = "../../"
"""The site's root from a provider's page (providers/<slug>/)."""


def page_path(page: ProviderPage) -> str:
    return f"providers/{page.slug}/index.html"


def usd_cell(value: float | None) -> str:
    """A price as the Market's table shows it, with its exact figure in `data-value`."""
    if value is None or math.isnan(value):
        return '<td class="brief-num" data-value=""></td>'
    return f'<td class="brief-num" data-value="{value!r}">{catalogue_usd(value)}</td>'


def _table(heads: Iterable[str], rows: Iterable[str]) -> str:
    """A table in a box that scrolls sideways on a phone, as the model pages' are."""
    head = "".join(f'<th scope="col">{h}</th>' for h in heads)
    return ('<div class="brief-scroll">'
            f'<table><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _source(name: str, url: str) -> str:
    text = html.escape(name)
    return f'<a href="{html.escape(url)}">{text}</a>' if is_allowed_link(url) else text


def _words(text: str) -> str:
    """A cell of words: wrapped between them, never inside one, each number kept whole (the
    ids of these tables may break anywhere on a phone; assets/market.css)."""
    return f'<td class="brief-words">{nobr_numbers(html.escape(text))}</td>'


def _listings(page: ProviderPage, as_of: str) -> list[str]:
    if not page.listings:
        return [f"<p>No listing of {html.escape(page.name)} is on the "
                f'<a href="{ROOT}market/">Market</a> as of {as_of}.</p>']
    rows = []
    for item in page.listings:
        rows.append(
            f'<tr><th scope="row"><a href="{ROOT}models/{html.escape(item.model_page)}/">'
            f"{html.escape(item.model)}</a></th>"
            + "".join(usd_cell(v) for v in item.usd_per_mtok)
            + f"<td>{html.escape(item.currency)}</td>"
            f'<td class="brief-date">{html.escape(item.first_seen)}</td>'
            f'<td class="brief-date">{html.escape(item.since)}</td>'
            f"<td>{_source(item.source, item.source_url)}</td></tr>")
    return [
        f"<h2>Listings</h2><p>{count(len(page.listings), 'listing')} of "
        f'{html.escape(page.name)} on the <a href="{ROOT}market/">Market</a> as of {as_of}, '
        "by model id, each linked to the model's page across providers. Prices are the "
        "Market's: US dollars per million tokens, rest-of-week, base band, realtime; a price "
        "listed in another currency (Currency) is converted at the ECB rate of its record's "
        "date. Each figure rests on its Source: our curated file where we keep one (it wins "
        "for the same model), else the first catalogue in sources/catalogues.yaml that lists "
        "it. First seen: the listing's first dated price in that source's history; Since: "
        "the date of its last change.</p>",
        _table(["Model", "Input", "Cached input", "Output", "Currency",
                            "First seen", "Since", "Source"], rows)]


def _moves(page: ProviderPage) -> list[str]:
    out = ["<h2>Price moves</h2>"]
    churn = (f" Besides, the catalogues recorded {count(page.new_listings, 'new listing')} "
             f"and {count(page.removed_listings, 'listing')} no longer listed; the "
             f'<a href="{ROOT}changes/">Changes</a> pages list every one.')
    if not page.moves:
        return [*out, "<p>No price of its listings moved in the published catalogues' "
                f"histories.{churn}</p>"]
    rows = []
    for m in page.moves:
        old, new = m.old_usd_per_mtok, m.new_usd_per_mtok
        share = f"{new / old - 1:+.0%}" if old else ""
        month = month_path(m.at[:7]).removesuffix("index.html")
        rows.append(
            f'<tr><td class="brief-date"><a href="{ROOT}{month}">'
            f"{html.escape(m.at[:10])}</a></td><td>{html.escape(m.catalogue)}</td>"
            f"<td>{html.escape(m.model)}</td>{_words(m.price)}"
            f"{usd_cell(old)}{usd_cell(new)}<td class=\"brief-num\">{share}</td></tr>")
    out.append(f"<p>{count(len(page.moves), 'price move')} of its listings in the published "
               "catalogues' histories, newest first, each dated by the catalogue version that "
               "first showed it and linked to its month on the Changes pages, where the "
               f"commit that made it is named.{churn}</p>")
    out.append(_table(["Seen", "Catalogue", "Model", "Price", "Was", "Now",
                                      "Change"], rows))
    return out


def _held(page: ProviderPage) -> list[str]:
    if not page.held:
        return []
    rows = []
    for h in page.held:
        median = "" if h.median_usd_per_mtok is None else money(h.median_usd_per_mtok, "USD")
        until = f" (until {h.gone_seen[:10]})" if h.gone_seen else ""
        # The catalogue linked, as on Discrepancies: also what a keyboard focuses to scroll
        # the table on a phone (axe: scrollable-region-focusable).
        rows.append(f"<tr><td>{_source(h.catalogue, h.catalogue_page)}</td>"
                    f"<td>{html.escape(h.model)}</td>"
                    f"{_words(METER_TITLES.get(h.meter, h.meter))}"
                    f"{usd_cell(h.usd_per_mtok)}<td class=\"brief-num\">{median}</td>"
                    f'<td class="brief-date">{html.escape(h.first_seen[:10])}{until}</td>'
                    f"{_words(h.cause)}</tr>")
    return ["<h2>Held back</h2>",
            f"<p>{count(len(page.held), 'price')} of its listings held back as implausible "
            "and so on no other page: far from the median of the same model's other "
            "providers, or above the ceiling of its mode (the Why column says which). The "
            f'<a href="{ROOT}discrepancies/">Discrepancies</a> page lists every one.</p>',
            _table(["Catalogue", "Model", "Price", "Listed", "Median elsewhere",
                                 "Since", "Why"], rows)]


def _catalogues(page: ProviderPage) -> list[str]:
    out = ["<h2>Where its prices come from</h2>"]
    if page.curated:
        out.append(f"<p>Our curated file: <code>{html.escape(page.curated)}</code>.</p>")
    if not page.catalogues:
        return [*out, "<p>No catalogue we follow lists it at the newest edition's date.</p>"]
    rows = [f"<tr><td>{_source(c.name, c.page)}</td>"
            f"<td>{'published' if c.published else 'cross-check only'}</td>"
            f'<td class="brief-num">{grouped(c.listings)}</td>'
            f'<td class="brief-date">{html.escape(c.newest_snapshot[:10])}</td>'
            f'<td class="brief-date">{html.escape(c.last_read[:10]) or "never"}</td></tr>'
            for c in page.catalogues]
    spelt = ""
    if page.spellings:
        spelt = (" They list it as " + ", ".join(f"<code>{html.escape(s)}</code>"
                                                for s in page.spellings) + ".")
    out.append("<p>The catalogues that list it at the end of the newest edition's day: its "
               "models in each, the newest version of the catalogue our histories hold by "
               "then, and when our last fetch read the whole catalogue. A cross-check's prices "
               f"are compared, never published.{spelt}</p>")
    out.append(_table(["Catalogue", "Use", "Models", "Newest version",
                                     "Last read"], rows))
    return out


def provider_body(page: ProviderPage, as_of: str) -> str:
    """Return the page's HTML body."""
    return "".join([*_listings(page, as_of), *_moves(page), *_held(page), *_catalogues(page)])


def provider_page(page: ProviderPage, as_of: str) -> ShellPage:
    """Return the shell page of a provider; indexed by its name and the ids the catalogues
    give it, not by its models: each model has a page of its own in the index."""
    ids = dict.fromkeys([page.provider, *page.spellings])
    return ShellPage(f"{page.name} (provider)", provider_body(page, as_of),
                     " ".join(ids))


def providers_index_md(pages: ProviderPages) -> str:
    """Return `providers/index.md`: every provider with its counts, each linked to its page."""
    lines = ["---", "search:", "  exclude: true", "---", "", "# Providers", "",
             (f"{grouped(len(pages.pages))} providers that our curated files or the catalogues we "
              f"follow name, as of {pages.as_of.isoformat()}: how many listings each has on "
              "the Market, how many of their prices moved in the catalogues' histories, how "
              "many are held back as implausible, and how many catalogues list it. Each "
              "page has the listings with their prices and sources, the moves and why a price "
              "was held back."), "",
             "| Provider | Listings | Price moves | Held back | Catalogues |",
             "|---|---|---|---|---|"]
    for p in pages.pages:
        lines.append(f"| [{md_cell(p.name)}]({p.slug}/) | {grouped(len(p.listings))} | "
                     f"{grouped(len(p.moves))} | {grouped(len(p.held))} | {grouped(len(p.catalogues))} |")
    return "\n".join([*lines, ""])


def provider_files(pages: ProviderPages) -> dict[str, str | ShellPage]:
    """Return the providers' index and a page per provider."""
    as_of = pages.as_of.isoformat()
    files: dict[str, str | ShellPage] = {"providers/index.md": providers_index_md(pages)}
    files.update({page_path(p): provider_page(p, as_of) for p in pages.pages})
    return files
