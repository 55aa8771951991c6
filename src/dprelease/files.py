"""Writing files so that a crash never leaves a half-written one: temporary name, fsync, rename.

:func:`unwritable` says, before a command reads any data, why an output path could not be written;
:class:`Outputs` writes a command's files under temporary names and renames them into place together, so a
failure at the end (a full disk, a folder gone) leaves none of them rather than some.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO, TypeVar

from dprelease.errors import InputError

T = TypeVar("T")

NOT_REGULAR = ("exists and is not a regular file (a device, FIFO or socket): dprelease writes regular files "
               "atomically, renaming a new file over the old one")


def target_of(path: Path) -> Path:
    """The file a write to ``path`` replaces: a symlink's target (so the link stays a link), else ``path``."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _open_temporary(target: Path, mode: int = 0o600) -> tuple[int, Path]:
    """A new file beside ``target`` (``.NAME.RANDOM.tmp``), open for writing. ``mode`` is given to open(), so the
    umask applies to it as to any new file; an existing ``target``'s own mode is kept instead."""
    while True:
        temporary = _folder(target) / f".{target.name}.{secrets.token_hex(4)}.tmp"
        try:
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            break
        except FileExistsError:
            continue
    if target.is_file():
        os.fchmod(handle, stat.S_IMODE(target.stat().st_mode))
    return handle, temporary


def replace_atomic(path: Path, write: Callable[[BinaryIO], None], *,
                   before_rename: Callable[[Path], None] | None = None) -> None:
    """Write ``path`` with ``write(stream)`` (bytes) via a temporary file in the same folder, fsync and rename.

    A symlink is followed (its target is replaced, the link kept); a device, FIFO or socket is refused, as a
    rename would put a regular file in its place. A new file gets mode 0600: the online session's state file
    holds its noisy threshold and generator (docs/online.md); a command publishing its files sets their mode
    through :class:`Outputs`.
    """
    if Path(path).exists() and not Path(path).is_file() and not Path(path).is_dir():
        raise InputError(f"{str(path)!r} {NOT_REGULAR}")
    target = target_of(Path(path))
    _folder(target).mkdir(parents=True, exist_ok=True)
    handle, temporary = _open_temporary(target)
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        if before_rename is not None:
            before_rename(temporary)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, as :func:`replace_atomic` does."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    replace_atomic(path, lambda stream: stream.write(text.encode("utf-8")))


def unwritable(path: Path, *, atomic: bool = True) -> str | None:
    """Why ``path`` cannot be written, as words to follow it in a message (``"is a folder; ..."``), or None.

    ``atomic``: written as :func:`replace_atomic` writes (a regular file renamed over it, missing folders made);
    else opened in place, where a FIFO or a device will do but the folder must exist.
    """
    if path.is_dir():  # these follow links as open() does (/dev/stdout's too, which realpath cannot)
        return "is a folder; give a file name"
    if not atomic and path.exists():
        return None if os.access(path, os.W_OK) else "cannot be written: permission denied"
    if path.exists() and not path.is_file():
        return NOT_REGULAR
    target = target_of(path)
    folder = existing = _folder(target)
    while atomic and not existing.exists() and existing != existing.parent:
        existing = existing.parent  # the folders replace_atomic would make
    if not existing.exists():
        return f"cannot be written: its folder {str(folder)!r} does not exist"
    if not existing.is_dir():
        return f"cannot be written: {str(existing)!r} is not a folder"
    if existing != folder:
        return None if os.access(existing, os.W_OK | os.X_OK) else \
            f"cannot be written: its folder cannot be made in {str(existing)!r} (permission denied)"
    try:  # a trial file, removed at once: os.access says yes to root where no file can be made (/proc)
        handle, trial = _open_temporary(target)
    except OSError as exc:
        return f"cannot be written: no file can be made in its folder {str(folder)!r} ({exc.strerror})"
    os.close(handle)
    trial.unlink()
    return None


class Outputs:
    """The files of one command, each written under a temporary name beside its target, renamed into place
    together by :meth:`commit`. As a context manager it removes, on the way out, whatever was not committed.

    A write that fails raises one :class:`InputError` naming the option, ending with ``note`` (e.g. that the
    run's budget was spent).
    """

    def __init__(self, note: str = "") -> None:
        self.note = note
        self._staged: list[tuple[str, Path, Path, int]] = []  # (option, temporary, target, mode)

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for _, temporary, _, _ in self._staged:
            temporary.unlink(missing_ok=True)
        self._staged.clear()

    def write(self, option: str, path: Path, writer: Callable[[Path], T], *, public: bool = True) -> T:
        """``writer(temporary)``; at commit the temporary file becomes ``path``. A ``public`` file gets the mode
        any new file gets (0666 less the umask; the old file's, if there is one): rows and releases are written
        to be published. Else 0600 (a curator-only file, e.g. a report against the real data)."""
        target = target_of(path)
        try:
            _folder(target).mkdir(parents=True, exist_ok=True)
            handle, temporary = _open_temporary(target, 0o666 if public else 0o600)
            os.close(handle)
            mode = stat.S_IMODE(temporary.stat().st_mode) if public else 0o600
            self._staged.append((option, temporary, target, mode))
            return writer(temporary)
        except OSError as exc:
            raise self._failed(option, path, exc) from None

    def commit(self) -> None:
        """Every staged file into place: modes first (a writer may have made its own 0600 file), then renames."""
        for option, temporary, target, mode in self._staged:
            try:
                os.chmod(temporary, mode)
            except OSError as exc:
                raise self._failed(option, target, exc) from None
        renamed: list[str] = []
        while self._staged:
            option, temporary, target, _ = self._staged[0]
            try:
                os.replace(temporary, target)
            except OSError as exc:
                raise self._failed(option, target, exc, renamed) from None
            renamed.append(str(target))
            self._staged.pop(0)

    def _failed(self, option: str, path: Path, exc: OSError, renamed: Sequence[str] = ()) -> InputError:
        written = f"only {', '.join(map(repr, renamed))} was written" if renamed else "no output was written"
        return InputError(f"{option} {str(path)!r} could not be written ({exc.strerror or exc}): {written}{self.note}")


def write_output(option: str, path: Path, writer: Callable[[Path], T], *, public: bool = True,
                 note: str = "") -> T:
    """One file through :class:`Outputs`."""
    with Outputs(note) as outputs:
        result = outputs.write(option, path, writer, public=public)
        outputs.commit()
    return result
