"""Tests run with the rows their decorators give: absl's parameterized, hypothesis'
@example, pytest's parametrize (shape_inference/case_rows.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from jax_cudnn_lint.cli import main


def jcd201_lines(tmp_path: Path, capsys: Any, name: str, source: str) -> tuple[int, str, list[int]]:
    """Lint `source` as tmp_path/name: exit code, output, the lines reported as JCD201."""
    path = tmp_path / name
    path.write_text(source)
    code = main(["--no-cache", "-j1", str(path)])
    out = capsys.readouterr().out
    return code, out, [int(m[1]) for m in re.finditer(r":(\d+):\d+: JCD201 ", out)]

SOURCE = '''
import jax
import jax.numpy as jnp
import pytest
from absl.testing import parameterized
from hypothesis import assume, example, given, reject, strategies as st


def attention(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")  # row 255


def grad_of(attend, seq_len, heads=4):
    x = jnp.zeros((2, seq_len, heads, 64), jnp.bfloat16)
    return jax.grad(lambda x: jnp.mean(attend(x).astype(jnp.float32)))(x)


def named(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")  # all even


def product(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")  # product 127


def listed(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")  # dict row 63


def hypothesis_example(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")  # example 31


def generated_only(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")  # unknown


def assumed_even(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")  # example dropped


def pytest_rows(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")  # crossed 15


class AttentionTest(parameterized.TestCase):

    @parameterized.parameters((128,), (255,))
    def test_tuples(self, seq_len):
        grad_of(attention, seq_len)

    @parameterized.named_parameters(("short", 64), dict(testcase_name="long", seq_len=256))
    def test_named(self, seq_len):
        grad_of(named, seq_len)

    @parameterized.product(seq_len=[64, 127], heads=[4, 8])
    def test_product(self, seq_len, heads):
        grad_of(product, seq_len, heads)

    @parameterized.parameters([dict(seq_len=32), dict(seq_len=63)])
    def test_one_list_of_dicts(self, seq_len):
        grad_of(listed, seq_len)


@given(st.integers(1, 512))
@example(seq_len=31)
def test_hypothesis(seq_len):
    grad_of(hypothesis_example, seq_len)


@given(seq_len=st.integers(1, 512))
def test_generated(seq_len):
    grad_of(generated_only, seq_len)


@given(st.integers(32, 64))
@example(seq_len=63)
def test_assumed_even(seq_len):
    assume(seq_len % 2 == 0)  # hypothesis drops the example whose assumption fails (probe 38b)
    grad_of(assumed_even, seq_len)


@given(st.integers(32, 64))
@example(seq_len=61)
def test_rejected_odd(seq_len):
    if seq_len % 2:
        reject()  # as assume(False) (probe 40a)
    grad_of(assumed_even, seq_len)


@pytest.mark.parametrize("heads", [4, 8])
@pytest.mark.parametrize("seq_len", [16, 15])
def test_pytest(seq_len, heads):
    grad_of(pytest_rows, seq_len, heads)
'''


def test_rows_of_test_decorators_reach_the_attention(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "test_attention.py"
    path.write_text(SOURCE)
    code = main(["--no-cache", "-j1", str(path)])
    out = capsys.readouterr().out
    lines = SOURCE.splitlines()
    reported = {int(m[1]): m[2] for m in re.finditer(r":(\d+):\d+: (JCD\d+) ", out)}
    tagged = {lines[n - 1].split("# ")[-1]: code for n, code in reported.items()}
    assert tagged == {"row 255": "JCD201", "product 127": "JCD201", "dict row 63": "JCD201", "example 31": "JCD201", "crossed 15": "JCD201"}, out
    assert code == 1
    for length in ("255", "127", "63", "31", "15"):
        assert f"T = S = {length} (literal {length} at line" in out


@pytest.mark.parametrize(
    "decorator",
    [
        "@parameterized.parameters(255)",  # one value that is not a list of cases: absl raises
        "@parameterized.named_parameters((255,))",  # no name: absl raises
        "@parameterized.parameters(*CASES)",  # cases the analysis cannot read
    ],
)
def test_rows_it_cannot_read_leave_the_test_unknown(decorator: str, tmp_path: Path, capsys: Any) -> None:
    source = (
        "import jax\nimport jax.numpy as jnp\nfrom absl.testing import parameterized\n\n\n"
        f"class T(parameterized.TestCase):\n    {decorator}\n    def test_it(self, seq_len):\n"
        "        x = jnp.zeros((2, seq_len, 4, 64), jnp.bfloat16)\n"
        "        jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation='cudnn')))(x)\n"
    )
    path = tmp_path / "test_one.py"
    path.write_text(source)
    assert main(["--no-cache", "-j1", str(path)]) == 0, capsys.readouterr().out


SKIPPED = '''
import sys
import unittest

from absl.testing import absltest

import jax
import jax.numpy as jnp
import pytest

X = jnp.zeros((2, 255, 4, 64), jnp.bfloat16)


def loss(attend):
    return jax.grad(lambda x: jnp.mean(attend(x).astype(jnp.float32)))(X)


@pytest.mark.skip
def test_bare_skip():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.skip(reason="needs a GPU")
def test_skip():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.skipif(True, reason="off")
def test_skipif_true():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.skipif(sys.byteorder == "little", reason="maybe")
def test_skipif_unknown():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.skipif("jax.default_backend() != 'gpu'", reason="GPU only")
def test_skipif_string_false_on_the_gpu():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.skipif("jax.default_backend() == 'gpu'", reason="CPU reference")
def test_skipif_string_true_on_the_gpu():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.skipif(False, "jax.default_backend() == 'gpu'", reason="any condition (probe 40a)")
def test_skipif_second_condition_true_on_the_gpu():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.xfail(raises=ValueError, strict=True)
def test_xfail_expecting_another_class():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.xfail(jax.default_backend() == "tpu", reason="TPU only", raises=NotImplementedError)
def test_xfail_whose_condition_is_false():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.xfail(sys.byteorder == "little", raises=(NotImplementedError, ValueError))
def test_xfail_whose_condition_is_unknown():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.xfail(raises=RuntimeError)
def test_xfail_expecting_a_base_class():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


def test_marked_xfail_at_run_time(request):
    request.applymarker(pytest.mark.xfail(raises=NotImplementedError, strict=True))  # (probe 38b)
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


def test_marked_xfail_for_another_class(request):
    request.node.add_marker(pytest.mark.xfail(raises=TypeError))
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


class Cases(unittest.TestCase):
    @unittest.skip("later")
    def test_unittest_skip(self):
        loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))

    @unittest.skipUnless(False, "never")
    def test_skip_unless_false(self):
        loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))

    @unittest.skipIf(False, "runs")
    def test_skip_if_false(self):
        loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))

    @absltest.skipIf(True, "absltest re-exports unittest's decorators (probe 48c)")
    def test_absltest_skip_if_true(self):
        loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))

    @absltest.skipIf(False, "runs")
    def test_absltest_skip_if_false(self):
        loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))
'''


def test_tests_a_decorator_certainly_skips_are_not_analysed(tmp_path: Path, capsys: Any) -> None:
    code, out, found = jcd201_lines(tmp_path, capsys, "test_skips.py", SKIPPED)
    assert code == 1
    lines = SKIPPED.splitlines()
    reported = [lines[n - 2].strip() for n in found]
    # only the tests that run: the skipif the analysis cannot evaluate, a string condition
    # false on the GPU, skipIf(False), and xfail marks that expect another class or whose
    # condition is false (probe 38b: pytest reports them failed)
    assert reported == [
        "def test_skipif_unknown():",
        "def test_skipif_string_false_on_the_gpu():",
        "def test_xfail_expecting_another_class():",
        "def test_xfail_whose_condition_is_false():",
        "request.node.add_marker(pytest.mark.xfail(raises=TypeError))",  # (the line before the call)
        "def test_skip_if_false(self):",
        "def test_absltest_skip_if_false(self):",
    ], out


CLASS_AND_MODULE_SKIPS = {
    "test_class_skip.py": '''
import unittest

import jax
import jax.numpy as jnp
import pytest

X = jnp.zeros((2, 255, 4, 64), jnp.bfloat16)


def loss(attend):
    return jax.grad(lambda x: jnp.mean(attend(x).astype(jnp.float32)))(X)


@unittest.skip("needs a GPU")
class SkippedCase(unittest.TestCase):
    def test_it(self):
        loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.skip(reason="later")
class TestSkipped:
    def test_it(self):
        loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.xfail(raises=NotImplementedError)
def test_expected_to_fail():
    loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))


@pytest.mark.parametrize("seq_len", [pytest.param(253, marks=pytest.mark.skip), 256])
def test_skipped_row(seq_len):
    x = jnp.zeros((2, seq_len, 4, 64), jnp.bfloat16)
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(x)


class TestRuns:
    def test_it(self):
        loss(lambda x: jax.nn.dot_product_attention(x, x, x, implementation="cudnn"))
''',
    "test_module_skip.py": '''
import jax
import jax.numpy as jnp
import pytest

pytestmark = pytest.mark.skip(reason="GPU only")


def test_it():
    x = jnp.zeros((2, 255, 4, 64), jnp.bfloat16)
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(x)
''',
}


def test_skips_on_classes_modules_and_rows(tmp_path: Path, capsys: Any) -> None:
    for name, text in CLASS_AND_MODULE_SKIPS.items():
        (tmp_path / name).write_text(text)
    assert main(["--no-cache", "-j1", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    found = [(Path(m[1]).name, int(m[2])) for m in re.finditer(r"^(.*?):(\d+):\d+: JCD201 ", out, re.M)]
    lines = CLASS_AND_MODULE_SKIPS["test_class_skip.py"].splitlines()
    assert found == [("test_class_skip.py", next(i for i, line in enumerate(lines, 1) if "class TestRuns" in line) + 2)], out


CLASS_FIXTURES = """
import jax
import jax.numpy as jnp
import pytest


@pytest.fixture
def seq_len():
    return 255


def loss(x):
    return jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32))


class TestEven:
    @pytest.fixture
    def seq_len(self):
        return 256  # pytest gives the class's tests the class's fixture

    def test_grad(self, seq_len):
        jax.grad(loss)(jnp.zeros((2, seq_len, 4, 64), jnp.bfloat16))


def test_module_level(seq_len):
    x = jnp.zeros((2, seq_len, 4, 64), jnp.bfloat16)
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(x)
"""


def test_a_test_class_fixture_overrides_the_module_fixture(tmp_path: Path, capsys: Any) -> None:
    code, out, reported = jcd201_lines(tmp_path, capsys, "test_fixtures.py", CLASS_FIXTURES)
    assert code == 1
    lines = CLASS_FIXTURES.splitlines()
    assert reported == [len(lines)], out  # the module-level test only, with 255


FIXTURE_PARAMS = """
import jax
import jax.numpy as jnp
import pytest


@pytest.fixture(params=[128, 255])
def seq_len(request):
    return request.param


@pytest.fixture(params=[64, pytest.param(256, id="long")])
def even_len(request):
    return request.param


@pytest.fixture(scope="module")
def module_len():
    return 127


def test_odd_param(seq_len):
    x = jnp.zeros((2, seq_len, 4, 64), jnp.bfloat16)
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(x)


def test_even_params(even_len):
    x = jnp.zeros((2, even_len, 4, 64), jnp.bfloat16)
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(x)


def test_scoped_fixture(module_len):
    x = jnp.zeros((2, module_len, 4, 64), jnp.bfloat16)
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(x)


@pytest.fixture(params=[(128, jnp.bfloat16), (255, jnp.bfloat16)])
def query(request):
    length, dtype = request.param  # a body that builds from the param (probe 30a)
    return jnp.zeros((2, length, 4, 64), dtype)


def test_built_from_param(query):
    x = query
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(x)
"""


def test_fixture_params_and_fixture_options(tmp_path: Path, capsys: Any) -> None:
    code, out, found = jcd201_lines(tmp_path, capsys, "test_params.py", FIXTURE_PARAMS)
    assert code == 1
    lines = FIXTURE_PARAMS.splitlines()
    reported = [lines[n - 3].strip() for n in found]
    # one run per param (255 fails, 64 and 256 do not); a fixture with options (scope=) still counts
    assert reported == ["def test_odd_param(seq_len):", "def test_scoped_fixture(module_len):", "def test_built_from_param(query):"], out


FIXTURE_CHAINS = """
import jax
import jax.numpy as jnp
import pytest


@pytest.fixture(params=[64, 127])
def seq_len(request):
    return request.param


@pytest.fixture
def tokens(seq_len):
    return jnp.zeros((2, seq_len, 4, 64), jnp.bfloat16)


@pytest.fixture
def padded(seq_len):
    return jnp.zeros((2, seq_len + seq_len % 2, 4, 64), jnp.bfloat16)


def test_through_a_fixture(tokens):
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(tokens)


def test_padded_only(padded):
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(padded)


def test_one_value_per_run(tokens, padded):
    # (both from one seq_len: an odd padded length never meets an even token count)
    assert tokens.shape[1] % 2 == 1 or padded.shape[1] == tokens.shape[1]
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(padded)


@pytest.fixture
def width():
    return 48


@pytest.fixture
def columns(width):
    return jnp.zeros((2, width, 4, 64), jnp.bfloat16)


@pytest.mark.parametrize("width", [48, 75])
def test_parametrize_overrides_the_requested_fixture(columns):
    jax.grad(lambda x: jnp.mean(jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32)))(columns)
"""


def test_params_of_a_fixture_that_a_fixture_requests(tmp_path: Path, capsys: Any) -> None:
    """Probe 108d: `tokens(seq_len)` with seq_len over [64, 127] trains at 127 in one run,
    and a parametrize row overrides the fixture another fixture requests; the analysis
    had built `tokens` once, with seq_len unknown.  A padded fixture of the same seq_len
    never trains an odd length."""
    code, out, found = jcd201_lines(tmp_path, capsys, "test_chains.py", FIXTURE_CHAINS)
    assert code == 1
    lines = FIXTURE_CHAINS.splitlines()
    reported = [lines[n - 2].strip() for n in found]  # (the def above each grad line)
    assert reported == ["def test_through_a_fixture(tokens):", "def test_parametrize_overrides_the_requested_fixture(columns):"], out


TWO_TESTS_ONE_HELPER = """
import jax
import jax.numpy as jnp
import pytest


def make_q(seq):
    return jnp.zeros((1, seq, 4, 64), jnp.bfloat16)


def loss(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32).sum()


def test_expected():
    q = make_q(31)
    with pytest.raises(NotImplementedError):
        jax.eval_shape(jax.grad(loss), q)


def test_unexpected():
    q = make_q(31)  # the test that fails
    jax.eval_shape(jax.grad(loss), q)
"""


def test_the_evidence_names_the_failing_tests_literal(tmp_path: Path, capsys: Any) -> None:
    # probe 38b: make_q(31) called by two tests was one memoised call, and the finding
    # cited the literal of the test that expects the failure
    code, out, found = jcd201_lines(tmp_path, capsys, "test_two.py", TWO_TESTS_ONE_HELPER)
    assert code == 1 and len(found) == 1
    line = next(i for i, text in enumerate(TWO_TESTS_ONE_HELPER.splitlines(), 1) if "the test that fails" in text)
    assert f"literal 31 at line {line})" in out, out


WRAPPED_TESTS = """
import functools
from unittest import mock

import jax
import jax.numpy as jnp
import pytest


def plain(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def expecting_the_failure(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with pytest.raises(NotImplementedError):
            fn(*args, **kwargs)
    return wrapper


def grad_of_attention(seq_len):
    q = jnp.zeros((1, seq_len, 4, 64), jnp.bfloat16)
    return jax.grad(lambda q: jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32).sum())(q)


@plain
def test_plainly_wrapped():
    grad_of_attention(65)  # reported


@expecting_the_failure
def test_wrapped_in_an_expectation():
    grad_of_attention(67)


def on_xla(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with mock.patch("jax.nn.dot_product_attention", lambda q, k, v, **kw: q):
            return fn(*args, **kwargs)
    return wrapper


@on_xla
def test_wrapped_in_a_patch():
    grad_of_attention(69)  # the wrapper replaces the attention around it (probe 41a)
"""


def test_a_test_under_a_users_decorator_is_analysed(tmp_path: Path, capsys: Any) -> None:
    # probe 38b: the name is bound to the decorator's `wrapper(*args, **kwargs)`; the test
    # itself is analysed too, unless the wrapper calls it under a try or an expectation
    code, out, found = jcd201_lines(tmp_path, capsys, "test_wrapped.py", WRAPPED_TESTS)
    assert code == 1 and len(found) == 1, out
    assert "T = S = 65" in out and "T = S = 67" not in out and "T = S = 69" not in out


XFAIL_ROWS = """
import jax
import jax.numpy as jnp
import pytest


def grad_of(seq_len):
    q = jnp.zeros((1, seq_len, 4, 64), jnp.bfloat16)
    return jax.grad(lambda q: jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32).sum())(q)


@pytest.mark.parametrize("seq_len", [32, pytest.param(33, marks=pytest.mark.xfail(raises=NotImplementedError))])
def test_expected_row(seq_len):
    grad_of(seq_len)


@pytest.mark.parametrize("seq_len", [64, pytest.param(35, marks=pytest.mark.xfail(raises=ValueError, strict=True))])
def test_row_expecting_another_class(seq_len):
    grad_of(seq_len)
"""


def test_rows_marked_xfail_expect_what_the_mark_names(tmp_path: Path, capsys: Any) -> None:
    # probe 41b: a row's xfail mark skipped the row; it runs, and expects only its raises=
    code, out, found = jcd201_lines(tmp_path, capsys, "test_rows.py", XFAIL_ROWS)
    assert code == 1 and len(found) == 1, out
    assert "T = S = 35" in out and "T = S = 33" not in out


HYPOTHESIS_SOURCE = '''
import jax
import jax.numpy as jnp
import pytest
from hypothesis import given, strategies as st


def sampled(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")  # JCD201


def even_sampled(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")


def generated(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn")


def grad_of(attend, seq_len):
    x = jnp.zeros((2, seq_len, 4, 64), jnp.bfloat16)
    return jax.grad(lambda x: jnp.mean(attend(x).astype(jnp.float32)))(x)


@pytest.fixture(params=[128, 255])
def seq_len(request):
    return request.param


@given(seq_len=st.sampled_from([128, 255]))
def test_sampled(seq_len):
    grad_of(sampled, seq_len)


@given(st.sampled_from([128, 256]))
def test_even_sampled(seq_len):
    grad_of(even_sampled, seq_len)


@given(seq_len=st.integers(8, 256).map(lambda n: 2 * n))
def test_generated(seq_len):
    grad_of(generated, seq_len)
'''


def test_hypothesis_supplies_its_arguments(tmp_path: Path, capsys: Any) -> None:
    """Probe 53b: `@given` supplies the parameter, so the conftest-style fixture of that
    name (params=[128, 255]) is not asked for it (3 false positives); a `sampled_from`
    over a few listed values runs each, as parametrize rows do."""
    _, _, lines = jcd201_lines(tmp_path, capsys, "test_given.py", HYPOTHESIS_SOURCE)
    marked = [i for i, line in enumerate(HYPOTHESIS_SOURCE.splitlines(), start=1) if line.endswith("# JCD201")]
    assert lines == marked


CHEX_VARIANTS = '''
import chex
import jax
import jax.numpy as jnp


class WindowTest(chex.TestCase):

    @chex.variants(with_jit=True, without_jit=True)
    def test_window_grad(self):
        x = jnp.zeros((1, 200, 4, 64), jnp.bfloat16)

        def loss(x):
            win = x[:, 3:52]
            return jax.nn.dot_product_attention(win, win, win, implementation="cudnn").astype(jnp.float32).sum()

        jax.eval_shape(self.variant(jax.grad(loss)), x)

    @chex.all_variants
    def test_even_window_grad(self):
        x = jnp.zeros((1, 200, 4, 64), jnp.bfloat16)

        def loss(x):
            win = x[:, 3:51]
            return jax.nn.dot_product_attention(win, win, win, implementation="cudnn").astype(jnp.float32).sum()

        jax.eval_shape(self.variant(jax.grad(loss)), x)
'''


def test_chex_variants_run_the_method_as_it_is(tmp_path: Path, capsys: Any) -> None:
    # probe 81e: @chex.variants made the method opaque, and self.variant(fn) unknown
    # (traced with chex installed: both variants raise "Q 49, KV 49"; 48 is clean)
    code, out, lines = jcd201_lines(tmp_path, capsys, "attention_chex_test.py", CHEX_VARIANTS)
    assert code == 1 and lines == [15], out
