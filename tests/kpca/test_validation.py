import numpy as np
import pytest

from kpca._validation import (
    check_array,
    check_choice,
    check_count,
    check_finite,
    check_n_components,
    check_nonnegative,
    check_positive,
    check_positive_values,
    check_random_state,
)


def test_check_array_returns_contiguous_float64():
    X = np.arange(6, dtype=np.int32).reshape(3, 2).T  # non-contiguous ints
    out = check_array(X)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, X)


@pytest.mark.parametrize(
    "X, match",
    [
        (np.array([[1.0, np.nan]]), r"X must contain only finite values; got X\[0, 1\]=nan"),
        (np.array([[1.0], [np.inf]]), r"X\[1, 0\]=inf"),
        (np.zeros(3), r"X must be a 2-D array.*X.ndim=1"),
        (np.zeros((2, 2, 2)), r"X.ndim=3"),
        (np.zeros((0, 3)), r"at least 1 sample.*X.shape=\(0, 3\)"),
        (np.zeros((3, 0)), r"at least 1 feature.*X.shape=\(3, 0\)"),
        ([["a", "b"]], r"X must be a numeric array"),
    ],
)
def test_check_array_rejects(X, match):
    with pytest.raises(ValueError, match=match):
        check_array(X)


def test_check_array_feature_count_and_name():
    with pytest.raises(ValueError, match=r"Z has 3 features but 2 were expected"):
        check_array(np.zeros((4, 3)), "Z", n_features=2)
    with pytest.raises(ValueError, match=r"Z must have at least 2 sample"):
        check_array(np.zeros((1, 3)), "Z", min_samples=2)


def test_check_n_components():
    assert check_n_components(np.int64(3), 5) == 3
    with pytest.raises(
        ValueError, match=r"n_components must be <= n_samples=5; got n_components=7"
    ):
        check_n_components(7, 5)
    with pytest.raises(ValueError, match=r"n_components must be an int >= 1; got n_components=0"):
        check_n_components(0, 5)
    with pytest.raises(
        ValueError, match=r"n_components must be an int >= 1; got n_components=2.5"
    ):
        check_n_components(2.5, 5)
    with pytest.raises(ValueError, match=r"got n_components=True"):
        check_n_components(True, 5)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.inf, np.nan, "x", None])
def test_check_positive_rejects(bad):
    with pytest.raises(ValueError, match=r"sigma2 must be a finite positive number; got sigma2="):
        check_positive(bad, "sigma2")


def test_check_positive_accepts():
    assert check_positive(np.float32(0.5), "sigma2") == 0.5


def test_check_random_state():
    g = np.random.default_rng(1)
    assert check_random_state(g) is g
    a = check_random_state(7).standard_normal(3)
    b = check_random_state(7).standard_normal(3)
    np.testing.assert_array_equal(a, b)
    assert isinstance(check_random_state(None), np.random.Generator)
    with pytest.raises(ValueError, match=r"random_state=-1"):
        check_random_state(-1)
    with pytest.raises(ValueError, match=r"random_state='seed'"):
        check_random_state("seed")


def test_check_count():
    assert check_count(np.int64(3), "q", 2) == 3 and isinstance(
        check_count(np.int64(3), "q", 2), int
    )
    for bad in (1, True, 2.0, "3", None):
        with pytest.raises(ValueError, match=r"q must be an int >= 2; got q="):
            check_count(bad, "q", 2)


@pytest.mark.parametrize(
    "check, good, bad, message",
    [
        (check_finite, [-2, 0.0, np.float32(1.5)], [np.nan, np.inf, "1", True, None, [1.0]],
         r"x must be a finite number; got x="),
        (check_nonnegative, [0, 0.0, 3.5], [-1e-300, np.nan, np.inf, "1", False, None],
         r"x must be a finite number >= 0; got x="),
        (check_positive, [1e-300, 2, np.float64(3.0)], [0.0, -1.0, np.inf, "2", True, None],
         r"x must be a finite positive number; got x="),
    ],
)
def test_number_checks(check, good, bad, message):
    for value in good:
        out = check(value, "x")
        assert type(out) is float and out == float(value)
    for value in bad:
        with pytest.raises(ValueError, match=message):
            check(value, "x")


def test_number_checks_keep_the_given_value_in_the_message():
    with pytest.raises(ValueError, match=r"got alpha=-1$"):
        check_nonnegative(-1, "alpha")


def test_check_positive_values():
    out = check_positive_values([[0.5], [2]], "grid")
    assert out.dtype == np.float64 and out.tolist() == [0.5, 2.0]
    assert check_positive_values(3, "lams").tolist() == [3.0]
    for bad in ([], [1.0, 0.0], [1.0, np.nan], [1.0, np.inf], ["a"], None):
        with pytest.raises(ValueError, match=r"grid must be a non-empty sequence of finite "
                                             r"positive numbers; got grid="):
            check_positive_values(bad, "grid")


def test_check_choice():
    assert check_choice("b", "mode", {"a": 1, "b": 2}) == "b"
    assert check_choice("x", "mode", ("x", "y")) == "x"
    for bad in ("c", None, ["a"], 1):
        with pytest.raises(ValueError, match=r"mode must be one of \['a', 'b'\]; got mode="):
            check_choice(bad, "mode", {"b": 2, "a": 1})
