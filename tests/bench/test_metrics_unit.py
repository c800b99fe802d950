"""Identity metrics against hand-computed values."""

from __future__ import annotations

import pytest

from bench.metrics import b_cubed, der, identity_scores, read_rttm


def test_b_cubed_perfect_and_all_merged() -> None:
    assert b_cubed(["a", "a", "b"], ["x", "x", "y"]) == (1.0, 1.0, 1.0)
    p, r, f = b_cubed(["a", "a", "b", "b"], ["x", "x", "x", "x"])
    assert p == pytest.approx(0.5) and r == pytest.approx(1.0) and f == pytest.approx(2 / 3)


def test_b_cubed_fragmented() -> None:
    p, r, _ = b_cubed(["a", "a", "a", "a"], ["x", "x", "y", "y"])
    assert p == pytest.approx(1.0) and r == pytest.approx(0.5)


def test_identity_scores_counts_false_new_users_and_wrong_links() -> None:
    gold = ["A", "B", "A", "A", "B", "C"]
    pred = ["s1", "s2", "s3", "s3", "s1", "s4"]
    acts = ["CREATE", "CREATE", "CREATE", "LINK", "LINK", "CREATE"]
    s = identity_scores(gold, pred, acts)
    assert s.false_new_user_rate == pytest.approx(1 / 3)  # A's return sent to new s3; of 3 returning turns
    assert s.create_precision == pytest.approx(3 / 4) and s.create_recall == pytest.approx(1.0)
    assert s.wrong_links == 1  # B linked into s1, held by A
    assert s.link_precision == pytest.approx(1 / 2)
    assert s.contaminated_entities == 1 and s.n_entities == 4
    assert s.fragmentation == pytest.approx((2 + 2 + 1) / 3)  # A: s1,s3; B: s2,s1; C: s4


def test_der_perfect_with_renamed_speakers_and_errors() -> None:
    ref = [(0.0, 2.0, "A"), (2.0, 4.0, "B")]
    assert der(ref, [(0.0, 2.0, "x"), (2.0, 4.0, "y")])["der"] == pytest.approx(0.0)
    half_missed = der(ref, [(0.0, 2.0, "x")])
    assert half_missed["missed"] == pytest.approx(0.5, abs=0.01)
    confused = der(ref, [(0.0, 4.0, "x")])
    assert confused["confusion"] == pytest.approx(0.5, abs=0.01) and confused["der"] == pytest.approx(
        0.5, abs=0.01
    )
    fa = der(ref, [(0.0, 2.0, "x"), (2.0, 4.0, "y"), (4.0, 5.0, "y")])
    assert fa["false_alarm"] == pytest.approx(0.25, abs=0.01)


def test_read_rttm() -> None:
    text = "SPEAKER f 1 1.5 2.0 <NA> <NA> spk1 <NA> <NA>\nSPEAKER g 1 0 1 <NA> <NA> spk2 <NA> <NA>\n"
    assert read_rttm(text) == {"f": [(1.5, 3.5, "spk1")], "g": [(0.0, 1.0, "spk2")]}
