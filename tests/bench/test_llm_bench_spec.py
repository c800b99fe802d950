"""The LLM benchmark's set spec names the evidence answers_bench cached (scene count included)."""

from bench.llm_bench import parse_spec


def test_a_set_spec_carries_the_scene_count_of_the_cached_friendsqa_evidence():
    args = parse_spec("friendsqa:heldout:200:40")
    assert (args.dataset, args.split, args.sample, args.scenes) == ("friendsqa", "heldout", 200, 40)
    # the older forms still read as before: no sample, or a sample without scenes
    assert (parse_spec("locomo:dev:80").sample, parse_spec("locomo:dev:80").scenes) == (80, None)
    assert (parse_spec("paraphrases:tune").sample, parse_spec("paraphrases:tune").scenes) == (None, None)
