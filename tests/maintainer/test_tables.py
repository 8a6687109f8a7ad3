"""maintainer.tables: a key or public file read as a table and written back in its own format.

On the shipped demo releases (EgoMemReason: a JSON key and a JSONL public file; EgoArgus: CSV
files with string ids) and small files cut from them; what the rotation does with the tables is
in test_rotation.py.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import spec
from errors import ReshuffleError
from maintainer.tables import (
    naming_version,
    read_private,
    read_public,
    read_table,
    version_name,
    write_table,
)
from tests.maintainer.keys import small_key

EGOMEM = spec.load_benchmark("egomemreason")
MEMORY = EGOMEM.track(kind=spec.MultipleChoiceTrack)
ARGUS = spec.load_benchmark("egoargus")
UNDERSTANDING = ARGUS.track(kind=spec.MultipleChoiceTrack)
WHAT = "the file"


def _demo_files() -> list[tuple[str, spec.MultipleChoiceTrack, Path, str]]:
    return [
        (f"{bench.id}/{path.name}", track, path, fmt)
        for bench in (EGOMEM, ARGUS)
        for track in bench.tracks_of(spec.MultipleChoiceTrack)
        for path, fmt in (
            (bench.demo_key(track), track.key.format),
            (bench.demo_public(track), track.public.format),
        )
    ]


DEMO_FILES = _demo_files()


@pytest.mark.parametrize(
    ("track", "path", "fmt"), [d[1:] for d in DEMO_FILES], ids=[d[0] for d in DEMO_FILES]
)
def test_a_demo_file_written_back_unchanged_is_the_same_bytes(
    track: spec.MultipleChoiceTrack, path: Path, fmt: str
) -> None:
    data = path.read_bytes()
    table = read_table(track, data, fmt, "--private", path, WHAT)
    assert table.format == fmt and table.key_version == "demo-1"
    assert write_table(table, table.records) == data


def _argus_csv(rows: int, *, drop: str | None = None, newline: str = "\n") -> bytes:
    """The first rows of EgoArgus's demo public file, without the column ``drop``."""
    text = ARGUS.demo_public(UNDERSTANDING).read_text(encoding="utf-8")
    parsed = list(csv.reader(io.StringIO(text, newline="")))[: rows + 1]
    keep = [i for i, name in enumerate(parsed[0]) if name != drop]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=newline)
    for row in parsed:
        writer.writerow([row[i] for i in keep])
    return out.getvalue().encode("utf-8")


def test_a_csv_file_keeps_its_columns_cells_and_line_ending_and_changes_only_its_options() -> None:
    data = _argus_csv(5, newline="\r\n")
    table = read_table(UNDERSTANDING, data, "csv", "--public", Path("p.csv"), WHAT)
    assert (table.newline, table.changed, len(table.records)) == ("\r\n", ("options",), 5)
    options = UNDERSTANDING.fields.options
    records = [{**r, options: dict(reversed(list(r[options].items())))} for r in table.records]
    written = write_table(table, records)
    assert written.count(b"\r\n") == 6
    before = list(csv.reader(io.StringIO(data.decode(), newline="")))
    after = list(csv.reader(io.StringIO(written.decode(), newline="")))
    column = before[0].index(options)
    assert after[0] == before[0]
    for old, new, record in zip(before[1:], after[1:], records, strict=True):
        assert [c for i, c in enumerate(new) if i != column] == [
            c for i, c in enumerate(old) if i != column
        ]
        assert json.loads(new[column]) == record[options]


def test_a_csv_file_without_a_version_column_gains_one_naming_the_new_version() -> None:
    data = _argus_csv(3, drop="key_version")
    table = read_table(UNDERSTANDING, data, "csv", "--public", Path("p.csv"), WHAT)
    assert table.key_version is None and "key_version" not in table.header
    named, rows = naming_version(table, table.records, "v2", as_object=False)
    assert named.header[-1] == "key_version" and "key_version" in named.changed
    written = write_table(named, rows)
    again = read_table(UNDERSTANDING, written, "csv", "--public", Path("p.csv"), WHAT)
    assert again.key_version == "v2" and again.header == (*table.header, "key_version")


def test_a_json_file_names_the_version_once_and_a_jsonl_file_on_every_row() -> None:
    key = small_key()
    key.key_version = None  # a bare JSON list
    table = read_table(MEMORY, key.private_bytes(), "json", "--private", Path("k.json"), WHAT)
    assert table.top is None and table.key_version is None
    named, rows = naming_version(table, table.records, "v2", as_object=True)
    written = json.loads(write_table(named, rows, "v2"))
    assert list(written) == ["key_version", "samples"] and written["key_version"] == "v2"
    assert all("key_version" not in r for r in written["samples"])

    lines = read_table(MEMORY, key.public_bytes(), "jsonl", "--public", Path("p.jsonl"), WHAT)
    named, rows = naming_version(lines, lines.records, "v2", as_object=False)
    assert {json.loads(r)["key_version"] for r in write_table(named, rows).splitlines()} == {"v2"}


#: The key's rows (answers and all) as a public file.
LEAKED = "".join(
    json.dumps(r) + "\n" for r in json.loads(small_key().private_bytes())["samples"]
).encode()


BAD_FILES = [
    # (name, reader, bytes, message)
    ("not UTF-8", "private", b"\xff\xfe", "is not UTF-8 text; save it as UTF-8 JSON"),
    ("not JSON", "private", b"{", "is not valid JSON ("),
    ("a JSON string", "private", b'"rows"', "expected a JSON list of rows or an object"),
    ("no key", "private", b"[]", "--private k.json: "),
    ("broken JSONL line", "public", b'{"example_id": 1}\n{\n', "is not a jsonl file of rows"),
    ("answers in the public file", "public", LEAKED, "Did you swap --public and --private?"),
    ("rows without fields", "public", b'{"example_id": 1}\n', "Expected rows with example_id"),
]


@pytest.mark.parametrize(
    ("reader", "data", "message"), [b[1:] for b in BAD_FILES], ids=[b[0] for b in BAD_FILES]
)
def test_a_file_that_is_no_table_of_its_track_is_refused_naming_its_flag(
    reader: str, data: bytes, message: str
) -> None:
    with pytest.raises(ReshuffleError) as refused:
        if reader == "private":
            read_private(MEMORY, data, Path("k.json"))
        else:
            read_public(MEMORY, data, Path("p.jsonl"))
    flag = "--private k.json" if reader == "private" else "--public p.jsonl"
    assert str(refused.value).startswith(flag)
    assert message in str(refused.value)


def test_an_unversioned_key_is_named_so() -> None:
    assert (version_name(None), version_name("demo-1")) == ("(unversioned)", "demo-1")
