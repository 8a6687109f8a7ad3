"""Reproducing a row: a record's numbers against a fresh score of its submission, bit for bit.

``compare`` lists every field where a re-scored record and the result of scoring its
submission again differ: the submission's and the key's sha256 (naming the key version each
was scored on), every metric (as floats, bit for bit: 0.0 and -0.0 differ, nan equals itself),
every count, every interval a record keeps (a decision row's), and the abstention count. An
empty list is a row reproduced.

Example (a row of the demo board and the demo sample it was scored from):

>>> import evaluator, ledger, spec
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
>>> result = evaluator.score(key, (bench.demo_dir / "sample_submission.json").read_bytes())
>>> row = next(r for _, r in ledger.records_of(ledger.LocalStore(bench.demo_board))
...            if r.provenance and r.provenance.submission_sha256 == result.submission_sha256)
>>> compare(row, result, key)
[]
>>> tampered = row.model_copy(update={"n_abstained": row.n_abstained + 1})
>>> compare(tampered, result, key)
['n_abstained: record 12, re-scored 11']
"""

from __future__ import annotations

from collections.abc import Set

import evaluator
import ledger
import spec


def _same(a: float, b: float) -> bool:
    """Bit-for-bit float equality (so 0.0 and -0.0 differ, and nan equals itself)."""
    return a.hex() == b.hex()


def _in_order(track: spec.Track, names: Set[str]) -> list[str]:
    """Metric names in the track's display order, unknown ones last."""
    known = [k for k in track.metric_keys if k in names]
    return known + sorted(names - set(known))


def _count(count: evaluator.Count | None) -> str:
    return f"{count.correct}/{count.total}" if count is not None else "absent"


def _interval(bounds: tuple[float, float] | None) -> str:
    return "absent" if bounds is None else f"({bounds[0]!r}, {bounds[1]!r})"


def compare(
    record: ledger.Record, result: evaluator.ScoreResult, key: evaluator.AnyKey
) -> list[str]:
    """Every field where the record and the re-scored result differ."""
    assert record.provenance is not None and record.counts is not None
    diffs: list[str] = []
    prov = record.provenance
    if prov.submission_sha256 != result.submission_sha256:
        diffs.append(
            f"submission sha256: record {prov.submission_sha256}, "
            f"this file {result.submission_sha256} (not the file that was published)"
        )
    if prov.answer_key_sha256 != result.answer_key_sha256:
        diffs.append(
            f"answer key sha256: record {prov.answer_key_sha256}, this key "
            f"{result.answer_key_sha256}; the record was scored against key version "
            f"{prov.key_version or '(unrecorded)'}, this key is version "
            f"{key.key_version or '(unrecorded)'}"
        )
    track = key.track
    for name in _in_order(track, record.metrics.keys() | result.metrics.keys()):
        old, new = record.metrics.get(name), result.metrics.get(name)
        if old is None or new is None or not _same(old, new):
            diffs.append(f"metrics.{name}: record {old!r}, re-scored {new!r}")
    for name in _in_order(track, record.counts.keys() | result.counts.keys()):
        old_c, new_c = record.counts.get(name), result.counts.get(name)
        if old_c != new_c:
            diffs.append(f"counts.{name}: record {_count(old_c)}, re-scored {_count(new_c)}")
    if record.intervals is not None:  # kept by decision rows; others follow from the counts
        for name in _in_order(track, record.intervals.keys() | result.intervals.keys()):
            old_i, new_i = record.intervals.get(name), result.intervals.get(name)
            if (
                old_i is None
                or new_i is None
                or not all(_same(a, b) for a, b in zip(old_i, new_i, strict=True))
            ):
                diffs.append(
                    f"intervals.{name}: record {_interval(old_i)}, re-scored {_interval(new_i)}"
                )
    if record.n_abstained != result.n_abstained:
        diffs.append(f"n_abstained: record {record.n_abstained}, re-scored {result.n_abstained}")
    return diffs
