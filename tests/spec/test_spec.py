"""spec.py: the shipped specs load, and a broken spec names its TOML path and the problem."""

from __future__ import annotations

import copy
import shutil
import tomllib
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import spec
from evaluator.kinds import decision

BASE = tomllib.loads(
    (spec.BENCHMARKS_DIR / "egomemreason" / spec.SPEC_FILENAME).read_text(encoding="utf-8")
)
FOLDER = Path("/benchmarks/broken")

Edit = Callable[[dict[str, Any]], None]


def _track(doc: dict[str, Any]) -> dict[str, Any]:
    track: dict[str, Any] = doc["tracks"][0]
    return track


def _group(doc: dict[str, Any], index: int) -> dict[str, Any]:
    group: dict[str, Any] = _track(doc)["groupings"][0]["groups"][index]
    return group


def _set(getter: Callable[[dict[str, Any]], dict[str, Any]], name: str, value: object) -> Edit:
    return lambda doc: getter(doc).__setitem__(name, value)


def _second_grouping(total: int) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        _track(doc)["groupings"].append(
            {
                "id": "split",
                "field": "split",
                "title": "Splits",
                "groups": [
                    {"value": "a", "key": "split_a", "label": "A", "size": total - 100},
                    {"value": "b", "key": "split_b", "label": "B", "size": 100},
                ],
            }
        )

    return edit


BROKEN: list[tuple[str, Edit, str]] = [
    (
        "size-as-string",
        _set(lambda d: _group(d, 3), "size", "100"),
        'tracks[0].groupings[0].groups[3].size: expected a positive integer, got "100"',
    ),
    (
        "size-negative",
        _set(lambda d: _group(d, 3), "size", -100),
        "tracks[0].groupings[0].groups[3].size: expected a positive integer, got -100",
    ),
    (
        "size-zero",
        _set(lambda d: _group(d, 0), "size", 0),
        "tracks[0].groupings[0].groups[0].size: expected a positive integer, got 0",
    ),
    (
        "size-boolean",
        _set(lambda d: _group(d, 0), "size", True),
        "tracks[0].groupings[0].groups[0].size: expected a positive integer, got True",
    ),
    ("missing-hub", lambda d: d.pop("hub"), "hub: missing; expected this field"),
    (
        "missing-track-key",
        lambda d: _track(d).pop("key"),
        "tracks[0].key: missing; expected this field",
    ),
    (
        "unknown-top-level-key",
        _set(lambda d: d, "colour", "blue"),
        "colour: unknown field; remove it or check its spelling",
    ),
    (
        "unknown-track-key",
        _set(_track, "groups", []),
        "tracks[0].groups: unknown field; remove it or check its spelling",
    ),
    (
        "unknown-kind",
        _set(_track, "kind", "open_ended"),
        "tracks[0].kind: expected 'multiple_choice', got \"open_ended\"",
    ),
    (
        "duplicate-metric-key",
        _set(lambda d: _track(d)["aggregates"][1], "key", "entity"),
        "tracks[0]: the metric key 'entity' is declared 2 times",
    ),
    (
        "group-key-as-aggregate-key",
        _set(lambda d: _group(d, 0), "key", "behavior"),
        "tracks[0]: the metric key 'behavior' is declared 2 times",
    ),
    (
        "duplicate-group-value",
        _set(lambda d: _group(d, 1), "value", "Cumulative State Tracking"),
        "tracks[0].groupings[0].groups: the value 'Cumulative State Tracking' appears 2 times",
    ),
    (
        "aggregate-of-nothing",
        _set(lambda d: _track(d)["aggregates"][0], "of", ["nothing"]),
        "tracks[0].aggregates[0].of: 'nothing' is neither a group key nor a grouping id of this "
        "track",
    ),
    (
        "aggregate-of-empty",
        _set(lambda d: _track(d)["aggregates"][0], "of", []),
        "tracks[0].aggregates[0].of: expected at least one entry, got none",
    ),
    (
        "groupings-cover-different-totals",
        _second_grouping(400),
        "tracks[0].groupings[1] (split): its groups have 400 rows in all, but groupings[0] "
        "(query_type) has 500; every grouping covers every row",
    ),
    (
        "options-min-above-max",
        _set(_track, "options", {"letters": "ABCDEFGHIJ", "min": 6, "max": 5}),
        "tracks[0].options: expected 1 <= min <= max <= 10 (the letters), got min 6, max 5",
    ),
    (
        "options-max-above-letters",
        _set(_track, "options", {"letters": "ABCD", "min": 2, "max": 5}),
        "tracks[0].options: expected 1 <= min <= max <= 4 (the letters), got min 2, max 5",
    ),
    (
        "options-lowercase-letters",
        _set(_track, "options", {"letters": "abcd"}),
        'tracks[0].options.letters: expected a string matching ^[A-Z]{2,26}$, got "abcd"',
    ),
    (
        "paper-track-unknown",
        _set(lambda d: d["paper"], "track", "video"),
        "paper.track: expected one of memory, got 'video'",
    ),
    (
        "unnamed-records-track-unknown",
        _set(lambda d: d, "unnamed_records_track", "video"),
        "unnamed_records_track: expected one of memory, got 'video'",
    ),
    (
        "view-unknown-metric",
        _set(lambda d: _track(d)["views"][0], "metrics", ["entity", "nope"]),
        "tracks[0].views[0].metrics: unknown metric 'nope'; known: ",
    ),
    (
        "chart-unknown-metric",
        _set(_track, "chart", ["overall", "nope"]),
        "tracks[0].chart: unknown metric 'nope'",
    ),
    (
        "view-unknown-column",
        _set(lambda d: _track(d)["views"][0], "columns", ["elo"]),
        "tracks[0].views[0].columns[0]: expected 'rank_range', 'source',",
    ),
    (
        "no-views",
        _set(_track, "views", []),
        "tracks[0].views: expected at least one entry, got none",
    ),
    (
        "bad-email",
        _set(lambda d: d, "contact_email", "maintainers at example.org"),
        "contact_email: expected a plain e-mail address such as name@example.org, got "
        "'maintainers at example.org'",
    ),
    (
        "bad-repo-id",
        _set(lambda d: d["hub"], "private_repo", "EgoMemReason-Private"),
        "hub.private_repo: expected a string matching",
    ),
    (
        "bad-records-repo-id",
        _set(lambda d: d["hub"], "records_repo", "a/b/c"),
        "hub.records_repo: expected a string matching",
    ),
    (
        "bad-url",
        _set(lambda d: d["links"], "paper", "arxiv.org/abs/2605.09874"),
        "links.paper: expected an https URL such as https://example.org/page; found no scheme",
    ),
    (
        "bad-namespace",
        _set(lambda d: d["paper"], "namespace", "not-a-uuid"),
        'paper.namespace: expected a uuid, got "not-a-uuid"',
    ),
    (
        "duplicate-track-id",
        lambda d: d["tracks"].append(copy.deepcopy(_track(d))),
        "tracks: the track id 'memory' is declared 2 times",
    ),
    (
        "out-of-option-rows-cover-everything",
        _set(
            _track,
            "out_of_option",
            {"field": "label_status", "value": "out_of_option", "rows": 500},
        ),
        "tracks[0].out_of_option.rows: expected fewer than the 500 rows of the track, got 500",
    ),
    (
        "out-of-option-rows-negative",
        _set(
            _track, "out_of_option", {"field": "label_status", "value": "out_of_option", "rows": -1}
        ),
        "tracks[0].out_of_option.rows: expected an integer >= 0, got -1",
    ),
    (
        "id-type-unknown",
        _set(lambda d: _track(d)["fields"], "id_type", "uuid"),
        "tracks[0].fields.id_type: expected 'integer' or 'string', got \"uuid\"",
    ),
    (
        "decimals-negative",
        _set(_track, "decimals", -1),
        "tracks[0].decimals: expected an integer from 0 to 4, got -1",
    ),
    (
        "decimals-too-many",
        _set(_track, "decimals", 9),
        "tracks[0].decimals: expected an integer from 0 to 4, got 9",
    ),
    (
        "decimals-as-string",
        _set(_track, "decimals", "2"),
        'tracks[0].decimals: expected an integer from 0 to 4, got "2"',
    ),
    (
        "decimals-boolean",
        _set(_track, "decimals", True),
        "tracks[0].decimals: expected an integer from 0 to 4, got True",
    ),
    (
        "reference-with-no-tell",
        _set(_track, "references", [{"what": "a policy"}]),
        "tracks[0].references[0]: expected methods (the rows' method names) or metrics",
    ),
    (
        "reference-with-two-tells",
        _set(
            _track,
            "references",
            [{"what": "a policy", "methods": ["Random"], "metrics": {"overall": 16.8}}],
        ),
        "tracks[0].references[0]: expected methods (the rows' method names) or metrics",
    ),
    (
        "reference-of-an-unknown-metric",
        _set(_track, "references", [{"what": "a policy", "metrics": {"recall": 1.0}}]),
        "tracks[0].references[0].metrics: unknown metric 'recall'; known: overall, entity",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [(e, m) for _, e, m in BROKEN], ids=[name for name, _, _ in BROKEN]
)
def test_a_broken_spec_names_its_toml_path_and_the_problem(edit: Edit, message: str) -> None:
    doc = copy.deepcopy(BASE)
    edit(doc)
    with pytest.raises(spec.SpecError) as raised:
        spec.parse_benchmark(doc, FOLDER)
    text = str(raised.value)
    assert text.startswith(str(FOLDER / spec.SPEC_FILENAME))
    assert message in text


def test_a_reference_policy_is_a_row_named_or_told_by_its_metrics() -> None:
    """Issue 31, item 10: one rule for every track, declared in the spec."""
    memory = spec.load_benchmark("egomemreason").track()
    assert memory.reference_of("Random", {"overall": 16.8}) is not None
    assert memory.reference_of("Always-A (synthetic)", {"overall": 21.4}) is not None
    assert memory.reference_of("Gemini-3-Flash", {"overall": 39.6}) is None
    decision = spec.load_benchmark("egoargus").track("decision")
    always = {"decision_recall": 1.0, "no_assist_fp_rate": 1.0, "decision_macro_f1": 0.41}
    assert decision.reference_of("Any name", always) == "assists on every episode"
    assert decision.reference_of("Any name", {**always, "no_assist_fp_rate": 0.9}) is None
    assert decision.reference_of("A paper row", {"paper_f1": 0.8}) is None


def test_the_unedited_base_parses() -> None:
    # Otherwise every case above could fail for a reason other than its edit.
    bench = spec.parse_benchmark(copy.deepcopy(BASE), FOLDER)
    assert bench.id == "egomemreason"


def test_several_validation_problems_are_all_reported_at_once() -> None:
    doc = copy.deepcopy(BASE)
    del doc["hub"]
    _track(doc)["kind"] = "open_ended"
    _group(doc, 3)["size"] = "100"
    with pytest.raises(spec.SpecError) as raised:
        spec.parse_benchmark(doc, FOLDER)
    text = str(raised.value)
    assert text.startswith(f"{FOLDER / spec.SPEC_FILENAME} has 3 problems:\n- ")
    for part in (
        "hub: missing",
        "tracks[0].kind: expected 'multiple_choice'",
        'tracks[0].groupings[0].groups[3].size: expected a positive integer, got "100"',
    ):
        assert part in text


def test_several_consistency_problems_are_all_reported_at_once() -> None:
    doc = copy.deepcopy(BASE)
    _group(doc, 1)["value"] = "Cumulative State Tracking"
    _track(doc)["aggregates"][0]["of"] = ["nothing"]
    doc["paper"]["track"] = "video"
    with pytest.raises(spec.SpecError) as raised:
        spec.parse_benchmark(doc, FOLDER)
    text = str(raised.value)
    assert "has 3 problems:" in text
    for part in (
        "the value 'Cumulative State Tracking' appears 2 times",
        "aggregates[0].of: 'nothing' is neither",
        "paper.track: expected one of memory",
    ):
        assert part in text


# --- the shipped specs and load_benchmark ------------------------------------------------------


@pytest.mark.parametrize("name", ["egomemreason", "egoargus"])
def test_every_shipped_spec_loads(name: str) -> None:
    bench = spec.load_benchmark(name)
    assert bench.id == name == bench.folder.name
    assert bench.about_path.is_file() and bench.citation_path.is_file()
    for track in bench.tracks:
        ranking = "overall" if track.kind == "multiple_choice" else "decision_macro_f1"
        assert track.metric_keys[0] == track.ranking == ranking
        assert len(set(track.metric_keys)) == len(track.metric_keys)
        assert bench.demo_key(track).is_file() and bench.demo_public(track).is_file()
        for grouping in track.groupings:
            assert sum(g.size for g in grouping.groups) == track.total
    if bench.paper is not None:
        for table in bench.paper.all_tables:
            assert (bench.folder / table.csv).is_file()


def test_load_benchmark_accepts_a_folder_path() -> None:
    bench = spec.load_benchmark(str(spec.BENCHMARKS_DIR / "egoargus"))
    assert bench.id == "egoargus"


def test_load_benchmark_of_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(
        spec.SpecError,
        match=r"no benchmark 'no-such-bench': give an id under "
        r"benchmarks/ \(.*egoargus.*egomemreason",
    ):
        spec.load_benchmark("no-such-bench")


def test_load_benchmark_of_a_folder_without_a_spec(tmp_path: Path) -> None:
    with pytest.raises(
        spec.SpecError, match=r"holds no benchmark\.toml; a benchmark folder needs one"
    ):
        spec.load_benchmark(str(tmp_path))


def test_load_benchmark_of_invalid_toml(tmp_path: Path) -> None:
    (tmp_path / spec.SPEC_FILENAME).write_text('id = "x"\ntitle = \n', encoding="utf-8")
    with pytest.raises(spec.SpecError, match=r"benchmark\.toml is not valid TOML: .*line 2"):
        spec.load_benchmark(str(tmp_path))


def test_load_benchmark_of_a_non_utf8_spec(tmp_path: Path) -> None:
    (tmp_path / spec.SPEC_FILENAME).write_bytes(b'title = "\xff"\n')
    with pytest.raises(
        spec.SpecError, match=r"benchmark\.toml is not UTF-8 text .*save it as UTF-8"
    ):
        spec.load_benchmark(str(tmp_path))


def _copy_spec(tmp_path: Path, *names: str) -> Path:
    source = spec.BENCHMARKS_DIR / "egomemreason"
    for name in (spec.SPEC_FILENAME, *names):
        shutil.copy(source / name, tmp_path / name)
    return tmp_path


def test_load_benchmark_of_a_folder_lacking_about_md(tmp_path: Path) -> None:
    folder = _copy_spec(tmp_path, "citation.bib")
    with pytest.raises(
        spec.SpecError,
        match=r"lacks about\.md: a benchmark folder holds its "
        r"About text and citation beside benchmark\.toml",
    ):
        spec.load_benchmark(str(folder))


def test_load_benchmark_of_a_folder_lacking_both_prose_files(tmp_path: Path) -> None:
    with pytest.raises(spec.SpecError, match=r"lacks about\.md and citation\.bib"):
        spec.load_benchmark(str(_copy_spec(tmp_path)))


def test_load_benchmark_reports_spec_problems_with_the_folder_s_path(tmp_path: Path) -> None:
    folder = _copy_spec(tmp_path, "about.md", "citation.bib")
    text = (folder / spec.SPEC_FILENAME).read_text(encoding="utf-8")
    (folder / spec.SPEC_FILENAME).write_text(
        text.replace("size = 100", 'size = "100"', 1), encoding="utf-8"
    )
    with pytest.raises(spec.SpecError) as raised:
        spec.load_benchmark(str(folder))
    assert str(raised.value) == (
        f"{folder.resolve() / spec.SPEC_FILENAME}: tracks[0].groupings[0].groups[0].size: "
        'expected a positive integer, got "100"'
    )
    assert spec.load_benchmark(str(_copy_spec(tmp_path))).id == "egomemreason"


def test_an_aggregate_over_all_rows_is_refused_as_an_unknown_name() -> None:
    """ "all" is the answerable overall's own word, not a group: it would crash the sizes."""
    document = copy.deepcopy(BASE)
    document["tracks"][0]["aggregates"][0]["of"] = ["all"]
    with pytest.raises(spec.SpecError, match="'all' is neither a group key nor a grouping id"):
        spec.parse_benchmark(document, Path("x"))


def test_repeated_option_letters_are_refused() -> None:
    document = copy.deepcopy(BASE)
    document["tracks"][0]["options"] = {"letters": "AAB", "min": 2, "max": 3}
    with pytest.raises(spec.SpecError, match="expected distinct letters"):
        spec.parse_benchmark(document, Path("x"))


# --- a decision track (EgoArgus's second) -----------------------------------------------------

ARGUS = tomllib.loads(
    (spec.BENCHMARKS_DIR / "egoargus" / spec.SPEC_FILENAME).read_text(encoding="utf-8")
)


def _decision(doc: dict[str, Any]) -> dict[str, Any]:
    track: dict[str, Any] = doc["tracks"][1]
    assert track["kind"] == "decision"
    return track


def _drop_metric(key: str) -> Edit:
    return lambda doc: _decision(doc).__setitem__(
        "metrics", [m for m in _decision(doc)["metrics"] if m["key"] != key]
    )


def _metric(index: int, **fields: object) -> Edit:
    return lambda doc: _decision(doc)["metrics"][index].update(fields)


BROKEN_DECISION: list[tuple[str, Edit, str]] = [
    (
        "metric-missing",
        _drop_metric("decision_recall"),
        "tracks[1].metrics: expected each metric of a decision track once (decision_f1, "
        "decision_macro_f1, decision_precision, decision_recall, ",
    ),
    (
        "metric-unknown",
        _metric(0, key="decision_auc"),
        "found missing decision_macro_f1; unknown decision_auc",
    ),
    (
        "metric-twice",
        _metric(2, key="decision_f1"),
        "tracks[1].metrics: the metric key 'decision_f1' is declared 2 times",
    ),
    (
        "seconds-as-ratio",
        _metric(7, display="ratio"),
        "tracks[1].metrics[7].display: timing_mae_s is a time in seconds, shown as 'seconds'; got "
        "'ratio'",
    ),
    (
        "proportion-in-seconds",
        _metric(0, display="seconds"),
        "tracks[1].metrics[0].display: decision_macro_f1 is a proportion, shown as 'percent' or "
        "'ratio'; got 'seconds'",
    ),
    (
        "display-unknown",
        _metric(0, display="stars"),
        "tracks[1].metrics[0].display: expected 'percent', 'ratio', 'seconds' or 'count', got "
        '"stars"',
    ),
    (
        "better-unknown",
        _metric(0, better="up"),
        "tracks[1].metrics[0].better: expected 'higher', 'lower' or 'zero', got \"up\"",
    ),
    (
        "by-scenario-elsewhere",
        _metric(0, by_scenario=True),
        "tracks[1].metrics[0].by_scenario: expected false, got true (the metric shown per scenario "
        "is decision_accuracy)",
    ),
    (
        "ranking-lower-is-better",
        lambda d: _decision(d).update(ranking="timing_mae_s"),
        "tracks[1].ranking: expected one of this track's metrics where higher is better "
        "(decision_macro_f1, decision_f1, decision_precision, ",
    ),
    (
        "ranking-missing",
        lambda d: _decision(d).pop("ranking"),
        "tracks[1].ranking: missing; expected this field",
    ),
    (
        "label-twice",
        _metric(2, label="F1"),
        "tracks[1]: the label 'F1' is given to 2 metrics; each column of the board needs its own",
    ),
    (
        "paper-metric-unprefixed",
        lambda d: _decision(d)["paper_metrics"][0].update(key="f1"),
        "tracks[1].paper_metrics[0].key: expected a key starting with 'paper_' (a paper-only "
        "metric), got 'f1'",
    ),
    (
        "paper-ranking-unknown",
        lambda d: _decision(d).update(paper_ranking="decision_f1"),
        "tracks[1].paper_ranking: expected one of the paper metrics (paper_f1, ",
    ),
    (
        "silent-scenario-unknown",
        lambda d: _decision(d).update(silent_scenario="quiet"),
        "tracks[1].silent_scenario: expected one of the values of its scenarios.groups "
        "(multimodal_grounded, ",
    ),
    (
        "csv-key",
        lambda d: _decision(d)["key"].update(format="csv"),
        "tracks[1].key.format: expected 'json' or 'jsonl' (a decision track's files are JSON), got "
        "'csv'",
    ),
    (
        "chart-of-two-displays",
        lambda d: _decision(d).update(chart=["decision_f1", "timing_mae_s"]),
        "tracks[1].chart: expected metrics of one display (one axis), got decision_f1 (ratio), "
        "timing_mae_s (seconds)",
    ),
    (
        "view-unknown-metric",
        lambda d: _decision(d)["views"][0].update(metrics=["nope"]),
        "tracks[1].views[0].metrics: unknown metric 'nope'; known: decision_macro_f1, ",
    ),
    (
        "multiple-choice-field",
        lambda d: _decision(d).update(options={"letters": "AB"}),
        "tracks[1].options: unknown field; remove it or check its spelling",
    ),
    (
        "scenario-size-as-string",
        lambda d: _decision(d)["scenarios"]["groups"][0].update(size="116"),
        'tracks[1].scenarios.groups[0].size: expected a positive integer, got "116"',
    ),
    (
        "kind-misspelt",
        lambda d: _decision(d).update(kind="decisions"),
        "tracks[1].kind: expected 'multiple_choice', got \"decisions\" (checked as a "
        "multiple-choice track; the other kinds are 'decision', 'short_answer')",
    ),
    (
        "paper-table-of-no-track",
        lambda d: d["paper"]["tables"][0].update(track="video"),
        "paper.tables[0].track: expected one of decision, understanding, got 'video'",
    ),
    (
        "two-tables-for-a-track",
        lambda d: d["paper"]["tables"][0].update(track="understanding"),
        "paper: 2 tables give the rows of the track 'understanding'; give each track one table",
    ),
    (
        "decimals-fraction",
        lambda d: _decision(d).update(decimals=1.5),
        "tracks[1].decimals: expected an integer from 0 to 4, got 1.5",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"),
    [(e, m) for _, e, m in BROKEN_DECISION],
    ids=[name for name, _, _ in BROKEN_DECISION],
)
def test_a_broken_decision_track_names_its_toml_path(edit: Edit, message: str) -> None:
    doc = copy.deepcopy(ARGUS)
    edit(doc)
    with pytest.raises(spec.SpecError) as raised:
        spec.parse_benchmark(doc, FOLDER)
    assert message in str(raised.value)


def test_every_kind_of_track_takes_decimals_and_a_percent_alone_follows_them() -> None:
    """Issue 28: a percent was shown with one decimal, whatever the benchmark's table prints.
    Left out, ``decimals`` is 1 on both shipped benchmarks' tracks (their numbers unchanged)."""
    assert all(t.decimals == 1 for t in spec.parse_benchmark(copy.deepcopy(ARGUS), FOLDER).tracks)
    assert spec.parse_benchmark(copy.deepcopy(BASE), FOLDER).track().decimals == 1
    doc = copy.deepcopy(ARGUS)
    for track in doc["tracks"]:
        track["decimals"] = 2
    accuracy = next(m for m in _decision(doc)["metrics"] if m["key"] == "decision_accuracy")
    accuracy["display"] = "percent"  # a proportion may be shown as a percent
    bench = spec.parse_benchmark(doc, FOLDER)
    understanding, decision = bench.track("understanding"), bench.track("decision")
    assert understanding.format_metric("overall", 67.549) == "67.55 %"
    assert decision.format_metric("decision_accuracy", 67.549) == "67.55 %"
    # A ratio, seconds and a count keep their own decimals.
    assert decision.format_metric("decision_macro_f1", 0.81171) == "0.812"
    assert decision.format_metric("timing_mae_s", 2.5) == "2.50 s"
    assert decision.format_metric("timing_n", 412.0) == "412"
    assert decision.interval_text("percent", 40.3006, 49.0) == "40.30–49.00"
    assert decision.rounded("percent", 67.549) == 67.55


def test_the_decision_track_gives_generic_code_what_a_board_needs() -> None:
    bench = spec.parse_benchmark(copy.deepcopy(ARGUS), FOLDER)
    track = bench.track("decision")
    assert isinstance(track, spec.DecisionTrack) and track.kind == "decision"
    assert track.ranking == "decision_macro_f1" and track.paper_ranking == "paper_f1"
    assert (track.ranking_for("rescored"), track.ranking_for("paper")) == (
        "decision_macro_f1",
        "paper_f1",
    )
    assert set(track.metric_keys) == {
        *decision.METRICS,
        *(f"decision_accuracy/{g.key}" for g in track.scenarios.groups),
    }
    assert (
        track.metric_keys.index("decision_accuracy/multimodal_grounded")
        == track.metric_keys.index("decision_accuracy") + 1
    )
    assert all(k.startswith("paper_") for k in track.paper_metric_keys)
    assert track.all_metric_keys == (*track.metric_keys, *track.paper_metric_keys)
    assert (
        set(track.labels)
        == set(track.names)
        == set(track.display)
        == set(track.higher_is_better)
        == set(track.all_metric_keys)
    )
    assert len(set(track.labels.values())) == len(track.labels)  # one header per column
    assert track.display["decision_f1"] == "ratio" and track.display["timing_n"] == "count"
    assert track.display["decision_accuracy/no_assistance"] == "ratio"  # one scale
    assert track.higher_is_better["decision_f1"] is True
    assert track.higher_is_better["no_assist_fp_rate"] is False
    assert track.higher_is_better["timing_signed_s"] is None  # best at 0
    assert track.labels["decision_accuracy/contradictory"] == "Acc. Contra."
    assert track.by_scenario == "decision_accuracy"
    assert track.keeps_intervals and not bench.track().keeps_intervals
    assert track.total == 789 and track.sizes["decision_accuracy"] == 789
    assert track.sizes["decision_accuracy/no_assistance"] == 239
    memory = spec.parse_benchmark(copy.deepcopy(BASE), FOLDER).track()
    assert set(memory.display.values()) == {"percent"}
    assert set(memory.higher_is_better.values()) == {True}
    assert memory.paper_metric_keys == () and memory.paper_ranking == memory.ranking


def test_track_gives_any_kind_and_with_a_kind_only_that_kind() -> None:
    bench = spec.parse_benchmark(copy.deepcopy(ARGUS), FOLDER)
    assert bench.track().id == "understanding" and bench.track("decision").kind == "decision"
    assert bench.track(kind=spec.DecisionTrack).id == "decision"
    assert bench.track(kind=spec.MultipleChoiceTrack).id == "understanding"
    with pytest.raises(
        spec.SpecError,
        match=r"^egoargus/decision is a decision track; this "
        r"needs a multiple-choice track \(egoargus's: "
        r"understanding\)$",
    ):
        bench.track("decision", kind=spec.MultipleChoiceTrack)
    with pytest.raises(
        spec.SpecError,
        match=r"egoargus has no track 'nope'; its tracks are: "
        r"understanding, decision",
    ):
        bench.track("nope")


def test_paper_tables_and_their_row_ids() -> None:
    bench = spec.parse_benchmark(copy.deepcopy(ARGUS), FOLDER)
    assert bench.paper is not None
    main, other = bench.paper.all_tables
    assert (main.track, main.table, other.track, other.table) == (
        "understanding",
        "Table 6",
        "decision",
        "Table 2",
    )
    # one model in two tables: two rows, the main table's id unchanged
    assert bench.paper.record_id(main, "Qwen3.5-2B") == uuid.uuid5(
        bench.paper.namespace, "Qwen3.5-2B"
    )
    assert bench.paper.record_id(other, "Qwen3.5-2B") != bench.paper.record_id(main, "Qwen3.5-2B")


@pytest.mark.parametrize(
    ("decimals", "display", "value", "shown"),
    [
        (None, "percent", 45.25, "45.2 %"),
        (None, "ratio", 0.81171, "0.812"),
        (None, "seconds", -2.497, "-2.50 s"),
        (None, "count", 412.0, "412"),
        (None, "ratio", None, "—"),
        (2, "percent", 67.549, "67.55 %"),
        (0, "percent", 67.549, "68 %"),
        # decimals moves percents only: ratios, seconds and counts keep their own
        (2, "ratio", 0.81171, "0.812"),
        (0, "seconds", -2.497, "-2.50 s"),
        (3, "count", 412.0, "412"),
    ],
)
def test_a_value_is_shown_as_its_display_and_the_tracks_decimals_say(
    decimals: int | None, display: spec.Display, value: float | None, shown: str
) -> None:
    track = spec.TrackBase() if decimals is None else spec.TrackBase(decimals=decimals)
    assert track.shown(display, value) == shown


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            _set(lambda d: _track(d)["fields"], "question", ["prompt", "text"]),
            'tracks[0].fields.question: expected a string, got the list ["prompt", "text"]; '
            'write one string in quotes, such as "prompt"',
        ),
        (
            _set(lambda d: d, "title", 5),
            'title: expected a string, got 5; write it in quotes: "5"',
        ),
        (
            _set(lambda d: d, "title", {"en": "EgoMemReason"}),
            'title: expected a string, got the table {en = "EgoMemReason"}; write one string '
            'in quotes, such as "EgoMemReason"',
        ),
    ],
    ids=["list-for-a-string", "number-for-a-string", "table-for-a-string"],
)
def test_a_wrong_type_quotes_the_value_given_and_says_what_to_write(
    edit: Edit, message: str
) -> None:
    """Issue 19: 'expected a string, got "list"' quoted a type name as if it were the value."""
    doc = copy.deepcopy(BASE)
    edit(doc)
    with pytest.raises(spec.SpecError) as raised:
        spec.parse_benchmark(doc, FOLDER)
    assert str(raised.value) == f"{FOLDER / spec.SPEC_FILENAME}: {message}"
