"""Each function, class, constant and check of ``edr`` is defined in one module only
(the check: :func:`_house.defined_twice`): a copy has one home and is imported elsewhere, a
name used for two jobs is renamed to say what each is."""

from __future__ import annotations

from _house import defined_twice, package_twice

#: The protocol every command line defines for itself (docs/design.md, the command-line
#: protocol): its entry point ``main``, its parser ``build_parser`` and its program name ``PROG``.
#: Nothing else may be defined twice.
COMMAND_LINE_PROTOCOL = frozenset({"main", "build_parser", "PROG"})


def test_no_name_is_defined_in_two_edr_modules():
    twice = package_twice("edr", COMMAND_LINE_PROTOCOL)
    assert not twice, f"defined in more than one edr module: {twice}"


def test_the_protocol_names_are_defined_by_several_command_lines():
    """The allowance is not wider than needed: each name of it is defined more than once."""
    twice = package_twice("edr")
    assert {name for name in COMMAND_LINE_PROTOCOL if name in twice} == COMMAND_LINE_PROTOCOL


def test_the_check_allows_the_protocol_only(tmp_path):
    (tmp_path / "cli_a.py").write_text("PROG = 'a'\nFLAGS = {}\n\ndef main(argv=None):\n"
                                       "    return 0\n\ndef build_parser():\n    pass\n")
    (tmp_path / "cli_b.py").write_text("from cli_a import FLAGS\nPROG = 'b'\n_FLAGS = {}\n\n"
                                       "def main(argv=None):\n    return 0\n\n"
                                       "def _build_parser():\n    pass\n")
    paths = [tmp_path / "cli_a.py", tmp_path / "cli_b.py"]
    assert defined_twice(paths, COMMAND_LINE_PROTOCOL) == {
        "FLAGS": [str(tmp_path / "cli_a.py"), str(tmp_path / "cli_b.py")]}
    assert sorted(defined_twice(paths)) == ["FLAGS", "PROG", "build_parser", "main"]
