"""EgoArgus: its spec, its synthetic demo data and how its understanding track is scored.

The scoring cases use tiny keys written out by hand, with the expected numbers typed in; the
demo data is checked against the composition of the release (FACTS: 6,978 rows, five
scenarios, three source tasks, 15 out-of-option rows).
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path
from statistics import NormalDist
from types import ModuleType
from typing import Any

import pytest

import evaluator
import spec

BENCH = spec.load_benchmark("egoargus")
TRACK = BENCH.track("understanding", kind=spec.MultipleChoiceTrack)
DEMO = BENCH.demo_dir
KEY_BYTES = BENCH.demo_key(TRACK).read_bytes()
SAMPLE_BYTES = (DEMO / "sample_submission.json").read_bytes()
SAMPLE = json.loads(SAMPLE_BYTES)
GENERATED = (TRACK.key.name, TRACK.public.name, "sample_submission.json")

SCENARIOS = (
    "multimodal_grounded",
    "contradictory",
    "video_grounded_offtopic",
    "video_grounded_ontopic",
    "text_grounded",
)
METRIC_KEYS = (
    "overall",
    "overall_answerable",
    "scenario_mean",
    *SCENARIOS,
    "egoplan",
    "qaego4d",
    "mintrec",
)
#: The release's composition, scenario x source task (FACTS).
COMPOSITION = {
    ("multimodal_grounded", "EgoPlan-Bench2"): 500,
    ("multimodal_grounded", "QaEgo4D"): 500,
    ("contradictory", "EgoPlan-Bench2"): 500,
    ("contradictory", "QaEgo4D"): 500,
    ("video_grounded_offtopic", "EgoPlan-Bench2"): 1000,
    ("video_grounded_offtopic", "QaEgo4D"): 1000,
    ("video_grounded_ontopic", "EgoPlan-Bench2"): 1000,
    ("video_grounded_ontopic", "QaEgo4D"): 1000,
    ("text_grounded", "MIntRec"): 978,
}
MARK = "[SYNTHETIC DEMO] "


def _csv(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


KEY_ROWS = _csv(KEY_BYTES)


def _generator() -> ModuleType:
    path = DEMO / "make_demo_data.py"
    module_spec = importlib.util.spec_from_file_location("egoargus_make_demo_data", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = module  # its dataclass looks its module up while defined
    try:
        module_spec.loader.exec_module(module)
    finally:
        del sys.modules[module_spec.name]
    return module


# --- the spec -----------------------------------------------------------------------------------


def test_the_spec_loads_with_its_metric_keys_in_display_order() -> None:
    assert BENCH.id == "egoargus"
    assert [t.id for t in BENCH.tracks] == ["understanding", "decision"]
    assert TRACK.metric_keys == METRIC_KEYS
    assert TRACK.fields.id_type == "string"
    assert TRACK.options.letters == "ABCD" and TRACK.options.min == TRACK.options.max == 4
    assert TRACK.total == 6978
    assert TRACK.sizes["overall_answerable"] == 6963
    assert TRACK.sizes["scenario_mean"] == 6978
    assert TRACK.members(TRACK.aggregates[0]) == SCENARIOS
    assert TRACK.aggregates[0].key == "scenario_mean"
    assert TRACK.aggregates[0].aggregation == "macro"
    assert BENCH.paper is not None and BENCH.paper.track == "understanding"
    assert BENCH.unnamed_records_track is None


def test_the_paper_rows_are_table_6_and_their_overall_is_the_size_weighted_mean() -> None:
    rows = _csv((BENCH.folder / "paper_baselines.csv").read_bytes())
    assert [(r["method"], r["group"]) for r in rows] == [
        ("Qwen3.5-2B", "Base"),
        ("Qwen3.5-2B + NaPO LoRA", "Fine-tuned"),
    ]
    for row in rows:
        micro = sum(float(row[s]) * TRACK.sizes[s] for s in SCENARIOS) / TRACK.total
        # Each printed number is rounded to 0.1, so they agree to within 0.05 + 0.05
        # (the fine-tuned row: 48.845 from its scenarios, 48.9 printed).
        assert abs(micro - float(row["overall"])) <= 0.1 + 1e-9
    # The worked example of about.md: micro Overall 51.3, macro Mean 52.1.
    qwen = rows[0]
    assert round(sum(float(qwen[s]) for s in SCENARIOS) / 5, 1) == 52.1


# --- the demo data ------------------------------------------------------------------------------


def test_the_demo_key_loads_and_matches_the_spec_sizes() -> None:
    key = evaluator.kinds.multiple_choice.load_key(TRACK, KEY_BYTES)
    assert len(key) == 6978
    assert evaluator.size_problems(key) == []
    assert sum(q.out_of_option for q in key.questions) == 15


def test_the_demo_composition_is_the_release_s() -> None:
    assert Counter((r["scenario"], r["task"]) for r in KEY_ROWS) == COMPOSITION
    assert Counter(r["scenario"] for r in KEY_ROWS) == {
        "multimodal_grounded": 1000,
        "contradictory": 1000,
        "video_grounded_offtopic": 2000,
        "video_grounded_ontopic": 2000,
        "text_grounded": 978,
    }
    assert Counter(r["task"] for r in KEY_ROWS) == {
        "EgoPlan-Bench2": 3000,
        "QaEgo4D": 3000,
        "MIntRec": 978,
    }


def test_the_demo_ids_are_unique_strings_and_sample_ids_repeat_as_in_the_release() -> None:
    ids = [r["example_id"] for r in KEY_ROWS]
    assert len(set(ids)) == len(ids) == 6978
    assert all(re.fullmatch(r"[a-z]{2,3}-\d{6}", i) for i in ids)
    by_scenario: dict[str, list[dict[str, str]]] = {}
    for row in KEY_ROWS:
        by_scenario.setdefault(row["scenario"], []).append(row)
    for rows in by_scenario.values():
        assert len({r["sample_id"] for r in rows}) == len(rows)  # unique within a scenario
    off = {r["sample_id"]: r for r in by_scenario["video_grounded_offtopic"]}
    on = {r["sample_id"]: r for r in by_scenario["video_grounded_ontopic"]}
    assert set(off) == set(on)  # same questions, other dialogues
    assert all(off[s]["question"] == on[s]["question"] for s in off)
    assert all(off[s]["dialogue"] != on[s]["dialogue"] for s in off)
    assert not set(off) & {r["sample_id"] for r in by_scenario["multimodal_grounded"]}


def test_the_demo_rows_are_synthetic_with_four_options_and_15_flagged() -> None:
    flagged = [r for r in KEY_ROWS if r["label_status"] == "out_of_option"]
    assert {r["label_status"] for r in KEY_ROWS} == {"", "out_of_option"}
    assert len(flagged) == 15
    assert {r["scenario"] for r in flagged} <= {"multimodal_grounded", "contradictory"}
    assert sum(r["correct_answer"] == "E" for r in flagged) == 8
    free_text = [r["correct_answer"] for r in flagged if r["correct_answer"] != "E"]
    assert len(free_text) == 7 and all(len(a) > 1 for a in free_text)
    for row in KEY_ROWS:
        options = json.loads(row["options"])
        assert list(options) == ["A", "B", "C", "D"]
        assert (row["correct_answer"] in options) == (row["label_status"] == "")
        assert row["question"].startswith(MARK)
        dialogue = json.loads(row["dialogue"])
        assert dialogue and all(set(t) == {"speaker", "text"} for t in dialogue)
        assert all(t["text"].startswith(MARK) for t in dialogue)


def test_the_public_file_is_the_key_without_answers_or_flags() -> None:
    public = _csv(BENCH.demo_public(TRACK).read_bytes())
    assert list(public[0]) == [
        c for c in KEY_ROWS[0] if c not in ("correct_answer", "label_status")
    ]
    assert public == [
        {k: v for k, v in r.items() if k not in ("correct_answer", "label_status")}
        for r in KEY_ROWS
    ]
    rows = evaluator.read_rows(TRACK, BENCH.demo_public(TRACK).read_bytes(), TRACK.public.format)
    assert rows.records[0]["example_id"] == "mmg-000001"
    assert rows.records[0]["options"].keys() == {"A", "B", "C", "D"}


def test_the_sample_submission_is_a_plausible_run_of_every_question_in_key_order() -> None:
    assert [e["example_id"] for e in SAMPLE] == [r["example_id"] for r in KEY_ROWS]
    answers = [e["predicted_answer"] for e in SAMPLE]
    assert set(answers) <= {"A", "B", "C", "D", None}
    assert 0.01 <= answers.count(None) / len(answers) <= 0.03
    result = evaluator.score(
        evaluator.kinds.multiple_choice.load_key(TRACK, KEY_BYTES), SAMPLE_BYTES
    )
    assert 40 <= result.metrics["overall"] <= 50
    assert result.n_abstained == answers.count(None)


def test_rerunning_the_generator_writes_the_same_bytes(tmp_path: Path) -> None:
    generator = _generator()
    assert "Example:" in (generator.__doc__ or "")
    assert generator.main(["--out-dir", str(tmp_path)]) == 0
    for name in GENERATED:
        assert (tmp_path / name).read_bytes() == (DEMO / name).read_bytes(), name


def test_the_generator_help_works(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _generator().main(["--help"])
    assert exit_info.value.code == 0
    assert "--out-dir" in capsys.readouterr().out


# --- scoring, on a tiny key written by hand ---------------------------------------------------

OPTIONS = {
    "A": "[SYNTHETIC DEMO] one",
    "B": "[SYNTHETIC DEMO] two",
    "C": "[SYNTHETIC DEMO] three",
    "D": "[SYNTHETIC DEMO] four",
}


def _row(ident: str, scenario: str, task: str, answer: str, flag: str = "") -> dict[str, Any]:
    return {
        "example_id": ident,
        "scenario": scenario,
        "task": task,
        "question": f"{MARK}question {ident}",
        "options": dict(OPTIONS),
        "correct_answer": answer,
        "label_status": flag,
    }


def _tiny_rows() -> list[dict[str, Any]]:
    """Ten rows: every scenario and task at least once, one of them out of option."""
    return [
        _row("mmg-1", "multimodal_grounded", "EgoPlan-Bench2", "A"),
        _row("mmg-2", "multimodal_grounded", "QaEgo4D", "B"),
        _row("mmg-3", "multimodal_grounded", "EgoPlan-Bench2", "E", "out_of_option"),
        _row("con-1", "contradictory", "QaEgo4D", "C"),
        _row("off-1", "video_grounded_offtopic", "EgoPlan-Bench2", "D"),
        _row("on-1", "video_grounded_ontopic", "QaEgo4D", "A"),
        _row("txt-1", "text_grounded", "MIntRec", "A"),
        _row("txt-2", "text_grounded", "MIntRec", "B"),
        _row("txt-3", "text_grounded", "MIntRec", "C"),
        _row("txt-4", "text_grounded", "MIntRec", "D"),
    ]


#: Right: mmg-1, mmg-2, off-1, txt-1. Wrong: mmg-3 (never right), con-1, txt-2..4. on-1 abstains.
TINY_RUN = {
    "mmg-1": "A",
    "mmg-2": "B",
    "mmg-3": "A",
    "con-1": "A",
    "off-1": "D",
    "on-1": None,
    "txt-1": "A",
    "txt-2": "A",
    "txt-3": "A",
    "txt-4": "A",
}


def _tiny_key() -> evaluator.AnswerKey:
    return evaluator.parse_answer_key(TRACK, _tiny_rows())


def _submit(answers: dict[str, str | None]) -> bytes:
    return json.dumps(
        [{"example_id": i, "predicted_answer": a} for i, a in answers.items()]
    ).encode()


def test_the_tiny_key_differs_from_the_spec_sizes_as_expected() -> None:
    assert evaluator.size_problems(_tiny_key())  # 10 rows, not 6,978: scoring still works


def test_micro_overall_and_macro_scenario_mean_differ() -> None:
    result = evaluator.score(_tiny_key(), _submit(TINY_RUN))
    # Scenarios: multimodal 2/3, contradictory 0/1, off-topic 1/1, on-topic 0/1, text 1/4.
    assert result.metrics["multimodal_grounded"] == pytest.approx(200 / 3)
    assert result.metrics["contradictory"] == 0.0
    assert result.metrics["video_grounded_offtopic"] == 100.0
    assert result.metrics["video_grounded_ontopic"] == 0.0
    assert result.metrics["text_grounded"] == 25.0
    # Overall, micro: 4 right of 10 rows.
    assert result.metrics["overall"] == pytest.approx(40.0)
    # Mean, macro: (66.667 + 0 + 100 + 0 + 25) / 5 = 38.333...
    assert result.metrics["scenario_mean"] == pytest.approx(115 / 3)
    assert result.counts["scenario_mean"] == evaluator.Count(correct=4, total=10)
    # Tasks: EgoPlan 2/3 (mmg-1, off-1; mmg-3 never), QaEgo4D 1/3, MIntRec 1/4.
    assert result.metrics["egoplan"] == pytest.approx(200 / 3)
    assert result.metrics["qaego4d"] == pytest.approx(100 / 3)
    assert result.metrics["mintrec"] == 25.0
    assert result.n_abstained == 1


@pytest.mark.parametrize("letter", ["A", "B", "C", "D", None])
def test_an_out_of_option_row_counts_in_overall_but_not_in_answerable(letter: str | None) -> None:
    result = evaluator.score(_tiny_key(), _submit({**TINY_RUN, "mmg-3": letter}))
    assert result.counts["overall"] == evaluator.Count(correct=4, total=10)
    assert result.counts["multimodal_grounded"] == evaluator.Count(correct=2, total=3)
    assert result.counts["egoplan"] == evaluator.Count(correct=2, total=3)
    assert result.counts["overall_answerable"] == evaluator.Count(correct=4, total=9)
    assert result.metrics["overall_answerable"] == pytest.approx(400 / 9)


def test_the_out_of_option_answer_itself_is_not_a_valid_prediction() -> None:
    with pytest.raises(evaluator.SubmissionError, match=r"not among their question's options"):
        evaluator.score(_tiny_key(), _submit({**TINY_RUN, "mmg-3": "E"}))


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (
            [{"example_id": 1, "predicted_answer": "A"}],
            'an "example_id" that is not a non-empty string (e.g. the 11th entry: 1)',
        ),
        (
            [{"example_id": "mmg-1", "predicted_answer": "A"}],
            "1 question is answered more than once (mmg-1)",
        ),
        (
            [{"example_id": "zzz-9", "predicted_answer": "A"}],
            "1 example_id is not in the answer key (zzz-9)",
        ),
        (  # its spec's hint (issue 19): sample_id is not the id, renaming it would not do
            [{"sample_id": "mmg-1", "predicted_answer": "A"}],
            'has "sample_id" but no "example_id" (e.g. the 11th entry): sample_id is not this '
            "benchmark's id",
        ),
    ],
)
def test_ids_are_strings_and_each_question_is_answered_once(
    entries: list[dict[str, Any]], message: str
) -> None:
    full = json.loads(_submit(TINY_RUN)) + entries
    with pytest.raises(evaluator.SubmissionError) as raised:
        evaluator.score(_tiny_key(), json.dumps(full).encode())
    assert message in str(raised.value)


def test_a_missing_string_id_is_named() -> None:
    answers = {k: v for k, v in TINY_RUN.items() if k != "txt-4"}
    with pytest.raises(
        evaluator.SubmissionError,
        match=r"1 question has no answer \(txt-4\); expected one entry for each "
        r"of the 10 questions",
    ):
        evaluator.score(_tiny_key(), _submit(answers))


def test_a_digit_string_id_in_a_csv_key_stays_a_string() -> None:
    rows = _tiny_rows()
    rows[0]["example_id"] = "00042"
    columns = list(rows[0])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([json.dumps(row[c]) if c == "options" else row[c] for c in columns])
    key = evaluator.kinds.multiple_choice.load_key(TRACK, buffer.getvalue().encode())
    assert key.questions[0].id == "00042"
    answers = {("00042" if k == "mmg-1" else k): v for k, v in TINY_RUN.items()}
    assert evaluator.score(key, _submit(answers)).counts["overall"].correct == 4
    numeric = json.loads(_submit(answers))
    numeric[0]["example_id"] = 42
    with pytest.raises(evaluator.SubmissionError, match="not a non-empty string"):
        evaluator.score(key, json.dumps(numeric).encode())


def test_a_flagged_row_whose_answer_is_among_its_options_is_refused() -> None:
    rows = _tiny_rows()
    rows[0]["label_status"] = "out_of_option"  # mmg-1 answers "A", one of its options
    with pytest.raises(
        evaluator.AnswerKeyError,
        match=r"1 question is flagged label_status = out_of_option although their "
        r"correct_answer is one of their options \(mmg-1\)",
    ):
        evaluator.parse_answer_key(TRACK, rows)


def test_an_unflagged_row_whose_answer_is_outside_its_options_is_refused() -> None:
    rows = _tiny_rows()
    rows[2]["label_status"] = ""  # mmg-3 answers "E"
    with pytest.raises(
        evaluator.AnswerKeyError,
        match=r"1 question whose correct_answer is not one of their options "
        r"\(mmg-3\); such rows are accepted only when flagged "
        r"label_status = out_of_option",
    ):
        evaluator.parse_answer_key(TRACK, rows)


# --- the sample submission and the About text ------------------------------------------------


def _wilson(correct: int, total: int, z: float) -> tuple[float, float]:
    p = correct / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z / (1 + z * z / total) * math.sqrt(p * (1 - p) / total + z * z / (4 * total**2))
    return (100 * max(0.0, centre - half), 100 * min(1.0, centre + half))


def test_the_sample_submission_scores_every_metric_with_its_interval() -> None:
    result = evaluator.score(
        evaluator.kinds.multiple_choice.load_key(TRACK, KEY_BYTES), SAMPLE_BYTES
    )
    assert tuple(result.metrics) == METRIC_KEYS
    assert tuple(result.counts) == METRIC_KEYS
    assert tuple(result.intervals) == METRIC_KEYS
    assert result.n_questions == 6978
    assert result.scorer_version == "egoargus-scorer 1.0"
    counts = result.counts
    assert counts["overall"].total == 6978 and counts["overall_answerable"].total == 6963
    assert counts["scenario_mean"] == counts["overall"]  # the same rows, weighed otherwise
    z = NormalDist().inv_cdf(0.975)
    for key in ("overall", "overall_answerable", "multimodal_grounded", "mintrec"):
        assert result.intervals[key] == pytest.approx(
            _wilson(counts[key].correct, counts[key].total, z)
        )
    ps = [counts[s].correct / counts[s].total for s in SCENARIOS]
    mean = sum(ps) / 5
    half = (
        z
        * math.sqrt(sum(p * (1 - p) / counts[s].total for p, s in zip(ps, SCENARIOS, strict=True)))
        / 5
    )
    assert result.metrics["scenario_mean"] == pytest.approx(100 * mean)
    assert result.metrics["scenario_mean"] != pytest.approx(result.metrics["overall"])
    assert result.intervals["scenario_mean"] == pytest.approx(
        (100 * (mean - half), 100 * (mean + half))
    )


ABOUT = BENCH.about_path.read_text(encoding="utf-8")


def _blocks(markdown: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", markdown, flags=re.S)


def test_the_about_example_submission_scores() -> None:
    example = json.loads(_blocks(ABOUT, "json")[0])
    assert example and all(isinstance(e["example_id"], str) for e in example)
    given = {e["example_id"] for e in example}
    assert given <= {r["example_id"] for r in KEY_ROWS}
    full = example + [e for e in SAMPLE if e["example_id"] not in given]
    result = evaluator.score(
        evaluator.kinds.multiple_choice.load_key(TRACK, KEY_BYTES), json.dumps(full).encode()
    )
    assert result.n_questions == 6978
    assert result.n_abstained >= sum(e["predicted_answer"] is None for e in example)


def test_the_about_text_names_the_spec_s_contact_and_sizes() -> None:
    # a placeholder until the authors give theirs, and marked so (issue 31, item 12)
    assert f"`{BENCH.contact_email}`" in ABOUT and "For the EgoArgus authors to fill in" in ABOUT
    for size in ("6,978", "6,963", "1,000", "2,000", "978", "3,000", "15"):
        assert size in ABOUT
    assert "Table 6" in ABOUT and "51.3" in ABOUT and "52.1" in ABOUT


# --- the decision track -------------------------------------------------------------------------

_DECISION = BENCH.track("decision")
assert isinstance(_DECISION, spec.DecisionTrack)
DECISION: spec.DecisionTrack = _DECISION
DECISION_GENERATED = (DECISION.key.name, DECISION.public.name, "decision_sample_submission.json")
#: FACTS, Decision: composition.
EPISODES = {
    "multimodal_grounded": 116,
    "contradictory": 104,
    "video_grounded_ontopic": 102,
    "video_grounded_offtopic": 118,
    "text_grounded": 110,
    "no_assistance": 239,
}


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


EPISODE_ROWS = _lines(BENCH.demo_key(DECISION).read_bytes())


def test_the_decision_track_has_the_release_s_composition() -> None:
    assert {g.value: g.size for g in DECISION.scenarios.groups} == EPISODES
    assert DECISION.total == 789 and DECISION.silent_scenario == "no_assistance"
    assert Counter(r["scenario"] for r in EPISODE_ROWS) == EPISODES
    key = evaluator.load_answer_key(DECISION, BENCH.demo_key(DECISION).read_bytes())
    assert len(key) == 789 and evaluator.size_problems(key) == []


def test_the_decision_demo_episodes_are_plausible_and_synthetic() -> None:
    types = Counter(r["assist_type"] for r in EPISODE_ROWS)
    assert types["none"] == 239 and types["safety"] + types["non_safety"] == 550
    assert 0.4 <= types["safety"] / 550 <= 0.6  # a plausible split (the release's is not public)
    for scenario in EPISODES:
        if scenario != "no_assistance":  # both kinds in every assistance scenario
            assert {r["assist_type"] for r in EPISODE_ROWS if r["scenario"] == scenario} == {
                "safety",
                "non_safety",
            }
    assert len({r["video_id"] for r in EPISODE_ROWS}) == 311
    for row in EPISODE_ROWS:
        assert row["video_filename"] == f"VISTA/{row['video_id']}.mp4"
        if row["assist_type"] == "none":
            assert row["intervention_time_s"] is None and row["issue"] is None
        else:
            assert row["dialogue_time_s"] < row["intervention_time_s"] < 240
            assert row["issue"].startswith(MARK) and all(s.startswith(MARK) for s in row["steps"])
        assert all(t["text"].startswith(MARK) for t in row["dialogue"])
    # ids in file order say nothing of the scenario
    assert [r["example_id"] for r in EPISODE_ROWS] == [f"ep-{i:06d}" for i in range(1, 790)]
    first = [r["scenario"] for r in EPISODE_ROWS[:100]]
    assert len(set(first)) == 6


def test_the_decision_public_file_gives_no_answer() -> None:
    public = _lines(BENCH.demo_public(DECISION).read_bytes())
    assert [r["example_id"] for r in public] == [r["example_id"] for r in EPISODE_ROWS]
    assert set(public[0]) == {
        "example_id",
        "video_id",
        "video_filename",
        "dialogue_time_s",
        "dialogue",
    }
    for row, episode in zip(public, EPISODE_ROWS, strict=True):
        assert row == {k: episode[k] for k in row}


def test_the_decision_sample_is_a_plausible_run() -> None:
    sample = (DEMO / "decision_sample_submission.json").read_bytes()
    entries = json.loads(sample)
    assert [e["example_id"] for e in entries] == [r["example_id"] for r in EPISODE_ROWS]
    key = evaluator.load_answer_key(DECISION, BENCH.demo_key(DECISION).read_bytes())
    result = evaluator.score(key, sample)
    assert 0.6 <= result.metrics["decision_f1"] <= 0.9
    assert -3 < result.metrics["timing_signed_s"] < 0  # mostly early, as the paper's models
    assert 0 < result.metrics["timing_missing"] < result.metrics["timing_n"]
    assert 0 < result.n_abstained < 30


def test_rerunning_the_generator_writes_the_same_decision_bytes(tmp_path: Path) -> None:
    assert _generator().main(["--out-dir", str(tmp_path)]) == 0
    for name in DECISION_GENERATED:
        assert (tmp_path / name).read_bytes() == (DEMO / name).read_bytes(), name


#: FACTS, Table 2 (paper-reported), in its column order: F1, MAE, Δt, Multi., Contra., Vid on,
#: Vid off, Text, No asst., Safety FN, Non-safety FN, No-asst. FP.
TABLE_2 = {
    "Gemini-3.1-Flash-Lite": (
        0.8117,
        2.7420,
        -2.4970,
        0.9395,
        0.9042,
        0.8049,
        0.7431,
        0.9463,
        0.3885,
        0.1445,
        0.2443,
        0.3173,
    ),
    "MiMo-V2-Omni": (
        0.7500,
        2.6340,
        -2.3420,
        0.9194,
        0.8681,
        0.8171,
        0.7046,
        0.7031,
        0.3051,
        0.1992,
        0.3969,
        0.2620,
    ),
    "Qwen3.5-Plus-02-15": (
        0.7232,
        2.5050,
        -1.9280,
        0.9340,
        0.9101,
        0.7249,
        0.6087,
        0.4444,
        0.4418,
        0.3008,
        0.4695,
        0.1144,
    ),
    "InternVL3.5-4B": (
        0.5979,
        3.7030,
        -0.4040,
        0.9091,
        0.8587,
        0.8571,
        0.1935,
        0.0909,
        0.2483,
        0.4141,
        0.5687,
        0.3506,
    ),
    "Cosmos-Reason2-8B": (
        0.5572,
        2.7840,
        -1.7310,
        0.7283,
        0.7577,
        0.6131,
        0.5165,
        0.1897,
        0.3095,
        0.4023,
        0.7595,
        0.1070,
    ),
    "Molmo2-8B": (
        0.5375,
        4.0190,
        -3.9950,
        0.8265,
        0.8603,
        0.7655,
        0.0854,
        0.1251,
        0.1961,
        0.4922,
        0.6107,
        0.3985,
    ),
    "Qwen3.5-2B": (
        0.1920,
        3.7840,
        -3.7840,
        0.3459,
        0.1509,
        0.2095,
        0.0854,
        0.2203,
        0.0000,
        0.8438,
        0.9237,
        0.0037,
    ),
}


def test_the_decision_paper_rows_are_table_2_in_the_paper_s_columns() -> None:
    assert BENCH.paper is not None
    (table,) = BENCH.paper.tables
    assert (table.track, table.table) == ("decision", "Table 2")
    rows = _csv((BENCH.folder / table.csv).read_bytes())
    assert [r["method"] for r in rows] == list(TABLE_2)
    for row in rows:
        printed = tuple(float(row[k]) for k in DECISION.paper_metric_keys)
        assert printed == TABLE_2[row["method"]]
        assert row["input"] in BENCH.input.choices
    assert all(DECISION.labels[k].startswith("Paper ") for k in DECISION.paper_metric_keys)
    # the error rates are exact fractions of 256, 262 and 271 episodes (about.md's remark)
    for values in TABLE_2.values():
        for rate, n in zip(values[9:], (256, 262, 271), strict=True):
            assert abs(round(rate * n) / n - rate) < 5e-5
    gemini = TABLE_2["Gemini-3.1-Flash-Lite"]
    tp = round(256 * (1 - gemini[9])) + round(262 * (1 - gemini[10]))
    fn = 518 - tp
    fp = round(271 * gemini[11])
    assert (tp, fn, fp) == (417, 101, 86) and round(2 * tp / (2 * tp + fp + fn), 3) == 0.817


def _decision_section() -> str:
    return ABOUT[ABOUT.index("## Decision") : ABOUT.index("## Links")]


def test_the_about_decision_example_scores() -> None:
    example = json.loads(_blocks(_decision_section(), "json")[0])
    sample = json.loads((DEMO / "decision_sample_submission.json").read_bytes())
    given = {e["example_id"] for e in example}
    full = example + [e for e in sample if e["example_id"] not in given]
    key = evaluator.load_answer_key(DECISION, BENCH.demo_key(DECISION).read_bytes())
    result = evaluator.score(key, json.dumps(full).encode())
    assert result.n_questions == 789


def test_the_about_decision_section_writes_the_definitions_down() -> None:
    section = " ".join(_decision_section().split())
    assert "this Space's own definitions" in section and "not public" in section
    for size in ("789", "116", "104", "102", "118", "110", "239", "550", "2,000", "0.822"):
        assert size in section
    for words in (
        "F1** = 2 TP / (2 TP + FP + FN)",
        "**Precision** = TP / (TP + FP)",
        "**Recall** = TP / (TP + FN)",
        "not** this Space's per-scenario accuracy",
        "not scored",
        "50th to the 1,950th",
    ):
        assert words in section, words
