"""The rules a short-answer track declares as data (``spec.RuleSet``), each tested on its own;
the presets against each fact the issue states of the official scorer (issue 29), on small
cases written here; the presets against a reference written from those facts
(``tests.support.short_answers.reference_right``) on many generated responses; and the number
patterns, which find what the official ones find in one pass over a response.
"""

from __future__ import annotations

import random
import re
import time

import pytest

import spec
from evaluator.kinds.short_answer.rules import accepted, candidates, numbers_in, right
from tests.support.short_answers import NUMBER_PATTERNS, reference_right

OPEN = spec.PRESETS["open"]
EXACT = spec.PRESETS["exact"]


def judged(rule: spec.RuleSet, response: str, *answers: str) -> bool:
    return right(rule, response, accepted(rule, answers))


# --- each rule on its own ---------------------------------------------------------------------


def test_exact_is_the_default_rule_set() -> None:
    assert spec.RuleSet() == EXACT
    assert judged(EXACT, "B", "B")
    assert not any(judged(EXACT, r, "B") for r in (" B", "b", "B.", "(B)", "The answer is B"))


def test_trim_strips_white_space_from_responses_and_answers() -> None:
    assert not judged(spec.RuleSet(), " B\n", "B")
    assert judged(spec.RuleSet(trim=True), " B\n", "B")
    assert judged(spec.RuleSet(trim=True), "B", " B ")


def test_trim_marks_strips_those_characters_at_either_end_only() -> None:
    rule = spec.RuleSet(trim_marks=".")
    assert judged(rule, "..B.", "B")
    assert not judged(rule, "B.C", "BC")
    assert not judged(spec.RuleSet(trim_marks="."), ". B", "B")  # a space is no mark
    assert judged(spec.RuleSet(trim=True, trim_marks="."), " .B. ", "B")


def test_fold_case_lower_cases_responses_and_text_answers() -> None:
    assert not judged(spec.RuleSet(), "paris", "Paris")
    assert judged(spec.RuleSet(fold_case=True), "PARIS", "Paris")


def test_a_cue_takes_the_text_after_its_last_occurrence_in_a_line_trimmed() -> None:
    rule = spec.RuleSet(cues=("is ",))
    assert candidates(rule, "the answer is  Rome ") == ("Rome",)
    assert candidates(rule, "the answer is Paris ") == ("the answer is Paris ",)  # Par-is: ""
    assert candidates(rule, "it is what it is 5") == ("5",)
    assert candidates(rule, "this 5") == ("5",)  # inside a word too: "this " holds "is "


def test_the_shortest_result_of_a_line_is_its_candidate_and_each_line_gives_one() -> None:
    rule = spec.RuleSet(cues=("so ", "is "))
    assert candidates(rule, "so it is 5") == ("5",)
    assert candidates(rule, "so the sum is 12\nthus it is 7") == ("12", "7")
    assert candidates(spec.RuleSet(cues=("is ", "so ")), "x so ab") == ("ab",)  # ties: cue order
    assert candidates(spec.RuleSet(cues=("a ", "b ")), "b xy a xy") == ("xy",)


def test_with_no_cue_found_the_whole_response_is_the_one_candidate() -> None:
    rule = spec.RuleSet(cues=("is ",))
    assert candidates(rule, "Paris\nI think") == ("Paris\nI think",)
    assert candidates(spec.RuleSet(), "so it is 5") == ("so it is 5",)  # no cues: no reading


def test_last_line_cues_apply_on_the_last_line_only() -> None:
    rule = spec.RuleSet(last_line_cues=("=",))
    assert candidates(rule, "x = 4\ny = 2x") == ("2x",)
    assert candidates(rule, "x = 4\nso y") == ("x = 4\nso y",)


def test_an_empty_result_is_no_candidate_and_a_dropped_one_ends_the_line() -> None:
    rule = spec.RuleSet(cues=("so ", "is "), drop=(";",))
    assert candidates(rule, "it is 5 so \nnext") == ("5 so",)  # "so " gives "", "is " 5 so
    assert candidates(rule, "it is ;\nnext") == ("it is ;\nnext",)  # ";" dropped: none
    assert candidates(spec.RuleSet(cues=("is ",)), "it is ;") == (";",)  # kept unless dropped


def test_numbers_adds_the_numbers_of_each_candidate() -> None:
    rule = spec.RuleSet(cues=("is ",), numbers=True, numeric=True)
    # Each pattern on its own, as the official ones: "200" and "1", "3" are plain integers.
    assert candidates(rule, "the total is 1,200 m, or 1.2e3") == (
        "1,200 m, or 1.2e3",
        "1,200",
        "1.2e3",
        "200",
        "1",
        "3",
    )
    assert candidates(spec.RuleSet(cues=("is ",)), "the total is 12 m") == ("12 m",)


def test_numbers_are_comma_grouped_scientific_or_plain_with_a_minus_or_a_bare_point() -> None:
    assert numbers_in("-1,234,567 and 6.02E+23 and -.5 and 3.25 and 7") == [
        "-1,234,567",
        "6.02E+23",
        *("567", "6", "23"),  # the plain pattern's, in the others' digits, as it finds them
        "-.5",
        "3.25",
        "7",
    ]


def test_numeric_reads_a_text_as_a_number_once_its_commas_are_removed() -> None:
    rule = spec.RuleSet(numeric=True)
    assert judged(rule, "2,000", "2000")
    assert judged(rule, "2e3", "2000.0")
    assert not judged(spec.RuleSet(), "2,000", "2000")  # text: not the same


def test_decimals_rounds_numbers_before_they_are_compared() -> None:
    assert judged(spec.RuleSet(numeric=True, decimals=2), "0.9965", "1")
    assert not judged(spec.RuleSet(numeric=True, decimals=3), "0.9965", "1")
    assert not judged(spec.RuleSet(numeric=True), "0.9965", "1")  # no rounding
    assert judged(spec.RuleSet(numeric=True, decimals=0), "41.6", "42")


def test_tolerance_accepts_a_number_that_close_to_an_answer() -> None:
    rule = spec.RuleSet(numeric=True, tolerance=0.05)
    assert judged(rule, "1.04", "1") and judged(rule, "0.95", "1")
    assert not judged(rule, "1.06", "1")
    assert judged(spec.RuleSet(numeric=True, tolerance=0.01), "1.01", "1")  # 0.01000000000000001
    assert not judged(spec.RuleSet(numeric=True), "1.0001", "1")


def test_match_is_equality_or_containment() -> None:
    assert not judged(spec.RuleSet(), "paris, france", "paris")
    assert judged(spec.RuleSet(match="contains"), "paris, france", "paris")
    assert not judged(spec.RuleSet(match="contains"), "par", "paris")


def test_pad_single_matches_a_single_character_as_a_word() -> None:
    plain = spec.RuleSet(match="contains")
    padded = spec.RuleSet(match="contains", pad_single=True)
    assert judged(plain, "banana", "a")  # any "a" at all
    assert not judged(padded, "banana", "a")
    assert judged(padded, "it is a", "a") and judged(padded, "a or b", "a")
    assert judged(padded, "a", "a")  # padded both: " a" is in " a"


def test_a_number_never_matches_a_text_nor_a_text_a_number() -> None:
    rule = spec.RuleSet(numeric=True, match="contains")
    assert judged(rule, "1/64", "1/64")
    assert not judged(rule, "0.015625", "1/64")
    assert not judged(rule, "five", "5")
    assert not judged(rule, "55", "5")  # a number is compared as one, never contained


def test_any_accepted_answer_counts() -> None:
    assert judged(OPEN, "there are six", "6", "six")
    assert judged(OPEN, "6", "6", "six")
    assert not judged(OPEN, "seven", "6", "six")


def _track(rules: dict[str, object]) -> spec.ShortAnswerTrack:
    return spec.ShortAnswerTrack.model_validate(
        {
            "id": "main",
            "title": "Main",
            "kind": "short_answer",
            "scorer_version": "1",
            "key": {"name": "key.json", "format": "json"},
            "public": {"name": "public.json", "format": "json"},
            "types": {"field": "question_type", "choice": ["mc"], "open": ["open"]},
            "overall": {"size": 3},
            "views": [{"title": "Overall"}],
            "rules": rules,
        }
    )


def test_the_rule_set_of_a_question_is_picked_by_a_field_s_value_else_by_its_type() -> None:
    track = _track(
        {
            "field": "answer_type",
            "by": {"float": "loose"},
            "sets": {"loose": {"numeric": True, "tolerance": 0.1}},
        }
    )
    assert track.rule_name(False, "float") == "loose"
    assert track.rule_name(False, "text") == "open" and track.rule_name(True, None) == "exact"
    assert set(track.rule_sets) == {"exact", "open", "loose"}
    assert track.problems("tracks[0]") == []


@pytest.mark.parametrize(
    ("rules", "problem"),
    [
        ({"open": "lenient"}, "tracks[0].rules.open: no rule set 'lenient'; the sets are exact"),
        ({"by": {"x": "open"}, "field": None}, None),
        ({"sets": {"odd": {"decimals": 2}}}, "rules.sets.odd: decimals and tolerance apply"),
        ({"sets": {"odd": {"numbers": True}}}, "rules.sets.odd.numbers: the numbers found"),
    ],
)
def test_a_rule_set_that_cannot_apply_is_a_spec_problem(
    rules: dict[str, object], problem: str | None
) -> None:
    problems = _track(rules).problems("tracks[0]")
    if problem is None:
        assert problems == []  # rules.by reads the types' field by default
    else:
        assert any(problem in p for p in problems), problems


# --- the facts the issue states of the official scorer, by the presets --------------------


def test_fact_multiple_choice_is_exactly_the_answer_s_letter() -> None:
    """Right only if the prediction is exactly the answer's letter (no trimming, no case
    folding, no parsing)."""
    assert judged(EXACT, "C", "C")
    for response in ("c", " C", "C ", "C.", "(C)", "Answer: C", "The answer is C"):
        assert not judged(EXACT, response, "C"), response


def test_fact_a_response_is_trimmed_of_spaces_and_end_periods_and_lower_cased() -> None:
    assert candidates(OPEN, "  ..Paris..  ") == ("paris",)
    assert judged(OPEN, " PARIS. ", "Paris")


def test_fact_each_line_s_cues_give_the_text_after_the_last_occurrence_shortest_kept() -> None:
    """Split at newlines; for each cue found, the text after its last occurrence, trimmed; the
    shortest per line; "=" on the last line only; cues match inside words."""
    assert candidates(OPEN, "so the result is 4") == ("4", "4")  # and its number
    assert candidates(OPEN, "it could be 3 or 4\nthus 4") == ("3 or 4", "4", "3", "4", "4")
    assert candidates(OPEN, "a = 1\nb = 2") == ("2", "2")  # "=" only on the last line
    assert candidates(OPEN, "this tells 9") == ("tells 9", "9")  # "this " holds "is "


def test_fact_empty_results_and_lone_punctuation_are_dropped_else_the_whole_response() -> None:
    assert candidates(OPEN, "the answer is ?") == ("the answer is ?",)
    assert candidates(OPEN, "Paris") == ("paris",)


def test_fact_numbers_are_extracted_and_added_as_candidates() -> None:
    """Comma-grouped integers, scientific notation, plain integers and decimals with a leading
    minus or ".5"."""
    assert judged(OPEN, "the total is 2,000 apples", "2000")
    assert judged(OPEN, "about 6.02e23 of them", "6.02e23")
    assert judged(OPEN, "we get -.5 here", "-0.5")
    assert judged(OPEN, "x=-3.5", "-3.5")


def test_fact_answers_and_candidates_normalise_alike_numbers_rounded_to_two_decimals() -> None:
    """Trim; a text that parses as a number once commas are removed becomes that number rounded
    to 2 decimals (0.9965 is 1.0; no other tolerance)."""
    assert judged(OPEN, "0.9965", "1")
    assert judged(OPEN, "1", "0.9965")
    assert not judged(OPEN, "0.99", "1")
    assert judged(OPEN, "1,000", "1000.001")


def test_fact_text_is_lower_cased_and_a_single_character_padded() -> None:
    assert judged(OPEN, "B", "b") and judged(OPEN, "the variable is x", "X")
    assert not judged(OPEN, "(b)", "B")  # "(b)" holds neither " b" nor "b "
    assert not judged(OPEN, "about", "b")


def test_fact_matching_numbers_by_value_text_by_containment_never_across() -> None:
    assert judged(OPEN, "so the probability is 1/64.", "1/64")
    assert not judged(OPEN, "0.015625", "1/64")
    assert judged(OPEN, "the capital of france is paris, of course", "Paris")


def test_fact_answers_get_no_number_extraction() -> None:
    """An answer is normalised as a whole: "2 apples" is a text, never the number 2."""
    assert not judged(OPEN, "2", "2 apples")
    assert judged(OPEN, "so there are 2 apples", "2 apples")


# --- against the reference, on generated responses ---------------------------------------------

WORDS = ("the", "answer", "is", "so", "this", "final", "result", "thus", "x", "paris", "B", "b")
BITS = (" ", "\n", ".", ",", "=", "-", ":", "1", "0.5", "1,000", "2e3", "12", ".25", "1/64")


def _response(rng: random.Random) -> str:
    parts = [rng.choice(WORDS + BITS) for _ in range(rng.randrange(1, 12))]
    return "".join(p + rng.choice(("", " ", " ", "\n")) for p in parts)


ANSWERS = ("1", "0.5", "1000", "2000", "12", "Paris", "b", "x", "1/64", "0.25", "answer")


@pytest.mark.parametrize("seed", range(4))
def test_the_open_preset_judges_as_the_reference_on_generated_responses(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3000):
        response = _response(rng)
        answers = rng.sample(ANSWERS, rng.choice((1, 1, 2)))
        raw = answers if len(answers) > 1 else answers[0]
        assert judged(OPEN, response, *answers) == reference_right("short-answer", raw, response), (
            response,
            answers,
        )


def test_the_number_patterns_find_what_the_official_ones_find() -> None:
    rng = random.Random(7)
    alphabet = "0123456789.,eE-+ ax\n"
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 24)))
        official = [m for p in NUMBER_PATTERNS for m in re.findall(p, text)]
        assert numbers_in(text) == official, text


def test_a_long_run_of_digits_is_read_in_one_pass() -> None:
    """The official scientific-notation pattern tries a match from every digit of a run, each
    reading to its end: quadratic. These read such a response about as fast as one of the same
    length in letters (a ratio in the same run, not a time)."""
    size = 20_000  # the official patterns take seconds over it, these a millisecond
    digits, letters = "1" * size + ",", "a" * size + ","

    def cost(text: str) -> float:
        start = time.perf_counter()
        for _ in range(20):
            candidates(OPEN, text)
        return time.perf_counter() - start

    baseline = min(cost(letters) for _ in range(3))
    assert min(cost(digits) for _ in range(3)) < 50 * baseline
