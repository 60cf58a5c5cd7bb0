"""hwrec translates its own functions' errors only: another pybind11
extension in the same process keeps its exceptions as pybind11 raises them."""

import pytest

import hwrec  # noqa: F401  (registers hwrec's translation first)

other = pytest.importorskip("hwrec_test_other_module")


def test_another_extensions_cast_error_is_not_rewritten_as_hwrecs():
    with pytest.raises(RuntimeError) as raised:
        other.cast_fails()
    assert not isinstance(raised.value, TypeError)
    assert "hwrec" not in str(raised.value)


def test_hwrecs_own_value_errors_still_name_the_argument(store):
    with pytest.raises(TypeError, match="busy_timeout_ms"):
        hwrec.Store(store.path, busy_timeout_ms="soon")
