"""Each function, class, constant and check of ``kpca`` is defined in one module only
(the check: :func:`_house.defined_twice`)."""

from __future__ import annotations

from _house import defined_twice, package_twice


def test_no_name_is_defined_in_two_kpca_modules():
    twice = package_twice("kpca")
    assert not twice, f"defined in more than one kpca module: {twice}"


def test_the_check_finds_a_private_copy_and_ignores_imports(tmp_path):
    (tmp_path / "a.py").write_text("import numpy as np\nLIMIT = 3\n\ndef check_count(v):\n"
                                   "    return v\n\nclass Result:\n    pass\n")
    (tmp_path / "b.py").write_text("from a import LIMIT, check_count\n__all__ = ['f']\n"
                                   "_LIMIT: int = 4\n\ndef _check_count(v):\n    return v\n")
    (tmp_path / "c.py").write_text("__all__ = ['g']\nnp = None\n\ndef result():\n    pass\n")
    twice = defined_twice([tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"])
    assert sorted(twice) == ["LIMIT", "check_count"]
    assert twice["LIMIT"] == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
