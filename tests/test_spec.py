"""spec.py: the shipped specs load, and a broken spec names its TOML path and the problem."""

from __future__ import annotations

import copy
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import spec

BASE = tomllib.loads((spec.BENCHMARKS_DIR / "egomemreason" / spec.SPEC_FILENAME).read_text(
    encoding="utf-8"))
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
        _track(doc)["groupings"].append({
            "id": "split", "field": "split", "title": "Splits",
            "groups": [{"value": "a", "key": "split_a", "label": "A", "size": total - 100},
                       {"value": "b", "key": "split_b", "label": "B", "size": 100}]})
    return edit


BROKEN: list[tuple[str, Edit, str]] = [
    ("size-as-string", _set(lambda d: _group(d, 3), "size", "100"),
     'tracks[0].groupings[0].groups[3].size: expected a positive integer, got "100"'),
    ("size-negative", _set(lambda d: _group(d, 3), "size", -100),
     "tracks[0].groupings[0].groups[3].size: expected a positive integer, got -100"),
    ("size-zero", _set(lambda d: _group(d, 0), "size", 0),
     "tracks[0].groupings[0].groups[0].size: expected a positive integer, got 0"),
    ("size-boolean", _set(lambda d: _group(d, 0), "size", True),
     "tracks[0].groupings[0].groups[0].size: expected a positive integer, got True"),
    ("missing-hub", lambda d: d.pop("hub"), "hub: missing; expected this field"),
    ("missing-track-key", lambda d: _track(d).pop("key"),
     "tracks[0].key: missing; expected this field"),
    ("unknown-top-level-key", _set(lambda d: d, "colour", "blue"),
     "colour: unknown field; remove it or check its spelling"),
    ("unknown-track-key", _set(_track, "groups", []),
     "tracks[0].groups: unknown field; remove it or check its spelling"),
    ("unknown-kind", _set(_track, "kind", "open_ended"),
     "tracks[0].kind: expected 'multiple_choice', got \"open_ended\""),
    ("duplicate-metric-key", _set(lambda d: _track(d)["aggregates"][1], "key", "entity"),
     "tracks[0]: the metric key 'entity' is declared 2 times"),
    ("group-key-as-aggregate-key",
     _set(lambda d: _group(d, 0), "key", "behavior"),
     "tracks[0]: the metric key 'behavior' is declared 2 times"),
    ("duplicate-group-value", _set(lambda d: _group(d, 1), "value", "Cumulative State Tracking"),
     "tracks[0].groupings[0].groups: the value 'Cumulative State Tracking' appears 2 times"),
    ("aggregate-of-nothing", _set(lambda d: _track(d)["aggregates"][0], "of", ["nothing"]),
     "tracks[0].aggregates[0].of: 'nothing' is neither a group key nor a grouping id of this "
     "track"),
    ("aggregate-of-empty", _set(lambda d: _track(d)["aggregates"][0], "of", []),
     "tracks[0].aggregates[0].of: expected at least one entry, got none"),
    ("groupings-cover-different-totals", _second_grouping(400),
     "tracks[0].groupings[1] (split): its groups have 400 rows in all, but groupings[0] "
     "(query_type) has 500; every grouping covers every row"),
    ("options-min-above-max", _set(_track, "options", {"letters": "ABCDEFGHIJ", "min": 6,
                                                      "max": 5}),
     "tracks[0].options: expected 1 <= min <= max <= 10 (the letters), got min 6, max 5"),
    ("options-max-above-letters", _set(_track, "options", {"letters": "ABCD", "min": 2,
                                                          "max": 5}),
     "tracks[0].options: expected 1 <= min <= max <= 4 (the letters), got min 2, max 5"),
    ("options-lowercase-letters", _set(_track, "options", {"letters": "abcd"}),
     "tracks[0].options.letters: expected a string matching ^[A-Z]{2,26}$, got \"abcd\""),
    ("paper-track-unknown", _set(lambda d: d["paper"], "track", "video"),
     "paper.track: expected one of memory, got 'video'"),
    ("unnamed-records-track-unknown", _set(lambda d: d, "unnamed_records_track", "video"),
     "unnamed_records_track: expected one of memory, got 'video'"),
    ("view-unknown-metric", _set(lambda d: _track(d)["views"][0], "metrics", ["entity", "nope"]),
     "tracks[0].views[0].metrics: unknown metric 'nope'; known: "),
    ("chart-unknown-metric", _set(_track, "chart", ["overall", "nope"]),
     "tracks[0].chart: unknown metric 'nope'"),
    ("view-unknown-column", _set(lambda d: _track(d)["views"][0], "columns", ["elo"]),
     "tracks[0].views[0].columns[0]: expected 'rank_range', 'source',"),
    ("no-views", _set(_track, "views", []),
     "tracks[0].views: expected at least one entry, got none"),
    ("bad-email", _set(lambda d: d, "contact_email", "maintainers at example.org"),
     "contact_email: expected a string matching"),
    ("bad-repo-id", _set(lambda d: d["hub"], "private_repo", "EgoMemReason-Private"),
     "hub.private_repo: expected a string matching"),
    ("bad-records-repo-id", _set(lambda d: d["hub"], "records_repo", "a/b/c"),
     "hub.records_repo: expected a string matching"),
    ("bad-url", _set(lambda d: d["links"], "paper", "arxiv.org/abs/2605.09874"),
     "links.paper: expected a string matching"),
    ("bad-namespace", _set(lambda d: d["paper"], "namespace", "not-a-uuid"),
     "paper.namespace: expected a uuid, got \"not-a-uuid\""),
    ("duplicate-track-id", lambda d: d["tracks"].append(copy.deepcopy(_track(d))),
     "tracks: the track id 'memory' is declared 2 times"),
    ("out-of-option-rows-cover-everything",
     _set(_track, "out_of_option", {"field": "label_status", "value": "out_of_option",
                                    "rows": 500}),
     "tracks[0].out_of_option.rows: expected fewer than the 500 rows of the track, got 500"),
    ("out-of-option-rows-negative",
     _set(_track, "out_of_option", {"field": "label_status", "value": "out_of_option",
                                    "rows": -1}),
     "tracks[0].out_of_option.rows: expected an integer >= 0, got -1"),
    ("id-type-unknown", _set(lambda d: _track(d)["fields"], "id_type", "uuid"),
     "tracks[0].fields.id_type: expected 'integer' or 'string', got \"uuid\""),
]


@pytest.mark.parametrize(("edit", "message"), [(e, m) for _, e, m in BROKEN],
                         ids=[name for name, _, _ in BROKEN])
def test_a_broken_spec_names_its_toml_path_and_the_problem(edit: Edit, message: str) -> None:
    doc = copy.deepcopy(BASE)
    edit(doc)
    with pytest.raises(spec.SpecError) as raised:
        spec.parse_benchmark(doc, FOLDER)
    text = str(raised.value)
    assert text.startswith(str(FOLDER / spec.SPEC_FILENAME))
    assert message in text


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
    for part in ("hub: missing", "tracks[0].kind: expected 'multiple_choice'",
                 'tracks[0].groupings[0].groups[3].size: expected a positive integer, got "100"'):
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
    for part in ("the value 'Cumulative State Tracking' appears 2 times",
                 "aggregates[0].of: 'nothing' is neither", "paper.track: expected one of memory"):
        assert part in text


# --- the shipped specs and load_benchmark ------------------------------------------------------


@pytest.mark.parametrize("name", ["egomemreason", "egoargus"])
def test_every_shipped_spec_loads(name: str) -> None:
    bench = spec.load_benchmark(name)
    assert bench.id == name == bench.folder.name
    assert bench.about_path.is_file() and bench.citation_path.is_file()
    for track in bench.tracks:
        assert track.metric_keys[0] == track.ranking == "overall"
        assert len(set(track.metric_keys)) == len(track.metric_keys)
        assert bench.demo_key(track).is_file() and bench.demo_public(track).is_file()
        for grouping in track.groupings:
            assert sum(g.size for g in grouping.groups) == track.total
    if bench.paper is not None:
        assert (bench.folder / bench.paper.csv).is_file()


def test_load_benchmark_accepts_a_folder_path() -> None:
    bench = spec.load_benchmark(str(spec.BENCHMARKS_DIR / "egoargus"))
    assert bench.id == "egoargus"


def test_load_benchmark_of_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(spec.SpecError, match=r"no benchmark 'no-such-bench': give an id under "
                                             r"benchmarks/ \(.*egoargus.*egomemreason"):
        spec.load_benchmark("no-such-bench")


def test_load_benchmark_of_a_folder_without_a_spec(tmp_path: Path) -> None:
    with pytest.raises(spec.SpecError,
                       match=r"holds no benchmark\.toml; a benchmark folder needs one"):
        spec.load_benchmark(str(tmp_path))


def test_load_benchmark_of_invalid_toml(tmp_path: Path) -> None:
    (tmp_path / spec.SPEC_FILENAME).write_text('id = "x"\ntitle = \n', encoding="utf-8")
    with pytest.raises(spec.SpecError, match=r"benchmark\.toml is not valid TOML: .*line 2"):
        spec.load_benchmark(str(tmp_path))


def test_load_benchmark_of_a_non_utf8_spec(tmp_path: Path) -> None:
    (tmp_path / spec.SPEC_FILENAME).write_bytes(b'title = "\xff"\n')
    with pytest.raises(spec.SpecError, match=r"cannot read .*benchmark\.toml"):
        spec.load_benchmark(str(tmp_path))


def _copy_spec(tmp_path: Path, *names: str) -> Path:
    source = spec.BENCHMARKS_DIR / "egomemreason"
    for name in (spec.SPEC_FILENAME, *names):
        shutil.copy(source / name, tmp_path / name)
    return tmp_path


def test_load_benchmark_of_a_folder_lacking_about_md(tmp_path: Path) -> None:
    folder = _copy_spec(tmp_path, "citation.bib")
    with pytest.raises(spec.SpecError, match=r"lacks about\.md: a benchmark folder holds its "
                                             r"About text and citation beside benchmark\.toml"):
        spec.load_benchmark(str(folder))


def test_load_benchmark_of_a_folder_lacking_both_prose_files(tmp_path: Path) -> None:
    with pytest.raises(spec.SpecError, match=r"lacks about\.md and citation\.bib"):
        spec.load_benchmark(str(_copy_spec(tmp_path)))


def test_load_benchmark_reports_spec_problems_with_the_folder_s_path(tmp_path: Path) -> None:
    folder = _copy_spec(tmp_path, "about.md", "citation.bib")
    text = (folder / spec.SPEC_FILENAME).read_text(encoding="utf-8")
    (folder / spec.SPEC_FILENAME).write_text(text.replace("size = 100", 'size = "100"', 1),
                                             encoding="utf-8")
    with pytest.raises(spec.SpecError) as raised:
        spec.load_benchmark(str(folder))
    assert str(raised.value) == (
        f"{folder.resolve() / spec.SPEC_FILENAME}: tracks[0].groupings[0].groups[0].size: "
        'expected a positive integer, got "100"')
    assert spec.load_benchmark(str(_copy_spec(tmp_path))).id == "egomemreason"


def test_an_aggregate_over_all_rows_is_refused_as_an_unknown_name() -> None:
    """"all" is the answerable overall's own word, not a group: it would crash the sizes."""
    document = copy.deepcopy(BASE)
    document["tracks"][0]["aggregates"][0]["of"] = ["all"]
    with pytest.raises(spec.SpecError, match="'all' is neither a group key nor a grouping id"):
        spec.parse_benchmark(document, Path("x"))


def test_repeated_option_letters_are_refused() -> None:
    document = copy.deepcopy(BASE)
    document["tracks"][0]["options"] = {"letters": "AAB", "min": 2, "max": 3}
    with pytest.raises(spec.SpecError, match="expected distinct letters"):
        spec.parse_benchmark(document, Path("x"))
