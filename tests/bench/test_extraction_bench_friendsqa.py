"""The FriendsQA naming run lists each split's wrongly named voices with their turns.

Why: the tune episodes' wrong names are what a naming rule is judged on ("Westminster Abbey",
docs/memory.md, "Names are name-shaped, 2 December (N2)"); one list mixing both splits showed
the held-out episodes' wrong names to whoever tuned on it. A hand-written three-episode file
in FriendsQA's layout: the third episode (sorted) is held out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bench.extraction_bench as eb
from voxmem.extractors.offline import OfflineExtractor


def _scene(title: str, lines: list[tuple[str, str]]) -> dict[str, object]:
    utterances = [{"speakers": [who], "utterance": text} for who, text in lines]
    return {"title": title, "paragraphs": [{"utterances:": utterances}]}


def test_wrong_voices_are_listed_per_split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lie = [("Ann Lee", "Hi, I'm Bob."), ("Cy Ward", "Nice to meet you."), ("Ann Lee", "Same here.")]
    truth = [("Ann Lee", "Hi, I'm Ann."), ("Cy Ward", "Welcome.")]
    data = {"data": [_scene("s01_e01_c01", lie), _scene("s01_e02_c01", truth), _scene("s01_e03_c01", lie)]}
    (tmp_path / "friendsqa").mkdir()
    (tmp_path / "friendsqa" / "friendsqa_dev.json").write_text(json.dumps(data))
    monkeypatch.setattr(eb, "DATA", tmp_path)
    split = eb.friendsqa_names(OfflineExtractor(), 3)["split"]
    assert split["tune"]["wrong_voices"] == ["s01_e01: Ann Lee named 'Bob' (2 turns)"]
    assert split["heldout"]["wrong_voices"] == ["s01_e03: Ann Lee named 'Bob' (2 turns)"]
    assert (split["tune"]["right"], split["tune"]["wrong"]) == (
        1,
        2,
    )  # "Ann" right on her one turn of the second episode


def test_a_nickname_of_the_gold_speaker_is_counted_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A voice named by the nickname its friends call it binds the right person: the scorer
    counts it apart, neither right nor wrong (before, "Pheebs" for Phoebe was a wrong name)."""
    scene = [
        ("Ann Lee", "Pheebs, can you pass the salt?"),
        ("Phoebe Buffay", "Sure, here you go."),
        ("Ann Lee", "Rach, are you coming?"),
        ("Rachel Green", "Yes, give me a minute."),
    ]
    data = {"data": [_scene("s01_e01_c01", scene)]}
    (tmp_path / "friendsqa").mkdir()
    (tmp_path / "friendsqa" / "friendsqa_dev.json").write_text(json.dumps(data))
    monkeypatch.setattr(eb, "DATA", tmp_path)
    out = eb.friendsqa_names(OfflineExtractor(), 3)
    assert (out["turns_right"], out["turns_nickname"], out["turns_wrong"]) == (0, 2, 0)
    assert out["split"]["tune"]["wrong_voices"] == []
    assert not eb._nickname("Ben", "Phoebe Buffay") and not eb._nickname("Ross", "Ross Geller")
