"""Render: editions and tables → Markdown, text, feeds, charts; then the mkdocs build."""
