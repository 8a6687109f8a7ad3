"""web.score_view's guess of a file's track: it reads a bounded sample of the file, whatever
the file holds (issue 22: 5 MB of blank lines cost ~14 s, one failed json.loads a line)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import evaluator
import spec
from evaluator import track_fit
from evaluator.kinds import decision
from web import score_view

BENCH = spec.load_benchmark("egoargus")
UNDER = 5 * 1024 * 1024 - 64 * 1024  # inside the upload limit

HOSTILE_LINES = {
    "blank lines": b"\n" * UNDER,
    "spaces then a newline": b" \n" * (UNDER // 2),
    "junk lines": b"x\n" * (UNDER // 2),
    "one long line of spaces": b" " * UNDER + b"\n{}",
}


@pytest.mark.parametrize("name", HOSTILE_LINES)
def test_the_guess_parses_a_bounded_number_of_lines(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = 0
    real = json.loads

    def counted(text: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(text, **kwargs)

    monkeypatch.setattr("evaluator.track_fit.json.loads", counted)
    assert track_fit.fitting_track(BENCH, HOSTILE_LINES[name]) is None
    assert calls <= 1 + track_fit.LINES_TRIED


@pytest.mark.parametrize(
    "data",
    [
        b"[" + b"[]," * (UNDER // 3) + b"[]]",  # issue 30: 1.7 million empty lists, ~0.8 s
        b'{"results": [' + b"{}," * (UNDER // 3) + b"{}]}",
        b"{" + b",".join(b'"%d": "B"' % i for i in range(UNDER // 12)) + b"}",
        b"[[" + b"[]," * (UNDER // 3) + b"[]]]",  # one entry of the whole file
    ],
    ids=["a list of empty lists", "a wrapped list", "keyed by id", "one huge entry"],
)
def test_the_guess_parses_no_more_than_the_file_s_start(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guess parsed the whole file (a second of work for 5 MB of empty lists); now at most
    its first SAMPLE_BYTES, whatever the file holds."""
    parsed: list[int] = []
    real = json.JSONDecoder.raw_decode

    def raw_decode(self: json.JSONDecoder, text: str, idx: int = 0) -> Any:
        parsed.append(len(text))  # what json.loads parses comes here too
        return real(self, text, idx)

    monkeypatch.setattr(json.JSONDecoder, "raw_decode", raw_decode)
    track_fit.fitting_track(BENCH, data)
    assert parsed and max(parsed) <= track_fit.SAMPLE_BYTES


def test_json_lines_still_tell_their_track() -> None:
    decision = BENCH.track("decision")
    entries = json.loads((BENCH.demo_dir / "decision_sample_submission.json").read_bytes())
    lines = "\n\n".join(json.dumps(e) for e in entries[:300]).encode()
    assert track_fit.fitting_track(BENCH, lines) is decision
    noisy = b"not json\n" * 50 + lines
    assert track_fit.fitting_track(BENCH, noisy) is decision


def test_a_withheld_score_is_shown_as_withheld_everywhere_the_tab_shows_it() -> None:
    """The two-episode probe of issue 22 (finding 4): every value of the decision track is
    withheld; the table, summary, rank and listing link say so and show no number of it."""
    track = BENCH.track("decision")
    assert isinstance(track, spec.DecisionTrack)
    key = decision.load_key(track, BENCH.demo_key(track).read_bytes())
    first, second = [e for e in key.episodes if e.needs_assistance][:2]
    times = {first.id: 0.0, second.id: 1000.0}
    entries = [
        {"example_id": e.id, "assist": e.id in times, "intervention_time_s": times.get(e.id)}
        for e in key.episodes
    ]
    shown = evaluator.disclosed(track, evaluator.score(key, json.dumps(entries).encode()))
    table = score_view.score_table(shown, track)
    assert set(table["Value"]) == {"withheld"}
    assert set(table["95% CI"]) == {"computed over 2 assisted episodes, fewer than 20"}
    summary = score_view.score_summary(shown, track)
    assert summary.startswith("### Decision Macro F1: withheld\n")
    assert score_view.would_rank(shown, [], track) is None
    assert "Not ranked" in score_view.rank_markdown(None, track, many=True)
    mailto = score_view.listing_mailto(BENCH, track, shown, many=True)
    assert "F1%20withheld" in mailto
