"""Tests of ledger/: configuration, files, Hub calls, keys, records, stores, the board cache."""
