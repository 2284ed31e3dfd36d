"""Every size limit of the pipeline, in one place, with why each is where it is. Past one, the
step that meets it refuses with the figure and the limit (never a silent cut): a catalogue's
run fails and keeps its history, `brief check` and `brief build` stop on the series, the build
stops before it swaps a site in (the published site stays as it was).

Each is set about ten times above what the project publishes today, so a real market fits and
a runaway input (a catalogue of 100,000 models, a series of 10,000 dates, both seen in review)
does not become a 200 MB site or an hour-long build.
"""

from __future__ import annotations

MAX_CATALOGUE_LISTINGS = 20_000
"""Listings (provider and model) one catalogue snapshot may hold: LiteLLM's map has about
2,000 text models."""
MAX_EDITIONS = 3_660
"""Editions one series may have: ten years of daily editions."""
MAX_PAGE_BYTES = 16 * 1024 * 1024
"""Bytes of one generated page, data file or e-mail edition: the Market page is 1.4 MB for
3,000 models."""
MAX_SITE_BYTES = 1024 * 1024 * 1024
"""Bytes of the whole built site: the bundled sources build 13 MB."""
