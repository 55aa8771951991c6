"""A release on disk: a small JSON document and a binary side file (docs/decisions.md, "Release files").

The JSON holds what a person reads: the guarantee, the privacy ledger, the parameters, the
transcript, the domain (and a schema when there is one). The numbers a program reads go to the
side file ``<name>.answers.npz`` beside it, referenced by relative name and SHA-256:

* ``answer_00000`` ...: one float64 array per workload marginal, axes in domain order (stored
  uncompressed: the model's fractions use all 52 bits of their mantissa, so deflate saves a few
  percent at many times the write time);
* ``rows``: the synthetic rows, in the smallest unsigned integer type that holds the domain's codes
  (deflated);
* ``array_00000`` ...: every long numeric list (or numpy array) of the JSON part, e.g. MWEM's noisy
  measurements (deflated: values snapped to a power-of-two grid compress well).

Writing is atomic for each file, the side file first and the JSON last, so a reader never finds a
JSON whose side file is missing. The zip entries carry a fixed date, so the same release gives the
same bytes (and the same hash).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dprelease.errors import InputError
from dprelease.files import replace_atomic, write_atomic

FORMAT = "dprelease-release/2"
#: One whole JSON document, answers inline and rows counted, not listed: what ``dprelease serve`` returns for a
#: release (:meth:`~dprelease.release.Release.to_json`); its rows are the service's ``rows.csv``.
INLINE_FORMAT = "dprelease-release-inline/1"
SIDE_SUFFIX = ".answers.npz"
SIDE_FORMAT = ("npz (numpy zip): one float64 array per workload marginal (axes in domain order), the synthetic "
               "rows, and the JSON's long numeric arrays; np.load reads it")
#: Numeric lists at least this long leave the JSON for the side file.
MIN_SIDE_LIST = 1000
#: The fixed timestamp of every zip entry (the earliest a zip can hold), for reproducible bytes.
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_CHUNK = 1 << 20


def side_file_name(json_path: Path) -> str:
    """``release.json`` -> ``release.answers.npz`` (beside it)."""
    name = json_path.name
    return (name[:-5] if name.endswith(".json") else name) + SIDE_SUFFIX


@dataclass
class SideArrays:
    """The arrays bound for the side file, in order: (name, array, deflate)."""

    entries: list[tuple[str, np.ndarray, bool]] = field(default_factory=list)
    _counts: dict[str, int] = field(default_factory=dict)

    def add(self, prefix: str, array: np.ndarray, *, deflate: bool) -> str:
        """Add ``array`` as ``<prefix>_00000``, ``<prefix>_00001``, ...; return its name."""
        count = self._counts.get(prefix, 0)
        self._counts[prefix] = count + 1
        return self.put(f"{prefix}_{count:05d}", array, deflate=deflate)

    def put(self, name: str, array: np.ndarray, *, deflate: bool) -> str:
        self.entries.append((name, array, deflate))
        return name


def externalize(value: object, side: SideArrays) -> object:
    """``value`` (JSON-able, or numpy arrays) with every long numeric list and every array moved to ``side``.

    A moved value leaves ``{"$side_array": name, "as": "list" | "ndarray"}``; :func:`internalize` puts it back.
    Only flat lists of one number type move (all floats, or all ints), so the round trip is exact.
    """
    if isinstance(value, np.ndarray):
        return {"$side_array": side.add("array", value, deflate=True), "as": "ndarray"}
    if isinstance(value, dict):
        return {k: externalize(v, side) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) >= MIN_SIDE_LIST:
            kind = _numeric_kind(value)
            if kind is not None:
                return {"$side_array": side.add("array", np.array(value, dtype=kind), deflate=True), "as": "list"}
        return [externalize(v, side) for v in value]
    return value


def _numeric_kind(values: list | tuple) -> type | None:
    first = type(values[0])
    if first is float and all(type(v) is float for v in values):
        return np.float64
    if first is int and all(type(v) is int for v in values) and all(-2**63 <= v < 2**63 for v in values):
        return np.int64
    return None


def internalize(value: object, read: Callable[[str], np.ndarray]) -> object:
    """The inverse of :func:`externalize`, reading each moved array with ``read(name)``."""
    if isinstance(value, dict):
        if set(value) == {"$side_array", "as"}:
            array = read(value["$side_array"])
            return array if value["as"] == "ndarray" else array.tolist()
        return {k: internalize(v, read) for k, v in value.items()}
    if isinstance(value, list):
        return [internalize(v, read) for v in value]
    return value


def rows_dtype(sizes: Iterable[int]) -> np.dtype:
    """The smallest unsigned integer type that holds every code of the domain."""
    largest = max(sizes) - 1
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


# ------------------------------------------------------------------------ writing
def write_side_file(path: Path, side: SideArrays) -> dict[str, object]:
    """Write the side file atomically; return its JSON entry (relative name, bytes, sha256)."""
    digest: dict[str, object] = {}

    def write(stream) -> None:
        with zipfile.ZipFile(stream, mode="w", allowZip64=True) as archive:
            for name, array, deflate in side.entries:
                info = zipfile.ZipInfo(name + ".npy", date_time=_ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
                with archive.open(info, mode="w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)

    def measure(temporary: Path) -> None:
        digest["sha256"], digest["bytes"] = file_sha256(temporary)

    replace_atomic(path, write, before_rename=measure)
    return {"name": path.name, "format": SIDE_FORMAT, "bytes": digest["bytes"], "sha256": digest["sha256"]}


def file_sha256(path: Path) -> tuple[str, int]:
    """SHA-256 (hex) and size of a file, read in 1 MiB chunks."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def write_document(path: Path, document: dict[str, object]) -> None:
    write_atomic(path, json.dumps(document, indent=1) + "\n")


# ------------------------------------------------------------------------ reading
def read_document(path: Path) -> dict[str, object]:
    """The release JSON, or one clear error: unreadable, not JSON, not a release, or an older format."""
    where = f"release file {str(path)!r}"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{where} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{where} is not a text (JSON) file") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(document, dict) or "mechanism" not in document or "privacy_ledger" not in document:
        raise InputError(f"{where} is not a dprelease release (no mechanism and privacy ledger)")
    if document.get("format") in (FORMAT, INLINE_FORMAT) or is_inline(document):
        return document
    raise InputError(f"{where} has format {document.get('format')!r}; this version reads {FORMAT!r} (synth --release) "
                     f"and {INLINE_FORMAT!r} (a release from dprelease serve)")


def is_inline(document: dict[str, object]) -> bool:
    """Whether ``document`` holds its answers inline (``to_json``: the service's form, and format 1's before it,
    which had no format field) rather than in a side file."""
    if document.get("format") == INLINE_FORMAT:
        return True
    answers = document.get("workload_answers")
    return ("format" not in document and "side_file" not in document and isinstance(answers, list)
            and all(isinstance(a, dict) and "fractions" in a for a in answers))


def open_side_file(json_path: Path, entry: dict[str, object]) -> dict[str, np.ndarray]:
    """Every array of the side file named in ``entry``, after checking its size and SHA-256."""
    name = str(entry.get("name", ""))
    side = json_path.parent / name
    where = f"release file {str(json_path)!r}"
    if not name or Path(name).name != name:
        raise InputError(f"{where} names its side file {name!r}; expected a file name beside it")
    if not side.is_file():
        raise InputError(f"{where} needs its side file {name!r} (the workload answers and synthetic rows) beside "
                         f"it, which is missing: copy both files together")
    sha, size = file_sha256(side)
    if sha != entry.get("sha256") or size != entry.get("bytes"):
        raise InputError(f"side file {str(side)!r} does not match the SHA-256 recorded in {where}: it was altered "
                         "or belongs to another release")
    try:
        with np.load(side, allow_pickle=False) as archive:
            return {key: archive[key] for key in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:  # pragma: no cover - the hash matched
        raise InputError(f"side file {str(side)!r} does not read as npz: {exc}") from None
