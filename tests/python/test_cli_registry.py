"""`ncmesh`'s commands are one table (ncmesh.cli.COMMANDS): `--help` lists every entry with its
help, each entry's module defines its parser and handler, and only the running command's
module is imported."""

from __future__ import annotations

import importlib
import subprocess
import sys

from ncmesh.cli import COMMANDS, build_parser


def _subcommands(parser):
    (action,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return action


def test_help_lists_every_command_of_the_table_with_its_help():
    top = subprocess.run([sys.executable, "-m", "ncmesh", "--help"], capture_output=True, text=True)
    assert top.returncode == 0, top.stderr
    listed = " ".join(top.stdout.split())
    for name, cmd in COMMANDS.items():
        assert f"{name} {cmd.help}" in listed, name
    assert list(_subcommands(build_parser()).choices) == list(COMMANDS)


def test_every_entry_names_a_parser_and_a_handler_and_its_help_is_the_modules():
    for name, cmd in COMMANDS.items():
        module = importlib.import_module(cmd.module)
        assert callable(getattr(module, cmd.handler)), name
        sub = _subcommands(build_parser(name))
        parser = sub.choices[name]
        assert parser.get_default("handler") is getattr(module, cmd.handler)
        (entry,) = [a for a in sub._choices_actions if a.dest == name]
        assert entry.help.replace("%%", "%") == cmd.help, name      # one help text per command


def test_unknown_command_is_a_usage_error(cli):
    p = cli("nope")
    assert p.returncode == 2 and "invalid choice: 'nope'" in p.stderr
