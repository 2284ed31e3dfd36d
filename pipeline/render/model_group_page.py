"""Pure: the page of a model across its providers (compose/model_groups.py), as the HTML body
of a shell page (render/shell_page.py), and the index of them by family and by provider, as
Markdown. Every id, name and link is escaped: they come from third-party catalogues."""

from __future__ import annotations

import datetime as dt
import html
from collections import defaultdict
from collections.abc import Sequence

from pipeline.compose.model_groups import Listing, ModelGroup
from pipeline.compose.numbers import catalogue_usd, context_tokens, grouped
from pipeline.compose.provider_pages import provider_path
from pipeline.models.links import is_allowed_link
from pipeline.models.prices import WorkloadProfile
from pipeline.render.escape import md_cell
from pipeline.render.shell_page import ShellPage
from pipeline.render.table_numbers import nobr_numbers

HEADS = ("Input", "Cached input", "Cache write", "Output", "Batch input", "Batch output")
MARKET = "../../market/"
"""The Market page from a model page (models/<slug>/)."""


def chart_path(group: ModelGroup) -> str:
    """Return the path of the model's price-history chart in the docs."""
    return f"charts/models/{group.slug}.svg"


def page_path(group: ModelGroup) -> str:
    return f"models/{group.slug}/index.html"


def _usd(value: float | None) -> str:
    return "" if value is None else catalogue_usd(value)


def _cell(text: str, number: bool = False) -> str:
    return f'<td class="brief-num">{text}</td>' if number else f"<td>{text}</td>"


def _row(item: Listing) -> str:
    model = f'<a href="{MARKET}#{html.escape(item.anchor)}">{html.escape(item.model)}</a>'
    if item.tracked:
        model += f' (<a href="../{html.escape(item.tracked)}/">its own page</a>)'
    source = html.escape(item.source)
    if is_allowed_link(item.source_url):
        source = f'<a href="{html.escape(item.source_url)}">{source}</a>'
    cells = [f'<th scope="row"><a href="../../{provider_path(item.provider)}">'
             f"{html.escape(item.provider)}</a></th>", _cell(model),
             f'<td class="brief-words">{nobr_numbers(html.escape(item.variant))}</td>',
             *(_cell(_usd(v), True) for v in item.usd_per_mtok),
             _cell(context_tokens(item.context_tokens), True),
             *(_cell(_usd(v), True) for v in item.blends),
             f'<td class="brief-date">{html.escape(item.first_seen)}</td>',
             f'<td class="brief-date">{html.escape(item.since)}</td>', _cell(source)]
    return f'<tr>{"".join(cells)}</tr>'


def group_body(group: ModelGroup, profiles: Sequence[WorkloadProfile], as_of: dt.date,
               chart: str | None) -> str:
    """Return the page's HTML body; `chart`: the chart's URL from the page, if it has one."""
    n = len(group.listings)
    providers = sorted({item.provider for item in group.listings})
    spellings = ", ".join(f"<code>{html.escape(s)}</code>" for s in group.spellings)
    parts = [
        f"<p>{html.escape(group.title)} (<code>{html.escape(group.canonical)}</code>) as "
        f"{len(providers)} provider{'s' if len(providers) != 1 else ''} list it on the "
        f'<a href="{MARKET}">Market</a> as of {as_of.isoformat()}: {n} listing'
        f"{'s' if n != 1 else ''}, cheapest first"
        + (f" by the {html.escape(profiles[0].title)} workload's blended price"
           if profiles else " by output price")
        + ". Prices are in US dollars per million tokens: rest-of-week, base band, realtime, "
        "batch beside; a price in another currency is converted at the ECB rate of its "
        "record's date. Each provider links to its page, each model id to its row on the Market "
        "page. Variant: how the "
        "listing serves the model where its id says so (a precision such as fp8, a host's "
        "serving tier such as turbo); First seen: the date of the listing's first dated price "
        "in its catalogue's history; Since: the date of its last change. Listed as: "
        f"{spellings}.</p>"]
    # A profile's short name heads its column; its whole title is told under the table.
    blend_heads = [f"{html.escape(p.title.split(' (', 1)[0])} blend" for p in profiles]
    head = "".join(f'<th scope="col">{h}</th>' for h in
                   ["Provider", "Model id", "Variant", *HEADS, "Context", *blend_heads,
                    "First seen", "Since", "Source"])
    # No class on the table: Material styles a table of its own without one.
    parts.append('<div class="brief-scroll"><table><thead><tr>'
                 f'{head}</tr></thead><tbody>{"".join(_row(i) for i in group.listings)}'
                 "</tbody></table></div>")
    if group.held:
        named = "; ".join(f"{html.escape(p)} (<code>{html.escape(m)}</code>)"
                          for p, m in group.held)
        parts.append(f"<p>Held back as implausible, and so not priced here: {named}. Their "
                     'prices are on the <a href="../../discrepancies/">Discrepancies</a> '
                     "page.</p>")
    if profiles:
        told = "; ".join(f"{html.escape(p.title.split(' (', 1)[0])}: {html.escape(p.title)}"
                         for p in profiles)
        parts.append(f"<p>Blends are USD per million tokens of a workload profile ({told}), "
                     "as the Market page's calculator prices it.</p>")
    parts.append("<h2>Price history</h2>")
    if group.paths is not None and chart:
        n_lines = len(group.paths.lines)
        parts.append(
            f'<p><img src="{html.escape(chart)}" alt="Output price over time of {n_lines} '
            f"listing{'s' if n_lines != 1 else ''} of {html.escape(group.title)}, one step "
            'line each; the tables on this page give the numbers." class="brief-chart"></p>'
            "<p>The output price of each listing (USD per million tokens) from its first dated "
            "price in the catalogues' histories: a price holds from the catalogue version that "
            "first showed it until the next; a gap where the listing was gone.</p>")
    elif group.paths is None:
        parts.append("<p>Fewer than two dated prices of these listings in the catalogues' "
                     "histories: nothing to chart yet.</p>")
    if group.history is None:
        since = f" since {group.flat_since}" if group.flat_since else ""
        parts.append("<p>No base price of these listings moved in the catalogues' "
                     f"snapshots{since}; a curated listing's own page has its dated "
                     "history.</p>")
    else:
        parts.append("<p>Every base price that moved, from the catalogue version that first "
                     "showed it:</p>")
        parts.append(_moves_table(group))
    return "".join(parts)


def _moves_table(group: ModelGroup) -> str:
    """The chart's numbers: each moved price from the snapshot that first showed it."""
    assert group.history is not None
    rows = "".join(f'<tr><td>{html.escape(label)}</td><td class="brief-date">{at:%Y-%m-%d}</td>'
                   f'<td class="brief-num">{_usd(usd)}</td></tr>'
                   for label, points in group.history.lines for at, usd in points)
    return ('<div class="brief-scroll"><table><thead><tr><th scope="col">Listing, meter</th>'
            '<th scope="col">From</th><th scope="col">USD per Mtok</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></div>")


def group_page(group: ModelGroup, profiles: Sequence[WorkloadProfile],
               as_of: dt.date) -> ShellPage:
    """Return the shell page of a model across its providers."""
    chart = f"../../{chart_path(group)}" if group.paths is not None else None
    # The search index holds every model: only its ids, so it stays small enough for a phone.
    ids = dict.fromkeys([group.canonical, *(s.rsplit("/", 1)[-1] for s in group.spellings)])
    return ShellPage(group.title, group_body(group, profiles, as_of, chart),
                     " ".join(i for i in ids if i != group.title))


def groups_index_md(groups: Sequence[ModelGroup], tracked_index: str) -> str:
    """Return `models/index.md`: the tracked models' table (`tracked_index`, without its
    heading), then every model by family and by provider, each linked to its page."""
    families: dict[str, list[ModelGroup]] = defaultdict(list)
    by_provider: dict[str, list[ModelGroup]] = defaultdict(list)
    for group in groups:
        families[group.family].append(group)
        for provider in {item.provider for item in group.listings}:
            by_provider[provider].append(group)

    def links(items: list[ModelGroup]) -> str:
        return ", ".join(f"[{md_cell(g.title)}]({g.slug}/)" for g in
                         sorted(items, key=lambda g: g.title.casefold()))

    lines = ["---", "search:", "  exclude: true", "---", "", "# Models", "",
             (f"{grouped(len(groups))} models the Market lists, each with a page of every provider "
              "that lists it, cheapest first. Grouped below by family (the letters a model's "
              "id starts with) and by provider; the models we track closely come first."), "",
             "## Tracked models", "", tracked_index, "", "## By family", ""]
    lines += [f"- **{md_cell(name)}** ({len(items)}): {links(items)}"
              for name, items in sorted(families.items())]
    lines += ["", "## By provider", ""]
    lines += [f"- **{md_cell(name)}** ({len(items)}): {links(items)}"
              for name, items in sorted(by_provider.items())]
    return "\n".join([*lines, ""])
