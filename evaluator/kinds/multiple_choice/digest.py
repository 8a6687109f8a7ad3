"""``answers_sha256``: a file's answers as content, whatever its bytes.

The sha256 of ``[format, [[id, letter or null], ...]]`` as compact ASCII JSON, the pairs
sorted by id (integers first, by value, then strings). ``digest`` writes that text for any
answers; a key's ``AnswersText`` holds the text of its questions with a slot for each answer,
which a score fills from the answers' codes in one numpy assignment instead of writing each
pair: the same bytes.

>>> import spec
>>> from evaluator.kinds.multiple_choice.coding import letter_codes
>>> codes = letter_codes(spec.load_benchmark("egomemreason").track())
>>> text = AnswersText.of([7, 3], [1, 0], codes)
>>> text.digest(np.array([codes["B"], codes[""]], np.uint8)) == digest([(3, None), (7, "B")])
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

ANSWERS_FORMAT = "answers/1"  # tags what answers_sha256 hashes, so it can change visibly
#: A byte no ASCII JSON holds: it pads each answer's slot to a word of its own (a letter's
#: JSON has 3 bytes, null 4) and is dropped from the text before it is hashed.
_FILL = b"\xff"
_WORD = 4  # bytes of a slot, and of the numpy word that fills it


def digest(listed: Iterable[tuple[int | str, str | None]]) -> str:
    """sha256 of the answers as compact JSON, ``[format, [[id, letter or null], ...]]``, the
    pairs given sorted by id."""
    text = json.dumps([ANSWERS_FORMAT, list(listed)], separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@dataclass(frozen=True, eq=False)
class AnswersText:
    """``digest``'s text for a key's questions with a slot for each one's answer: the text as
    words, each slot a word of its own, the padding ``_FILL``."""

    words: np.ndarray  # the text, padded, as uint32 words
    slots: np.ndarray  # each question's slot (a word's index), in key order
    answers: np.ndarray  # each answer's code -> its JSON, padded to a word

    @classmethod
    def of(
        cls, ids: Sequence[int | str], by_id: Sequence[int], codes: Mapping[str, int]
    ) -> AnswersText:
        """The text for questions ``ids`` (in key order), listed in the order ``by_id`` gives
        (their positions sorted by id), for answers coded as ``codes`` ("" an abstention)."""
        text = bytearray(f"[{json.dumps(ANSWERS_FORMAT)},[".encode("ascii"))
        slots = np.zeros(len(ids), np.intp)
        for n, row in enumerate(by_id):
            text += b"," * (n > 0) + f"[{json.dumps(ids[row], ensure_ascii=True)},".encode("ascii")
            text += _FILL * (-len(text) % _WORD)
            slots[row] = len(text) // _WORD
            text += bytes(_WORD) + b"]"
        text += b"]]"
        text += _FILL * (-len(text) % _WORD)
        answers = [b""] * (max(codes.values()) + 1)
        for letter, code in codes.items():
            answers[code] = json.dumps(letter or None).encode("ascii").ljust(_WORD, _FILL)
        return cls(
            words=np.frombuffer(bytes(text), np.uint32),
            slots=slots,
            answers=np.frombuffer(b"".join(answers), np.uint32),
        )

    def digest(self, codes: np.ndarray) -> str:
        """``digest`` of the answers ``codes`` gives (one a question, in key order)."""
        words = self.words.copy()
        words[self.slots] = self.answers[codes]
        return hashlib.sha256(words.tobytes().translate(None, _FILL)).hexdigest()
