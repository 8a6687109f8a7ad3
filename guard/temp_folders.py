"""The app's own temporary folders, removed when it stops: issue 22, finding 10.

"Nothing is stored" holds past the process too. The app makes a folder of its own for Gradio's
upload cache (guard.upload_cache.private_upload_folder; the board's downloads live in it too,
web.board), and a stopped Space left it behind with the visitors' submissions in it: after
one ``make test`` and a few runs the temp dir held 81 upload folders (61 still holding
submissions, up to 15 MB each) and 208 export folders.

``owned(path)`` registers a folder the app made; ``remove_owned`` deletes every one, and runs at
exit. ``stop_on_sigterm`` makes SIGTERM (what a Space, ``docker stop`` and the tests send) stop
the server as SIGINT (Ctrl-C) does: Python's default for SIGTERM ends the process at once, with
no exit handlers; Gradio's ``block_thread`` stops the server on a KeyboardInterrupt, and
``launch()`` then returns to ``app.main``, which returns, and the exit handlers run. Neither
Gradio nor uvicorn installs a handler of its own here (Gradio's Server turns uvicorn's off, and
its Node server, which would, is off with ``ssr_mode=False``). It also has SIGUSR1 write every
thread's stack to the log (``faulthandler``), so a stop that hangs says what it waits on.

>>> import tempfile
>>> folder = owned(Path(tempfile.mkdtemp(prefix="doctest-owned-")))
>>> (folder / "upload.json").write_text("[]")
2
>>> remove_owned() == [folder], folder.exists()
(True, False)
"""

from __future__ import annotations

import atexit
import faulthandler
import shutil
import signal
import threading
from pathlib import Path
from types import FrameType

__all__ = ["owned", "remove_owned", "stop_on_sigterm"]

_OWNED: list[Path] = []
_LOCK = threading.Lock()
_AT_EXIT: list[bool] = []  # whether remove_owned is registered to run at exit


def owned(path: Path) -> Path:
    """``path``, a folder this process made, to be removed with everything in it at exit."""
    with _LOCK:
        if not _AT_EXIT:
            atexit.register(remove_owned)
            _AT_EXIT.append(True)
        if path not in _OWNED:
            _OWNED.append(path)
    return path


def remove_owned() -> list[Path]:
    """Delete every owned folder (an error is skipped: the rest still go); the ones gone."""
    with _LOCK:
        folders, _OWNED[:] = list(_OWNED), []
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    return [f for f in folders if not f.exists()]


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def stop_on_sigterm() -> None:
    """SIGTERM stops the server as SIGINT does (in the main thread, where signals land); and
    SIGUSR1 writes every thread's stack to stderr (the log): what a stop that hangs waits on."""
    signal.signal(signal.SIGTERM, _interrupt)
    faulthandler.register(signal.SIGUSR1, all_threads=True)
