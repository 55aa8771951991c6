"""Local table files: paths, globs and folders resolved to a list of files, and their format (public).

A source is a path, a glob (``data/part-*.parquet``) or a folder of part files (as Spark and DuckDB
write them), or a list of those. Everything here is about file names and magic bytes, which are
public: no private value is read.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from pathlib import Path

from dprelease.errors import InputError, InputTypeError

FORMATS = ("parquet", "csv")
_SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".parq": "parquet", ".csv": "csv", ".gz": "csv"}


def is_path_source(source: object) -> bool:
    """A str / PathLike, or a non-empty list or tuple of them."""
    if isinstance(source, (str, os.PathLike)):
        return True
    return (isinstance(source, (list, tuple)) and len(source) > 0
            and all(isinstance(s, (str, os.PathLike)) for s in source))


def several_files(source: object) -> bool:
    """Whether ``source`` names part files (a glob, a folder, or a list of paths) rather than one file. Public: the
    names only."""
    if not is_path_source(source):
        return False
    return isinstance(source, (list, tuple)) or glob.has_magic(os.fspath(source)) or os.path.isdir(source)


def resolve_files(source: object) -> tuple[list[str], str]:
    """(the files, sorted within each pattern; a label naming the source for messages).

    A missing path, a glob matching nothing or an empty folder is an InputError naming it.
    """
    if not is_path_source(source):
        raise InputTypeError(f"source must be a path, a glob or a list of them, got {type(source).__name__}")
    patterns = [os.fspath(source)] if isinstance(source, (str, os.PathLike)) else [os.fspath(s) for s in source]
    files: list[str] = []
    for pattern in patterns:
        if glob.has_magic(pattern):
            matched = sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
            if not matched:
                raise InputError(f"no data file matches {pattern!r}")
            files.extend(matched)
        elif os.path.isdir(pattern):
            inside = sorted(str(p) for p in Path(pattern).iterdir()
                            if p.is_file() and p.suffix.lower() in _SUFFIXES and not p.name.startswith(("_", ".")))
            if not inside:
                raise InputError(f"data folder {pattern!r} holds no .parquet or .csv file")
            files.extend(inside)
        elif not os.path.exists(pattern):
            raise InputError(f"data file {pattern!r} does not exist")
        else:
            files.append(pattern)
    files = list(dict.fromkeys(files))
    unreadable = [f for f in files if not os.access(f, os.R_OK)]
    if unreadable:
        raise InputError(f"data file {unreadable[0]!r} cannot be read (permission denied)")
    if len(patterns) > 1:
        label = f"data files {patterns[0]!r} (and {len(patterns) - 1} more)"
    elif glob.has_magic(patterns[0]) or os.path.isdir(patterns[0]):
        label = f"data files {patterns[0]!r}"
    else:
        label = f"data file {patterns[0]!r}"
    return files, label


def detect_format(files: Sequence[str], format: str | None = None) -> str:
    """``"parquet"`` or ``"csv"``: the one given, else from the suffixes, else from the magic bytes."""
    if format is not None:
        if format not in FORMATS:
            raise InputError(f"format must be one of {list(FORMATS)}, got {format!r}")
        return format
    found = {_file_format(f) for f in files}
    if len(found) > 1:
        raise InputError(f"the data files mix Parquet and CSV ({files[0]!r}, ...); give one format")
    return found.pop()


def _file_format(path: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    with open(path, "rb") as handle:
        return "parquet" if handle.read(4) == b"PAR1" else "csv"
