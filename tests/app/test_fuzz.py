"""Hostile input, in process and over HTTP: only the domain error escapes, the server stays up,
and an upload over 5 MB is refused before the Score handler ever sees it.

tests/evaluator/test_evaluator.py already fuzzes bytes, JSON values and point mutations of a
real submission; this file adds the hostile shapes of tests/support/hostile.py (deep nesting,
huge numbers, NaN, duplicate keys, BOMs, other encodings, megabytes of whitespace or tiny
entries), layered at random by hypothesis, and the same files sent to a real server.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evaluator
import spec
from tests.support import ROOT, hostile
from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, file_data
from tests.support.procs import ONE_CLIENT

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
DEMO = BENCH.demo_dir
KEY = evaluator.load_answer_key(TRACK, (DEMO / "annotations_private.json").read_bytes())
SAMPLE = (DEMO / "sample_submission.json").read_bytes()
SAMPLE_RESULT = evaluator.score(KEY, SAMPLE)
MESSAGE_LIMIT = 2000  # characters: an error is read in a pop-up, whatever was uploaded
VALID_HOSTILE = {"long-key-names"}  # an unknown 5 MB key on an entry is ignored, as documented
SCORE_LIMIT = 3


def score_or_domain_error(data: bytes) -> evaluator.ScoreResult | evaluator.SubmissionError:
    """The result, or the SubmissionError; anything else propagates and fails the test."""
    try:
        return evaluator.score(KEY, data)
    except evaluator.SubmissionError as exc:
        return exc


# --- in process -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(hostile.BUILDERS))
def test_hostile_file_gives_the_domain_error_with_a_short_message(name: str) -> None:
    outcome = score_or_domain_error(hostile.BUILDERS[name](SAMPLE))
    if name in VALID_HOSTILE:
        assert isinstance(outcome, evaluator.ScoreResult)
        assert outcome.counts == SAMPLE_RESULT.counts
        return
    assert isinstance(outcome, evaluator.SubmissionError)
    message = str(outcome)
    assert message.startswith("This submission cannot be scored")
    assert len(message) <= MESSAGE_LIMIT, f"{len(message)} characters"


def test_duplicate_keys_mean_the_last_one_as_in_json() -> None:
    """Python's JSON keeps the last of duplicate keys; the score must be that file's score."""
    shadowed = SAMPLE.replace(
        b'"predicted_answer"', b'"predicted_answer": "ZZ", "predicted_answer"'
    )
    assert evaluator.score(KEY, shadowed).counts == SAMPLE_RESULT.counts
    last_wins = re.sub(
        rb'("predicted_answer": (?:"[A-J]"|null))', rb'\1, "predicted_answer": "ZZ"', SAMPLE
    )
    assert last_wins.count(b'"ZZ"') == len(json.loads(SAMPLE))
    with pytest.raises(evaluator.SubmissionError, match="500 answers are not among"):
        evaluator.score(KEY, last_wins)


def test_whitespace_padding_changes_nothing_but_the_hash() -> None:
    padded = b" \n" * 1_000_000 + SAMPLE + b"\t\r\n" * 100_000
    result = evaluator.score(KEY, padded)
    assert result.counts == SAMPLE_RESULT.counts
    assert result.submission_sha256 != SAMPLE_RESULT.submission_sha256


def _nest(data: bytes, depth: int) -> bytes:
    return b'{"a": [' * depth + data + b"]}" * depth


def _number_swap(data: bytes, which: int, number: bytes) -> bytes:
    targets = [b'"example_id": 1,', b'"example_id": 2,', b'"A"', b'"B"']
    target = targets[which % len(targets)]
    return data.replace(
        target, target.split(b":")[0] + b": " + number + b"," if b":" in target else number, 1
    )


ENCODINGS = [
    "utf-16-le",
    "utf-16-be",
    "utf-16",
    "utf-32",
    "utf-32-le",
    "latin-1",
    "cp1252",
    "shift_jis",
    "gb18030",
    "utf-8-sig",
    "utf-7",
]
NUMBERS = [
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e999",
    b"-0",
    b"1.0",
    b"1" + b"0" * 4500,
    b"9" * 4000,
    b"true",
    b"0x10",
]
layer = st.one_of(
    st.tuples(st.just("encode"), st.sampled_from(ENCODINGS)),
    st.tuples(
        st.just("bom"),
        st.sampled_from(
            [b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff", b"\xef\xbb\xbf" * 2]
        ),
    ),
    st.tuples(st.just("nest"), st.sampled_from([1, 3, 900, 5000])),
    st.tuples(st.just("number"), st.tuples(st.integers(0, 3), st.sampled_from(NUMBERS))),
    st.tuples(st.just("duplicate-key"), st.sampled_from([b'"example_id"', b'"predicted_answer"'])),
    st.tuples(
        st.just("pad"),
        st.tuples(st.sampled_from([b" ", b"\n", b"\t", b"\x00", b"\xa0"]), st.integers(0, 200_000)),
    ),
    st.tuples(st.just("truncate"), st.floats(0, 1)),
)


def apply_layer(data: bytes, kind: str, arg: Any) -> bytes:
    if kind == "encode":
        try:
            return data.decode("utf-8", errors="surrogatepass").encode(arg, errors="surrogatepass")
        except (UnicodeError, LookupError):
            return data.decode("utf-8", errors="replace").encode(arg, errors="replace")
    if kind == "bom":
        return bytes(arg) + data
    if kind == "nest":
        return _nest(data, arg)
    if kind == "number":
        return _number_swap(data, *arg)
    if kind == "duplicate-key":
        return data.replace(arg + b":", arg + b": 0, " + arg + b":", 5)
    if kind == "pad":
        pad, count = bytes(arg[0]), int(arg[1])
        return pad * count + data + pad * (count // 2)
    return data[: int(len(data) * arg)]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(layer, min_size=1, max_size=4))
def test_layered_hostile_shapes_give_a_result_or_the_domain_error(
    layers: list[tuple[str, Any]],
) -> None:
    data = SAMPLE
    for kind, arg in layers:
        data = apply_layer(data, kind, arg)
    outcome = score_or_domain_error(data)
    if isinstance(outcome, evaluator.SubmissionError):
        assert len(str(outcome)) <= MESSAGE_LIMIT
    else:  # only a shape that left the content intact can score, and then it scores the same
        assert outcome.counts == SAMPLE_RESULT.counts or any(
            kind in ("number", "duplicate-key") for kind, _ in layers
        )


# --- over HTTP --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    # Dozens of files up to 5 MB from one visitor: more than its share of the upload cache.
    with AppServer(env={"LEADERBOARD_SCORE_LIMIT": str(SCORE_LIMIT), **ONE_CLIENT}) as running:
        yield running


def scored_lines(server: AppServer) -> int:
    return server.log().count("scored one submission")


HOSTILE_API_DATA: list[Callable[[str], Any]] = [
    lambda path: None,
    lambda path: path,  # a bare string instead of a FileData object
    lambda path: {"path": 12345, "meta": {"_type": "gradio.FileData"}},
    lambda path: {"meta": {"_type": "gradio.FileData"}},
    lambda path: {"path": path + "/../../../etc/passwd", "meta": {"_type": "gradio.FileData"}},
    lambda path: {"path": [path, path], "meta": {"_type": "gradio.FileData"}},
    lambda path: {"path": "x" * 100_000, "meta": {"_type": "gradio.FileData"}},
]


@pytest.mark.server
def test_server_stays_up_through_hostile_files_and_payloads(server: AppServer) -> None:
    # A visitor of its own (127.0.0.2): the limit test below counts 127.0.0.3's allowance.
    with GradioHTTP(server.url, local_address="127.0.0.2") as http:
        good = http.upload("good.json", SAMPLE)
        outcomes: dict[str, str] = {}
        for name, build in hostile.BUILDERS.items():
            data = build(SAMPLE)
            assert len(data) < hostile.LIMIT
            outcome = http.call("score", [file_data(http.upload(f"{name}.json", data))])
            outcomes[name] = outcome.kind
            if name not in VALID_HOSTILE:
                assert outcome.kind == "error", name
                assert outcome.message.startswith("This submission cannot be scored"), name
        for i, build_payload in enumerate(HOSTILE_API_DATA):
            outcome = http.call("score", [build_payload(good)])
            assert outcome.kind == "error", (i, outcome.data)
            assert "root:" not in json.dumps(outcome.data)
        # A file of any name is read by its bytes (issue 28): a table is refused in the
        # evaluator's words, which every client shows.
        table = b"example_id,predicted_answer\n1,A\n"
        outcome = http.call("score", [file_data(http.upload("notes.txt", table))])
        assert outcome.kind == "error"
        assert outcome.message.startswith("This submission cannot be scored: the file is not valid")

        # Still up, still right: a good submission scores the numbers it should.
        outcome = http.call("score", [file_data(good)])
        assert outcome.kind == "complete", outcome.message
        assert outcome.data[0]["counts"]["overall"] == {"correct": 223, "total": 500}
        assert http.get("/").status_code == 200
    # Gradio prints a traceback for each malformed payload it refuses in preprocessing; none
    # may come from the app's own code (the evaluator's errors are all turned into gr.Error).
    log = server.log()
    ours_files = [p.name for p in ROOT.glob("*.py")]
    ours_files += [f"ledger/{p.name}" for p in (ROOT / "ledger").glob("*.py")]
    for ours in ours_files:
        assert f'{ROOT / ours}", line' not in log, log[-3000:]
    assert "Exception in ASGI application" not in log
    assert server.proc is not None and server.proc.poll() is None


def _raw_oversize_upload(url: str, body_bytes: int) -> tuple[int, int, bytes]:
    """Stream a ``body_bytes`` multipart upload on a raw socket; stop once the server answers.

    Returns (bytes of the body sent before the answer came, seconds, the answer's first bytes).
    """
    host, port = url.removeprefix("http://").split(":")
    boundary = b"egomemboundary"
    head = (
        b"--" + boundary + b'\r\nContent-Disposition: form-data; name="files"; '
        b'filename="big.json"\r\nContent-Type: application/json\r\n\r\n'
    )
    tail = b"\r\n--" + boundary + b"--\r\n"
    length = len(head) + body_bytes + len(tail)
    request = (
        f"POST /gradio_api/upload HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary.decode()}\r\n"
        f"Content-Length: {length}\r\nConnection: close\r\n\r\n"
    ).encode() + head
    chunk = b" " * 65536
    sent = 0
    answer = b""
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        sock.sendall(request)
        sock.setblocking(False)
        while sent < body_bytes and time.monotonic() - start < 60:
            try:
                answer += sock.recv(4096)
                if answer:
                    break
            except BlockingIOError:
                pass
            try:
                sent += sock.send(chunk[: min(len(chunk), body_bytes - sent)])
            except BlockingIOError:
                time.sleep(0.001)
            except (BrokenPipeError, ConnectionResetError):
                break
        sock.setblocking(True)
        sock.settimeout(10)
        try:
            while b"\r\n" not in answer:
                more = sock.recv(4096)
                if not more:
                    break
                answer += more
        except (TimeoutError, ConnectionResetError):
            pass
    return sent, int(time.monotonic() - start), answer[:200]


@pytest.mark.server
def test_upload_over_5mb_is_refused_before_the_handler_sees_it(server: AppServer) -> None:
    before = scored_lines(server)
    with GradioHTTP(server.url, local_address="127.0.0.3") as http:
        just_over = b"[" + b" " * (hostile.LIMIT - 1) + b"]"
        refused = http.upload_response("big.json", just_over)
        assert refused.status_code == 413, refused.text[:200]
        assert "maximum allowed size" in refused.text
        # A 64 MB body: the server answers 413 after reading about the first 5 MB of it.
        sent, _, answer = _raw_oversize_upload(server.url, 64 * 2**20)
        assert answer.startswith(b"HTTP/1.1 413"), answer
        assert sent < 16 * 2**20, f"the server read {sent / 2**20:.0f} MB before refusing"
        # Nothing of them reached the upload cache, so no path exists for Score to be given.
        big = [
            p
            for p in server.temp_dir.rglob("*")
            if p.is_file() and p.stat().st_size >= hostile.LIMIT
        ]
        assert big == []
        # And the refused uploads took no slot of this visitor's allowance, nor were scored.
        assert scored_lines(server) == before
        good = http.upload("good.json", SAMPLE)
        kinds = [http.call("score", [file_data(good)]).kind for _ in range(SCORE_LIMIT)]
        assert kinds == ["complete"] * SCORE_LIMIT
        over = http.call("score", [file_data(good)])
        assert over.kind == "error" and f"limited to {SCORE_LIMIT} files" in over.message
    assert scored_lines(server) == before + SCORE_LIMIT
