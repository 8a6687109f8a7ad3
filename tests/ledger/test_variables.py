"""One reader, one rule: every variable fed the same odd values answers as its type says.

The README's table is checked against ``ledger.variables.VARIABLES`` in tests/test_docs.py, and
that nothing but ``ledger.config`` reads the environment in tests/test_house.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ledger
from ledger import variables as v
from ledger.variables import VARIABLES

#: The values every variable is fed. Expected answers are written out per type below, not
#: computed by the rule under test.
ODD = (
    "1e3",
    " 5 ",
    "-1",
    "0",
    "",
    "  ",
    "abc",
    "1.5",
    "007",
    "+5",
    "0x10",
    "1_000",
    "nan",
    "inf",
    "\uff12",  # a fullwidth 2
    "9" * 40,
    "9" * 5000,  # past int()'s 4,300 digits
    "org/name",
    " http://127.0.0.1:9/ ",
)
REFUSED = "refused"
DEFAULT = "the default"

WHOLE: dict[str, Any] = {"1e3": REFUSED, " 5 ": 5, "-1": REFUSED, "0": 0, "": DEFAULT}
WHOLE |= {"  ": DEFAULT, "abc": REFUSED, "1.5": REFUSED, "007": 7, "+5": REFUSED}
WHOLE |= {"0x10": REFUSED, "1_000": REFUSED, "nan": REFUSED, "inf": REFUSED, "\uff12": REFUSED}
WHOLE |= {"9" * 40: 10**40 - 1, "9" * 5000: REFUSED, "org/name": REFUSED}
WHOLE |= {" http://127.0.0.1:9/ ": REFUSED}
NUMBER = {**{k: float(x) if isinstance(x, int) else x for k, x in WHOLE.items()}, "1.5": 1.5}
NUMBER |= {"9" * 5000: float("inf")}  # out of every range, as 10**40 - 1 is
BLANK = {"": DEFAULT, "  ": DEFAULT}
REPO = {raw: REFUSED for raw in ODD} | BLANK | {"org/name": "org/name"}
URL = {raw: REFUSED for raw in ODD} | BLANK | {" http://127.0.0.1:9/ ": "http://127.0.0.1:9"}
TEXT = {raw: raw.strip() for raw in ODD} | BLANK
PATH = {raw: Path(raw.strip()) for raw in ODD} | BLANK
EXPECTED: dict[type, dict[str, Any]] = {
    v.Whole: WHOLE,
    v.Number: NUMBER,
    v.RepoId: REPO,
    v.Url: URL,
    v.Text: TEXT,
    v.Name: TEXT,
    v.Location: PATH,
}
#: Where load_config puts each variable's value (a variable whose value is checked against the
#: disk or the benchmarks is left out: its refusals are checked for their words only).
IN_CONFIG: dict[str, Callable[[ledger.Config], Any]] = {
    v.PRIVATE_REPO.name: lambda c: c.private_repo,
    v.TOKEN.name: lambda c: c.token,
    v.RECORDS_REPO.name: lambda c: c.records_repo,
    v.CACHE_TTL_S.name: lambda c: c.cache_ttl_s,
    v.SCORE_LIMIT.name: lambda c: c.score_limit,
    v.SCORE_WINDOW_S.name: lambda c: c.score_window_s,
    v.SPACE_ID.name: lambda c: c.on_space,
    v.TRUSTED_PROXY_HOPS.name: lambda c: c.trusted_proxy_hops,
    v.UPLOAD_MAX_AGE_S.name: lambda c: c.upload_max_age_s,
    v.UPLOAD_CACHE_FILES.name: lambda c: c.upload_cache_files,
    v.UPLOAD_CACHE_MB.name: lambda c: c.upload_cache_mb,
    v.UPLOAD_CLIENT_PERCENT.name: lambda c: c.upload_client_percent,
    v.EVENT_RATE.name: lambda c: c.event_rate,
    v.EVENT_BURST.name: lambda c: c.event_burst,
    v.ENDPOINT.name: lambda c: c.endpoint,
    v.UPLOAD_FOLDER.name: lambda c: c.upload_folder,
}


def _expected(variable: v.Variable[Any], raw: str) -> Any:
    """What the type's table says of ``raw``, a number out of its variable's range refused."""
    answer = EXPECTED[type(variable)][raw]
    if answer == DEFAULT:
        return variable.default
    if isinstance(variable, v.Whole | v.Number) and answer != REFUSED:
        in_range = variable.low <= answer <= variable.high
        return answer if in_range else REFUSED
    return answer


def _in_config(variable: v.Variable[Any], value: Any, config: ledger.Config) -> Any:
    """What ``config`` should hold for ``value`` of ``variable``."""
    if variable is v.SPACE_ID:
        return value is not None
    if variable is v.PRIVATE_REPO:
        return value or config.benchmark.hub.private_repo
    if variable is v.RECORDS_REPO:
        return value or config.benchmark.hub.records_repo
    return value


def _is_the_rule_s_refusal(variable: v.Variable[Any], raw: str, message: str) -> bool:
    """The one shape of a refusal: the variable, what it must be, what was found, the fix."""
    found = repr(raw) if len(raw) <= 200 else f"{raw[:20]!r}...({len(raw)} characters)"
    default = variable.default_text.replace("`", "")
    return (
        message.startswith(f"{variable.name} must be {variable.expected}; found {found}")
        and message.endswith(f". Fix it, or unset it for the default ({default}).")
        and "\n" not in message
    )


@pytest.mark.parametrize("variable", VARIABLES, ids=[x.name for x in VARIABLES])
def test_every_variable_answers_the_same_odd_values_as_its_type_says(
    variable: v.Variable[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no key file, and no path of ODD names anything
    wrong = []
    for raw in ODD:
        env = {variable.name: raw}
        expected = _expected(variable, raw)
        try:
            got: Any = v.read(env)[variable]
        except ledger.ConfigError as exc:
            got = REFUSED
            if not _is_the_rule_s_refusal(variable, raw, str(exc)):
                wrong.append(f"{raw[:30]!r}: refused in other words: {exc}")
        if got != expected:
            wrong.append(f"{raw[:30]!r}: {got!r}, expected {expected!r}")
        try:
            config = ledger.load_config(env)
        except ledger.ConfigError as exc:
            if expected != REFUSED and variable.name in IN_CONFIG:
                wrong.append(f"{raw[:30]!r}: the boot stops: {exc}")
            elif not str(exc).startswith(f"{variable.name} must be {variable.expected}; found "):
                wrong.append(f"{raw[:30]!r}: the boot's message does not name the rule: {exc}")
            elif "Fix it, or unset it for the default" not in str(exc):
                wrong.append(f"{raw[:30]!r}: the boot's message says no fix: {exc}")
            continue
        if expected == REFUSED:
            wrong.append(f"{raw[:30]!r}: the boot goes on")
        elif variable.name in IN_CONFIG:
            held = IN_CONFIG[variable.name](config)
            if held != _in_config(variable, expected, config):
                wrong.append(f"{raw[:30]!r}: the config holds {held!r}")
    assert not wrong, "\n".join(wrong)


def test_the_issue_s_pair_answers_alike() -> None:
    """Issue 33: LEADERBOARD_SCORE_LIMIT=1e3 stopped the boot; LEADERBOARD_EVENT_BURST=1e3 was
    taken as 1000."""
    for variable in (v.SCORE_LIMIT, v.EVENT_BURST):
        with pytest.raises(ledger.ConfigError, match=f"^{variable.name} must be a whole number"):
            ledger.load_config({variable.name: "1e3"})


def test_every_refused_variable_is_named_at_once_each_on_a_line() -> None:
    env = {"EGOMEM_SCORE_LIMIT": "3", v.EVENT_RATE.name: "fast", v.PRIVATE_REPO.name: "x"}
    with pytest.raises(ledger.ConfigError) as caught:
        ledger.load_config(env)
    lines = str(caught.value).splitlines()
    assert len(lines) == 3, lines
    assert lines[0].startswith("EGOMEM_SCORE_LIMIT is now LEADERBOARD_SCORE_LIMIT")
    assert lines[1].startswith("LEADERBOARD_PRIVATE_REPO must be a Hub repo id")
    assert lines[2].startswith("LEADERBOARD_EVENT_RATE must be a number from 0.01")


def test_a_refusal_never_shows_an_address_s_credentials() -> None:
    with pytest.raises(ledger.ConfigError) as caught:
        ledger.load_config({v.ENDPOINT.name: "ftp://user:secretpw@127.0.0.1/"})
    assert "secretpw" not in str(caught.value) and "'ftp://127.0.0.1/'" in str(caught.value)


def test_a_script_reads_one_variable_by_the_same_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(v.ENDPOINT.name, " http://127.0.0.1:9/ ")
    assert ledger.config.value_of(v.ENDPOINT) == "http://127.0.0.1:9"
    monkeypatch.setenv(v.ENDPOINT.name, "127.0.0.1:9")
    with pytest.raises(ledger.ConfigError, match=r"^HF_ENDPOINT must be an http"):
        ledger.config.value_of(v.ENDPOINT)


def test_the_table_names_each_variable_once_and_the_old_names_are_none_of_them() -> None:
    names = [x.name for x in VARIABLES]
    assert len(names) == len(set(names))
    assert not set(v.RENAMED) & set(names)
    assert set(v.RENAMED.values()) <= set(names)
