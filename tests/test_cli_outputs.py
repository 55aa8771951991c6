"""The command's output paths: checked before anything is read or spent, written all together or not at all.

Contract (cli/common.py): a path that cannot be written is one line ``dprelease: error: --OPTION ...`` on stderr,
exit code 2, nothing written and no noise drawn. Special files are refused (a rename would replace them), a
symlink is written through, and published files get the mode any new file gets.
"""

from __future__ import annotations

import errno
import io
import json
import os
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from dprelease.cli import EXIT_BROKEN_PIPE, main
from dprelease.errors import SeededRunWarning
from tests.counting import count_random_draws

SYNTH = ("--workload", "1-2way", "--epsilon", "1", "--rounds", "2", "--seed", "0", "--quiet")


def synth_argv(files: dict[str, Path], out: Path, *extra: str) -> list[str]:
    return ["synth", str(files["data"]), "--domain", str(files["domain"]), *SYNTH, "--out", str(out), *extra]


def snapshot(folder: Path) -> dict[str, object]:
    """Every entry under ``folder`` with its kind and bytes (a FIFO or link as what it is, never read)."""
    def entry(p: Path) -> object:
        if p.is_symlink():
            return ("link", os.readlink(p))
        return p.read_bytes() if p.is_file() else stat.S_IFMT(p.lstat().st_mode)
    return {str(p.relative_to(folder)): entry(p) for p in sorted(folder.rglob("*"))}


def refused(argv: list[str], tmp_path: Path, capsys, monkeypatch) -> str:
    """Run ``argv``; check the contract of a refused output path; return the error line."""
    draws = count_random_draws(monkeypatch)
    before = snapshot(tmp_path)
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert captured.err.startswith("dprelease: error: ") and captured.err.count("\n") == 1, captured.err
    assert captured.out == ""
    assert snapshot(tmp_path) == before  # nothing written, no temporary file left
    assert draws == [], "noise was drawn before the output path was refused"
    return captured.err


# ------------------------------------------------------------------ refused up front
def test_out_under_a_file_is_refused(tiny_files, tmp_path, capsys, monkeypatch):
    err = refused(synth_argv(tiny_files, tiny_files["data"] / "s.csv"), tmp_path, capsys, monkeypatch)
    assert "--out" in err and "data.csv' is not a folder" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write a read-only folder")
def test_out_in_a_read_only_folder_is_refused(tiny_files, tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    err = refused(synth_argv(tiny_files, locked / "s.csv"), tmp_path, capsys, monkeypatch)
    assert "--out" in err and "Permission denied" in err


@pytest.mark.skipif(not Path("/proc/version").is_file(), reason="needs Linux's /proc")
def test_release_where_no_file_can_be_made_leaves_no_rows_either(tiny_files, tmp_path, capsys, monkeypatch):
    # /proc/version is a regular file in a folder where even root makes no file: os.access says yes there.
    out = tmp_path / "s.csv"
    err = refused(synth_argv(tiny_files, out, "--release", "/proc/version"), tmp_path, capsys, monkeypatch)
    assert "--release '/proc/version'" in err and "no file can be made" in err
    assert not out.exists()


@pytest.mark.parametrize("option", ["--out", "--release"])
def test_a_fifo_is_refused_not_replaced(tiny_files, tmp_path, capsys, monkeypatch, option):
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    outputs = {"--out": tmp_path / "s.csv", "--release": tmp_path / "r.json", option: fifo}
    argv = synth_argv(tiny_files, outputs["--out"], "--release", str(outputs["--release"]))
    err = refused(argv, tmp_path, capsys, monkeypatch)
    assert f"{option} '{fifo}' exists and is not a regular file" in err and "atomically" in err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_release_and_out_naming_one_file_says_so(tiny_files, tmp_path, capsys, monkeypatch):
    same = tmp_path / "s.csv"
    err = refused(synth_argv(tiny_files, same, "--release", str(same)), tmp_path, capsys, monkeypatch)
    assert f"--release '{same}' and --out name the same file" in err
    assert "input" not in err


def test_schema_and_report_check_their_out_too(tiny_files, tmp_path, capsys, monkeypatch):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    err = refused(["schema", str(tiny_files["data"]), "--epsilon", "1", "--out", str(tiny_files["data"] / "s.json")],
                  tmp_path, capsys, monkeypatch)
    assert "--out" in err and "is not a folder" in err
    assert main(synth_argv(tiny_files, tmp_path / "s.csv", "--release", str(tmp_path / "r.json"))) == 0
    capsys.readouterr()
    err = refused(["report", str(tmp_path / "r.json"), "--out", str(fifo), "--quiet"], tmp_path, capsys, monkeypatch)
    assert f"--out '{fifo}' exists and is not a regular file" in err


def test_online_out_under_a_file_is_refused_before_the_session_starts(tiny_files, tmp_path, capsys, monkeypatch):
    argv = ["online", str(tiny_files["data"]), "--domain", str(tiny_files["domain"]), "--epsilon", "1",
            "--max-queries", "5", "--state", str(tmp_path / "s.json"), "--out", str(tiny_files["data"] / "a.jsonl")]
    err = refused(argv, tmp_path, capsys, monkeypatch)  # no state file either: nothing was spent
    assert "--out" in err and "data.csv' is not a folder" in err


# ------------------------------------------------------------------ writing
def test_a_symlink_is_written_through_and_kept(tiny_files, tmp_path, capsys):
    target, link = tmp_path / "target.csv", tmp_path / "link.csv"
    target.write_text("old\n")
    link.symlink_to(target.name)
    assert main(synth_argv(tiny_files, link)) == 0, capsys.readouterr().err
    assert link.is_symlink() and os.readlink(link) == "target.csv"
    assert target.read_text().startswith("a,b,c\n")


def test_a_write_failing_at_the_end_is_one_line_and_leaves_no_outputs(tiny_files, tmp_path, capsys, monkeypatch):
    def disk_full(path, document):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("dprelease.cli.common.write_document", disk_full)  # the last file written
    before = snapshot(tmp_path)
    with warnings.catch_warnings():  # the seeded run's warning is shown once a process: alone, this test saw it
        warnings.simplefilter("ignore", SeededRunWarning)
        code = main(synth_argv(tiny_files, tmp_path / "s.csv", "--release", str(tmp_path / "r.json")))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"--release '{tmp_path / 'r.json'}' could not be written (No space left on device)" in err
    assert "no output was written, but the run spent its privacy budget" in err
    assert snapshot(tmp_path) == before  # neither the rows nor the side file, no temporary file


def test_outputs_get_the_usual_mode_and_keep_an_existing_one(tiny_files, tmp_path, capsys):
    old_umask = os.umask(0o022)
    try:
        out, kept = tmp_path / "s.csv", tmp_path / "kept.csv"
        kept.write_text("old\n")
        kept.chmod(0o640)
        assert main(synth_argv(tiny_files, out, "--release", str(tmp_path / "r.json"))) == 0
        assert main(synth_argv(tiny_files, kept)) == 0
        assert main(["report", str(tmp_path / "r.json"), "--out", str(tmp_path / "r.md"), "--quiet"]) == 0
        assert main(["report", str(tmp_path / "r.json"), "--out", str(tmp_path / "real.md"), "--quiet",
                     "--data", str(tiny_files["data"])]) == 0
    finally:
        os.umask(old_umask)
    capsys.readouterr()
    mode = lambda name: stat.S_IMODE((tmp_path / name).stat().st_mode)  # noqa: E731
    assert [mode(n) for n in ("s.csv", "r.json", "r.answers.npz", "r.md")] == [0o644] * 4  # to be published
    assert mode("kept.csv") == 0o640
    assert mode("real.md") == 0o600  # computed from the real data: the curator's only


# ------------------------------------------------------------------ stdout closed early
def test_a_closed_pipe_ends_evaluate_quietly(tiny_files):
    exe = Path(sys.executable).parent / "dprelease"
    argv = [str(exe), "evaluate", str(tiny_files["data"]), str(tiny_files["data"]), "--domain",
            str(tiny_files["domain"]), "--workload", "1-2way", "--per-marginal", "--quiet"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader leaves before the command prints (it is still importing)
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == EXIT_BROKEN_PIPE, err
    assert err == ""


# ------------------------------------------------------------------ missing folders
def test_every_output_path_makes_its_missing_folders(tiny_files, tmp_path, capsys, monkeypatch):
    """synth, report, schema and online --state always made them; online --out refused them ("its folder ...
    does not exist") until it was made to agree with the others."""
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"id": 1, "where": {"a": 0}}\n'))
    out, state = tmp_path / "new" / "deeper" / "a.jsonl", tmp_path / "other" / "s.json"
    # epsilon 8: at n = 200 rows Thm 4.14 supports no alpha <= 1 below epsilon 5.4
    code = main(["online", str(tiny_files["data"]), "--domain", str(tiny_files["domain"]), "--epsilon", "8",
                 "--max-queries", "5", "--seed", "0", "--quiet", "--state", str(state), "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert json.loads(out.read_text())["query"] == 1 and state.is_file()
    assert main(synth_argv(tiny_files, tmp_path / "rows" / "s.csv", "--release", str(tmp_path / "rel" / "r.json"))) == 0
    assert main(["report", str(tmp_path / "rel" / "r.json"), "--format", "md", "--quiet",
                 "--out", str(tmp_path / "reports" / "r.md")]) == 0
    assert (tmp_path / "rows" / "s.csv").is_file() and (tmp_path / "reports" / "r.md").is_file()
