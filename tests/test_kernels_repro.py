"""The repro schema (kernels/repro.py), the targets, and the no-jax import promise."""

from __future__ import annotations

import copy
import itertools
import json
import subprocess
import sys
from typing import Any

import pytest
from jax_cudnn_lint.kernels import repro as R
from jax_cudnn_lint.kernels.targets import format_cudnn, make_target, parse_cudnn, parse_gpu


def jcd201(t: int = 511, s: int | None = None, **kw: Any) -> dict[str, Any]:
    s = t if s is None else s
    return R.attention_repro(
        code="JCD201",
        expect=R.odd_seqlen_expect(t, s),
        query=[1, t, 2, 64],
        key=[1, s, 2, 64],
        differentiated=True,
        shrunk=["batch", "heads"],
        **kw,
    )


def test_the_brief_example_is_valid() -> None:
    obj = {
        "schema": "jax-cudnn-lint/repro/1",
        "code": "JCD201",
        "api": "jax.nn.dot_product_attention",
        "differentiated": True,
        "wrt": ["query", "key", "value"],
        "arrays": {
            "query": {"shape": [1, 511, 2, 64], "dtype": "bfloat16"},
            "key": {"shape": [1, 511, 2, 64], "dtype": "bfloat16"},
            "value": {"shape": [1, 511, 2, 64], "dtype": "bfloat16"},
            "bias": {"shape": [1, 2, 511, 511], "dtype": "bfloat16"},
            "mask": {"shape": [1, 1, 511, 511], "dtype": "bool"},
        },
        "kwargs": {
            "implementation": "cudnn",
            "is_causal": False,
            "scale": None,
            "local_window_size": None,
        },
        "expect": {
            "exception": "NotImplementedError",
            "message_regex": "Unsupported sequence length Q 511, KV 511\\.",
        },
        "shrunk": ["batch", "heads"],
    }
    assert R.validate_repro(obj) == []
    assert R.odd_seqlen_expect(511, 511) == obj["expect"]


def test_builders_make_valid_repros() -> None:
    assert R.validate_repro(jcd201()) == []
    assert R.validate_repro(jcd201(7, 9, bias=[1, 2, 7, 9], wrt=["bias"])) == []
    fa = R.attention_repro(
        code="JCD201",
        api=R.API_FA_ATTENTION,
        expect=R.odd_seqlen_expect(7, 7),
        query=[1, 7, 2, 64],
        kwargs={"mask_type": "CAUSAL", "qkv_layout": "BTNH", "sliding_window_length": None},
        extra_arrays={"q_seqlen": {"shape": [1], "dtype": "int32"}},
    )
    assert R.validate_repro(fa) == []
    lstm = R.lstm_repro(
        code="JCD101",
        expect=R.expect_message("NotImplementedError", R.LSTM_REF_DROPOUT_MESSAGE),
        seq_len=5,
        input_size=3,
        hidden_size=4,
        num_layers=2,
        bidirectional=True,
        dropout=0.5,
        differentiated=True,
    )
    assert R.validate_repro(lstm) == []
    assert lstm["arrays"]["h_0"]["shape"] == [4, 1, 4]
    assert lstm["arrays"]["weights"]["shape"] == [R.lstm_num_params(3, 4, 2, True)]
    cudnn_lstm = R.lstm_repro(
        code="JCD102",
        api=R.API_LSTM,
        expect=R.expect_message("NotImplementedError", "bfloat16 support not implemented"),
        seq_len=5,
        input_size=3,
        hidden_size=4,
        precision=("highest", "highest"),
        config={"jax_default_matmul_precision": "bfloat16"},
    )
    assert R.validate_repro(cudnn_lstm) == []
    assert cudnn_lstm["kwargs"]["precision"] == ["highest", "highest"]
    with pytest.raises(ValueError, match="no precision"):
        R.lstm_repro(
            code="JCD101", expect={}, seq_len=1, input_size=1, hidden_size=1, precision="highest"
        )


def test_repros_survive_json() -> None:
    r = jcd201(7, bias=[1, 2, 7, 7])
    assert R.validate_repro(json.loads(json.dumps(r))) == []
    assert R.canonical_json(r) == R.canonical_json(json.loads(json.dumps(r)))
    assert " " not in R.canonical_json({"b": 1, "a": [1, 2]})
    assert R.canonical_json({"b": 1, "a": 2}) == '{"a":2,"b":1}'


def test_unknown_schema_versions_are_rejected_clearly() -> None:
    r = jcd201()
    r["schema"] = "jax-cudnn-lint/repro/2"
    (problem,) = R.validate_repro(r)
    assert "unsupported repro schema version 'jax-cudnn-lint/repro/2'" in problem
    assert "jax-cudnn-lint/repro/1" in problem
    r["schema"] = "something/else"
    (problem,) = R.validate_repro(r)
    assert problem.startswith("not a jax-cudnn-lint repro")
    del r["schema"]
    assert R.validate_repro(r)[0].startswith("not a jax-cudnn-lint repro")
    assert R.validate_repro([1, 2]) == ["a repro must be a JSON object, got list"]


def _mutated(path: list[str | int], value: Any, delete: bool = False) -> dict[str, Any]:
    r = copy.deepcopy(jcd201(7, bias=[1, 2, 7, 7]))
    node: Any = r
    for step in path[:-1]:
        node = node[step]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return r


@pytest.mark.parametrize(
    ("path", "value", "delete", "fragment"),
    [
        (["code"], "X201", False, "code must look like"),
        (["api"], "jax.nn.relu", False, "api must be one of"),
        (["arrays", "query"], None, True, "arrays.query is required"),
        (["arrays", "qq"], {"shape": [1], "dtype": "bfloat16"}, False, "not an operand"),
        (["arrays", "query", "shape"], [1, -7, 2, 64], False, "non-negative integers"),
        (["arrays", "query", "shape"], [1, 7.0, 2, 64], False, "non-negative integers"),
        (["arrays", "query", "shape"], [1, True, 2, 64], False, "non-negative integers"),
        (["arrays", "query", "shape"], [2**16, 2**16, 2**16], False, "elements"),
        (["arrays", "query", "dtype"], "bf16", False, "dtype must be one of"),
        (["arrays", "query", "strides"], [1], False, "unknown field(s) strides"),
        (["differentiated"], "yes", False, "true or false"),
        (["wrt"], [], False, "non-empty list"),
        (["wrt"], ["mask"], False, "cannot be differentiated"),
        (["wrt"], ["query", "query"], False, "duplicates"),
        (["kwargs", "implementation"], 3, False, "kwargs.implementation must be"),
        (["kwargs", "is_causal"], "no", False, "kwargs.is_causal must be a boolean"),
        (["kwargs", "local_window_size"], [1, 2, 3], False, "local_window_size"),
        (["kwargs", "qkv_layout"], "BTNH", False, "not a keyword of"),
        (["expect", "exception"], "Not An Error", False, "exception class name"),
        (["expect", "message_regex"], "(", False, "does not compile"),
        (["expect"], None, True, "missing field(s): expect"),
        (["extra"], 1, False, "unknown field(s): extra"),
        (["shrunk"], "batch", False, "shrunk must be a list"),
        (["config"], {"jax_debug_nans": True}, False, "not an allowed flag"),
    ],
)
def test_each_problem_is_reported(
    path: list[str | int], value: Any, delete: bool, fragment: str
) -> None:
    problems = R.validate_repro(_mutated(path, value, delete))
    assert any(fragment in p for p in problems), problems


def test_wrt_is_ignored_when_not_differentiated() -> None:
    r = jcd201(7)
    r["differentiated"] = False
    assert R.validate_repro(r) == []  # the operands it would differentiate: harmless
    r["wrt"] = "query"
    assert any("wrt must be a list" in p for p in R.validate_repro(r))
    del r["wrt"]
    assert R.validate_repro(r) == []


def test_lstm_kwargs_are_required() -> None:
    r = R.lstm_repro(
        code="JCD101",
        expect={"exception": "E", "message_regex": "x"},
        seq_len=3,
        input_size=2,
        hidden_size=2,
    )
    del r["kwargs"]["dropout"]
    r["kwargs"]["precision"] = "highest"  # lstm_ref has none
    problems = R.validate_repro(r)
    assert any("kwargs.dropout is required" in p for p in problems)
    assert any("kwargs.precision: not a keyword" in p for p in problems)


def test_test_apis_only_with_the_hook_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    r = {
        "schema": R.SCHEMA,
        "code": "JCD999",
        "api": "test.segfault",
        "differentiated": False,
        "arrays": {},
        "kwargs": {},
        "expect": {"exception": "E", "message_regex": ""},
    }
    monkeypatch.delenv(R.TEST_HOOKS_ENV, raising=False)
    assert any("api must be one of" in p for p in R.validate_repro(r))
    monkeypatch.setenv(R.TEST_HOOKS_ENV, "1")
    assert R.validate_repro(r) == []


def test_lstm_num_params_matches_jax() -> None:
    rnn = pytest.importorskip("jax.experimental.rnn")
    for i, h, layers, bidir in itertools.product((1, 3, 8), (1, 4, 5), (1, 2, 3), (False, True)):
        assert R.lstm_num_params(i, h, layers, bidir) == rnn.get_num_params_in_lstm(
            i, h, layers, bidir
        ), (i, h, layers, bidir)


def test_seq_axis_lengths() -> None:
    assert R.seq_axis_lengths(jcd201(7, 9)) == (7, 9)
    three_d = R.attention_repro(code="JCD201", expect={}, query=[7, 2, 64], key=[5, 2, 64])
    assert R.seq_axis_lengths(three_d) == (7, 5)
    assert R.seq_axis_lengths({"api": R.API_LSTM}) is None


def test_targets() -> None:
    assert parse_gpu("sm80") == (8, 0)
    assert parse_gpu("sm_90") == (9, 0)
    assert parse_gpu("sm90a") == (9, 0)
    assert parse_gpu("sm100") == (10, 0)
    assert parse_gpu("sm103") == (10, 3)
    assert parse_gpu("9.0") == (9, 0)
    assert parse_gpu("90") == (9, 0)  # the command's spelling reaches confirm unchanged
    assert parse_gpu("sm100f") == (10, 0)
    assert parse_cudnn("9.10") == 91000
    assert parse_cudnn("9.11") == 91100
    assert parse_cudnn("9.10.2") == 91002
    assert parse_cudnn("8.9.4") == 8904
    assert format_cudnn(91002) == "9.10.2"
    assert format_cudnn(8904) == "8.9.4"
    t = make_target("sm103", "9.10")
    assert t.cc_equal("10.3") and not t.cc_equal("10.0")
    assert t.cc_at_least("9.0") and t.cc_at_least("10.3") and not t.cc_at_least("12.0")
    assert make_target("sm80", "9.10").to_json() == {
        "gpu": "sm80",
        "compute_capability": "8.0",
        "cudnn": "9.10",
        "cudnn_version": 91000,
    }
    for bad in ("h100", "sm", "800", "10", "2.0"):
        with pytest.raises(ValueError, match="unknown GPU target"):
            parse_gpu(bad)
    with pytest.raises(ValueError, match="unknown cuDNN version"):
        parse_cudnn("nine")


def test_importing_the_kernels_does_not_import_jax() -> None:
    code = (
        "import sys\n"
        "import jax_cudnn_lint.kernels as k\n"
        "import jax_cudnn_lint.kernels.runner, jax_cudnn_lint.kernels.cache\n"
        "import jax_cudnn_lint.kernels.probes, jax_cudnn_lint.kernels.padded\n"
        "import jax_cudnn_lint.confirm\n"
        "assert callable(k.padded_dot_product_attention)\n"
        "bad = sorted(m for m in sys.modules if m == 'jax' or m.startswith(('jax.', 'jaxlib')))\n"
        "assert not bad, bad\n"
        "print('ok')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_kernels_never_import_the_static_layers() -> None:
    """Boundary (DESIGN.md): kernels never import lint_rules or shape_inference."""
    from pathlib import Path

    import jax_cudnn_lint.kernels as k

    for path in Path(k.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "lint_rules" not in text and "shape_inference" not in text, path
        assert "jax_cudnn_lint.finding" not in text, path
