"""Issue 49, point 4, in headless Chromium: the Llama 3.3 70B page holds the model however its
providers spell it (`meta-llama/Llama-3.3-70B-Instruct`, `llama-3.3-70b-versatile`,
`meta.llama3-3-70b-instruct`, …), and charts each listing's path, every label of the drawing
inside it. Chromium as in test_browser.py."""

from __future__ import annotations

from test_browser import browser, page, reader, site_url  # noqa: F401  (fixtures)

ROWS = """() => [...document.querySelectorAll('article tbody tr')].map(tr => [
    tr.querySelector('th') ? tr.querySelector('th').textContent.trim() : '',
    [...tr.querySelectorAll('td')].map(td => td.textContent.trim())])"""
CHART = """async () => {
    const img = document.querySelector('img.brief-chart');
    if (!img) return null;
    img.scrollIntoView();
    await img.decode();
    const svg = new DOMParser().parseFromString(await (await fetch(img.src)).text(),
                                                'image/svg+xml').documentElement;
    return {natural: img.naturalWidth, shown: img.getBoundingClientRect().width,
            paths: svg.querySelectorAll('path').length, viewBox: svg.viewBox.baseVal.width,
            legend: [...svg.querySelectorAll('text')].map(t => t.textContent)};
}"""


def test_the_llama_3_3_70b_page_lists_its_providers_and_charts_their_paths(
        page, site_url: str) -> None:  # noqa: F811
    page.goto(f"{site_url}models/llama-3-3-70b/")
    rows = page.evaluate(ROWS)
    listings = [r for r in rows if len(r[1]) > 10]  # the listings' table, not the moves'
    providers = {provider for provider, _ in listings}
    assert len(providers) >= 10, providers
    ids = {cells[0] for _, cells in listings}
    for spelling in ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b-versatile",
                     "accounts/fireworks/models/llama-v3p3-70b-instruct"):
        assert any(i.startswith(spelling) for i in ids), spelling
    assert {"fp8, fast", "turbo", "versatile"} <= {cells[1] for _, cells in listings}
    chart = page.evaluate(CHART)
    assert chart is not None and chart["natural"] > 0 and chart["shown"] > 300
    assert chart["paths"] > 10  # a step path a listing, beside the axes
    assert any(text.startswith("groq (versatile)") for text in chart["legend"])
