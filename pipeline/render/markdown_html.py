"""Markdown pages → HTML for the channels read away from the site (feeds, e-mail).

The extensions are the ones `site/mkdocs.yml` lists (a test keeps the two in step), so an edition
reads the same in a feed reader as on the site. The page's Markdown is already escaped where it
carries third-party text (render/escape.py), so no raw HTML from outside reaches this step.
"""

from __future__ import annotations

import re

# As in site/mkdocs.yml; toc without its permalink "¶" anchors, which mean nothing in a mail or a
# feed reader.
EXTENSIONS = ("toc", "tables", "attr_list", "md_in_html", "admonition", "pipeline.render.verbatim",
              "pipeline.render.table_numbers",
              "pipeline.render.safe_links")
EXTENSION_CONFIGS = {"toc": {"permalink": False}}

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def markdown_html(page_md: str) -> str:
    """Return the HTML of a Markdown page, its YAML front matter left out."""
    import markdown

    body = _FRONT_MATTER.sub("", page_md, count=1)
    return markdown.markdown(body, extensions=list(EXTENSIONS),
                             extension_configs=EXTENSION_CONFIGS, output_format="html")
