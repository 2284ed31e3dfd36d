"""The data files the prices and hardware lanes publish, with what each column means."""

from __future__ import annotations

from pipeline.render.datasets import QUARTER_END, Column, DataFile

_PRICE_COLUMNS = (
    Column("provider", "The provider, as its file under sources/prices/ names it."),
    Column("model", "The model id as the provider lists it."),
    Column("currency", "The currency of the list (ISO 4217), kept as the provider publishes it."),
    Column("unit_price", "The price as published, in `currency` per million tokens."),
    Column("meter", "input, cached_input, cache_write or output."),
    Column("window", "The named time window (peak, off_peak …); empty when the price holds all week."),
    Column("context_above_tokens", "The context band: the whole request is billed at this rate "
                                   "above this many prompt tokens; 0 for the base band."),
    Column("mode", "realtime or batch."),
    Column("effective_from", "When the price took effect (inclusive, UTC)."),
    Column("effective_to", "When it ended (exclusive, UTC); empty while it holds."),
    Column("usd_per_mtok", "US dollars per million tokens at the ECB rate of effective_from."),
    Column("fx_usd_per_unit", "The ECB reference rate used: US dollars per unit of `currency`."),
    Column("fx_date", "The day of that rate (the last ECB fixing on or before effective_from)."),
    Column("source_url", "Where the price was read."),
    Column("checked", "When an editor last checked it there."),
    Column("source_file", "Our source file in the repository."),
    Column("source_line", "The line of the price in that file."),
)

_HARDWARE_COLUMNS = tuple(Column(name, text) for name, text in (
    ("suite", "Benchmark suite: MLPerf Inference or InferenceX."),
    ("round", "Round or version of the suite."),
    ("result_id", "The publisher's result id (cite it)."),
    ("submitter", "Who submitted the result."),
    ("system", "The system as submitted."),
    ("accelerator", "Canonical accelerator name (H200, B200, MI325X …)."),
    ("accelerator_text", "The accelerator as the file names it."),
    ("accelerator_count", "Accelerators in the system (per node × nodes)."),
    ("model", "Benchmark model."),
    ("accuracy_target", "Accuracy target (99 or 99.9 % of reference); a run listed under both "
                        "is a row under each, as MLPerf lists it."),
    ("scenario", "Offline, Server, Interactive …"),
    ("division", "closed or open."),
    ("availability", "available or preview."),
    ("inferred", "True when the publisher marks the result as inferred."),
    ("official", "False for unofficial runs."),
    ("flags", "Why a row is not compared with closed, available, measured ones."),
    ("metric", "What `value` measures."),
    ("value", "The result as published."),
    ("units", "Units of `value` (Tokens/s …)."),
    ("value_per_accelerator", "value ÷ accelerator_count."),
    ("power_w", "System power in watts, where measured."),
    ("tokens_per_joule", "Tokens per second ÷ watts, where power is given."),
    ("ttft_bound_ms", "Time-to-first-token bound of the scenario, in ms."),
    ("tpot_bound_ms", "Time-per-output-token bound, in ms."),
    ("interactivity_tok_s_user", "Tokens per second per user (InferenceX)."),
    ("isl", "Input sequence length (InferenceX)."),
    ("osl", "Output sequence length (InferenceX)."),
    ("concurrency", "Concurrent requests (InferenceX)."),
    ("precision", "Weight precision, where given."),
    ("published", "The day the result was published (rounds without one are not in this file)."),
    ("source_file", "Our copy of the publisher's file."),
    ("row_ref", "The row within that file."),
    ("citation_id", "Id to cite (result id, or round#key)."),
    ("details_url", "The result's folder in the publisher's results repository (or its file)."),
    ("cost_basis", "Cost basis of the hourly cost (owner TCO, rental, cloud list)."),
    ("cost_basis_label", "The cost basis in words."),
    ("cost_placeholder", "True when the hourly cost is the source's own placeholder estimate."),
    ("usd_per_accelerator_hour", "US dollars per accelerator-hour on this basis."),
    ("fx_rate_date", "Day of the ECB rate, for costs not in USD."),
    ("cost_source", "Who published the cost."),
    ("cost_source_url", "Where the cost was read."),
    ("tokens_per_usd", "value_per_accelerator × 3600 ÷ usd_per_accelerator_hour."),
    ("usd_per_mtok", "1,000,000 ÷ tokens_per_usd."),
))

_MARKET_COLUMNS = tuple(Column(name, text) for name, text in (
    ("provider", "Our provider id (one per company that sells the tokens)."),
    ("model", "The model id as the provider or catalogue lists it."),
    ("input_usd_per_mtok", "US dollars per million input tokens (rest of week, base band)."),
    ("cached_input_usd_per_mtok", "US dollars per million cached input tokens."),
    ("cache_write_usd_per_mtok", "US dollars per million tokens written to the cache "
                                 "(the shortest lifetime)."),
    ("output_usd_per_mtok", "US dollars per million output tokens."),
    ("batch_input_usd_per_mtok", "US dollars per million input tokens in batch mode."),
    ("batch_output_usd_per_mtok", "US dollars per million output tokens in batch mode."),
    ("context_window_tokens", "The model's context window in input tokens, as the newest "
                              "catalogue snapshot gives it; empty when none does."),
    ("currency", "The currency of the list the prices come from (ISO 4217)."),
    ("list_input_per_mtok", "The input price in that currency, per million tokens."),
    ("list_output_per_mtok", "The output price in that currency, per million tokens."),
    ("free", "True when the input or output price is zero: free, never ranked."),
    ("source", "Our curated provider file, or the catalogue the price is from."),
    ("source_url", "Where the price can be read."),
    ("last_change", "When the newest price took effect in any of the model's lists (curated) or "
                    "was first seen (catalogue)."),
    ("first_seen", "The listing's first dated price: the day a catalogue's snapshot first showed "
                   "it (a fetch's, or a replayed commit's), or the curated record's start."),
    ("released", "The model's release date as models.dev gives it (the earliest of the "
                 "listings that serve the same model); empty where it gives none."),
))

_KEY_COLUMNS = (
    ("catalogue", "The catalogue's id in sources/catalogues.yaml."),
    ("provider", "Our provider id."),
    ("catalogue_provider", "The catalogue's own id of the provider."),
    ("model", "The model id as the catalogue lists it."),
    ("meter", "input, cached_input, cache_write or output."),
    ("ttl_minutes", "The cache lifetime of a cache write, in minutes; empty when not given."),
    ("context_above_tokens", "The context band: billed at this rate above this many prompt "
                             "tokens; 0 for the base band."),
    ("mode", "realtime or batch."),
    ("window_utc", "A daily UTC time window (HH:MM-HH:MM) the price holds in; empty: all day."),
    ("from_date", "The date the catalogue says the price starts; empty when it gives none."),
    ("to_date", "The date the catalogue says the price ends; empty when it gives none."),
)
_HISTORY_COLUMNS = tuple(Column(n, t) for n, t in (
    *_KEY_COLUMNS,
    ("usd_per_mtok", "US dollars per million tokens; 0 is free."),
    ("first_seen", "The first snapshot that showed the price (UTC, YYYY-MM-DDTHH:MMZ)."),
    ("gone_seen", "The first snapshot that no longer showed it; empty while it holds."),
    ("checked", "The catalogue's own date for the price (its checked date, else the file's)."),
    ("context_window_tokens", "The model's context window in input tokens, as the newest "
                              "snapshot showing the price gave it; empty when it gave none."),
    ("commit", "The commit of the catalogue's repository whose version first showed the price "
               "(a history replayed from git); empty for a price our own fetch saw first."),
    ("dated_by", "What dates the price's start: catalogue (its from_date), commit (the "
                 "commit's date, UTC) or fetch (when our fetch first saw it)."),
))
_CHANGE_COLUMNS = tuple(Column(n, t) for n, t in (
    *_KEY_COLUMNS,
    ("kind", "new, removed, cut or rise."),
    ("old_usd_per_mtok", "US dollars per million tokens before; empty for a new price."),
    ("new_usd_per_mtok", "US dollars per million tokens after; empty for a removed one."),
    ("at", "The snapshot that first showed the move (UTC)."),
    ("commit", "The commit of the catalogue's repository whose version first showed the move "
               "(a history replayed from git; the Changes pages link it); empty for a move our "
               "own fetch saw."),
    ("subject", "That commit's subject line, the catalogue's own words (a fix of the catalogue "
                "reads as one); empty with the commit."),
))

_INDEX_COLUMNS = tuple(Column(name, text) for name, text in (
    ("date", "A date of the index: weekly from the start of the histories, and each edition's."),
    ("segment", "all; first-party (the seller made the model); open-weight-hosted (published "
                "weights, sold by another); band-under-1, band-1-to-10, band-10-and-up (the "
                "listing's 3:1 blend, USD per million tokens, when first seen)."),
    ("meter", "input, cached_input, output, or blend_3_1 ((3 × input + output) ÷ 4)."),
    ("matched", "Listings priced above zero at this date and the one before (0 at the first)."),
    ("listed", "Listings priced above zero at this date."),
    ("link", "The geometric mean of the matched listings' price relatives (new ÷ old); 1 when "
             "none matched."),
    ("index", "The chained index: the product of the links since the first date, which is 100."),
    ("average_usd_per_mtok", "The geometric mean of every listed price at this date, US dollars "
                             "per million tokens."),
    ("average_index", "That average as an index, 100 at the segment's first date with listings."),
))

_COST_COLUMNS = tuple(Column(name, text) for name, text in (
    ("mlperf_model", "The benchmark model, as MLPerf names it (llama2-70b)."),
    ("scenario", "Offline or Server (kept apart: different loads)."),
    ("round", "The MLPerf Inference round of the result."),
    ("accuracy_target", "Percent of the reference model's accuracy the result holds (99)."),
    ("accelerator", "Canonical accelerator name."),
    ("accelerator_count", "Accelerators in the system."),
    ("result_id", "MLPerf's id of the result (cite it)."),
    ("details_url", "The result's published files."),
    ("tokens_per_s_per_accelerator", "Generated tokens per second per accelerator."),
    ("cost_basis", "The hourly cost's basis id (owner_tco/hyperscaler …)."),
    ("cost_basis_label", "The basis, as the Hardware page names it."),
    ("cost_placeholder", "True when the hourly cost is the source's estimate."),
    ("usd_per_accelerator_hour", "US dollars per accelerator-hour on that basis."),
    ("cost_source", "Who states the hourly cost."),
    ("cost_source_url", "Where."),
    ("hardware_usd_per_mtok", "US dollars per million output tokens at full load: the hourly cost "
                              "÷ (tokens per second per accelerator × 3600 ÷ 1,000,000)."),
    ("listings", "Market listings of the model with an output price above zero."),
    ("cheapest_output_usd_per_mtok", "The lowest of their output prices, USD per million tokens."),
    ("cheapest_provider", "Who sells at it."),
    ("cheapest_model", "Its model id there."),
    ("cheapest_source_url", "Where that price is stated."),
    ("median_output_usd_per_mtok", "The median of the listings' output prices."),
    ("cheapest_ratio", "cheapest_output_usd_per_mtok ÷ hardware_usd_per_mtok."),
    ("median_ratio", "median_output_usd_per_mtok ÷ hardware_usd_per_mtok."),
))

LANE_DATA_FILES: tuple[DataFile, ...] = (
    DataFile("data/index.csv", "Same-model price index", "A chained Jevons index of the "
             "listings priced at two successive dates, per segment and meter, beside the "
             "geometric mean of everything listed (the Market economics page says how).",
             _INDEX_COLUMNS),
    DataFile("data/index-prices.csv", "The prices the index read", "Every listing's prices as "
             "the index read them, one row per run of dates at the same prices, with the file "
             "each comes from.", tuple(Column(name, text) for name, text in (
                 ("source", "curated, or the catalogue's id."),
                 ("provider", "Our id of the seller."),
                 ("catalogue_provider", "The catalogue's own id of the seller (empty for curated)."),
                 ("model", "The model id as the source lists it."),
                 ("from_date", "The first date of the index's grid at these prices."),
                 ("to_date", "The last."),
                 ("input_usd_per_mtok", "Input, US dollars per million tokens."),
                 ("cached_input_usd_per_mtok", "Cached input (a cache hit), likewise."),
                 ("output_usd_per_mtok", "Output, likewise."),
                 ("source_file", "The file in the repository: a catalogue's history, where the "
                                 "prices are the rows of this provider, model and meter in force "
                                 "on from_date (data/price-history.csv has the same rows); or a "
                                 "curated provider's file, where they are the record of this model "
                                 "in force then (data/prices.csv gives its line)."),
                 ("source_url", "The page the source states the prices on."),
             ))),
    DataFile("data/index-contributions.csv", "What moved each step of the index", "Every "
             "listing whose 3:1 blend moved in a step of the overall same-model index, with its "
             "share of the step's log-change (the Market economics page says how).",
             tuple(Column(name, text) for name, text in (
                 ("date", "The step's end, a date of the index's grid."),
                 ("previous_date", "The step's start, the grid's date before it."),
                 ("matched", "Listings priced above zero at both ends of the step."),
                 ("step_change", "The step's link − 1 (−0.01: one per cent cheaper)."),
                 ("source", "curated, or the catalogue's id."),
                 ("provider", "Our id of the seller."),
                 ("catalogue_provider", "The catalogue's own id of the seller (empty for curated)."),
                 ("model", "The model id as the source lists it."),
                 ("old_usd_per_mtok", "The listing's 3:1 blend at the step's start, US dollars "
                                      "per million tokens."),
                 ("new_usd_per_mtok", "At its end."),
                 ("log_relative", "ln(new ÷ old)."),
                 ("log_contribution", "ln(new ÷ old) ÷ matched: what the listing added to the "
                                      "log of the index."),
                 ("share_of_step", "The listing's ln(new ÷ old) over the sum of the step's "
                                   "(empty where the moves cancel out)."),
                 ("elsewhere_source", "Another source that listed this provider's model at the "
                                      "new price at least 14 days before the step (empty: none)."),
                 ("elsewhere_since", "The first date of the grid it did."),
             ))),
    DataFile("data/launch-prices.csv", "Launch prices beside today's", "Each maker's own model "
             "launched within the price histories: its first price and its price on the index's "
             "last date, 3:1 blend and each meter (the Market economics page says which count).",
             tuple(Column(name, text) for name, text in (
                 ("provider", "Our id of the seller, which made the model."),
                 ("model", "The model id as its first source lists it."),
                 ("release_date", "The release date a catalogue gives (models.dev), else empty."),
                 ("first_priced", "The first date of the index's grid with a price of it."),
                 ("launch_date", "release_date where given, else first_priced."),
                 ("quarter", "The calendar quarter of launch_date (2025-Q3)."),
                 ("launch_source", "The source of its first price: curated or a catalogue's id."),
                 ("launch_input_usd_per_mtok", "Its first input price, US dollars per million "
                                               "tokens."),
                 ("launch_output_usd_per_mtok", "Its first output price."),
                 ("launch_blend_3_1_usd_per_mtok", "Its first 3:1 blend ((3 × input + output) "
                                                   "÷ 4)."),
                 ("today_input_usd_per_mtok", "Its input price on the index's last date (empty: "
                                              "no longer listed)."),
                 ("today_output_usd_per_mtok", "Its output price then."),
                 ("today_blend_3_1_usd_per_mtok", "Its 3:1 blend then."),
                 ("change", "today ÷ launch − 1, 3:1 blend."),
             ))),
    DataFile("data/cost-to-serve.csv", "Cost to serve beside the price", "Per MLPerf model, "
             "scenario, accelerator and cost basis as of the newest edition: the hardware cost "
             "of a million output tokens at full load beside the cheapest and median market "
             "output price of the model. A lower bound, not a margin.", _COST_COLUMNS),
    DataFile("data/price-history.csv", "Catalogue price history", "Every price period of "
             "the published catalogues, one row per price and period (MIT-licensed data of "
             "LiteLLM, genai-prices and models.dev).", _HISTORY_COLUMNS),
    DataFile("data/changes.csv", "Catalogue price changes", "Every move between the "
             "catalogues' successive snapshots, oldest first, with the commit that made it.",
             _CHANGE_COLUMNS),
    DataFile("data/market.csv", "Market", "Every model with a token price as of the newest "
             "edition, one row per provider and model. Catalogue prices are LiteLLM's, "
             "genai-prices' and models.dev's data, MIT licence (notices in "
             "sources/snapshots/prices/).",
             _MARKET_COLUMNS),
    DataFile("data/market.json", "Market (JSON)", "The same rows as market.csv, as a JSON "
             "array.", _MARKET_COLUMNS),
    DataFile(f"data/market-on/{QUARTER_END}.json", "Market on a past date", "The Market's "
             "table as it stood at the end of a past day: each listing's price as the newest "
             "snapshot of its catalogue by then showed it (or the curated record then in "
             "force). One JSON object; its rows are arrays in the order `columns` gives.", (
                 Column("as_of", "The day (YYYY-MM-DD); the prices known by its end."),
                 Column("providers", "How many providers the rows list."),
                 Column("columns", "The name of each value of a row: market.csv's columns, "
                                   "then `snapshot` (the day of the catalogue snapshot that "
                                   "first showed the price, or the curated record's start), "
                                   "`tiers`, `page` and `link`."),
                 Column("tiers", "The names of a row's `tiers` values: its prices in off-peak "
                                 "and other hours and the off-peak share of the week; a row "
                                 "with one price all week has null."),
                 Column("links", "The addresses rows link to: a snapshot's commit on its "
                                 "catalogue's repository, else the source's page."),
                 Column("rows", "One array per provider and model, sorted by output price; "
                                "`page` is the stem of the model's page under models/ (empty "
                                "where none is built today), `link` an index into `links`."))),
    DataFile("data/prices.csv", "Prices", "Every price of every provider's list, one row per "
             "model, currency list, meter, window, band, mode and period.", _PRICE_COLUMNS),
    DataFile("data/prices.json", "Prices (JSON)", "The same rows as prices.csv, as a JSON array.",
             _PRICE_COLUMNS),
    DataFile("data/blended.csv", "Blended prices", "Blended USD per million tokens of every model "
             "for every workload profile: a row on the first edition date the model is priced and on "
             "each edition date its blended price changed; it holds until the model's next row.", (
                 Column("provider", "The provider."), Column("model", "The model id."),
                 Column("profile", "The workload profile id (chat-3-1, cached-agent …)."),
                 Column("as_of", "The edition date from which the price holds."),
                 Column("usd_per_mtok", "Blended US dollars per million tokens."),
                 Column("tokens_per_usd", "1,000,000 ÷ usd_per_mtok."))),
    DataFile("data/hardware.csv", "Hardware results and tokens per dollar",
             "Benchmark results, normalized, one row per result and cost basis.",
             _HARDWARE_COLUMNS),
    DataFile("data/hardware.json", "Hardware results (JSON)",
             "The same rows as hardware.csv, as a JSON array.", _HARDWARE_COLUMNS),
)
