"""All Hub and disk I/O for data: configuration, answer keys, records, stores, the board cache.

``ledger.variables`` is the table of the environment variables and the one rule that parses
them, ``ledger.config`` reads the environment once (the only module that does);
``ledger.files`` reads a local input file safely; ``ledger.submission_file`` is what a
submission file may be before anything reads it (5 MB at most, any name);
``ledger.hub`` is what every Hub call shares (a timeout, error descriptions, a bounded wait);
``ledger.keys`` loads a track's answer key; ``ledger.hub_results`` reads the Hub's own
(unverified) results for a benchmark, ``ledger.hub_pulls`` proposes a file to a Hub repo as a
pull request; ``ledger.stores`` reads and writes records in a folder or a Hub dataset;
``ledger.cache`` is the app's time-to-live view of the board. The records themselves (their
schema, withdrawals, history, a board as read) are the pure package ``records``, whose names
are re-exported here. The names below are the package's interface; the app and the scripts use
only these.

Example (``load_config()`` reads the environment itself; here a given one, with the shipped
demo key as the local key):

>>> import spec
>>> bench = spec.load_benchmark("egomemreason")
>>> config = load_config({"LEADERBOARD_ANSWER_KEY": str(bench.demo_key(bench.track()))})
>>> track = config.benchmark.track()
>>> status = load_key(config, track)  # status.key is None when Score must be disabled
>>> status.demo, len(status.key)
(True, 500)
>>> board = BoardCache(board_store(config), config.benchmark, track)  # the demo board
>>> rows = board.snapshot().records  # best first
>>> len(rows) > 1 and rows[0].metrics["overall"] >= rows[1].metrics["overall"]
True

Nothing here runs at import: no network, no file reads, no clients built.
"""

from errors import (
    ConfigError,
    HubUnreachableError,
    LedgerError,
    RecordError,
    RecordExistsError,
    UnreadableFileError,
)
from ledger.cache import BoardCache, records_of
from ledger.config import CACHE_TTL_S, SCORE_LIMIT, SCORE_WINDOW_S, Config, load_config
from ledger.files import read_regular_file
from ledger.hub import DEFAULT_TIMEOUT_S
from ledger.hub_results import HubResultsCache
from ledger.keys import KeyLoader, KeyStatus, load_key
from ledger.stores import (
    HubStore,
    LocalStore,
    RecordStore,
    VersionedStore,
    board_store,
)
from records import (
    RECORDS_FOLDER,
    REREAD_FLOOR_S,
    SCHEMA_VERSION,
    AddedIn,
    BoardSnapshot,
    Entry,
    HubResult,
    HubResults,
    Provenance,
    Record,
    RowStatus,
    Step,
    Withdrawal,
    check_record,
    commit_message,
    metric_interval,
    mixed_scripts,
    on_other_key,
    parse_record,
    ranking_value,
    read_entry,
    record_track,
    rescored_record,
    withdrawal_of,
)

__all__ = [
    "CACHE_TTL_S",
    "DEFAULT_TIMEOUT_S",
    "RECORDS_FOLDER",
    "REREAD_FLOOR_S",
    "SCHEMA_VERSION",
    "SCORE_LIMIT",
    "SCORE_WINDOW_S",
    "AddedIn",
    "BoardCache",
    "BoardSnapshot",
    "Config",
    "ConfigError",
    "Entry",
    "HubResult",
    "HubResults",
    "HubResultsCache",
    "HubStore",
    "HubUnreachableError",
    "KeyLoader",
    "KeyStatus",
    "LedgerError",
    "LocalStore",
    "Provenance",
    "Record",
    "RecordError",
    "RecordExistsError",
    "RecordStore",
    "RowStatus",
    "Step",
    "UnreadableFileError",
    "VersionedStore",
    "Withdrawal",
    "board_store",
    "check_record",
    "commit_message",
    "load_config",
    "load_key",
    "metric_interval",
    "mixed_scripts",
    "on_other_key",
    "parse_record",
    "ranking_value",
    "read_entry",
    "read_regular_file",
    "record_track",
    "records_of",
    "rescored_record",
    "withdrawal_of",
]
