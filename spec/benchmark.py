"""A benchmark: identity, links, repos, its tracks, the paper's rows, and where its files are."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path
from typing import Annotated, TypeVar, get_args, overload
from uuid import UUID, uuid5

from pydantic import Field, StringConstraints

from errors import SpecError
from spec.base import FileName, Ident, Model, RepoId, Size, Text
from spec.board_columns import column_problems
from spec.links import Email, Url
from spec.tracks import Track

_Kind = TypeVar("_Kind", bound=Model)  # a kind's track model

DEMO_FOLDER = "demo"  # inside a benchmark's folder: its demo key(s), public file(s), board
DEMO_BOARD = "leaderboard"  # inside the demo folder


class Links(Model):
    paper: Url | None = None
    project: Url | None = None
    code: Url | None = None
    data: Url | None = None


class Hub(Model):
    """Where the benchmark lives on the Hub: the private key repo and the public records, and
    how it stands in the Hub's Eval Results (scripts/hub_eval_results.py)."""

    private_repo: RepoId
    records_repo: RepoId
    #: The benchmark's public dataset: the Hub's Eval Results keep its leaderboard, under the
    #: ``eval.yaml`` at its root, and a model's results name it (``dataset.id``).
    dataset: RepoId | None = None
    #: The evaluation framework ``eval.yaml`` names: an identifier the Hub maintains (the list
    #: in huggingface.js, packages/tasks/src/eval.ts); a benchmark is allow-listed on request.
    evaluation_framework: Ident | None = None
    #: The Space serving this leaderboard: a row's permalink, where a model's result links.
    space: RepoId | None = None
    #: Show the Hub's own results for ``dataset`` beside the board, marked unverified.
    show_hub_results: bool = False


class PaperTable(Model):
    """Another table of the paper, with the rows of another track: a CSV beside the spec."""

    track: Ident
    table: Text  # e.g. "Table 2"
    csv: FileName
    #: The questions (rows) the table's numbers were measured on, when not its track's key's
    #: (the paper's full set, the Space's subset): its rows' intervals are computed over it.
    questions: Size | None = None


class Paper(Model):
    """The paper rows: ``paper_baselines.csv`` beside the spec, one row per method; ``tables``
    adds the tables of other tracks, each with its own CSV (same team, date and link)."""

    csv: FileName = "paper_baselines.csv"
    track: Ident
    table: Text  # e.g. "Table 1"
    team: Text
    date: date
    url: Url
    namespace: UUID = Field(strict=False)  # of the rows' uuid5 ids: never change it
    #: The main table's question count, when the paper measured on other questions than the
    #: key's; each of ``tables`` declares its own (they are other tracks' tables).
    questions: Size | None = None
    tables: tuple[PaperTable, ...] = Field(default=(), strict=False)

    @property
    def all_tables(self) -> tuple[PaperTable, ...]:
        """Every table, the main one (``track``, ``table``, ``csv``, ``questions``) first."""
        main = PaperTable(
            track=self.track, table=self.table, csv=self.csv, questions=self.questions
        )
        return (main, *self.tables)

    def record_id(self, table: PaperTable, method: str) -> UUID:
        """A paper row's id: uuid5 of its method name (of its track and method name in another
        table, so one model in two tables gives two rows)."""
        if table.track == self.track:
            return uuid5(self.namespace, method)
        return uuid5(self.namespace, f"{table.track}/{method}")


class Input(Model):
    """The board's "what the model saw" field (``uses_frames`` in a record) and its choices."""

    label: Text = "Input"
    choices: dict[
        Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9+_-]*$", max_length=64)], Text
    ] = Field(min_length=1)


class Benchmark(Model):
    """A benchmark folder: identity, links, repos, tracks, and where its prose lives."""

    id: Ident
    title: Text
    description: Annotated[str, StringConstraints(min_length=1, max_length=500)]
    contact_email: Email  # the Score tab's mailto: link
    links: Links = Links()
    hub: Hub
    input: Input
    tracks: tuple[Track, ...] = Field(min_length=1, strict=False)
    paper: Paper | None = None
    #: Records written before records named their benchmark (schema 1) belong to this track.
    unnamed_records_track: Ident | None = None
    folder: Path = Field(exclude=True, strict=False)

    @overload
    def track(self, track_id: str | None = None) -> Track: ...
    @overload
    def track(self, track_id: str | None = None, *, kind: type[_Kind]) -> _Kind: ...

    def track(
        self, track_id: str | None = None, *, kind: type[_Kind] | None = None
    ) -> Track | _Kind:
        """The track of that id (default: the first); SpecError names the known ones. With
        ``kind`` (a track model, for code that serves only that kind), the track of that id if
        it is of that kind (default: the first of that kind); SpecError otherwise.

        >>> from spec import MultipleChoiceTrack, load_benchmark
        >>> argus = load_benchmark("egoargus")
        >>> argus.track().id, argus.track("decision").kind
        ('understanding', 'decision')
        >>> try:
        ...     argus.track("decision", kind=MultipleChoiceTrack)
        ... except SpecError as error:
        ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
        egoargus/decision is a decision track; this needs a multiple-choice track
        (egoargus's: understanding)
        """
        if kind is not None:
            of_kind = self.tracks_of(kind)
            if track_id is None and of_kind:
                return of_kind[0]
        found = (
            self.tracks[0]
            if track_id is None
            else next((t for t in self.tracks if t.id == track_id), None)
        )
        if found is None:
            known = ", ".join(t.id for t in self.tracks)
            raise SpecError(f"{self.id} has no track {track_id!r}; its tracks are: {known}")
        if kind is None or isinstance(found, kind):
            return found
        name = str(get_args(kind.model_fields["kind"].annotation)[0]).replace("_", "-")
        named = ", ".join(t.id for t in self.tracks if isinstance(t, kind)) or "none"
        raise SpecError(
            f"{self.id}/{found.id} is a {found.kind} track; this needs a {name} "
            f"track ({self.id}'s: {named})"
        )

    def tracks_of(self, kind: type[_Kind]) -> tuple[_Kind, ...]:
        """The tracks of one kind (its track model), in the spec's order."""
        return tuple(t for t in self.tracks if isinstance(t, kind))

    @property
    def about_path(self) -> Path:
        return self.folder / "about.md"

    @property
    def citation_path(self) -> Path:
        return self.folder / "citation.bib"

    @property
    def demo_dir(self) -> Path:
        return self.folder / DEMO_FOLDER

    def demo_key(self, track: Track) -> Path:
        return self.demo_dir / track.key.name

    def demo_public(self, track: Track) -> Path:
        return self.demo_dir / track.public.name

    @property
    def demo_board(self) -> Path:
        return self.demo_dir / DEMO_BOARD

    def problems(self) -> list[str]:
        """What is inconsistent across the benchmark and in each track, with TOML paths."""
        problems = []
        ids = Counter(t.id for t in self.tracks)
        for name, n in ids.items():
            if n > 1:
                problems.append(f"tracks: the track id {name!r} is declared {n} times")
        for i, track in enumerate(self.tracks):
            problems.extend(track.problems(f"tracks[{i}]"))
        if not problems:  # the board's columns, of tracks that are sound on their own
            for i, track in enumerate(self.tracks):
                problems.extend(column_problems(track, self.input.label, f"tracks[{i}]"))
        known = sorted(ids)
        paper = self.paper
        if paper is not None and paper.track not in known:
            problems.append(f"paper.track: expected one of {', '.join(known)}, got {paper.track!r}")
        if paper is not None:
            for i, table in enumerate(paper.tables):
                if table.track not in known:
                    problems.append(
                        f"paper.tables[{i}].track: expected one of {', '.join(known)}, got "
                        f"{table.track!r}"
                    )
            for name, n in Counter(t.track for t in paper.all_tables).items():
                if n > 1:
                    problems.append(
                        f"paper: {n} tables give the rows of the track {name!r}; give each "
                        "track one table"
                    )
        if self.hub.show_hub_results and self.hub.dataset is None:
            problems.append(
                "hub.show_hub_results: the Hub's results are those of hub.dataset, which is "
                'not given; add it (dataset = "<org>/<name>", the benchmark\'s public dataset) '
                "or set show_hub_results = false"
            )
        unnamed = self.unnamed_records_track
        if unnamed is not None and unnamed not in known:
            problems.append(
                f"unnamed_records_track: expected one of {', '.join(known)}, got {unnamed!r}"
            )
        return problems
