"""More rules for `jax.experimental.rnn` (JCD102-JCD104): seq_lengths dtype, the
bfloat16 precision check of `rnn.lstm`, and dropout applied outside training.

Catalog rows RNN-2, RNN-3 and RNN-6.  Both checks that raise run in Python before the
cuDNN call (`lstm_fwd`, `lstm_bwd`), so they raise on every backend, in inference and
in training alike.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.kernels.repro import API_LSTM, API_LSTM_REF, expect_message, lstm_repro
from jax_cudnn_lint.lint_rules import versions
from jax_cudnn_lint.lint_rules.evidence import (
    context_lines,
    evidence_lines,
    origin_phrase,
    related_locations,
)
from jax_cudnn_lint.lint_rules.registry import rule
from jax_cudnn_lint.lint_rules.targets import LSTM, LSTM_REF, Bound, bind
from jax_cudnn_lint.shape_inference.context import CallEvent
from jax_cudnn_lint.shape_inference.dims import Why
from jax_cudnn_lint.shape_inference.externals import module_config_at
from jax_cudnn_lint.shape_inference.handlers import caught
from jax_cudnn_lint.shape_inference.values import (
    ArrayV,
    ConstV,
    ExternalV,
    TupleV,
    Value,
    const_value,
    int_value,
)

JCD102 = rule(
    "JCD102",
    "lstm-seq-lengths-not-int32",
    "seq_lengths of jax.experimental.rnn.lstm / lstm_ref is not an int32 array: JAX raises before the call runs",
)
JCD103 = rule(
    "JCD103",
    "lstm-bf16-precision",
    "jax.experimental.rnn.lstm with DEFAULT (bfloat16) matmul precision: JAX raises NotImplementedError",
)
JCD104 = rule(
    "JCD104",
    "lstm-dropout-in-inference",
    "jax.experimental.rnn.lstm applies a nonzero dropout even when the call is not differentiated (inference)",
    default_on=False,
    confirmable=False,
)

SEQ_LENGTHS_MESSAGE = "`seq_lengths` can only be int32."
BF16_MESSAGE = "bfloat16 support not implemented for LSTM"

# Without jax_enable_x64, JAX canonicalises 64-bit inputs to 32 bits on the way in.
_CANONICAL_32 = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}
# lax.canonicalize_precision: these strings mean Precision.DEFAULT (bfloat16 passes on GPU).
_DEFAULT_STRINGS = frozenset({"default", "bfloat16", "fastest"})
# jax.default_matmul_precision / the config flag accept fewer spellings.
_DEFAULT_CONFIG_STRINGS = frozenset({"default", "bfloat16"})


def _events_by_site(events: Sequence[CallEvent], apis: tuple[str, ...]) -> dict[tuple[str, int, int], list[CallEvent]]:
    sites: dict[tuple[str, int, int], list[CallEvent]] = defaultdict(list)
    for event in events:
        if event.qualname in apis:
            sites[(event.module.path, event.node.lineno, event.node.col_offset)].append(event)
    return sites


def x64_certain(event: CallEvent) -> tuple[bool, Why]:
    """jax_enable_x64 is certainly on where this call runs, and why."""
    if event.ctx.x64:
        return True, ()
    flag = module_config_at(event, "jax_enable_x64")
    if flag is not None and flag.value is True:
        return True, flag.why
    return False, ()


def _small(value: Value | None, default: int) -> int:
    n = int_value(value) if value is not None else None
    return n if n is not None and 0 < n <= 64 else default


def _lstm_sizes(bound: Bound) -> tuple[int, int, int, bool]:
    """input_size, hidden_size, num_layers, bidirectional: the call's own when small."""
    bidi = bound.get("bidirectional")
    ok, flag = const_value(bidi) if bidi is not None else (False, None)
    return (
        _small(bound.get("input_size"), 4),
        _small(bound.get("hidden_size"), 8),
        _small(bound.get("num_layers"), 1),
        bool(flag) if ok else False,
    )


def _repro(
    code: str,
    event: CallEvent,
    bound: Bound,
    expect: Mapping[str, str],
    *,
    seq_lengths_dtype: str = "int32",
    precision: str | list[str] | None = None,
    config: Mapping[str, object] | None = None,
) -> dict[str, object]:
    input_size, hidden_size, num_layers, bidirectional = _lstm_sizes(bound)
    return lstm_repro(
        code=code,
        expect=expect,
        api=API_LSTM if event.qualname == LSTM else API_LSTM_REF,
        batch=2,
        seq_len=3,
        input_size=input_size,
        hidden_size=hidden_size,
        num_layers=num_layers,
        bidirectional=bidirectional,
        dropout=0.0,
        precision=precision,
        seq_lengths_dtype=seq_lengths_dtype,
        shrunk=["batch", "time", "sizes", "dropout"],
        config=config,
    )


def _elsewhere(why: Why, event: CallEvent) -> str:
    """The origin phrase of a value when it comes from another line than the call."""
    if not why or (why[-1].line == event.node.lineno and why[-1].path in ("", event.module.path)):
        return ""
    return origin_phrase(why, event.module.path)


def _api_name(event: CallEvent) -> str:
    return "rnn.lstm" if event.qualname == LSTM else "rnn.lstm_ref"


# -- JCD102: seq_lengths dtype (RNN-2) -----------------------------------------------------
def seq_lengths_problem(event: CallEvent, bound: Bound) -> tuple[str, str, str, Why, Why, str | None, bool] | None:
    """(what it is, a note on x64, the exception JAX raises, the value's provenance, the
    x64 flag's provenance, the dtype for a repro, whether x64 is part of it)."""
    seq = bound.get("seq_lengths")
    if seq is None:
        return None
    if isinstance(seq, TupleV):
        kind = "list" if seq.is_list else "tuple"
        return (f"a Python {kind}", "", f"AttributeError(\"'{kind}' object has no attribute 'dtype'\")", seq.why, (), None, False)
    if not isinstance(seq, ArrayV) or seq.dtype is None:
        return None
    dtype = seq.dtype
    if dtype == "int32":
        return None
    x64, x64_why = x64_certain(event)
    raised = f'NotImplementedError("{SEQ_LENGTHS_MESSAGE}")'
    if dtype == "int64":
        if not x64:
            return None  # canonicalised to int32 on the way in
        if x64_why:
            note = f"jax_enable_x64 is on ({origin_phrase(x64_why, event.module.path)})"
        else:
            note = "jax_enable_x64 is on where it runs (`with jax.enable_x64()`, or a `jax.config.update` earlier on its path)"
        return ("an int64 array", note, raised, seq.why, x64_why, "int64", True)
    seen = dtype if x64 else _CANONICAL_32.get(dtype, dtype)
    article = "an" if seen.startswith("int") else "a"
    return (f"{article} {seen} array", "", raised, seq.why, (), seen, x64)


def check_jcd102(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    if versions.before(config, (0, 4, 7)):
        return findings
    for event in events:
        if event.qualname not in (LSTM, LSTM_REF) or caught(event.ctx.handled, "NotImplementedError"):
            continue
        bound = bind(event)
        if bound is None:
            continue
        problem = seq_lengths_problem(event, bound)
        if problem is None:
            continue
        what, note, raised, value_why, x64_why, dtype, x64 = problem
        why = value_why + x64_why
        here = event.module.path
        origin = _elsewhere(value_why, event)
        api = _api_name(event)
        message = (
            f"{api} is passed seq_lengths as {what}"
            + (f" ({origin})" if origin else "")
            + (f"; {note}, so" if note else ":")
            + f" JAX raises {raised} before the call runs, on every backend; "
            "pass jnp.asarray(lengths, dtype=jnp.int32)"
        )
        repro = None
        if dtype is not None:
            repro = _repro(
                JCD102.code,
                event,
                bound,
                expect_message("NotImplementedError", SEQ_LENGTHS_MESSAGE),
                seq_lengths_dtype=dtype,
                config={"jax_enable_x64": True} if x64 else None,
            )
        evidence = [f"callee: {event.qualname}", *evidence_lines("seq_lengths", why, here), *context_lines(event)]
        node = event.node
        findings.append(Finding(JCD102.code, here, node.lineno, node.col_offset, message, tuple(evidence), repro, related_locations(event, why)))
    return findings


# -- JCD103: DEFAULT precision (RNN-3) -----------------------------------------------------
def _precision_is_default(value: Value) -> bool | None:
    """True: canonicalises to (DEFAULT, x); False: certainly not; None: unknown."""
    if isinstance(value, ExternalV):
        name = value.qualname
        if name.startswith("jax.") and ".Precision." in name:
            return name.rsplit(".", 1)[-1] == "DEFAULT"
        return None
    if isinstance(value, ConstV):
        if value.value is None:
            return False
        if isinstance(value.value, str):
            return value.value in _DEFAULT_STRINGS
        return None
    if isinstance(value, TupleV) and len(value.items) == 2:
        return _precision_is_default(value.items[0])
    return None


def _repro_precision(value: Value) -> str | list[str] | None:
    if isinstance(value, ExternalV):
        return value.qualname.rsplit(".", 1)[-1].lower()
    if isinstance(value, ConstV) and isinstance(value.value, str):
        return value.value
    if isinstance(value, TupleV) and len(value.items) == 2:
        pair = [_repro_precision(item) for item in value.items]
        if all(isinstance(p, str) for p in pair):
            return [str(p) for p in pair]
    return None


def _render_precision(value: Value) -> str:
    if isinstance(value, ExternalV):
        return value.qualname.replace("jax.lax.", "lax.")
    if isinstance(value, ConstV):
        return repr(value.value)
    if isinstance(value, TupleV):
        return "(" + ", ".join(_render_precision(item) for item in value.items) + ")"
    return "?"


def precision_problem(event: CallEvent, bound: Bound) -> tuple[str, Why, str | list[str] | None, dict[str, object] | None] | None:
    """(description, provenance, repro precision, repro config) when DEFAULT is certain."""
    precision = bound.get("precision")
    if precision is None:
        return None
    explicit = _precision_is_default(precision)
    if explicit is None:
        return None
    if explicit:
        return f"precision={_render_precision(precision)}", precision.why, _repro_precision(precision), None
    if not (isinstance(precision, ConstV) and precision.value is None):
        return None
    ambient = event.ctx.precision
    how = "inside `with jax.default_matmul_precision({value!r})`"
    if isinstance(ambient, ConstV) and any(step.text.startswith("jax.config.update(") for step in ambient.why):
        how = "with jax_default_matmul_precision={value!r}"  # an update restored in a finally (probe 94e)
    if ambient is None:
        # set earlier on this path by `jax.config.update`, else by the module body
        ambient = event.ctx.config_precision
        if ambient is None:
            ambient = module_config_at(event, "jax_default_matmul_precision")
        how = "with jax_default_matmul_precision={value!r}"
    if not isinstance(ambient, ConstV) or not isinstance(ambient.value, str):
        return None
    if ambient.value not in _DEFAULT_CONFIG_STRINGS:
        return None
    return (
        "precision=None " + how.format(value=ambient.value),
        ambient.why,
        None,
        {"jax_default_matmul_precision": ambient.value},
    )


def check_jcd103(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    if versions.before(config, (0, 4, 17)):
        return findings
    for event in events:
        if event.qualname != LSTM or caught(event.ctx.handled, "NotImplementedError"):
            continue
        bound = bind(event)
        if bound is None:
            continue
        problem = precision_problem(event, bound)
        if problem is None:
            continue
        what, why, repro_precision, repro_config = problem
        here = event.module.path
        origin = _elsewhere(why, event)
        first = ""
        seq_problem = seq_lengths_problem(event, bound)
        if seq_problem is not None:
            first = f" (JAX first rejects seq_lengths, {seq_problem[0]}: see JCD102)"
        message = (
            f"rnn.lstm runs with {what}"
            + (f" ({origin})" if origin else "")
            + f': JAX raises NotImplementedError("{BF16_MESSAGE}") before the cuDNN call, on every backend{first}; '
            "pass precision=jax.lax.Precision.HIGHEST (FP32) or jax.lax.Precision.HIGH (TF32)"
        )
        repro = None
        if repro_precision is not None or repro_config is not None:
            repro = _repro(
                JCD103.code,
                event,
                bound,
                expect_message("NotImplementedError", BF16_MESSAGE),
                precision=repro_precision,
                config=repro_config,
            )
        evidence = [f"callee: {event.qualname}", *evidence_lines("precision", why, here), *context_lines(event)]
        node = event.node
        findings.append(Finding(JCD103.code, here, node.lineno, node.col_offset, message, tuple(evidence), repro, related_locations(event, why)))
    return findings


# -- JCD104: dropout applied in inference (RNN-6, advisory) ------------------------------------
def _nonzero_dropout(bound: Bound) -> tuple[float, Why] | None:
    dropout = bound.get("dropout")
    if dropout is None:
        return None
    ok, value = const_value(dropout)
    if not ok or isinstance(value, bool) or not isinstance(value, (int, float)) or value == 0.0:
        return None
    return float(value), dropout.why


def _differentiated(bound: Bound) -> bool:
    return any(v is not None and v.diff for v in (bound.get("x"), bound.get("h_0"), bound.get("c_0"), bound.get("weights")))


def check_jcd104(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for site_events in _events_by_site(events, (LSTM,)).values():
        bounds = [(e, bind(e)) for e in site_events]
        if any(b is None for _, b in bounds):
            continue
        if any(_differentiated(b) for _, b in bounds if b is not None):
            continue  # training somewhere: dropout is meant there
        rates: list[tuple[float, Why]] = []
        for _, b in bounds:
            found = _nonzero_dropout(b) if b is not None else None
            if found is not None:
                rates.append(found)
        if not rates or len(rates) != len(bounds):
            continue
        rate, why = rates[0]
        event = bounds[0][0]
        here = event.module.path
        origin = origin_phrase(why, here)
        message = (
            f"rnn.lstm applies dropout={rate!r}"
            + (f" ({origin})" if origin else "")
            + " although this call is not differentiated in the analysed code: cuDNN always runs the LSTM in "
            "training mode (fixed dropout seed 123), so the dropout is applied in inference too; "
            "pass dropout=0.0 when evaluating"
        )
        evidence = [f"callee: {event.qualname}", *evidence_lines("dropout", why, here), *context_lines(event),
                    "differentiated: no evaluation of this call depends on differentiated values"]
        node = event.node
        findings.append(Finding(JCD104.code, here, node.lineno, node.col_offset, message, tuple(evidence), None, related_locations(event, why)))
    return findings


CHECKS = (check_jcd102, check_jcd103, check_jcd104)

__all__ = ["CHECKS", "JCD102", "JCD103", "JCD104", "x64_certain"]
