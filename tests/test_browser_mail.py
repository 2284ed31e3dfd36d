"""The e-mail edition in headless Chromium as a mail client with images blocked shows it: the
message itself (built by `brief email`, its HTML part with the charts as cid: parts) at 375 and
600 px, light and dark: no sideways scroll, every image with alt text that states its data; and
every e-mail page of the site at 390 px. Screenshots (BRIEF_SCREENSHOTS=1):
test-artifacts/screenshots/31-*.png.
Chromium as in test_browser.py.
"""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO
from test_browser import EDITIONS, SCREENSHOTS, browser, shot, site_url  # noqa: F401  (fixtures)

from pipeline.cli.main import main


@pytest.fixture(scope="module")
def message(tmp_path_factory: pytest.TempPathFactory) -> email.message.EmailMessage:
    out = tmp_path_factory.mktemp("mail") / "e.eml"
    result = CliRunner().invoke(main, ["email", "2026-09-12", "--root", str(REPO), "--out",
                                       str(out), "--to", "reader@example.org"])
    assert result.exit_code == 0, result.output
    return email.message_from_bytes(out.read_bytes(), policy=email.policy.default)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [375, 600])
def test_the_mail_reads_with_images_blocked_without_sideways_scroll(browser, message,  # noqa: F811
                                                                    width: int,
                                                                    scheme: str) -> None:
    html = message.get_body(("html",)).get_content()
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme,
                                  java_script_enabled=False)
    page = context.new_page()
    requested: list[str] = []
    # Images blocked, as most clients start; nothing else may be fetched either.
    page.route("**/*", lambda route: (requested.append(route.request.url), route.abort()))
    page.set_content(html, wait_until="load")
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert sizes[0] <= sizes[1], f"{sizes[0]} px wide in a {sizes[1]} px window"
    images = page.locator("img").all()
    assert images
    for img in images:
        alt = img.get_attribute("alt") or ""
        # The alt text states the data: the chart's title and its first figures.
        assert len(alt) > 40 and any(ch.isdigit() for ch in alt), alt
        assert (img.get_attribute("src") or "").startswith("cid:")
    assert all(u.startswith("cid:") for u in requested), requested
    # Dark mode: the text is light on dark where the client honours prefers-color-scheme.
    colour = page.evaluate("() => getComputedStyle(document.querySelector('.content')).color")
    assert (colour == "rgb(232, 232, 232)") == (scheme == "dark"), colour
    shot(page, f"31-email-2026-09-12-{width}-{scheme}")
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_email_page_of_the_site_fits_a_phone(browser, site_url: str,  # noqa: F811
                                                    bundled_site: Path, scheme: str) -> None:
    """Issue 52: at 390 px the 2026-08-21 page was 760 px wide, its sources' whole addresses
    (147 characters of one MLPerf result) unbroken. Every e-mail page as the site shows it, the
    HTML that is sent but for its images' addresses; shot at 390 and 1280 px."""
    days = sorted(p.parent.name for p in bundled_site.glob("briefings/*/email.html"))
    assert days == EDITIONS
    context = browser.new_context(viewport={"width": 390, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    wide = {}
    for day in days:
        page.goto(f"{site_url}briefings/{day}/email.html")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            wide[day] = width
    assert wide == {}
    # The addresses are shown whole, each broken over lines where it must be.
    page.goto(f"{site_url}briefings/2026-08-21/email.html")
    addresses = page.locator("ol.sources small")
    assert addresses.count() > 10
    longest = max(addresses.all_inner_texts(), key=len)
    assert longest.startswith("https://github.com/mlcommons/") and len(longest) > 140
    assert addresses.evaluate_all("s => Math.max(...s.map(e => e.getClientRects().length))") > 1
    for width in (390, 1280) if SCREENSHOTS else ():
        page.set_viewport_size({"width": width, "height": 900})
        shot(page, f"31-email-2026-08-21-site-{width}-{scheme}", full_page=False)
        addresses.last.scroll_into_view_if_needed()
        shot(page, f"31-email-2026-08-21-site-sources-{width}-{scheme}", full_page=False)
    context.close()


def test_the_sent_message_with_long_addresses_fits_a_phone(browser, tmp_path: Path) -> None:  # noqa: F811
    """The message of 2026-08-21 as sent, read as a client reads it (no script, nothing
    fetched): its styles are inlined, so the addresses break there too."""
    out = tmp_path / "e.eml"
    result = CliRunner().invoke(main, ["email", "2026-08-21", "--root", str(REPO), "--out",
                                       str(out)])
    assert result.exit_code == 0, result.output
    sent = email.message_from_bytes(out.read_bytes(), policy=email.policy.default)
    html = sent.get_body(("html",)).get_content()
    assert "word-break: break-all" in html  # inlined on each address, for clients without <style>
    context = browser.new_context(viewport={"width": 390, "height": 900},
                                  java_script_enabled=False)
    page = context.new_page()
    page.route("**/*", lambda route: route.abort())
    page.set_content(html, wait_until="load")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()
