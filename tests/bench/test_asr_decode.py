"""The real-speech sets of ``bench.asr_decode``: turns cut from the pyannote call keep its words."""

from __future__ import annotations

import pytest

from bench import asr_decode

pytestmark = pytest.mark.skipif(
    not (asr_decode.DATA / "pyannote_sample" / "sample.stm").exists(), reason="shared data not present"
)


def test_pyannote_turns_hold_the_whole_reference_in_order():
    sets = asr_decode.pyannote_sets()
    (whole_ref, whole), turns = sets["pyannote_whole"][0], sets["pyannote_turns"]
    assert " ".join(ref for ref, _ in turns) == whole_ref
    assert len(turns) == 9  # the call's 13 lines, one speaker's consecutive lines joined
    assert all(0 < len(clip) < len(whole) for _, clip in turns)
    assert sum(len(clip) for _, clip in turns) < 1.2 * len(whole)  # cut, not the call repeated


def test_every_variant_is_a_faster_whisper_option_set_on_top_of_the_product_defaults():
    import inspect

    from faster_whisper import WhisperModel

    accepted = set(inspect.signature(WhisperModel.transcribe).parameters)
    assert asr_decode.VARIANTS["current"] == {}
    for options in asr_decode.VARIANTS.values():
        assert set(options) <= accepted
    assert set(asr_decode.BASE) <= accepted
