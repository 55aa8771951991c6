"""``--help`` is complete: every subcommand is described in a sentence and every option has a help text
that ends where its sentence ends (issue 14, item 6: ``online --help`` once stopped at "keeps its own")."""

from __future__ import annotations

import argparse

import pytest

from dprelease.cli import build_parser, main

#: A help text ending in one of these words stops mid-sentence.
DANGLING = {"a", "an", "the", "its", "own", "and", "or", "of", "to", "with", "for", "by", "in", "on", "at", "from",
            "than", "is", "are", "be", "when", "if"}


def subcommands() -> dict[str, tuple[argparse.ArgumentParser, str]]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    summaries = {choice.dest: choice.help for choice in action._choices_actions}
    return {name: (sub, summaries.get(name)) for name, sub in action.choices.items()}


COMMANDS = sorted(subcommands())


def test_every_command_is_listed_with_a_summary():
    assert set(COMMANDS) == {"synth", "evaluate", "report", "demo", "bounds", "online", "schema", "serve"}
    for name, (_, summary) in subcommands().items():
        assert summary and len(summary.split()) >= 4, name


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_has_a_help_text_that_ends_its_sentence(name):
    parser, _ = subcommands()[name]
    assert parser.description and parser.description.rstrip().endswith("."), f"{name}: description"
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        flag = action.option_strings[-1] if action.option_strings else action.dest
        text = (action.help or "").strip()
        assert len(text.split()) >= 2, f"{name} {flag}: no help text"
        last = text.rstrip(".)").split()[-1].lower()
        assert last not in DANGLING, f"{name} {flag}: help stops mid-sentence: ...{text[-40:]!r}"


@pytest.mark.parametrize("name", COMMANDS)
def test_help_prints_and_exits_zero(name, capsys):
    with pytest.raises(SystemExit) as done:
        main([name, "--help"])
    assert done.value.code == 0
    assert f"usage: dprelease {name}" in capsys.readouterr().out


def test_the_dangling_check_catches_a_truncated_help_text():
    parser = argparse.ArgumentParser(description="A command.")
    parser.add_argument("--representation", help="a resumed session keeps its own")
    action = parser._actions[-1]
    assert action.help.rstrip(".)").split()[-1].lower() in DANGLING


def test_a_misspelled_flag_is_named_before_the_required_ones(capsys):
    """argparse checks required flags first, so --querys was reported as '--queries is required'."""
    for argv, expected in (
        (["bounds", "--n", "10", "--universe", "4", "--querys", "3", "--epsilon", "1"],
         "dprelease: error: unrecognized argument '--querys' (did you mean --queries?)"),
        (["bounds", "--n", "10", "--univ", "4", "--epsilon", "1"],  # an abbreviation is no misspelling
         "dprelease: error: the following arguments are required: --queries"),
    ):
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 2 and capsys.readouterr().err.strip().splitlines() == [expected]
