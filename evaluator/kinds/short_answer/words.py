"""The About tab's account of how a short-answer track scores, written from its spec's rule sets
(``spec.short_answer.RuleSet``): which set reads which questions, and what each set does, so the
page always says what the scorer does. Plain Markdown.

>>> import spec
>>> print(rule_text(spec.PRESETS["exact"]))
the response must be exactly the answer: nothing is trimmed, case-folded or parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from spec import RuleSet, ShortAnswerTrack


def code(text: str) -> str:
    """``text`` as a Markdown code span that shows it as written, whatever it holds (a fence
    longer than any run of backticks in it).

    >>> code("is "), code("a`b")
    ('`is `', '``a`b``')
    """
    runs = [len(run) for run in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _quoted(phrases: Iterable[str]) -> str:
    """Phrases as the About shows them, each quoted in a code span, spaces kept: `"is "`."""
    return ", ".join(code(f'"{p}"') for p in phrases)


def _reading(rule: RuleSet) -> list[str]:
    """How a response is read into candidates, in sentences."""
    steps = []
    trims = [
        *(["white space"] if rule.trim else []),
        *([f"then {_quoted(rule.trim_marks)} at either end"] if rule.trim_marks else []),
    ]
    if trims:
        steps.append(f"the response is trimmed of {', '.join(trims)}")
    if rule.fold_case:
        steps.append("lower-cased")
    sentences = ["; ".join(steps).capitalize() + "."] if steps else []
    if rule.cues or rule.last_line_cues:
        cues = [_quoted(rule.cues)] if rule.cues else []
        if rule.last_line_cues:
            cues.append(f"{_quoted(rule.last_line_cues)} on the last line only")
        dropped = f", or one of {_quoted(rule.drop)}" if rule.drop else ""
        sentences.append(
            f"Each line is read for the cue phrases {', and '.join(cues)} (found anywhere, "
            "inside words too): for each cue found, the text after its last occurrence, "
            "trimmed; a line's candidate is the shortest of these, unless it is empty"
            f"{dropped}. When no line gives one, the whole response is the one candidate."
        )
    if rule.numbers:
        sentences.append(
            "The numbers written in each candidate (comma-grouped integers, scientific "
            'notation, integers and decimals, with a leading minus or a bare ".5") are '
            "candidates too."
        )
    return sentences


def _matching(rule: RuleSet) -> list[str]:
    """How candidates and answers are compared, in sentences."""
    sentences = []
    forms = []
    if rule.trim:
        forms.append("trimmed")
    if rule.numeric:
        rounded = f", rounded to {rule.decimals} decimals" if rule.decimals is not None else ""
        forms.append(
            f"a text that reads as a number once its commas are removed is that number{rounded}"
        )
    text = []
    if rule.fold_case:
        text.append("lower-cased")
    if rule.pad_single:
        text.append("a single character is matched with a space on either side")
    if text:
        forms.append(f"{'any other' if rule.numeric else 'a'} text is {', and '.join(text)}")
    if forms:
        sentences.append(f"Candidates and answers are normalised alike: {'; '.join(forms)}.")
    if rule.numeric:
        within = (
            f" or lies within {rule.tolerance:g} of one" if rule.tolerance else " (no tolerance)"
        )
        sentences.append(f"A number is right if it equals a numeric answer{within}.")
    held = (
        "holds an answer (the answer occurs inside it)"
        if rule.match == "contains"
        else ("equals an answer")
    )
    sentences.append(
        f"A text is right if it {held}"
        + ("; a number never matches a text." if rule.numeric else ".")
    )
    return sentences


def rule_text(rule: RuleSet) -> str:
    """What a rule set does, in a few sentences (the exact rule in one)."""
    if rule == RuleSet():
        return "the response must be exactly the answer: nothing is trimmed, case-folded or parsed."
    return " ".join([*_reading(rule), *_matching(rule), "Any right candidate makes it right."])


def about(track: ShortAnswerTrack) -> str:
    """The About tab's account of how ``track`` scores (under a heading the page gives it):
    which rule set reads which questions, each set's rules, and what a response may be."""
    types, rules = track.types, track.rules
    used: dict[str, list[str]] = {}
    unless = " whose set is not named below" if rules.by else ""
    if types is None:
        used.setdefault(rules.open, []).append(f"every question{unless}")
    else:
        for name, kind, values in (
            (rules.choice, "multiple-choice", types.choice),
            (rules.open, "open", types.open),
        ):
            if values:
                shown = " or ".join(map(code, values))
                used.setdefault(name, []).append(
                    f"{kind} questions ({types.field} {shown}){unless}"
                )
    for value, name in rules.by.items():
        used.setdefault(name, []).append(f"questions whose {track.rule_field} is {code(value)}")
    listed = [
        f"- {code(name)}, for {' and '.join(whom)}: {rule_text(track.rule_sets[name])}"
        for name, whom in used.items()
    ]
    head = (
        "Each question's response is read and matched by a rule set of this track's spec "
        "(`benchmark.toml`, `[tracks.rules]`); a question's answer may be a list of accepted "
        "answers, any one of which counts."
    )
    tail = (
        'A response that is a number is read as its text; `null` or `""` is an abstention, '
        "scored as wrong."
    )
    return "\n\n".join([head, "\n".join(listed), tail]) + "\n"
