"""Every size limit of the pipeline, and the bounds of every number a catalogue gives, in one
place, with why each is where it is. Past a size limit, the step that meets it refuses with the
figure and the limit (never a silent cut): a catalogue's run fails and keeps its history, `brief
check` and `brief build` stop on the series, the build stops before it swaps a site in (the
published site stays as it was). A catalogue's number out of its bounds is said in its health
record, and its listing keeps its last good prices (formats/numbers.py).

Each is set about ten times above what the project publishes today, so a real market fits and
a runaway input (a catalogue of 100,000 models, a series of 10,000 dates, both seen in review)
does not become a 200 MB site or an hour-long build.
"""

from __future__ import annotations

import datetime as dt

MAX_CATALOGUE_LISTINGS = 20_000
"""Listings (provider and model) one catalogue snapshot may hold: LiteLLM's map has about
2,000 text models."""
MAX_EDITIONS = 3_660
"""Editions one series may have: ten years of daily editions."""
MAX_PAGE_BYTES = 16 * 1024 * 1024
"""Bytes of one generated page or e-mail edition, which a browser or mail client must open: the
Market page is 1.4 MB for 3,000 models."""
MAX_DATA_FILE_BYTES = 100 * 1024 * 1024
"""Bytes of one data file (`data/`), which readers download rather than open: GitHub refuses a
file over 100 MiB in a repository, a Pages branch too. A year of 20,000 MLPerf rows (the
benchmark's year tree) makes a 94 MB hardware.json and a 40 MB hardware.csv."""
MAX_SITE_BYTES = 1024 * 1024 * 1024
"""Bytes of the whole built site: the bundled sources build 13 MB."""
MAX_FILE_NAME_BYTES = 255
"""Bytes of one file or folder name the build writes: the most ext4, APFS and NTFS allow. A page
named from ids (a tracked model's, `models/<provider>-<model>/`) is checked against it."""
EARLIEST_DATE = dt.date(2000, 1, 1)
LATEST_DATE = dt.date(2099, 12, 31)
"""The dates an editor may write, in every source file. The build stamps the site with its last
edition's day as 32-bit seconds since 1970 (gzip, SOURCE_DATE_EPOCH: 1970 to 2106) and counts
weeks past a price's dates (normalize/windows.py), which stops at year 9999; no API price or
edition of this project is older than 2000, so an earlier year is a slip."""

MAX_USD_PER_MTOK = 1e9
"""The most a catalogue's price may be, USD per million tokens: the dearest real listing is
$540,000 (a per-request figure in a per-token field); a figure above is unreadable."""
MIN_USD_PER_MTOK = 1e-6
"""The least a non-zero catalogue price may be, USD per million tokens: the cheapest real
listing is $0.001, prices are shown to the cent, and a per-token figure is rounded to 9
decimals per Mtok (1e-16 per token would be 0.0, "free", a -100 % move). Below it a price
cannot be told from 0."""
MAX_CONTEXT_TOKENS = 100_000_000
"""The most tokens a catalogue's context window or price band may start at: the largest real
context window is 10,485,760 tokens."""
