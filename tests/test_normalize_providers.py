"""Our provider ids for the providers a price catalogue names."""

from __future__ import annotations

from pipeline.normalize.providers import our_provider


def test_the_mapping_wins_else_theirs_is_lower_case_with_dashes() -> None:
    providers = {"together_ai": "together"}
    assert our_provider("together_ai", providers) == "together"
    assert our_provider(" Fireworks AI ", providers) == "fireworks-ai"
    assert our_provider("Deep_Infra Turbo", providers) == "deep-infra-turbo"
