"""Scoring rules: normalisation, containment, F1, attribution exact match, abstention, recall, routing."""

from __future__ import annotations

import pytest

from bench.cases import NOT_MENTIONED, QA
from bench.judge import parse_grade
from bench.scoring import (
    attribution_exact,
    contains,
    normalize,
    percentile,
    recall_at_k,
    routing_accuracy,
    score_answer,
    token_f1,
)

ROSTER = ["Tom", "Maya", "Sam", "Nora"]


def test_normalize_handles_case_punctuation_articles_and_number_words() -> None:
    assert normalize("The Twenty-One degrees!") == "21 degrees"
    assert normalize("twenty one degrees") == normalize("21 degrees")
    assert normalize("eighteen degrees") == "18 degrees"
    assert normalize("a one page summary") == "one page summary"  # 'one' alone stays a word


def test_containment_is_whole_word() -> None:
    assert contains("Her favourite is green tea, I think.", "green tea") == 1.0
    assert contains("It's set to 21 degrees now", "twenty one degrees") == 1.0
    assert contains("jazzy tunes", "jazz") == 0.0
    assert contains("anything", "") == 0.0


def test_token_f1() -> None:
    assert token_f1("green tea", "green tea") == 1.0
    assert token_f1("black coffee", "green tea") == 0.0
    assert token_f1("green tea with milk", "green tea") == pytest.approx(2 * 0.5 * 1 / 1.5)


def test_attribution_exact_match_on_the_set_of_people_named() -> None:
    assert attribution_exact("Tom.", "Tom", ROSTER) == 1.0
    assert attribution_exact("It was Tom who agreed to do it.", "Tom", ROSTER) == 1.0
    assert attribution_exact("Tom or Maya", "Tom", ROSTER) == 0.0
    assert attribution_exact("Maya", "Tom", ROSTER) == 0.0
    assert attribution_exact("Tommy", "Tom", ROSTER) == 0.0
    assert attribution_exact("It was addressed to everyone.", "everyone", ROSTER) == 1.0
    assert attribution_exact("To Tom, Maya and Sam", "everyone", ROSTER) == 1.0
    assert attribution_exact("To Tom", "everyone", ROSTER) == 0.0


def test_adversarial_needs_abstention_without_the_trap() -> None:
    qa = QA(
        question="What is Sam's drink?",
        answer=NOT_MENTIONED,
        type="adversarial",
        meta={"trap_answer": "green tea"},
    )
    assert score_answer(qa, "That was not mentioned.", ROSTER).correct == 1.0
    assert score_answer(qa, "I don't know.", ROSTER).correct == 1.0
    assert score_answer(qa, "Green tea.", ROSTER).correct == 0.0
    assert score_answer(qa, "Not mentioned for Sam, but Maya drinks green tea.", ROSTER).correct == 0.0


def test_score_answer_uses_exact_for_attribution_and_containment_otherwise() -> None:
    who = QA(question="Who agreed?", answer="Tom", type="speaker_attribution")
    what = QA(question="What drink?", answer="green tea", type="single_hop")
    assert score_answer(who, "Tom and Maya", ROSTER).correct == 0.0
    assert score_answer(who, "Tom and Maya", ROSTER).contains == 1.0
    assert score_answer(what, "Maya likes green tea", ROSTER).correct == 1.0
    assert score_answer(what, "", ROSTER).correct == 0.0


def test_recall_at_k() -> None:
    assert recall_at_k(["a", "b"], ["x", "a", "y", "b"], 2) == 0.5
    assert recall_at_k(["a", "b"], ["x", "a", "y", "b"], 4) == 1.0
    assert recall_at_k([], ["a"], 5) is None


def test_routing_accuracy_uses_a_one_to_one_map() -> None:
    gold = ["A", "A", "B", "B", "C", "C"]
    assert routing_accuracy(gold, ["x", "x", "y", "y", "z", "z"]) == 1.0
    # C split into two entities: one fragment cannot map to C any more
    assert routing_accuracy(gold, ["x", "x", "y", "y", "z", "w"]) == pytest.approx(5 / 6)
    # everyone merged into one entity: only the largest speaker's turns count
    assert routing_accuracy(gold, ["x"] * 6) == pytest.approx(2 / 6)


def test_percentile_and_judge_parsing() -> None:
    assert percentile([], 50) is None
    assert percentile([1.0, 2.0, 3.0], 50) == 2.0
    assert parse_grade("0.75") == 0.75
    assert parse_grade("Score: 1") == 1.0
    assert parse_grade("0.6") == 0.5
    assert parse_grade("no idea") is None
    assert parse_grade("7") is None


def test_normalize_folds_asr_number_and_punctuation_forms_on_both_sides() -> None:
    assert normalize("400 12") == normalize("412") == normalize("four hundred twelve") == "412"
    assert normalize("7:20") == normalize("720") == "720"
    assert normalize("the talk—at noon") == "talk at noon"  # an em dash glued to words
    assert normalize("well–yes") == "well yes"  # en dash
    assert normalize("1,000 people") == "1000 people"
    assert normalize("the 7th of May") == "7 of may"
    assert normalize("10 20") == "10 20"  # two numbers that are not a split spoken one stay apart
    assert normalize("2 12") == "2 12"
    assert contains("Room 400 12, second floor", "room 412") == 1.0
    assert contains("We meet at 720 tomorrow", "7:20") == 1.0
    assert contains("room 4012", "room 412") == 0.0
    # a possessive names the same thing: "Ed Sheeran's 'Perfect'" answers "Ed Sheeran"
    assert contains("I'm a fan of Ed Sheeran's \"Perfect\".", "Ed Sheeran") == 1.0
    assert normalize("Monica 's seat") == normalize("Monica's seat") == "monica seat"


def test_a_date_written_either_way_is_the_same_answer() -> None:
    assert normalize("October 3, 2025") == normalize("3 October 2025") == "3 october 2025"
    assert normalize("Oct. 3rd, 2025") == normalize("3 October, 2025") == "3 october 2025"
    assert normalize("the Friday before 12March, 2024") == "friday before 12 march 2024"
    assert contains("two days ago (3 October 2025)", "October 3, 2025") == 1.0
    assert contains("the week before 12 March 2024", "The week before 12March, 2024") == 1.0
    # a month and a year alone, or a clock time after a month, are left as they are
    assert normalize("March 2024") == normalize("March.2024") == "march 2024"
    assert normalize("June 7:30") == "june 730"
    # another day is another answer
    assert contains("3 October 2025", "October 13, 2025") == 0.0


def test_first_name_is_accepted_only_when_the_conversation_never_said_the_full_name() -> None:
    only_first = "Hi Ross. Ross, can you hold this? Sure."
    who = QA(question="Who held it?", answer="Ross Geller", type="speaker_attribution")
    what = QA(question="Who did Monica call?", answer="Ross Geller", type="single_hop")
    roster = ["Ross Geller", "Monica Geller", "Rachel Green"]
    strict = score_answer(who, "Ross", roster, only_first)
    assert strict.correct == 0.0 and strict.correct_first_name == 1.0
    assert score_answer(what, "She called Ross.", roster, only_first).correct_first_name == 1.0
    # the full name was said: the first name alone is not enough, either way
    said_full = "This is Ross Geller. Ross, hold this."
    assert score_answer(who, "Ross", roster, said_full).correct_first_name == 0.0
    # without the conversation there is nothing to be lenient about
    assert score_answer(who, "Ross", roster).correct_first_name == 0.0
    assert score_answer(who, "Ross Geller", roster, only_first).correct_first_name == 1.0


def test_list_golds_report_the_share_of_items_found() -> None:
    from bench.scoring import gold_items, item_recall

    assert gold_items("hiking, chess and baking") == ["hiking", "chess", "baking"]
    assert gold_items("a red bike") == []
    assert item_recall("Leo: I love chess; Leo: hiking is great", "hiking, chess and baking") == 2 / 3
    assert item_recall("anything", "a red bike") is None
    qa = QA(question="What does Leo do?", answer="hiking, chess", type="multi_hop")
    assert score_answer(qa, "chess and hiking", []).items == 1.0


def test_list_aware_score_accepts_every_item_in_any_order_beside_strict() -> None:
    """A list gold is right, list-aware, when the answer holds every item in any order; one item
    missing, a single-item gold reworded, or another type's rules are not loosened."""
    qa = QA(question="What does Leo do to unwind?", answer="Running, pottery", type="multi_hop")
    swapped = score_answer(qa, "pottery, running", ROSTER)
    assert swapped.correct == 0.0 and swapped.correct_list == 1.0
    assert score_answer(qa, "Running, pottery", ROSTER).correct_list == 1.0
    assert score_answer(qa, "running", ROSTER).correct_list == 0.0  # half the list is wrong
    assert score_answer(qa, "pottery and yoga", ROSTER).correct_list == 0.0
    pets = QA(question="What pets does Ana have?", answer="Two cats and a dog", type="single_hop")
    assert score_answer(pets, "a dog, two cats", ROSTER).correct_list == 1.0
    assert score_answer(pets, "two dogs and a cat", ROSTER).correct_list == 0.0
    # a single-item gold is scored as strict containment, words in their order
    one = QA(question="What did Leo paint?", answer="a red bike", type="single_hop")
    assert score_answer(one, "bike red", ROSTER).correct_list == 0.0
    assert score_answer(one, "a red bike", ROSTER).correct_list == 1.0
    # adversarial: the list-aware score is the strict one (an abstention)
    trap = QA(question="What does Leo bake?", answer="Not mentioned", type="adversarial")
    assert score_answer(trap, "bread, cake", ROSTER).correct_list == 0.0
    assert score_answer(trap, "not in memory", ROSTER).correct_list == 1.0


def test_pronoun_fold_is_reported_beside_the_strict_score() -> None:
    """A gold restating someone's own turn in the third person ("to calm her nerves") is
    contained, pronouns folded, in the answer quoting that turn ("to calm my nerves"), in either
    direction; the strict score is unchanged and other words still have to match."""
    why = QA(question="Why did Lena go for a swim?", answer="To calm her nerves", type="single_hop")
    quoted = score_answer(why, "Lena: I went for a swim to calm my nerves before the exam.", ROSTER)
    assert quoted.correct == 0.0 and quoted.correct_person == 1.0
    told = QA(question="What does Omar praise in Lena?", answer="Her patience", type="single_hop")
    assert score_answer(told, "Omar: your patience with the kids is amazing", ROSTER).correct_person == 1.0
    first = QA(question="What did I lose?", answer="my keys", type="single_hop")
    assert score_answer(first, "his keys, at the gym", ROSTER).correct_person == 1.0
    # plural pronouns are their own class: "their" is not "her"
    assert score_answer(told, "their patience", ROSTER).correct_person == 0.0
    assert score_answer(why, "to calm my cat", ROSTER).correct_person == 0.0
    # an already right answer stays right; adversarial and attribution scores are not folded
    assert score_answer(why, "to calm her nerves", ROSTER).correct_person == 1.0
    trap = QA(
        question="Why did Tom swim?",
        answer=NOT_MENTIONED,
        type="adversarial",
        meta={"trap_answer": "his nerves"},
    )
    assert score_answer(trap, "to calm my nerves", ROSTER).correct_person == 0.0
