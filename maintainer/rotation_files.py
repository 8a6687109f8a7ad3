"""A rotation and a remapping as the maintainer runs them: the inputs checked, the files
written (scripts/reshuffle_options.py parses the flags and prints).

A rotation (``rotate_release``) takes a multiple-choice track's key and the public file
released with it, a secret salt (``checked_salt``: at least ``MIN_SALT_LENGTH`` characters)
and the new key's version (``checked_version``: another than the key's, a name of letters,
digits and ``. _ + -``); it refuses a public file of another key version and a key and public
file that disagree (``release.check_agreement``), then rotates them (``rotation.rotate``). Its
three files go into a folder (``rotation_outputs``: empty unless forced, never one holding an
input) and are written whole or not at all (``write``: a temporary file and a rename), the key
and the letter map private. A remapping's output (``remap_output``) is a new file, never an
input. Refusals are ``ReshuffleError``s saying how to fix them.

Example (the demo release rotated in memory; nothing is written):

>>> import spec
>>> bench = spec.load_benchmark("egomemreason")
>>> track = lettered(bench, bench.track())
>>> key, public = bench.demo_key(track), bench.demo_public(track)
>>> done = rotate_release(track, key.read_bytes(), public.read_bytes(), key, public,
...                       checked_salt(" a salt of sixteen or more "), checked_version("demo-2"))
>>> done.old_version, done.rotation.new_key.key_version, done.out_of_option
('demo-1', 'demo-2', 0)
>>> checked_salt("short")  # doctest: +ELLIPSIS
Traceback (most recent call last):
errors.ReshuffleError: the salt has 5 characters; use at least 16 random ones ...
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import spec
from errors import ReshuffleError
from maintainer import release
from maintainer.letter_map import LETTER_MAP_NAME
from maintainer.rotation import Rotation, rotate, spread_report
from maintainer.tables import read_private, read_public, version_name

MIN_SALT_LENGTH = 16
KEY_VERSION_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
SALT_HINT = (
    'make one with: python -c "import secrets; print(secrets.token_urlsafe(24))" '
    "and keep it with the key, never in git"
)


def lettered(bench: spec.Benchmark, track: spec.Track) -> spec.MultipleChoiceTrack:
    """``track``, if it has option letters (a multiple-choice track); ReshuffleError naming
    the tracks that do."""
    try:
        return bench.track(track.id, kind=spec.MultipleChoiceTrack)
    except spec.SpecError:
        tracks = ", ".join(t.id for t in bench.tracks_of(spec.MultipleChoiceTrack))
        raise ReshuffleError(
            f"{bench.id}/{track.id} is a {track.kind} track: {track.rotation_refusal}; "
            f"rotate a multiple-choice track of {bench.id} ({tracks or 'none'}) with --track"
        ) from None


def checked_salt(salt: str) -> str:
    """The salt without its surrounding whitespace; ReshuffleError if it is too short to keep
    the rotation unguessable."""
    salt = salt.strip()
    if len(salt) < MIN_SALT_LENGTH:
        raise ReshuffleError(
            f"the salt has {len(salt)} characters; use at least {MIN_SALT_LENGTH} random ones "
            f"so nobody can guess the rotation ({SALT_HINT})"
        )
    return salt


def checked_version(version: str) -> str:
    """``version`` if it is a key version's name; ReshuffleError saying what one is."""
    if not KEY_VERSION_PATTERN.fullmatch(version):
        raise ReshuffleError(
            f"--key-version {version!r} is not a version name; use up to 64 letters, digits, "
            "'.', '_', '+' or '-', starting with a letter or digit, e.g. v1.2"
        )
    return version


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file (whatever the path, links included)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def rotation_outputs(
    track: spec.MultipleChoiceTrack, out_dir: Path, inputs: Mapping[str, Path], force: bool
) -> tuple[Path, Path, Path]:
    """Where a rotation into ``out_dir`` writes the key, the public file and the letter map;
    ReshuffleError if ``out_dir`` is a file, holds one of the ``inputs`` (flag -> path), or is
    not empty (unless ``force``)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ReshuffleError(f"--out-dir {out_dir} is a file; pass a folder")
    key_name, public_name = track.key.name, track.public.name
    outputs = (out_dir / key_name, out_dir / public_name, out_dir / LETTER_MAP_NAME)
    for flag, path in inputs.items():
        if any(same_file(out, path) for out in outputs):
            raise ReshuffleError(
                f"--out-dir {out_dir} would overwrite {flag} {path}; inputs are never "
                "overwritten: pass a new folder, e.g. rotated/"
            )
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise ReshuffleError(
            f"--out-dir {out_dir} is not empty; pass an empty or new folder, or --force to "
            f"replace its {key_name}, {public_name} and {LETTER_MAP_NAME}"
        )
    return outputs


def remap_output(out: Path, inputs: Mapping[str, Path], force: bool) -> Path:
    """``out``, if a remapped submission may be written there: not one of the ``inputs``
    (flag -> path), not a folder, new (unless ``force``), in a folder that exists."""
    for flag, path in inputs.items():
        if same_file(out, path):
            raise ReshuffleError(
                f"--out {out} is also {flag}; inputs are never overwritten: pass a new file name"
            )
    if out.is_dir():
        raise ReshuffleError(f"--out {out} is a folder; pass a file name such as new.json")
    if out.exists() and not force:
        raise ReshuffleError(f"--out {out} exists; pass another name, or --force to replace it")
    if not out.parent.is_dir():
        raise ReshuffleError(f"--out {out}: the folder {out.parent} does not exist; create it")
    return out


@dataclass(frozen=True)
class RotatedRelease:
    """A rotation's files, the old key's version as named, how many rows were out of option,
    and the spread report (``rotation.spread_report``)."""

    rotation: Rotation
    old_version: str
    out_of_option: int
    report: str


def rotate_release(
    track: spec.MultipleChoiceTrack,
    private: bytes,
    public: bytes,
    private_path: Path,
    public_path: Path,
    salt: str,
    version: str,
    benchmark_flags: str = "",
) -> RotatedRelease:
    """The key (``private``) and public file of ``track`` rotated to ``version`` with
    ``salt``; ReshuffleError or ReleaseError if they are not one release of another version.
    ``benchmark_flags`` go into the letter map's remapping command."""
    table, key = read_private(track, private, private_path)
    public_table = read_public(track, public, public_path)
    old = version_name(key.key_version)
    if key.key_version == version:
        raise ReshuffleError(
            f"--key-version {version} is the version of the key being rotated; name the new "
            "key, e.g. bump v1.1 to v1.2"
        )
    if public_table.key_version is not None and public_table.key_version != key.key_version:
        raise ReshuffleError(
            f"--public {public_path} names key version {public_table.key_version}, but "
            f"--private {private_path} is key version {old}; pass the public file "
            "released with this very key"
        )
    release.check_agreement(key, public_table.records)
    rotation = rotate(
        table,
        key,
        public_table,
        hashlib.sha256(public).hexdigest(),
        salt,
        version,
        benchmark_flags,
    )
    flagged = sum(q.out_of_option for q in key.questions)
    return RotatedRelease(rotation, old, flagged, spread_report(key, rotation.new_key))


def write(path: Path, data: bytes, private: bool) -> None:
    """Write via a temporary file and a rename, so a reader never sees half a file; a private
    file is readable by its owner only."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o600 if private else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_rotation(outputs: tuple[Path, Path, Path], rotation: Rotation) -> None:
    """The rotation's key, public file and letter map into ``outputs`` (``rotation_outputs``),
    their folder created private if missing."""
    outputs[0].parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write(outputs[0], rotation.private, private=True)
    write(outputs[1], rotation.public, private=False)
    write(outputs[2], rotation.letter_map, private=True)
