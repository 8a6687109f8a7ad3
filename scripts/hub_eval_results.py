"""The benchmark and its verified rows in the Hugging Face Hub's Eval Results.

The Hub aggregates leaderboards itself: a benchmark's dataset carries an `eval.yaml` at its
root, and a model repo carries `.eval_results/*.yaml` files whose results show on the model's
page and on the benchmark's Hub leaderboard (hub-docs: docs/hub/eval-results.md). Two commands:

- `eval-yaml` writes the benchmark's `eval.yaml` from its spec: its title, description and
  `hub.evaluation_framework` (an identifier the Hub maintains; a benchmark is allow-listed on
  request), and one task per track, the track's id.
- `model-results --row ID` writes a model repo's `.eval_results/<benchmark id>.yaml` for a row
  the board shows and re-scored: the spec's `hub.dataset` and the row's track as the task, the
  ranking metric at full precision, the record's date, the row's permalink on the Space (the
  spec's `hub.space`, or `--space`) as its source, said to be re-scored by the leaderboard's
  maintainer, and notes from the record. A result of the benchmark's task already in the
  model's file is replaced; the file's other results are kept.

Both print the file and write nothing by default (a dry run), or write it to `--out`.
`--push` opens it as a pull request (never a commit) with your own login (HF_TOKEN or
`hf auth login`; HF_ENDPOINT is honoured): `model-results` on the model repo (`--model-repo
ORG/NAME`, default the row's `model_repo`), where the result shows as "community" until its
owner merges it; `eval-yaml` on the benchmark's dataset. Any problem: a message on stderr,
exit status 1, nothing opened.

Example:

    python scripts/hub_eval_results.py eval-yaml --benchmark egomemreason
    python scripts/hub_eval_results.py eval-yaml --benchmark egomemreason --push
    # a row of the records repo, for the model it names (--model-repo to name another):
    python scripts/hub_eval_results.py model-results --benchmark egomemreason --row <uuid> \\
        --space <org>/<space>
    python scripts/hub_eval_results.py model-results --benchmark egomemreason --row <uuid> \\
        --space <org>/<space> --model-repo <org>/<model> --push
    # a row of a local board (the demo's), written to a file:
    python scripts/hub_eval_results.py model-results --benchmark egomemreason \\
        --leaderboard-dir benchmarks/egomemreason/demo/leaderboard --row <uuid> \\
        --space <org>/<space> --out results.yaml
"""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path

from errors import UsageError
from ledger import variables
from ledger.config import value_of
from ledger.hub_pulls import open_pull_request, read_file
from maintainer import eval_results
from records.text import repo_id
from scripts._cli import (
    Chosen,
    Parser,
    add_benchmark_arguments,
    add_target_arguments,
    describe,
    open_store,
    read_board,
    run,
)


def _uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a uuid; give the id of the row, its card's Record id"
        ) from None


def _repo(value: str) -> str:
    try:
        return repo_id(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _common(sub: argparse.ArgumentParser) -> None:
    # --benchmark and --track after the command too (read ahead of the rest: scripts._cli).
    for flag, metavar in (("--benchmark", "ID_OR_FOLDER"), ("--track", "TRACK")):
        sub.add_argument(
            flag, default=argparse.SUPPRESS, metavar=metavar, help="as before the command"
        )
    sub.add_argument(
        "--out", type=Path, default=None, metavar="FILE", help="write the file there too"
    )
    sub.add_argument(
        "--push",
        action="store_true",
        help="open the file as a pull request on the Hub with your own login (default: a dry "
        "run that prints it)",
    )


def build_parser(chosen: Chosen) -> argparse.ArgumentParser:
    parser = Parser(description=__doc__, epilog=describe(chosen))
    add_benchmark_arguments(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    dataset = chosen.bench.hub.dataset or "(none: hub.dataset)"
    yaml_cmd = commands.add_parser(
        "eval-yaml",
        help=f"the benchmark's eval.yaml, for the root of its dataset ({dataset})",
        description="The benchmark's eval.yaml, from its spec: one task per track.",
    )
    _common(yaml_cmd)
    results = commands.add_parser(
        "model-results",
        help="a model repo's .eval_results file for a re-scored row the board shows",
        description="A model repo's .eval_results file for a re-scored row the board shows.",
    )
    results.add_argument(
        "--row", type=_uuid, required=True, metavar="ID", help="the row's uuid (its Record id)"
    )
    results.add_argument(
        "--space",
        type=_repo,
        default=chosen.bench.hub.space,
        metavar="ORG/NAME",
        help="the Space serving the board, where the result links to the row (default: the "
        f"spec's hub.space, {chosen.bench.hub.space or 'not given'})",
    )
    results.add_argument(
        "--model-repo",
        type=_repo,
        default=None,
        metavar="ORG/NAME",
        help="the model's repo, where --push opens the pull request (default: the row's "
        "model_repo, as publish_submission.py --model-repo recorded it)",
    )
    add_target_arguments(results, chosen, hub_help="leaderboard dataset to find the row in")
    _common(results)
    return parser


def emit(args: argparse.Namespace, text: str) -> None:
    """The file on stdout, and in --out when given."""
    print(text, end="")
    if args.out is not None:
        try:
            args.out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--out {args.out}: cannot write it ({exc.strerror or exc})") from None
        print(f"wrote {args.out}", file=sys.stderr)


def propose(
    args: argparse.Namespace, repo: str, repo_type: str, path: str, text: str, title: str, why: str
) -> int:
    """Open the pull request (--push), or say which one a push would open."""
    if not args.push:
        print(
            f"dry run, nothing opened; --push opens a pull request on the {repo_type} {repo} "
            f"with {path}",
            file=sys.stderr,
        )
        return 0
    endpoint = value_of(variables.ENDPOINT)
    url = open_pull_request(
        repo,
        path,
        text.encode(),
        repo_type=repo_type,
        title=title,
        description=why,
        endpoint=endpoint,
    )
    print(f"opened {url}: {title}")
    return 0


def eval_yaml(args: argparse.Namespace, chosen: Chosen) -> int:
    bench = chosen.bench
    text = eval_results.eval_yaml_text(bench)  # BoardError without hub.evaluation_framework
    emit(args, text)
    dataset = bench.hub.dataset
    if dataset is None:
        if args.push:
            raise UsageError(
                f"--push: {bench.id}'s spec names no hub.dataset, the dataset eval.yaml goes to"
            )
        return 0
    why = (
        f"This pull request makes {dataset} a benchmark of the Hub's Eval Results: eval.yaml "
        f"names its tasks, one per track of the {bench.title} leaderboard "
        f"({', '.join(t.id for t in bench.tracks)}). Its evaluation framework, "
        f"{bench.hub.evaluation_framework}, is to be allow-listed by the Hub."
    )
    title = f"Add eval.yaml: {bench.title} on the Hub's Eval Results"
    return propose(args, dataset, "dataset", eval_results.EVAL_YAML, text, title, why)


def model_results(args: argparse.Namespace, chosen: Chosen) -> int:
    bench = chosen.bench
    if args.space is None:
        raise UsageError(
            f"{bench.id}'s spec names no hub.space, the Space a result links back to; pass "
            "--space ORG/NAME (or add space under [hub] in its spec)"
        )
    store, where = open_store(args, missing_dir="refuse")
    row = eval_results.exportable(read_board(store), bench, args.row)
    model = args.model_repo or row.model_repo
    if args.model_repo and row.model_repo and args.model_repo != row.model_repo:
        print(
            f"note: the row names {row.model_repo}; --model-repo {model} is used", file=sys.stderr
        )
    if model is None and args.push:
        raise UsageError(
            f"--push: {row.id} names no model repo; pass --model-repo ORG/NAME (the model's "
            "repo on the Hub)"
        )
    path = eval_results.results_path(bench)
    entry = eval_results.model_result(row, bench, space=args.space)
    existing = (
        read_file(model, path, repo_type="model", endpoint=value_of(variables.ENDPOINT))
        if model is not None
        else None
    )
    text = eval_results.merged(existing, entry, path)
    emit(args, text)
    if model is None:
        print(
            f"dry run of {row.id} ({where}); it names no model repo: --model-repo ORG/NAME "
            "says where --push opens the pull request",
            file=sys.stderr,
        )
        return 0
    track = bench.track(entry["dataset"]["task_id"])
    shown = track.format_metric(track.ranking, entry["value"])
    label = track.labels[track.ranking]
    title = f"Add the {bench.title} leaderboard's verified result ({label} {shown})"
    why = (
        f"This pull request adds {row.method_name} by {row.team_name}'s result on "
        f"{bench.title} ({track.title}), as its leaderboard verified it: the maintainer "
        f"re-scored the team's submission against the held-out answer key. The row, its "
        f"provenance and the command that reproduces it: {entry['source']['url']}. Until "
        "merged, the result shows on the model's page as a community result."
    )
    return propose(args, model, "model", path, text, title, why)


def body(args: argparse.Namespace, chosen: Chosen) -> int:
    if args.command == "eval-yaml":
        return eval_yaml(args, chosen)
    return model_results(args, chosen)


def main(argv: list[str] | None = None) -> int:
    return run(build_parser, body, argv, after_error="nothing was opened")


if __name__ == "__main__":
    raise SystemExit(main())
