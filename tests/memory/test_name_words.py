"""Spellings of sounds are not names (issue 11, item 4): a call by "Brrr," or "C'mon," must not
make a name-only placeholder that joins the session as someone who was called, while names with
hyphens and apostrophes ("Jean-Luc", "O'Brien") and names in any script stay names."""

from __future__ import annotations

import pytest

from voxmem.extractors.naming import plausible_new_name
from voxmem.extractors.offline import OfflineExtractor

from .helpers import window


@pytest.mark.parametrize("word", ["Brrr", "Zzzz", "C'mon", "G'night", "Wh-what", "Tee-hee", "B-but"])
def test_spelled_sounds_and_slurs_are_not_names(word):
    assert not plausible_new_name(word)


@pytest.mark.parametrize(
    "word", ["Jean-Luc", "Anne-Marie", "O'Brien", "D'Angelo", "Aaron", "Brooke", "Иван", "李雷"]
)
def test_hyphens_apostrophes_and_doubled_letters_stay_names(word):
    assert plausible_new_name(word)


def test_a_sentence_opened_by_a_sound_calls_nobody():
    record = (
        OfflineExtractor().extract(window([("a", "The bus is late."), ("b", "Brrr, then we walk.")])).record
    )
    assert not any(a.target == "Brrr" for a in record.addressees)
