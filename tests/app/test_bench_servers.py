"""The servers ``make bench`` times are served as the Space is (``app.serve``).

P2 timed ``/score`` on perf/bench_app.py, which built the Space's page but launched it without
what ``app.main`` does before serving: its heap was never frozen (``guard.heap.freeze_boot``),
so every ~80 scores of a 437 kB file a full garbage collection walked the ~300,000 objects of
the page, keys and boards, 125-140 ms with the GIL held, a cost the Space does not pay
(0.75x the floor's throughput at one client came partly from it). The floor app was launched
the same way, so the two sides were not launched alike either.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import gradio as gr
import pytest

from perf import bench_app, floor_app


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """What each launch was given and how the heap stood then; nothing is served."""
    seen: list[dict[str, Any]] = []

    def launch(self: gr.Blocks, **kwargs: Any) -> None:
        seen.append({"kwargs": kwargs, "frozen": gc.get_freeze_count()})

    monkeypatch.setattr(gr.Blocks, "launch", launch)
    monkeypatch.setattr(gr.Blocks, "block_thread", lambda self: None)
    monkeypatch.setenv("LEADERBOARD_BENCHMARK", "egoargus")
    gc.unfreeze()
    try:
        yield seen
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("main", [bench_app.main, floor_app.main], ids=["bench", "floor"])
def test_each_bench_server_is_served_with_the_space_s_frozen_heap(
    launches: list[dict[str, Any]], main: Callable[[], None]
) -> None:
    main()
    assert len(launches) == 1
    assert launches[0]["frozen"] > 0, "launched with nothing frozen: not as app.main serves"
    assert launches[0]["kwargs"]["state_session_capacity"]  # app.launch_kwargs' own
