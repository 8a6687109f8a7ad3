"""records.withdrawals, records.history and the record's new field and name check (issue 32):
withdrawals as records of their own, what a board shows of a chain of rows, ``model_repo``,
and names that mix scripts."""

from __future__ import annotations

import json
import logging
import shutil
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

import ledger
import spec
from records import history
from records.text import mixed_scripts

BENCH = spec.load_benchmark("egoargus")  # two tracks share one records folder
UNDERSTANDING, DECISION = BENCH.track("understanding"), BENCH.track("decision")
WHEN = datetime(2026, 7, 20, tzinfo=UTC)


def demo_rows() -> list[ledger.Record]:
    store = ledger.LocalStore(BENCH.demo_board)
    return [ledger.Record.from_json(store.read(p)) for p in store.list_paths()]


ROWS = demo_rows()
ROW = next(r for r in ROWS if r.track == "understanding" and r.source == "rescored")


def withdrawal(**fields: object) -> ledger.Withdrawal:
    payload = {
        "benchmark": BENCH.id,
        "track": "understanding",
        "id": str(uuid.UUID(int=99)),
        "created_at": "2026-07-20T09:30:00Z",
        "source": "withdrawal",
        "withdraws": str(ROW.id),
        "reason": "The team asked.",
        "schema_version": 2,
        **fields,
    }
    return ledger.Withdrawal.from_json(json.dumps(payload).encode())


def test_a_withdrawal_reads_back_as_written_and_as_an_entry() -> None:
    made = ledger.withdrawal_of(ROW, BENCH, "The team asked.", created_at=WHEN)
    data = made.to_json()
    assert ledger.read_entry(data) == made and b"replaced_by" not in data
    assert json.loads(data)["source"] == "withdrawal"
    assert isinstance(ledger.read_entry(ROW.to_json()), ledger.Record)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"reason": "  "}, "reason: must say why the row is withdrawn"),
        ({"reason": "a\u200bb"}, "reason: contains an invisible or control character"),
        ({"reason": "x" * 1001}, "reason: String should have at most 1000 characters"),
        ({"withdraws": str(uuid.UUID(int=99))}, "its id is no row's"),
        ({"replaced_by": str(ROW.id)}, "cannot be withdrawn in favour of itself"),
        ({"created_at": "2026-07-20T09:30:00"}, "created_at: must carry a time zone"),
        ({"extra": 1}, "extra: Extra inputs are not permitted"),
        ({"schema_version": 1}, "schema_version: Input should be 2"),
    ],
    ids=["blank", "invisible", "long", "itself", "self-replaced", "naive", "extra", "schema-1"],
)
def test_a_withdrawal_that_is_no_withdrawal_is_a_record_error_naming_its_field(
    fields: dict[str, object], words: str
) -> None:
    with pytest.raises(ledger.RecordError, match=words):
        withdrawal(**fields)


def test_records_without_a_model_repo_keep_their_bytes_and_one_with_it_is_checked() -> None:
    for path in sorted((BENCH.demo_board / "submissions").glob("*.json")):
        data = path.read_bytes()
        assert ledger.Record.from_json(data).to_json() == data, path.name
    with_repo = ROW.model_copy(update={"model_repo": "demo-lab/DemoVLM-7B"})
    assert ledger.Record.from_json(with_repo.to_json()).model_repo == "demo-lab/DemoVLM-7B"
    payload = json.loads(ROW.to_json())
    payload["model_repo"] = "https://huggingface.co/demo-lab/DemoVLM-7B"
    with pytest.raises(ledger.RecordError, match='model_repo: must be a Hub repo id, "org/name"'):
        ledger.Record.from_json(json.dumps(payload).encode())


def test_the_board_hides_its_track_s_withdrawn_rows_and_keeps_them_for_their_cards(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.copytree(BENCH.demo_board, tmp_path / "board")
    store = ledger.LocalStore(tmp_path / "board")
    store.write(ledger.withdrawal_of(ROW, BENCH, "Asked.", created_at=WHEN), "withdraw")
    decision_row = next(r for r in ROWS if r.track == "decision")
    store.write(ledger.withdrawal_of(decision_row, BENCH, "Asked too."), "withdraw")
    with caplog.at_level(logging.WARNING):
        understanding = ledger.BoardCache(store, BENCH, UNDERSTANDING).refresh()
        decision = ledger.BoardCache(store, BENCH, DECISION).refresh()
    assert ROW not in understanding.records and ROW in understanding.superseded
    assert decision_row not in decision.records and decision_row in decision.superseded
    assert [w.withdraws for w in understanding.withdrawals] == [ROW.id]  # its own track's
    assert understanding.skipped == () and decision.skipped == ()
    assert not caplog.records  # another track's withdrawal is not a skipped record
    status = understanding.status(str(ROW.id).upper())
    assert status is not None and status.state == "withdrawn"
    assert understanding.status(str(decision_row.id)) is None


def test_a_withdrawal_named_as_another_file_is_skipped_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "board" / "submissions"
    folder.mkdir(parents=True)
    made = ledger.withdrawal_of(ROW, BENCH, "Asked.")
    (folder / f"{uuid.uuid4()}.json").write_bytes(made.to_json())
    with caplog.at_level(logging.WARNING):
        snapshot = ledger.BoardCache(ledger.LocalStore(tmp_path / "board"), BENCH, UNDERSTANDING)
        assert len(snapshot.refresh().skipped) == 1
    assert "does not match the file name" in caplog.text


def test_a_history_is_its_chain_oldest_first_and_a_loop_ends_it() -> None:
    a, b, c = (ROW.model_copy(update={"id": uuid.UUID(int=i)}) for i in (1, 2, 3))
    b = b.model_copy(update={"supersedes": a.id})
    c = c.model_copy(update={"supersedes": b.id})
    gone = withdrawal(id=str(uuid.UUID(int=50)), withdraws=str(c.id))
    status = history.status(b, [c, a, b], [gone])
    assert [s.row.id for s in status.history] == [a.id, b.id, c.id]
    assert status.state == "superseded" and status.history[-1].withdrawal == gone
    assert history.shown([a, b, c], [gone]) == []
    looped = a.model_copy(update={"supersedes": c.id})
    assert [s.row.id for s in history.status(looped, [looped, b, c], []).history] == [
        b.id,
        c.id,
        a.id,
    ]


@pytest.mark.parametrize(
    ("name", "odd"),
    [
        ("G\u0435mini-3.1-Pro", "Latin with Cyrillic (U+0435 CYRILLIC SMALL LETTER IE at"),
        ("\u0391lpha VL", "Latin with Greek (U+0391 GREEK CAPITAL LETTER ALPHA at position 0)"),
        ("Qwen\u13a2", "Latin with Cherokee"),
        ("Gemini-3.1-Pro", None),
        ("Qwen2.5-VL-7B (8 frames)", None),
        ("\u6e05\u534e\u5927\u5b66 THU", None),  # Han with Latin
        ("\u6771\u4eac\u5927\u5b66 \u3072\u3089\u304c\u306a \u30ab\u30bf\u30ab\u30ca LLM", None),
        ("\uc11c\uc6b8\ub300 SNU", None),  # Hangul with Latin
        ("\u041c\u043e\u0441\u043a\u0432\u0430", None),  # Cyrillic alone
        ("caf\u00e9 na\u00efve", None),  # Latin with its accents
    ],
    ids=["cyrillic-e", "greek-alpha", "cherokee", "latin", "digits", "chinese", "japanese",
         "korean", "cyrillic", "accents"],
)  # fmt: skip
def test_a_name_mixing_scripts_is_named_with_its_odd_letters(name: str, odd: str | None) -> None:
    found = mixed_scripts(name)
    assert (found is None) == (odd is None)
    assert odd is None or (found is not None and odd in found)
