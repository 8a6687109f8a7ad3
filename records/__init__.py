"""A board's records, pure: the record schema, what a record may say, withdrawals, history.

``records.record`` is the record schema (``Record``, ``Provenance``) and its checks against the
spec; ``records.text`` what a record's names, prose and links may say; ``records.withdrawals``
the record that retracts a row (``Withdrawal``; ``Entry``: either kind of file);
``records.history`` what a board shows of its records and what became of the rest;
``records.board`` a board as it was read (``BoardSnapshot``, ``AddedIn``, the Hub's results).
Nothing here reads a file, the clock or the network: ``ledger`` reads and writes the records,
and the pages show them, both importing this package (``ledger`` re-exports its names).

Example (a record of the demo board, and where its board ranks it):

>>> import spec
>>> bench = spec.load_benchmark("egomemreason")
>>> path = sorted((bench.demo_board / RECORDS_FOLDER).glob("*.json"))[0]
>>> record = Record.from_json(path.read_bytes())
>>> ranking_value(record, bench.track()) == record.metrics[bench.track().ranking]
True
"""

from records.board import REREAD_FLOOR_S, AddedIn, BoardSnapshot, HubResult, HubResults
from records.history import RowStatus, Step
from records.record import (
    RECORDS_FOLDER,
    SCHEMA_VERSION,
    Provenance,
    Record,
    check_record,
    commit_message,
    metric_interval,
    on_other_key,
    parse_record,
    ranking_value,
    record_track,
    rescored_record,
)
from records.text import mixed_scripts
from records.withdrawals import Entry, Withdrawal, read_entry, withdrawal_of

__all__ = [
    "RECORDS_FOLDER",
    "REREAD_FLOOR_S",
    "SCHEMA_VERSION",
    "AddedIn",
    "BoardSnapshot",
    "Entry",
    "HubResult",
    "HubResults",
    "Provenance",
    "Record",
    "RowStatus",
    "Step",
    "Withdrawal",
    "check_record",
    "commit_message",
    "metric_interval",
    "mixed_scripts",
    "on_other_key",
    "parse_record",
    "ranking_value",
    "read_entry",
    "record_track",
    "rescored_record",
    "withdrawal_of",
]
