"""The repro schema: a JSON object that the confirm backends can run with nothing else.

A repro names one JAX API, the shapes and dtypes of its array operands, its keyword
arguments, whether it is differentiated (and with respect to what), and the exception the
linter predicts.  The full field list is in docs/repro-schema.md; this module is its
reference implementation (`validate_repro`) and holds the builders the linter uses.

Pure Python: nothing here imports jax.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

SCHEMA = "jax-cudnn-lint/repro/1"
SCHEMA_PREFIX = "jax-cudnn-lint/repro/"

API_NN_ATTENTION = "jax.nn.dot_product_attention"
API_FA_ATTENTION = "jax._src.cudnn.fused_attention_stablehlo.dot_product_attention"
API_LSTM_REF = "jax.experimental.rnn.lstm_ref"
API_LSTM = "jax.experimental.rnn.lstm"

ATTENTION_APIS = (API_NN_ATTENTION, API_FA_ATTENTION)
LSTM_APIS = (API_LSTM_REF, API_LSTM)
APIS = ATTENTION_APIS + LSTM_APIS

# Test-only APIs: a child that segfaults, hangs or exits.  Accepted by the validator and
# honoured by the child only when this variable is "1" in their environment.
TEST_HOOKS_ENV = "JCD_CONFIRM_TEST_HOOKS"
TEST_APIS = ("test.segfault", "test.hang", "test.exit")

TOP_LEVEL_REQUIRED = ("schema", "code", "api", "differentiated", "arrays", "kwargs", "expect")
TOP_LEVEL_OPTIONAL = ("wrt", "shrunk", "config")

# Array operands per API: (required, optional).  Names are the API's own parameter names.
API_ARRAYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    API_NN_ATTENTION: (
        ("query", "key", "value"),
        ("bias", "mask", "query_seq_lengths", "key_value_seq_lengths"),
    ),
    API_FA_ATTENTION: (
        ("query", "key", "value"),
        ("bias", "mask", "q_seqlen", "kv_seqlen", "q_offsets", "kv_offsets"),
    ),
    API_LSTM_REF: (("x", "h_0", "c_0", "weights", "seq_lengths"), ()),
    API_LSTM: (("x", "h_0", "c_0", "weights", "seq_lengths"), ()),
}

# Operands that can carry a tangent (the rest are masks and integer lengths/offsets).
DIFFERENTIABLE = frozenset({"query", "key", "value", "bias", "x", "h_0", "c_0", "weights"})

_LSTM_KWARGS_REQUIRED = ("input_size", "hidden_size", "num_layers", "dropout", "bidirectional")

# Keyword arguments per API: (required, optional).
API_KWARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    API_NN_ATTENTION: (
        (),
        ("implementation", "is_causal", "scale", "local_window_size", "return_residual"),
    ),
    API_FA_ATTENTION: (
        (),
        (
            "scale",
            "mask_type",
            "seed",
            "dropout_rate",
            "qkv_layout",
            "sliding_window_length",
            "use_fp8",
            "return_residual",
        ),
    ),
    API_LSTM_REF: (_LSTM_KWARGS_REQUIRED, ()),
    API_LSTM: (_LSTM_KWARGS_REQUIRED, ("precision",)),
}

MASK_TYPES = ("NO_MASK", "PADDING", "CAUSAL", "PADDING_CAUSAL", "ALIBI")

FLOAT_DTYPES = frozenset(
    {"float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2"}
)
INT_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
DTYPES = FLOAT_DTYPES | INT_DTYPES | {"bool"}

# JAX config flags a repro may set for its run (they change what JAX checks: RNN-2, RNN-3).
CONFIG_FLAGS = ("jax_enable_x64", "jax_default_matmul_precision")

MAX_RANK = 8
MAX_ELEMENTS = 2**31

_CODE_RE = re.compile(r"^JCD\d{3}$")
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def test_hooks_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """True only when JCD_CONFIRM_TEST_HOOKS=1 (the test suite's crash/hang repros)."""
    env = os.environ if environ is None else environ
    return env.get(TEST_HOOKS_ENV) == "1"


def canonical_json(obj: Any) -> str:
    """The one serialisation used for hashing: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def json_object(value: object) -> dict[str, Any] | None:
    """`value` as a JSON object (str keys), or None if it is not a dict."""
    if isinstance(value, dict):
        return cast("dict[str, Any]", value)
    return None


def json_list(value: object) -> list[Any] | None:
    """`value` as a JSON array, or None if it is not a list."""
    if isinstance(value, list):
        return cast("list[Any]", value)
    return None


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_kwarg(api: str, name: str, value: object) -> str | None:
    """A type check per keyword; JAX does the semantic checks (that is what we confirm)."""
    ok: bool
    want: str
    if name in ("is_causal", "return_residual", "use_fp8", "bidirectional"):
        ok, want = isinstance(value, bool), "a boolean"
    elif name in ("scale", "dropout_rate"):
        ok, want = value is None or _is_number(value), "a number or null"
    elif name == "dropout":
        ok, want = value is None or isinstance(value, (int, float)), "a number (or a boolean), or null (lstm_ref rejects None too)"
    elif name == "implementation":
        ok, want = value is None or isinstance(value, str), 'a string ("cudnn", "xla") or null'
    elif name == "local_window_size":
        pair = json_list(value)
        ok = (
            value is None
            or _is_int(value)
            or (pair is not None and len(pair) == 2 and all(_is_int(x) for x in pair))
        )
        want = "null, an integer or a list of two integers"
    elif name == "mask_type":
        ok, want = value in MASK_TYPES, "one of " + ", ".join(MASK_TYPES)
    elif name == "qkv_layout":
        ok, want = isinstance(value, str), "a string"
    elif name in ("sliding_window_length",):
        ok, want = value is None or _is_int(value), "an integer or null"
    elif name == "seed":
        ok, want = _is_int(value), "an integer"
    elif name in ("input_size", "hidden_size", "num_layers"):
        ok, want = _is_int(value) and cast("int", value) > 0, "a positive integer"
    elif name == "precision":
        pair = json_list(value)
        ok = (
            value is None
            or isinstance(value, str)
            or (pair is not None and len(pair) == 2 and all(isinstance(x, str) for x in pair))
        )
        want = "null, a string or a list of two strings"
    else:  # pragma: no cover - every listed keyword has a branch
        return f"kwargs.{name}: no type rule for this keyword in api {api}"
    if ok:
        return None
    return f"kwargs.{name} must be {want}, got {value!r}"


def _validate_array(name: str, spec: object) -> list[str]:
    where = f"arrays.{name}"
    spec_d = json_object(spec)
    if spec_d is None:
        return [f"{where} must be an object with 'shape' and 'dtype', got {spec!r}"]
    problems: list[str] = []
    extra = sorted(set(spec_d) - {"shape", "dtype"})
    if extra:
        problems.append(f"{where}: unknown field(s) {', '.join(extra)}")
    shape = spec_d.get("shape")
    dims = json_list(shape)
    if dims is None:
        problems.append(f"{where}.shape must be a list of non-negative integers, got {shape!r}")
    else:
        if not all(_is_int(d) and d >= 0 for d in dims):
            problems.append(f"{where}.shape must be a list of non-negative integers, got {dims!r}")
        elif len(dims) > MAX_RANK:
            problems.append(f"{where}.shape has rank {len(dims)} (at most {MAX_RANK})")
        elif math.prod(dims) > MAX_ELEMENTS:
            problems.append(
                f"{where}.shape {dims} has {math.prod(dims)} elements (at most {MAX_ELEMENTS});"
                " shrink the dimensions the verdict does not depend on"
            )
    dtype = spec_d.get("dtype")
    if dtype not in DTYPES:
        problems.append(f"{where}.dtype must be one of {', '.join(sorted(DTYPES))}, got {dtype!r}")
    return problems


def validate_repro(obj: object) -> list[str]:
    """Every problem with `obj` as a repro, as readable lines; [] means valid.

    An unknown schema version is reported alone (the rest cannot be judged).
    """
    d = json_object(obj)
    if d is None:
        return [f"a repro must be a JSON object, got {type(obj).__name__}"]
    schema = d.get("schema")
    if schema != SCHEMA:
        if isinstance(schema, str) and schema.startswith(SCHEMA_PREFIX):
            return [
                (
                    f"unsupported repro schema version {schema!r}: this jax-cudnn-lint reads"
                    f" {SCHEMA!r} only (use the jax-cudnn-lint release that wrote the repro)"
                )
            ]
        return [f"not a jax-cudnn-lint repro: 'schema' must be {SCHEMA!r}, got {schema!r}"]

    problems: list[str] = []
    missing = [k for k in TOP_LEVEL_REQUIRED if k not in d]
    if missing:
        problems.append("missing field(s): " + ", ".join(missing))
    unknown = sorted(set(d) - set(TOP_LEVEL_REQUIRED) - set(TOP_LEVEL_OPTIONAL))
    if unknown:
        problems.append("unknown field(s): " + ", ".join(unknown))

    code = d.get("code")
    if "code" in d and not (isinstance(code, str) and _CODE_RE.match(code)):
        problems.append(f"code must look like 'JCD201', got {code!r}")

    api = d.get("api")
    hooks = test_hooks_enabled()
    if api in TEST_APIS and hooks:
        return problems
    if api not in APIS:
        problems.append(f"api must be one of {', '.join(APIS)}; got {api!r}")
        return problems
    assert isinstance(api, str)

    # arrays
    arrays = json_object(d.get("arrays"))
    if arrays is None:
        arrays = {}
        if "arrays" in d:
            problems.append("arrays must be an object mapping operand names to {shape, dtype}")
    else:
        required, optional = API_ARRAYS[api]
        for name in required:
            if name not in arrays:
                problems.append(f"arrays.{name} is required for {api}")
        for name in sorted(arrays):
            if name not in required and name not in optional:
                problems.append(
                    f"arrays.{name}: not an operand of {api}"
                    f" (expected {', '.join(required + optional)})"
                )
            else:
                problems.extend(_validate_array(name, arrays[name]))

    # differentiation
    differentiated = d.get("differentiated")
    if "differentiated" in d and not isinstance(differentiated, bool):
        problems.append(f"differentiated must be true or false, got {differentiated!r}")
    wrt = d.get("wrt")
    if differentiated is True:
        names = json_list(wrt)
        if not (names and all(isinstance(w, str) for w in names)):
            problems.append("wrt must be a non-empty list of operand names when differentiated")
        else:
            if len(set(names)) != len(names):
                problems.append(f"wrt has duplicates: {names}")
            for w in names:
                spec = json_object(arrays.get(w))
                if w not in DIFFERENTIABLE:
                    problems.append(f"wrt: {w!r} cannot be differentiated (not a float operand)")
                elif w not in arrays:
                    problems.append(f"wrt: {w!r} is not in arrays")
                elif spec is not None and spec.get("dtype") not in FLOAT_DTYPES:
                    problems.append(f"wrt: {w!r} has a non-float dtype")
    elif wrt is not None:
        # Ignored when not differentiated, but it must still be well-formed.
        names = json_list(wrt)
        if names is None or not all(isinstance(w, str) for w in names):
            problems.append("wrt must be a list of operand names")

    # kwargs
    kwargs = json_object(d.get("kwargs"))
    if kwargs is None:
        if "kwargs" in d:
            problems.append("kwargs must be an object")
    else:
        required, optional = API_KWARGS[api]
        for name in required:
            if name not in kwargs:
                problems.append(f"kwargs.{name} is required for {api}")
        for name in sorted(kwargs):
            if name not in required and name not in optional:
                problems.append(
                    f"kwargs.{name}: not a keyword of {api}"
                    f" (expected {', '.join(required + optional) or 'none'})"
                )
                continue
            problem = _check_kwarg(api, name, kwargs[name])
            if problem:
                problems.append(problem)

    # config
    if "config" in d:
        cfg = json_object(d["config"])
        if cfg is None:
            problems.append("config must be an object of JAX config flags")
        else:
            for name in sorted(cfg):
                if name not in CONFIG_FLAGS:
                    problems.append(
                        f"config.{name}: not an allowed flag ({', '.join(CONFIG_FLAGS)})"
                    )
            if "jax_enable_x64" in cfg and not isinstance(cfg["jax_enable_x64"], bool):
                problems.append("config.jax_enable_x64 must be a boolean")
            prec = cfg.get("jax_default_matmul_precision")
            if prec is not None and not isinstance(prec, str):
                problems.append("config.jax_default_matmul_precision must be a string or null")

    # expect
    if "expect" in d:
        exp = json_object(d["expect"])
        if exp is None:
            problems.append("expect must be an object {exception, message_regex}")
        else:
            extra = sorted(set(exp) - {"exception", "message_regex"})
            if extra:
                problems.append(f"expect: unknown field(s) {', '.join(extra)}")
            exc = exp.get("exception")
            if not (isinstance(exc, str) and _IDENT_RE.match(exc)):
                problems.append(f"expect.exception must be an exception class name, got {exc!r}")
            regex = exp.get("message_regex")
            if not isinstance(regex, str):
                problems.append(f"expect.message_regex must be a string, got {regex!r}")
            else:
                try:
                    re.compile(regex)
                except re.error as e:
                    problems.append(f"expect.message_regex does not compile: {e}")

    # shrunk
    if "shrunk" in d:
        shrunk = json_list(d["shrunk"])
        if shrunk is None or not all(isinstance(s, str) for s in shrunk):
            problems.append("shrunk must be a list of strings")
    return problems


def expect_message(exception: str, message: str) -> dict[str, str]:
    """An `expect` object for a literal message (regex-escaped; `re.search` semantics)."""
    return {"exception": exception, "message_regex": re.escape(message).replace("\\ ", " ")}


# --------------------------------------------------------------------------- LSTM


def lstm_num_params(input_size: int, hidden_size: int, num_layers: int, bidirectional: bool) -> int:
    """`jax.experimental.rnn.get_num_params_in_lstm`, without importing jax.

    cuDNN's flat layout: for each pseudo-layer (layer x direction) an input weight
    (4H, I) for the first layer, (4H, D*H) above it, and a recurrent weight (4H, H);
    then for each pseudo-layer two biases of 4H.
    """
    dirs = 2 if bidirectional else 1
    total = 0
    for pseudo in range(num_layers * dirs):
        first_layer = pseudo == 0 or (pseudo == 1 and bidirectional)
        in_features = input_size if first_layer else dirs * hidden_size
        total += 4 * hidden_size * in_features + 4 * hidden_size * hidden_size
        total += 2 * 4 * hidden_size
    return total


def lstm_repro(
    *,
    code: str,
    expect: Mapping[str, str],
    api: str = API_LSTM_REF,
    batch: int = 1,
    seq_len: int,
    input_size: int,
    hidden_size: int,
    num_layers: int = 1,
    bidirectional: bool = False,
    dropout: float | None = 0.0,
    precision: str | Sequence[str] | None = None,
    dtype: str = "float32",
    seq_lengths_dtype: str = "int32",
    differentiated: bool = False,
    wrt: Sequence[str] = ("x", "h_0", "c_0", "weights"),
    shrunk: Sequence[str] = (),
    config: Mapping[str, object] | None = None,
) -> dict[str, Any]:
    """A complete LSTM repro with the batch-first shapes `jax.experimental.rnn` expects."""
    if api not in LSTM_APIS:
        raise ValueError(f"lstm_repro: api must be one of {LSTM_APIS}, got {api!r}")
    dirs = 2 if bidirectional else 1
    state = [dirs * num_layers, batch, hidden_size]
    kwargs: dict[str, Any] = {
        "input_size": input_size,
        "hidden_size": hidden_size,
        "num_layers": num_layers,
        "dropout": dropout,
        "bidirectional": bidirectional,
    }
    if api == API_LSTM:
        kwargs["precision"] = list(precision) if isinstance(precision, (list, tuple)) else precision
    elif precision is not None:
        raise ValueError("lstm_ref has no precision argument")
    repro: dict[str, Any] = {
        "schema": SCHEMA,
        "code": code,
        "api": api,
        "differentiated": differentiated,
        "arrays": {
            "x": {"shape": [batch, seq_len, input_size], "dtype": dtype},
            "h_0": {"shape": list(state), "dtype": dtype},
            "c_0": {"shape": list(state), "dtype": dtype},
            "weights": {
                "shape": [lstm_num_params(input_size, hidden_size, num_layers, bidirectional)],
                "dtype": dtype,
            },
            "seq_lengths": {"shape": [batch], "dtype": seq_lengths_dtype},
        },
        "kwargs": kwargs,
        "expect": dict(expect),
    }
    if differentiated:
        repro["wrt"] = list(wrt)
    if shrunk:
        repro["shrunk"] = list(shrunk)
    if config:
        repro["config"] = dict(config)
    return repro


# --------------------------------------------------------------------------- attention


def attention_repro(
    *,
    code: str,
    expect: Mapping[str, str],
    query: Sequence[int],
    key: Sequence[int] | None = None,
    value: Sequence[int] | None = None,
    dtype: str = "bfloat16",
    api: str = API_NN_ATTENTION,
    bias: Sequence[int] | None = None,
    bias_dtype: str | None = None,
    mask: Sequence[int] | None = None,
    differentiated: bool = False,
    wrt: Sequence[str] = ("query", "key", "value"),
    kwargs: Mapping[str, Any] | None = None,
    extra_arrays: Mapping[str, Mapping[str, Any]] | None = None,
    shrunk: Sequence[str] = (),
) -> dict[str, Any]:
    """An attention repro; `key`/`value` default to the query's shape."""
    if api not in ATTENTION_APIS:
        raise ValueError(f"attention_repro: api must be one of {ATTENTION_APIS}, got {api!r}")
    key = query if key is None else key
    value = key if value is None else value
    arrays: dict[str, Any] = {
        "query": {"shape": list(query), "dtype": dtype},
        "key": {"shape": list(key), "dtype": dtype},
        "value": {"shape": list(value), "dtype": dtype},
    }
    if bias is not None:
        arrays["bias"] = {"shape": list(bias), "dtype": bias_dtype or dtype}
    if mask is not None:
        arrays["mask"] = {"shape": list(mask), "dtype": "bool"}
    for name, spec in (extra_arrays or {}).items():
        arrays[name] = {"shape": list(spec["shape"]), "dtype": spec["dtype"]}
    if kwargs is None:
        kwargs = {"implementation": "cudnn"} if api == API_NN_ATTENTION else {}
    repro: dict[str, Any] = {
        "schema": SCHEMA,
        "code": code,
        "api": api,
        "differentiated": differentiated,
        "arrays": arrays,
        "kwargs": dict(kwargs),
        "expect": dict(expect),
    }
    if differentiated:
        repro["wrt"] = list(wrt)
    if shrunk:
        repro["shrunk"] = list(shrunk)
    return repro


def odd_seqlen_expect(t: int, s: int) -> dict[str, str]:
    """The FA-15 prediction: `Unsupported sequence length Q {T}, KV {S}.`"""
    return expect_message("NotImplementedError", f"Unsupported sequence length Q {t}, KV {s}.")


LSTM_REF_DROPOUT_MESSAGE = (
    "Dropout not supported in LSTM reference because we cannot determine CUDNN dropout mask."
)


def seq_axis_lengths(repro: Mapping[str, Any]) -> tuple[int, int] | None:
    """(T, S) of an attention repro in the BTNH / TNH layout, or None when not applicable."""
    if repro.get("api") != API_NN_ATTENTION:
        return None
    arrays: Mapping[str, Any] = repro.get("arrays", {})
    try:
        q: list[int] = arrays["query"]["shape"]
        k: list[int] = arrays["key"]["shape"]
    except (KeyError, TypeError):
        return None
    if len(q) not in (3, 4) or len(k) != len(q):
        return None
    return q[-3], k[-3]
