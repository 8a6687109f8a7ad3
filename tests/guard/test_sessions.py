"""guard.sessions: each block's config built on first read, and only on the pinned Gradio.

In process: every event of the real pages run through Gradio's own ``process_api`` on a session
of Gradio's own making and on a lazy one leaves both with the same configs; a /score call builds
none. Over HTTP (``server``): ``python app.py`` scores on every track, runs the page's events in
one session (its deep link, which wrote them to disk, is closed since issue 30).
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from pathlib import Path
from typing import Any

import gradio as gr
import pytest
from gradio.blocks import BlocksConfig
from gradio.state_holder import SessionState
from starlette.requests import Request

import app
import ledger
from errors import GradioMismatch, LeaderboardError
from guard import sessions
from tests.support import ROOT
from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, file_data

SAMPLES = {
    ("egomemreason", None): ROOT / "benchmarks/egomemreason/demo/sample_submission.json",
    ("egoargus", "understanding"): ROOT / "benchmarks/egoargus/demo/sample_submission.json",
    ("egoargus", "decision"): ROOT / "benchmarks/egoargus/demo/decision_sample_submission.json",
}


def _page(benchmark: str) -> gr.Blocks:
    return app.build_from_config(ledger.load_config({"LEADERBOARD_BENCHMARK": benchmark}))


def _session(demo: gr.Blocks, lazy: bool) -> SessionState:
    """A session of ``demo`` as the patched class makes it, or as Gradio's own __init__ does."""
    state = SessionState.__new__(SessionState)
    (SessionState.__init__ if lazy else sessions.gradio_init)(state, demo)
    return state


def _timeless(text: str) -> str:
    """``text`` without the board's age ("read from its records 3 s ago") and a throttled
    Refresh's wait ("try again in 2 s"), which the clock moves between the two sessions' runs
    of an event (on a busy machine the wait said 1 s in one session and 2 s in the other)."""
    text = re.sub(r"\d+ (s|min) ago", "... ago", text)
    return re.sub(r"try again in \d+ s", "try again in ... s", text)


def _uploaded(demo: gr.Blocks, sample: Path) -> dict[str, Any]:
    """``sample`` copied into the page's upload folder, as Gradio's FileData of it."""
    folder = Path(demo.GRADIO_CACHE) / "test-sessions"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / sample.name
    path.write_bytes(sample.read_bytes())
    return {"path": str(path), "meta": {"_type": "gradio.FileData"}}


def _request() -> gr.Request:
    scope = {"type": "http", "method": "POST", "path": "/", "headers": [], "query_string": b""}
    return gr.Request(Request({**scope, "client": ("192.0.2.7", 50_000)}))


def _configs(state: SessionState, page_ids: set[int]) -> list[tuple[Any, str]]:
    """A session's configs in order, as JSON; blocks an event made (ids counted globally, so
    two sessions' differ) are named by their order of appearance."""
    fresh: dict[int, str] = {}
    out = []
    for key in state.config_values:
        if key not in page_ids:
            fresh[key] = f"new {len(fresh)}"
        config = {**state.config_values[key], "id": fresh.get(key, key)}
        text = json.dumps(config, sort_keys=True, default=str)
        out.append((fresh.get(key, key), _timeless(text)))
    return out


# --- the pin -------------------------------------------------------------------------------------


def test_the_installed_gradio_is_the_one_the_patch_was_written_for() -> None:
    assert gr.__version__ == sessions.PINNED_VERSION
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8").split()
    assert f"gradio=={sessions.PINNED_VERSION}" in requirements
    sessions.check()
    _page("egomemreason")  # build_page patches the class
    assert SessionState.__init__ is not sessions.gradio_init
    sessions.check()  # still Gradio's own __init__ that is checked


def test_another_gradio_version_is_refused_naming_both() -> None:
    with pytest.raises(GradioMismatch) as caught:
        sessions.check(version="6.32.0")
    message = str(caught.value)
    assert isinstance(caught.value, LeaderboardError)
    assert "Gradio 6.31.0 wrote it" in message and "the version is 6.32.0" in message
    assert "changed" not in message and "gradio==6.31.0" in message


class ChangedSessionState:
    """SessionState as a later Gradio might write it: __init__ differs, components is gone."""

    def __init__(self, blocks: Any) -> None:
        self.config_values: dict[int, Any] = {}

    __getitem__ = SessionState.__getitem__
    get = SessionState.get
    __setitem__ = SessionState.__setitem__
    _update_config = SessionState._update_config
    _update_value_in_config = SessionState._update_value_in_config
    __contains__ = SessionState.__contains__
    state_components = SessionState.state_components


class ChangedBlocksConfig:
    @staticmethod
    def config_for_block(_id: int, rendered_ids: list[int], block: Any) -> dict[str, Any]:
        return {}


def test_a_session_state_of_another_shape_is_refused_naming_what_changed() -> None:
    with pytest.raises(GradioMismatch) as caught:
        sessions.check(session_class=ChangedSessionState)
    message = str(caught.value)
    assert "SessionState.__init__ changed; SessionState.components is gone." in message
    assert "version" not in message.split("differs:")[1]
    with pytest.raises(GradioMismatch, match=r"differs: BlocksConfig.config_for_block changed\."):
        sessions.check(blocks_config=ChangedBlocksConfig)
    sessions.check(session_class=SessionState, blocks_config=BlocksConfig)


def test_a_mismatch_stops_the_build_before_any_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SessionState, "__init__", sessions.gradio_init)  # as before any build
    monkeypatch.setattr(gr, "__version__", "7.0.0")
    with pytest.raises(GradioMismatch, match=r"the version is 7\.0\.0"):
        _page("egomemreason")
    assert SessionState.__init__ is sessions.gradio_init


# --- what a session holds ------------------------------------------------------------------------


def test_a_lazy_session_builds_nothing_until_read_and_then_what_gradio_builds() -> None:
    demo = _page("egoargus")
    lazy, own = _session(demo, lazy=True), _session(demo, lazy=False)
    assert isinstance(lazy.config_values, sessions.LazyConfigs)
    assert type(own.config_values) is dict
    assert lazy.config_values.built() == 0
    assert list(lazy.config_values) == list(own.config_values)  # keys and their order
    assert all(k in lazy.config_values for k in own.config_values)
    assert len(lazy.config_values) == len(own.config_values) > 60
    assert -1 not in lazy.config_values and lazy.config_values.built() == 0
    assert list(lazy.components) == list(own.components)  # what a deep link writes
    assert lazy.config_values.built() == len(own.config_values)


def test_another_blocks_keeps_gradio_s_own_sessions() -> None:
    _page("egomemreason")
    with gr.Blocks() as other:
        gr.Markdown("not the page")
    assert type(SessionState(other).config_values) is dict


@pytest.mark.parametrize("benchmark", ["egomemreason", "egoargus"])
def test_every_event_of_the_page_leaves_a_lazy_session_as_gradio_s_own(benchmark: str) -> None:
    """Each event of the page, with its inputs' defaults and then with a submission of each
    track, through Gradio's process_api on both sessions: the same outputs, the same configs
    after each, and the page's own blocks unchanged (so a config built late is one built at the
    start)."""
    demo = _page(benchmark)
    page_ids = set(demo.blocks)
    at_start = {k: BlocksConfig.config_for_block(k, [], b) for k, b in demo.blocks.items()}
    config = demo.get_config_file()
    props = {c["id"]: c.get("props", {}) for c in config["components"]}
    files = [
        (track, _uploaded(demo, sample))
        for (bench, track), sample in SAMPLES.items()
        if bench == benchmark
    ]
    own, lazy = _session(demo, lazy=False), _session(demo, lazy=True)

    async def run(fn: int, inputs: list[Any]) -> list[str]:
        outputs = []
        for state in (own, lazy):
            try:
                result = await demo.process_api(fn, copy.deepcopy(inputs), state, _request())
                outputs.append(_timeless(json.dumps(result["data"], sort_keys=True, default=str)))
            except Exception as exc:  # a refusal of the defaults is an outcome too
                outputs.append(f"{type(exc).__name__}: {exc}")
        return outputs

    async def every_event() -> int:
        events = 0
        for dep in config["dependencies"]:
            if not dep.get("backend_fn"):
                continue
            defaults = [props.get(i, {}).get("value") for i in dep["inputs"]]
            runs = [defaults]
            if dep.get("api_name") == "score" or dep["inputs"][:1] == [dep_upload(config)]:
                many = len(dep["inputs"]) > 1  # the file and the track (the rest as they are)
                runs += [[file, *([track, *defaults[2:]] if many else [])] for track, file in files]
            for inputs in runs:
                first, second = await run(dep["id"], inputs)
                assert first == second, (dep.get("api_name"), inputs)
                assert _configs(own, page_ids) == _configs(lazy, page_ids), dep.get("api_name")
                events += 1
        return events

    assert asyncio.run(every_event()) > 20
    after = {k: BlocksConfig.config_for_block(k, [], b) for k, b in demo.blocks.items()}
    assert after == at_start


def dep_upload(config: Any) -> int | None:
    """The id of the Score tab's file input."""
    for component in config["components"]:
        if component.get("type") == "file":
            return int(component["id"])
    return None


def test_a_score_call_builds_two_configs_of_the_page_s_many() -> None:
    """What a /call of /score costs in session state: the configs of its input and its output,
    not the page's ~64 (the in-process measure of the change; P2 times it)."""
    demo = _page("egomemreason")
    upload = _uploaded(demo, SAMPLES["egomemreason", None])
    state = SessionState(demo)
    fn = next(f for f in demo.fns.values() if f.api_name == "score")
    result = asyncio.run(demo.process_api(fn, [upload], state, _request()))
    assert result["data"][0]["counts"]["overall"] == {"correct": 223, "total": 500}
    assert isinstance(state.config_values, sessions.LazyConfigs)
    assert state.config_values.built() <= 2 < len(state.config_values)


def test_a_block_s_config_is_built_once_and_each_session_writes_its_own_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three /score calls, each a new session as on the Space: Gradio builds each config read
    once, and a value one session wrote is in no other session's config, nor in a new one's."""
    demo = _page("egoargus")
    upload = _uploaded(demo, SAMPLES["egoargus", "decision"])
    fn = next(f for f in demo.fns.values() if f.api_name == "score")
    gradio_s = BlocksConfig.config_for_block
    built: list[int] = []

    def counted(key: int, rendered: list[int], block: Any, *rest: Any) -> dict[str, Any]:
        built.append(key)
        return gradio_s(key, rendered, block, *rest)

    monkeypatch.setattr(BlocksConfig, "config_for_block", staticmethod(counted))
    states = [SessionState(demo) for _ in range(3)]
    for state in states:
        result = asyncio.run(demo.process_api(fn, [upload, "decision"], state, _request()))
        assert result["data"][0]["track"] == "decision"
    ids = [block._id for block in (*fn.inputs, *fn.outputs)]  # the file, the track, the JSON
    assert sorted(built) == sorted(ids)  # once each, not once a session
    answer = fn.outputs[0]._id
    first, second, fresh = states[0], states[1], SessionState(demo)
    assert first.config_values[answer]["props"]["value"]["track"] == "decision"
    first.config_values[answer]["props"]["value"] = {"written": "by the first session"}
    assert second.config_values[answer]["props"]["value"]["track"] == "decision"
    assert fresh.config_values[answer] == gradio_s(answer, [], demo.blocks[answer])
    assert sorted(built) == sorted(ids)  # the fresh session built nothing again


# --- over HTTP -----------------------------------------------------------------------------------


@pytest.mark.server
def test_the_served_page_scores_every_track_runs_its_events_and_writes_no_deep_link() -> None:
    """A session's deep link wrote its components, the score among them, to disk; the route is
    closed since issue 30 (guard.closed_routes): the session's events run, nothing is written."""
    with AppServer(env={"LEADERBOARD_BENCHMARK": "egoargus"}) as server:
        with GradioHTTP(server.url) as http:
            for (bench, track), sample in SAMPLES.items():
                if bench != "egoargus":
                    continue
                path = http.upload(sample.name, sample.read_bytes())
                outcome = http.call("score", [file_data(path, sample.name), track])
                assert outcome.kind == "complete", outcome.message
                assert outcome.data[0]["track"] == track
            config = http.get("/config").json()
            session = "deep-link-session"
            board = http.page_event("board-table")
            loaded = http.queue_call(board.fn_index, board.defaults, session)
            assert loaded.kind == "complete", loaded.message
            upload = dep_upload(config)
            sample = SAMPLES["egoargus", "decision"]
            path = http.upload(sample.name, sample.read_bytes())
            scored = []
            for dep in config["dependencies"]:
                if dep["inputs"][:1] == [upload] and dep.get("backend_fn"):
                    inputs = [file_data(path, sample.name), "decision"][: len(dep["inputs"])]
                    scored.append(http.queue_call(dep["id"], inputs, session))
            assert scored and all(o.kind == "complete" for o in scored), scored
            linked = http.get(f"/gradio_api/deep_link?session_hash={session}")
            assert linked.status_code == 404, linked.text
        assert list(server.temp_dir.glob("deep_links/*/state.json")) == []
