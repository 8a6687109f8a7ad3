"""The spec of a short-answer track: multiple-choice and open questions scored together, each
by a rule set the benchmark declares.

A key field says what each question is (``types``: its name, the values of a multiple-choice
question and those of an open one). A multiple-choice question's answer is a letter (among its
options, when the release has them; else of the track's ``options.letters``); an open
question's is a text, or a list of accepted texts. A prediction is read and matched by a
**rule set** (``RuleSet``: data, not code): how it is trimmed and folded, the cue phrases after
which a line's answer is taken, whether numbers are extracted, rounded and matched within a
tolerance, and whether text matches by equality or containment. ``rules`` names the sets and
says which applies to a question: by the value of a key field (the question's type, or an
answer-type field of the release), else ``choice`` for a multiple-choice question and ``open``
for an open one. ``PRESETS`` are the named sets every track has: ``exact`` (the prediction is
exactly the answer) and ``open`` (the reading of open answers a widely used multi-discipline
benchmark's official scorer applies). ``evaluator.kinds.short_answer`` reads and matches by
them and writes the About's account of them.

Every metric is an accuracy (``spec.accuracy``): ``overall`` and each group and aggregate,
micro unless an aggregate says macro.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator

from spec.accuracy import AccuracyTrack
from spec.base import IdFields, Key, Model, board_problems

#: A cue phrase, a lone result to drop, or a type's value: text as the release or a response
#: writes it (spaces count).
Phrase = Annotated[str, StringConstraints(min_length=1, max_length=64)]
#: At most this many cue phrases (and dropped results) in a rule set: each is looked for in
#: every line of every response.
MAX_PHRASES = 32
#: The longest regular expression ``fields.id_pattern`` may be.
MAX_PATTERN = 300


class RuleSet(Model):
    """How a prediction is read into candidates and matched against a question's answers; its
    defaults are the ``exact`` rule (the prediction is exactly the answer: nothing trimmed,
    folded or parsed).

    Reading a prediction: trimmed of white space (``trim``), then of ``trim_marks`` at either
    end, lower-cased (``fold_case``); with cue phrases, each line is read for them (``cues``,
    and ``last_line_cues`` on the last line only, matched anywhere, inside words too): for each
    found, the text after its last occurrence, trimmed; the shortest non-empty one of a line is
    its candidate, unless it is one of ``drop`` (a lone punctuation mark). With no candidate
    from any line (or no cues), the whole prediction is the one candidate. With ``numbers``, the
    numbers written in each candidate (comma-grouped integers, scientific notation, integers
    and decimals, with a leading minus or a bare ".5") are candidates too.

    Normalising candidates and answers alike (an answer gets no reading and no extraction):
    trimmed (``trim``); with ``numeric``, a text that reads as a number once its commas are
    removed is that number, rounded to ``decimals`` if given; any other is text, lower-cased
    (``fold_case``), and a single character is matched with a space on either side
    (``pad_single``). A candidate number is right when it equals a number among the answers
    or lies within ``tolerance`` of one; a text when it equals a text answer (``match``
    "equal") or holds one (``"contains"``); a number never matches a text. Any right candidate
    makes the question right.
    """

    trim: bool = False
    trim_marks: Annotated[str, StringConstraints(max_length=16)] = ""
    fold_case: bool = False
    cues: tuple[Phrase, ...] = Field(default=(), strict=False, max_length=MAX_PHRASES)
    last_line_cues: tuple[Phrase, ...] = Field(default=(), strict=False, max_length=MAX_PHRASES)
    drop: tuple[Phrase, ...] = Field(default=(), strict=False, max_length=MAX_PHRASES)
    numbers: bool = False
    numeric: bool = False
    decimals: Annotated[int, Field(ge=0, le=12)] | None = None
    tolerance: Annotated[float, Field(ge=0, allow_inf_nan=False, strict=False)] = 0.0
    match: Literal["equal", "contains"] = "equal"
    pad_single: bool = False

    def problems(self, where: str) -> list[str]:
        """Settings that would do nothing, each with its TOML path."""
        problems = []
        if not self.numeric and (self.decimals is not None or self.tolerance):
            problems.append(
                f"{where}: decimals and tolerance apply to numbers: set numeric = true, or drop "
                "them"
            )
        if self.numbers and not self.numeric:
            problems.append(
                f"{where}.numbers: the numbers found would be matched as text: set numeric = "
                "true as well, or drop numbers"
            )
        return problems


#: The rule sets every short-answer track has, by name (a track's ``rules.sets`` may add
#: others, or replace one of these under its name).
PRESETS: Mapping[str, RuleSet] = {
    "exact": RuleSet(),
    "open": RuleSet(
        trim=True,
        trim_marks=".",
        fold_case=True,
        cues=("could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result "),
        last_line_cues=("=",),
        drop=(":", ",", ".", "!", "?", ";", "'"),
        numbers=True,
        numeric=True,
        decimals=2,
        match="contains",
        pad_single=True,
    ),
}


class QuestionTypes(Model):
    """The key field that says what a question is, and its values: those of a multiple-choice
    question (its answer a letter) and those of an open one (its answer a text or a list)."""

    field: Key
    choice: tuple[Phrase, ...] = Field(default=(), strict=False)
    open: tuple[Phrase, ...] = Field(default=(), strict=False)


class Rules(Model):
    """Which rule set reads a question's prediction: the set ``by`` names for the value of the
    question's ``field`` (default: the types' field), else ``choice`` for a multiple-choice
    question and ``open`` for an open one. ``sets`` declares rule sets beside ``PRESETS``."""

    field: Key | None = None
    by: dict[Phrase, Key] = Field(default_factory=dict, strict=False)
    choice: Key = "exact"
    open: Key = "open"
    sets: dict[Key, RuleSet] = Field(default_factory=dict, strict=False)


class ShortAnswerFields(IdFields):
    """What the key's, the public file's and a submission's fields are called.

    ``answer`` holds a multiple-choice question's letter, or an open question's text or list of
    accepted texts (a number is read as its text). ``question`` and ``options`` are optional: a
    release may hold neither (its questions and options live in another dataset); ``options``
    is one field holding a JSON object of letters to texts or a JSON list of texts in letter
    order. ``id_pattern`` is a regular expression over the id whose named groups are fields of
    every row (``"validation_(?P<subject>.+)_\\d+"`` gives each row its ``subject``), for a
    release whose groups are written in its ids.
    """

    id_type: Literal["integer", "string"] = "string"
    question: Key | None = None
    options: Key | None = None
    answer: Key = "answer"
    prediction: Key = "predicted_answer"
    #: Names people use instead of ``prediction``; a submission using one is told to rename it.
    prediction_aliases: tuple[Key, ...] = Field(default=(), strict=False)
    id_pattern: Annotated[str, StringConstraints(max_length=MAX_PATTERN)] | None = None

    @field_validator("id_pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a regular expression ({exc})") from None
        bad = [n for n in compiled.groupindex if not re.fullmatch(r"[a-z][a-z0-9_]{0,63}", n)]
        if not compiled.groupindex or bad:
            raise ValueError(
                "expected a regular expression with named groups, each a field name (lower case, "
                'digits and _), e.g. "validation_(?P<subject>.+)_\\\\d+"'
                + (f"; {', '.join(bad)} is not one" if bad else "")
            )
        return value

    @cached_property
    def derived(self) -> tuple[str, ...]:
        """The fields ``id_pattern`` gives every row, in the pattern's order."""
        return tuple(re.compile(self.id_pattern).groupindex) if self.id_pattern else ()

    @cached_property
    def id_regex(self) -> re.Pattern[str] | None:
        return re.compile(self.id_pattern) if self.id_pattern else None


class ChoiceLetters(Model):
    """The letters of a multiple-choice question: of its options when the release has them,
    else all of these (the letter range of a question whose options live elsewhere)."""

    letters: Annotated[str, StringConstraints(pattern=r"^[A-Z]{2,26}$")] = "ABCD"


class ShortAnswerTrack(AccuracyTrack):
    """A track of multiple-choice and open questions, scored together as accuracies, each
    question's prediction read and matched by the rule set that applies to it."""

    kind: Literal["short_answer"]
    fields: ShortAnswerFields = ShortAnswerFields()
    options: ChoiceLetters = ChoiceLetters()
    types: QuestionTypes | None = None
    rules: Rules = Rules()

    @cached_property
    def rule_sets(self) -> Mapping[str, RuleSet]:
        """Every rule set by name: the presets, and those the spec declares."""
        return {**PRESETS, **self.rules.sets}

    @property
    def rule_field(self) -> str | None:
        """The key field whose value picks a rule set by ``rules.by``."""
        return self.rules.field or (self.types.field if self.types else None)

    def rule_name(self, choice: bool, value: object) -> str:
        """The name of the rule set of a question: the one ``rules.by`` names for its
        ``rule_field`` value, else the track's for a multiple-choice (``choice``) or an open
        question."""
        named = self.rules.by.get(value) if isinstance(value, str) else None
        return named or (self.rules.choice if choice else self.rules.open)

    def is_choice(self, value: object) -> bool | None:
        """Whether a question whose type field holds ``value`` is multiple-choice (True) or
        open (False); None for a value the spec does not declare. Without ``types`` every
        question is open."""
        if self.types is None:
            return False
        if value in self.types.choice:
            return True
        return False if value in self.types.open else None

    @property
    def rotation_refusal(self) -> str | None:
        """Why the key's letters cannot be rotated (``scripts/reshuffle_options.py``)."""
        return (
            "its multiple-choice questions have letters but no option texts in the release, so "
            "they cannot be rotated (a rotation moves each option's text to another letter, and "
            "a letter without its text cannot be moved consistently), and an open answer has no "
            "letter at all; its key keeps its letters, and a submission is never remapped"
        )

    @property
    def json_cells(self) -> tuple[str, ...]:
        """The fields whose CSV cell holds JSON: the options (an answer cell is text)."""
        return (self.fields.options,) if self.fields.options else ()

    # --- checks a field cannot make on its own ----------------------------------------------

    def problems(self, where: str) -> list[str]:
        """What is inconsistent in this track, each with its TOML path (``where``: the
        track's, e.g. ``tracks[0]``)."""
        problems = self.tree_problems(where)
        problems += board_problems(where, self.views, self.chart, self.metric_keys, self.references)
        f = self.fields
        problems += f.id_problems(f"{where}.fields")
        own = [f.id, *f.id_parts, f.answer, f.question, f.options]
        clash = [n for n in f.derived if n in own or n in f.levels]
        if clash:
            problems.append(
                f"{where}.fields.id_pattern: its group {', '.join(map(repr, clash))} names a field "
                "the rows have already; name the group after what it holds (subject, split)"
            )
        types = self.types
        if types is not None:
            both = sorted(set(types.choice) & set(types.open))
            if both:
                problems.append(
                    f"{where}.types: {', '.join(map(repr, both))} is both a multiple-choice and "
                    "an open value"
                )
            if not types.choice and not types.open:
                problems.append(
                    f"{where}.types: name the values of a multiple-choice question (choice) or "
                    'of an open one (open), e.g. choice = ["multiple-choice"]'
                )
        if len(set(self.options.letters)) != len(self.options.letters):
            problems.append(
                f"{where}.options.letters: expected distinct letters, got {self.options.letters!r}"
            )
        rules = self.rules
        if rules.by and self.rule_field is None:
            problems.append(
                f"{where}.rules.by: name the key field whose values it reads (rules.field)"
            )
        named = [("by", n) for n in rules.by.values()] + [
            ("choice", rules.choice),
            ("open", rules.open),
        ]
        for at, name in named:
            if name not in self.rule_sets:
                problems.append(
                    f"{where}.rules.{at}: no rule set {name!r}; the sets are "
                    f"{', '.join(self.rule_sets)} (declare one as [tracks.rules.sets.{name}])"
                )
        for name, rule in rules.sets.items():
            problems += rule.problems(f"{where}.rules.sets.{name}")
        return problems
