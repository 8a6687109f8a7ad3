"""A benchmark as data: ``benchmarks/<id>/benchmark.toml``, read once into a frozen model.

The code knows no benchmark. Everything that differs between benchmarks (their groups and
sizes, labels, links, repositories, prose, file formats, field names, letters) is written in
the benchmark's folder and reaches the code as a ``Benchmark``; every other module takes the
model, or one of its tracks, as a parameter.

The package, from the bottom: ``spec.base`` (the parts: names, files, groups, views, metrics,
displays, and ``TrackBase``: how a track shows a number, its reference policies), ``spec.links``
(what a field that ends up in a link may say), ``spec.common`` (``CommonTrack``: the fields
every kind of track declares and what every kind answers), one model per kind of track
(``spec.multiple_choice``: letters, groupings, micro and macro aggregates; ``spec.decision``:
whether and when to assist; ``spec.short_answer``: multiple-choice and open questions, each
read by a declared rule set; the accuracy kinds' metric tree is ``spec.accuracy``),
``spec.tracks`` (``REGISTRY``: every kind once, its model and its implementation; ``Track``,
a track of any kind, derived from it), ``spec.board_columns`` (a track's board as column
groups and headers, and what makes them clash), ``spec.benchmark`` (``Benchmark``, ``Paper``),
``spec.folder_files`` (every file of a folder is read there: regular files inside it, bounded)
and ``spec.loading`` (reading a folder).

Generic code reads a track as a ``CommonTrack`` (the static type of ``Track``): ``id``,
``title``, ``kind``, ``scorer_version``, ``key``, ``public``, ``fields.id`` /
``fields.id_type``, ``hints``, ``views``, ``chart``, ``min_rows``, ``metric_keys`` (this
Space's metrics, display order), ``paper_metric_keys`` (metrics only paper rows carry),
``labels``, ``names``, ``display`` (percent, ratio, seconds or count), ``higher_is_better``
(True, False, or None for a signed error whose best value is 0), ``sizes``, ``groupings`` /
``groups``, ``ranking`` / ``ranking_for(source)`` and ``problems(where)``; and, from
``TrackBase``, ``decimals`` and how a number is shown (``digits(display)``,
``format_metric(key, value)``, ``shown``, ``number``, ``interval_text``, ``rounded``), and the
spec's reference policies (``references``, ``reference_of(method, metrics)``).

A spec error names its TOML path and what was expected::

    tracks[0].groupings[0].groups[3].size: expected a positive integer, got "100"

Example:

>>> bench = load_benchmark("egomemreason")  # an id under benchmarks/, or a folder's path
>>> track = bench.track()
>>> track.metric_keys[:2], track.sizes["overall"]
(('overall', 'entity'), 500)
>>> decision = load_benchmark("egoargus").track("decision")
>>> decision.display["decision_f1"], decision.higher_is_better["timing_mae_s"]
('ratio', False)
"""

from __future__ import annotations

from errors import SpecError
from spec.accuracy import AccuracyTrack, Overall
from spec.base import (
    PAPER_PREFIX,
    BoardColumn,
    DataFile,
    Display,
    Group,
    Grouping,
    Metric,
    Reference,
    TrackBase,
    View,
)
from spec.benchmark import DEMO_BOARD, DEMO_FOLDER, Benchmark, Hub, Input, Links, Paper, PaperTable
from spec.common import Aggregate, CommonTrack
from spec.decision import DecisionFields, DecisionTrack
from spec.folder_files import (
    about_text,
    citation_text,
    paper_table,
    read_folder_file,
    read_folder_text,
)
from spec.loading import (
    BENCHMARKS_DIR,
    ROOT,
    SPEC_FILENAME,
    benchmark_folder,
    load_benchmark,
    parse_benchmark,
)
from spec.multiple_choice import Fields, MultipleChoiceTrack, Options, OutOfOption
from spec.short_answer import (
    PRESETS,
    ChoiceLetters,
    QuestionTypes,
    Rules,
    RuleSet,
    ShortAnswerFields,
    ShortAnswerTrack,
)
from spec.tracks import KINDS, REGISTRY, Registered, Registry, Track

__all__ = [
    "BENCHMARKS_DIR",
    "DEMO_BOARD",
    "DEMO_FOLDER",
    "KINDS",
    "PAPER_PREFIX",
    "PRESETS",
    "REGISTRY",
    "ROOT",
    "SPEC_FILENAME",
    "AccuracyTrack",
    "Aggregate",
    "Benchmark",
    "BoardColumn",
    "ChoiceLetters",
    "CommonTrack",
    "DataFile",
    "DecisionFields",
    "DecisionTrack",
    "Display",
    "Fields",
    "Group",
    "Grouping",
    "Hub",
    "Input",
    "Links",
    "Metric",
    "MultipleChoiceTrack",
    "Options",
    "OutOfOption",
    "Overall",
    "Paper",
    "PaperTable",
    "QuestionTypes",
    "Reference",
    "Registered",
    "Registry",
    "RuleSet",
    "Rules",
    "ShortAnswerFields",
    "ShortAnswerTrack",
    "SpecError",
    "Track",
    "TrackBase",
    "View",
    "about_text",
    "benchmark_folder",
    "citation_text",
    "load_benchmark",
    "paper_table",
    "parse_benchmark",
    "read_folder_file",
    "read_folder_text",
]
