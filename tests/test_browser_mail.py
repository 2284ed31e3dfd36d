"""The e-mail edition in headless Chromium as a mail client with images blocked shows it: the
message itself (built by `brief email`, its HTML part with the charts as cid: parts) at 375 and
600 px, light and dark: no sideways scroll, every image with alt text that states its data.
Screenshots: test-artifacts/screenshots/31-*.png. Chromium as in test_browser.py.
"""

from __future__ import annotations

import email
import email.policy

import pytest
from click.testing import CliRunner
from conftest import REPO
from test_browser import browser, shot  # noqa: F401  (browser: a fixture)

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
