"""What the API page and gradio_client's ``view_api`` say each public endpoint returns (issue
21: every output was "1st: Any"). Gradio reads an endpoint's outputs from its function's return
annotation as ``inspect.signature`` gives it, a string under ``from __future__ import
annotations``, which it shows as Any; web.wiring hands it the resolved types."""

from __future__ import annotations

from pathlib import Path

import pytest

import app
import ledger

#: What each endpoint returns, as gradio_client words a JSON schema.
RETURNS = {
    "/score": "dict(str, Any)",
    "/leaderboard": "list[dict(str, Any)]",
    "/entry": "dict(str, Any)",
}


@pytest.mark.parametrize("bench_id", ["egomemreason", "egoargus"])
def test_every_public_endpoint_says_what_it_returns(
    bench_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no key file in the working directory: demo mode
    demo = app.build_from_config(ledger.load_config({"LEADERBOARD_BENCHMARK": bench_id}))
    endpoints = demo.get_api_info()["named_endpoints"]
    assert set(RETURNS) <= set(endpoints)
    for name, endpoint in endpoints.items():
        returns = [r["python_type"]["type"] for r in endpoint["returns"]]
        expected = RETURNS["/leaderboard" if name.startswith("/leaderboard") else name]
        assert returns == [expected], name
