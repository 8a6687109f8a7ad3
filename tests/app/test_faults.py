"""Faults of the Hub as a real server (``python app.py``) lives through them: the loopback Hub
unreachable at boot, going away after boot, answering errors and garbage, and coming back.

tests/app/test_app_server.py covers the unreachable Hub at boot with a local board; here the board
comes from the Hub too, and recovers. Every wait is a bounded poll; the board's TTL is 1 s.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import pytest

import spec
from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, PageEvent
from tests.support.hub_server import READ_TOKEN, HubServer
from tests.support.records import record

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
DEMO = BENCH.demo_dir
KEY_BYTES = (DEMO / "annotations_private.json").read_bytes()
SAMPLE = (DEMO / "sample_submission.json").read_bytes()
BOARD = BENCH.hub.records_repo
PRIVATE = BENCH.hub.private_repo
WAIT_S = 30.0
T = TypeVar("T")


def wait_for(probe: Callable[[], T], done: Callable[[T], bool], what: str) -> T:
    """Call ``probe`` until ``done(result)``, at most WAIT_S seconds; the last result."""
    deadline = time.monotonic() + WAIT_S
    while True:
        result = probe()
        if done(result):
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"after {WAIT_S:g} s, still not {what}: {str(result)[:500]}")
        time.sleep(0.3)


def methods(http: GradioHTTP) -> set[str]:
    """The method names the /leaderboard API returns."""
    outcome = http.call("leaderboard", [])
    assert outcome.kind == "complete", outcome.message
    return {row["method_name"] for row in outcome.data[0]}


def status(http: GradioHTTP, event: PageEvent) -> str:
    """The "N entries · board as of ..." line a fresh page load shows above the board."""
    value: Any = http.page_output(event)
    return str(value.get("value") if isinstance(value, dict) else value)


def board_env(hub: HubServer, **extra: str) -> dict[str, str]:
    """A local key (so not demo mode) and the board from the loopback Hub, TTL 1 s."""
    return {
        "LEADERBOARD_ANSWER_KEY": str(DEMO / "annotations_private.json"),
        "HF_ENDPOINT": hub.url,
        "LEADERBOARD_CACHE_TTL_S": "1",
        **extra,
    }


def age_s(line: str) -> int:
    match = re.search(r"as of (\d+) s ago", line)
    assert match, f"no age in {line!r}"
    return int(match.group(1))


@pytest.mark.server
def test_hub_down_at_boot_then_back_the_board_catches_up_and_score_says_why() -> None:
    hub = HubServer().start()
    hub.create_repo(PRIVATE, private=True, files={"annotations_private.json": KEY_BYTES})
    hub.create_repo(BOARD, files={record(i).path(): record(i).to_json() for i in range(3)})
    hub.stop()  # the port is kept: start() brings the same Hub back there
    env = {"HF_TOKEN": READ_TOKEN, "HF_ENDPOINT": hub.url, "LEADERBOARD_CACHE_TTL_S": "1"}
    try:
        with AppServer(env=env) as app, GradioHTTP(app.url) as http:
            config = httpx.get(app.url + "/config", timeout=10).json()
            texts = " ".join(str(c.get("props", {}).get("value", "")) for c in config["components"])
            assert "How to get listed" in texts or "Citation" in texts  # About renders
            disabled = next(
                c
                for c in config["components"]
                if c.get("props", {}).get("elem_id") == "score-disabled"
            )
            assert "Scoring is unavailable" in disabled["props"]["value"]
            # What is unavailable, not where: the Hub's address is the log's (issue 22, 6).
            assert hub.url.removeprefix("http://") not in disabled["props"]["value"]
            assert "the Hub did not answer" in disabled["props"]["value"]

            uploaded = http.upload("s.json", SAMPLE)
            scored = http.call("score", [{"path": uploaded, "meta": {"_type": "gradio.FileData"}}])
            assert scored.kind == "error" and "Scoring is unavailable" in scored.message

            event = http.page_event("board-status")
            assert "could not be loaded yet" in status(http, event)
            assert methods(http) == set()

            hub.start()
            wait_for(
                lambda: methods(http),
                lambda names: len(names) == 3,
                "showing the 3 records after the Hub came back",
            )
            line = status(http, event)
            assert line.startswith("3 entries") and "could not" not in line
            log = app.log()
        assert READ_TOKEN not in log + str(config) + scored.message
        assert "leaderboard refresh succeeded again (3 records)" in log
    finally:
        hub.stop()


@pytest.mark.server
def test_hub_gone_after_boot_keeps_the_board_says_how_old_and_catches_up() -> None:
    with HubServer() as hub:
        hub.create_repo(BOARD, files={record(i).path(): record(i).to_json() for i in range(3)})
        with AppServer(env=board_env(hub)) as app, GradioHTTP(app.url) as http:
            event = http.page_event("board-status")
            assert methods(http) == {"Method 0", "Method 1", "Method 2"}
            assert status(http, event).startswith("3 entries · board as of")

            hub.stop()
            went_down = time.monotonic()
            stale = wait_for(
                lambda: status(http, event), lambda s: "could not be reached" in s, "marked stale"
            )
            assert stale.startswith("3 entries") and "showing the board as of" in stale
            assert methods(http) == {"Method 0", "Method 1", "Method 2"}  # last good data
            time.sleep(2.5)  # more refreshes fail meanwhile (TTL 1 s)
            later = status(http, event)
            assert age_s(later) >= min(2, int(time.monotonic() - went_down) - 1)
            assert age_s(later) > age_s(stale)

            hub.commit(BOARD, {record(3).path(): record(3).to_json()})  # lands while down
            hub.start()
            wait_for(
                lambda: methods(http),
                lambda names: "Method 3" in names,
                "showing the record committed while the Hub was down",
            )
            assert "could not" not in status(http, event)
            log = app.log()
        assert log.count("leaderboard refresh failed") == 1  # once per outage, not per TTL
        assert "leaderboard refresh succeeded again (4 records)" in log


@pytest.mark.server
def test_hub_errors_and_garbage_for_records_are_skipped_named_and_retried() -> None:
    good = [record(i) for i in range(2)]
    broken, failing, mangled = record(10), record(11), record(12)
    with HubServer() as hub:
        files = {r.path(): r.to_json() for r in [*good, failing, mangled]}
        files[broken.path()] = b'{"schema_version": 1, "id": "not a record"'
        hub.create_repo(BOARD, files=files)
        hub.inject(re.escape(failing.path()), status=500)  # the Hub errs for this one
        hub.inject(re.escape(mangled.path()), method="GET", body=b"<html>garbage</html>")
        with AppServer(env=board_env(hub)) as app, GradioHTTP(app.url) as http:
            event = http.page_event("board-status")
            assert methods(http) == {"Method 0", "Method 1"}
            log = app.log()
            for path in (broken.path(), failing.path(), mangled.path()):
                assert f"skipped leaderboard record {path}" in log
            assert "HTTP 500" in log and "do not match the listed content id" in log

            hub.clear_faults()  # the Hub heals: the two it failed to serve are fetched again
            wait_for(
                lambda: methods(http),
                lambda names: len(names) == 4,
                "showing the records the Hub served again",
            )
            assert "Method 10" not in methods(http)  # the invalid file stays skipped

            # A garbage listing (an HTML error page instead of JSON) fails the whole refresh:
            # the board stays, marked stale, and catches up once the listing is JSON again.
            hub.inject(r"/tree/", body=b"<html>Bad gateway</html>")
            hub.commit(BOARD, {record(13).path(): record(13).to_json()})
            wait_for(
                lambda: status(http, event),
                lambda s: "could not be reached" in s,
                "stale after a garbage listing",
            )
            assert len(methods(http)) == 4
            hub.clear_faults()
            wait_for(
                lambda: methods(http),
                lambda names: "Method 13" in names,
                "caught up after the listing healed",
            )
            log = app.log()
        assert log.count(f"skipped leaderboard record {broken.path()}") == 1  # named once
        assert hub.errors == []
