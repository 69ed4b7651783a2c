"""The confirm backends, run inside the child process (kernels/child.py).

* trace: JAX's cuDNN probes set to a target (probes.py), then `jax.eval_shape` of the call,
  or of `jax.grad` of a scalar loss of it when differentiated.  Every check on the
  attention path runs at trace time, so this raises what the target GPU would raise.
* execute: random inputs, the real call (under `jax.grad` when differentiated) compiled
  and run on the CUDA device; then the recommended fix on cuDNN compared with XLA.
* LSTM repros always execute, on whatever device the child has (on a CPU, `lstm_ref`
  runs for real; `lstm` needs a CUDA jaxlib past its dtype and precision checks).

Verdicts: confirmed (the predicted exception, message matching), refuted (it ran clean),
inconclusive (anything else), always with what was observed.

Only the child imports this module; it imports jax inside the functions.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from . import _jax
from . import repro as R
from .probes import FA_MODULE, patched_probes, probe_support
from .targets import Target, format_cudnn

CONFIRMED = "confirmed"
REFUTED = "refuted"
INCONCLUSIVE = "inconclusive"

TRACE = "trace"
EXECUTE = "execute"

_MAX_MESSAGE = 600

# Tolerances for the fix-vs-XLA comparison, relative to the largest reference value.
_TOLERANCE = {"float32": 1e-4, "float16": 5e-3, "bfloat16": 4e-2}


@dataclass
class Outcome:
    verdict: str
    detail: str
    backend: str


# --------------------------------------------------------------------------- environment


def environment_info() -> dict[str, Any]:
    """What this child runs on (imports jax)."""
    jax = _jax.jax()
    jaxlib = _jax.module("jaxlib")

    info: dict[str, Any] = {
        "jax": jax.__version__,
        "jaxlib": getattr(jaxlib, "__version__", None) or _dist_version("jaxlib"),
        "platform": "unknown",
        "device": None,
        "cuda": False,
        "compute_capability": None,
        "cudnn_version": None,
    }
    devices: list[Any] = list(jax.devices())
    if not devices:
        return info
    dev = devices[0]
    info["platform"] = str(dev.platform)
    info["device"] = str(getattr(dev, "device_kind", dev.platform))
    try:
        platform_version = str(dev.client.platform_version)
    except Exception:  # noqa: BLE001 - the attribute moved between JAX versions
        platform_version = ""
    info["cuda"] = dev.platform == "gpu" and "cuda" in platform_version.lower()
    cc = getattr(dev, "compute_capability", None)
    info["compute_capability"] = str(cc) if cc is not None else None
    if info["cuda"]:
        try:
            fa = _jax.module(FA_MODULE)

            info["cudnn_version"] = int(fa.check_cudnn_version())
        except Exception:  # noqa: BLE001 - a broken CUDA install: report no cuDNN
            info["cudnn_version"] = None
    return info


def _dist_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def resolve_backend(requested: str, env: Mapping[str, Any]) -> str:
    """auto -> execute on a CUDA device, else trace."""
    if requested == "auto":
        return EXECUTE if env.get("cuda") else TRACE
    return requested


def result_environment(
    env: Mapping[str, Any], backend: str, target: Target | None
) -> dict[str, Any]:
    """The `environment` of a verdict: versions, the device, and what was emulated."""
    out: dict[str, Any] = {
        "jax": env.get("jax"),
        "jaxlib": env.get("jaxlib"),
        "cudnn": None,
        "device": env.get("device"),
        "target": {},
    }
    if backend == TRACE and target is not None:
        out["cudnn"] = target.cudnn
        out["target"] = {**target.to_json(), "emulated": True}
    else:
        real: dict[str, Any] = {"platform": env.get("platform"), "emulated": False}
        cc = env.get("compute_capability")
        if cc:
            real["gpu"] = "sm" + str(cc).replace(".", "")
            real["compute_capability"] = cc
        version = env.get("cudnn_version")
        if isinstance(version, int):
            out["cudnn"] = format_cudnn(version)
            real["cudnn"] = out["cudnn"]
            real["cudnn_version"] = version
        out["target"] = real
    return out


# --------------------------------------------------------------------------- judging


# JAX's traceback filtering appends this note to the message of errors raised in tracing.
_JAX_NOTE = "\n--------------------\nFor simplicity, JAX has removed its internal frames"


def exception_message(exc: BaseException) -> str:
    """str(exc) without the note JAX's traceback filtering appends."""
    return str(exc).split(_JAX_NOTE, 1)[0].strip()


def describe_exception(exc: BaseException) -> str:
    text = exception_message(exc)
    if len(text) > _MAX_MESSAGE:
        text = text[:_MAX_MESSAGE] + " [...]"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def judge(expect: Mapping[str, Any], exc: BaseException | None, where: str) -> tuple[str, str]:
    """(verdict, detail) from the predicted exception and what happened."""
    wanted = str(expect.get("exception"))
    regex = str(expect.get("message_regex"))
    if exc is None:
        return REFUTED, f"ran clean {where}: no exception (predicted {wanted} /{regex}/)"
    names = [cls.__name__ for cls in type(exc).__mro__]
    observed = describe_exception(exc)
    if wanted in names and re.search(regex, exception_message(exc)):
        return CONFIRMED, f"raised {where}: {observed}"
    return INCONCLUSIVE, f"raised {where}: {observed} (predicted {wanted} /{regex}/)"


# --------------------------------------------------------------------------- helpers


@contextlib.contextmanager
def jax_config(config: Mapping[str, Any] | None) -> Generator[None]:
    """Apply the repro's JAX config flags for the block, then restore them."""
    jax = _jax.jax()

    cfg: Any = jax.config
    saved: dict[str, Any] = {}
    try:
        for name, value in (config or {}).items():
            saved[name] = getattr(cfg, name)
            cfg.update(name, value)
        yield
    finally:
        for name, value in saved.items():
            cfg.update(name, value)


def _dtype(name: str) -> Any:
    jnp = _jax.jnp()

    return jnp.dtype(name)


def _seq_axes(repro: Mapping[str, Any]) -> tuple[int, int] | None:
    """(query seq axis, batch axis or -1) for an attention repro."""
    q_rank = len(repro["arrays"]["query"]["shape"])
    if repro["api"] == R.API_NN_ATTENTION:
        return (1, 0) if q_rank == 4 else (0, -1) if q_rank == 3 else None
    layout = str(repro["kwargs"].get("qkv_layout", "BTNH")).upper()
    if q_rank != 4:
        return None
    return (2, 0) if layout in ("BNTH", "BNSH") else (1, 0)


def _loss(call: Callable[[dict[str, Any]], Any], weight: Any = None) -> Callable[..., Any]:
    """A scalar loss of every float output of `call` (optionally weighted per query row)."""
    jax, jnp = _jax.jax(), _jax.jnp()

    def loss(diff: dict[str, Any], const: dict[str, Any]) -> Any:
        out = call({**const, **diff})
        leaves: list[Any] = list(jax.tree.leaves(out))
        total: Any = jnp.float32(0)
        for i, leaf in enumerate(leaves):
            if not jnp.issubdtype(leaf.dtype, jnp.floating):
                continue
            value = leaf.astype(jnp.float32)
            if weight is not None and i == 0:
                value = value * weight
            total = total + jnp.sum(value)
        return total

    return loss


def _split(
    arrays: dict[str, Any], repro: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    wrt: list[str] = list(repro.get("wrt") or []) if repro.get("differentiated") else []
    diff = {n: arrays[n] for n in wrt}
    const = {n: a for n, a in arrays.items() if n not in diff}
    return diff, const


def _forward(
    call: Callable[[dict[str, Any]], Any],
) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
    def forward(diff: dict[str, Any], const: dict[str, Any]) -> Any:
        return call({**const, **diff})

    return forward


def _program(
    repro: Mapping[str, Any], call: Callable[[dict[str, Any]], Any]
) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
    """The function a backend evaluates: the call, or `jax.grad` of a loss of it."""
    jax = _jax.jax()

    if repro.get("differentiated"):
        return jax.grad(_loss(call))
    return _forward(call)


# --------------------------------------------------------------------------- the calls


def attention_call(api: str, kwargs: Mapping[str, Any]) -> Callable[[dict[str, Any]], Any]:
    """The API, closed over its keyword arguments, taking its arrays by name."""
    kw: dict[str, Any] = dict(kwargs)
    if api == R.API_NN_ATTENTION:
        jax = _jax.jax()

        fn: Any = jax.nn.dot_product_attention
        if isinstance(kw.get("local_window_size"), list):
            kw["local_window_size"] = tuple(kw["local_window_size"])
    else:
        fa = _jax.module(FA_MODULE)

        fn = fa.dot_product_attention
        if "mask_type" in kw:
            kw["mask_type"] = getattr(fa.MaskType, str(kw["mask_type"]))

    def call(arrays: dict[str, Any]) -> Any:
        return fn(**arrays, **kw)

    return call


def lstm_call(api: str, kwargs: Mapping[str, Any]) -> Callable[[dict[str, Any]], Any]:
    rnn = _jax.module("jax.experimental.rnn")

    input_size = int(kwargs["input_size"])
    hidden_size = int(kwargs["hidden_size"])
    num_layers = int(kwargs["num_layers"])
    dropout: Any = kwargs["dropout"]
    bidirectional = bool(kwargs["bidirectional"])
    precision: Any = kwargs.get("precision")
    pair = R.json_list(precision)
    if pair is not None:
        precision = tuple(pair)
    rnn_mod: Any = rnn

    if api == R.API_LSTM_REF:

        def call_ref(a: dict[str, Any]) -> Any:
            w_ih, w_hh, b_ih, b_hh = rnn_mod.unpack_lstm_weights(
                a["weights"], input_size, hidden_size, num_layers, bidirectional
            )
            return rnn_mod.lstm_ref(
                a["x"],
                a["h_0"],
                a["c_0"],
                w_ih,
                w_hh,
                b_ih,
                b_hh,
                a["seq_lengths"],
                input_size,
                hidden_size,
                num_layers,
                dropout,
                bidirectional,
            )

        return call_ref

    def call_cudnn(a: dict[str, Any]) -> Any:
        return rnn_mod.lstm(
            a["x"],
            a["h_0"],
            a["c_0"],
            a["weights"],
            a["seq_lengths"],
            input_size,
            hidden_size,
            num_layers,
            dropout,
            bidirectional,
            precision,
        )

    return call_cudnn


# --------------------------------------------------------------------------- inputs


def abstract_inputs(repro: Mapping[str, Any]) -> dict[str, Any]:
    jax = _jax.jax()

    return {
        name: jax.ShapeDtypeStruct(tuple(spec["shape"]), _dtype(spec["dtype"]))
        for name, spec in repro["arrays"].items()
    }


class CannotSynthesize(Exception):
    """The execute backend cannot make meaningful values for this operand."""


def random_inputs(repro: Mapping[str, Any], seed: int = 0) -> dict[str, Any]:
    """Concrete inputs: normal floats (never zeros), random bool masks that keep the
    diagonal (every query row sees a key), lengths in [ceil(L/2), L] (LSTM: [1, T])."""
    import numpy as np

    jax, jnp = _jax.jax(), _jax.jnp()

    rng = np.random.default_rng(seed)
    arrays: Mapping[str, Any] = repro["arrays"]
    out: dict[str, Any] = {}
    floats: list[tuple[str, tuple[int, ...], Any, float | None]] = []
    t_len, s_len = _attention_lengths(repro)
    for name in sorted(arrays):
        shape = tuple(int(d) for d in arrays[name]["shape"])
        dtype_name = str(arrays[name]["dtype"])
        if dtype_name in R.FLOAT_DTYPES:
            bound = None
            if name == "weights":  # init_lstm_weight's U(-k, k), k = 1/sqrt(hidden)
                bound = 1.0 / math.sqrt(max(1, int(repro["kwargs"]["hidden_size"])))
            floats.append((name, shape, _dtype(dtype_name), bound))
        elif dtype_name == "bool":
            mask = rng.random(shape) < 0.5
            if len(shape) >= 2 and shape[-1] > 0:
                rows, cols = shape[-2], shape[-1]
                for r in range(rows):
                    mask[..., r, r % cols] = True
            out[name] = jnp.asarray(mask)
        else:
            if name in ("query_seq_lengths", "q_seqlen"):
                hi = t_len
            elif name in ("key_value_seq_lengths", "kv_seqlen"):
                hi = s_len
            elif name == "seq_lengths":
                hi = int(arrays["x"]["shape"][1]) if len(arrays["x"]["shape"]) > 1 else 1
            else:
                raise CannotSynthesize(
                    f"the execute backend cannot make values for {name!r}; use --backend trace"
                )
            lo = 1 if name == "seq_lengths" else max(1, -(-hi // 2))
            values = rng.integers(lo, max(lo, hi) + 1, size=shape)
            out[name] = jnp.asarray(np.asarray(values).astype(dtype_name))

    def make_floats(key: Any) -> dict[str, Any]:
        made: dict[str, Any] = {}
        for i, (name, shape, dtype, bound) in enumerate(floats):
            k = jax.random.fold_in(key, i)
            if bound is not None:
                value = jax.random.uniform(k, shape, jnp.float32, -bound, bound)
            else:
                value = jax.random.normal(k, shape, jnp.float32)
            made[name] = value.astype(dtype)
        return made

    if floats:  # one compiled program for all of them
        out.update(jax.jit(make_floats)(jax.random.key(seed)))
    return out


def _attention_lengths(repro: Mapping[str, Any]) -> tuple[int, int]:
    if repro["api"] not in R.ATTENTION_APIS:
        return 0, 0
    axes = _seq_axes(repro)
    if axes is None:
        return 1, 1
    q = repro["arrays"]["query"]["shape"]
    k = repro["arrays"]["key"]["shape"]
    return int(q[axes[0]]), int(k[axes[0]])


# --------------------------------------------------------------------------- backends


def run_repro(
    repro: Mapping[str, Any], backend: str, target: Target, env: Mapping[str, Any]
) -> Outcome:
    """One verdict.  `backend` is already resolved (trace or execute)."""
    api = repro["api"]
    if api in R.LSTM_APIS:
        return _execute_lstm(repro, env)
    if backend == TRACE:
        return _trace_attention(repro, target)
    if not env.get("cuda"):
        return Outcome(
            INCONCLUSIVE,
            f"the execute backend needs a CUDA device; this host has {env.get('device')!r}"
            " (use --backend trace)",
            EXECUTE,
        )
    return _execute_attention(repro, env)


def _trace_attention(repro: Mapping[str, Any], target: Target) -> Outcome:
    jax = _jax.jax()

    problem = probe_support()
    if problem:
        return Outcome(INCONCLUSIVE, problem, TRACE)
    where = f"tracing for {target.gpu} with cuDNN {target.cudnn}"
    call = attention_call(repro["api"], repro["kwargs"])
    diff, const = _split(abstract_inputs(repro), repro)
    exc: BaseException | None = None
    with jax_config(repro.get("config")), patched_probes(target):
        try:
            jax.eval_shape(_program(repro, call), diff, const)
        except Exception as e:  # noqa: BLE001 - any exception is an observation
            exc = e
    verdict, detail = judge(repro["expect"], exc, where)
    if fix_applies(repro):
        detail += "; " + _trace_fix(repro, target)
    return Outcome(verdict, detail, TRACE)


def fix_applies(repro: Mapping[str, Any]) -> bool:
    """The padded kernel is the fix for odd T or S on jax.nn.dot_product_attention."""
    lengths = R.seq_axis_lengths(repro)
    return lengths is not None and (lengths[0] % 2 == 1 or lengths[1] % 2 == 1)


def _fix_call(kwargs: Mapping[str, Any], implementation: str) -> Callable[[dict[str, Any]], Any]:
    from .padded import padded_dot_product_attention

    kw: dict[str, Any] = dict(kwargs)
    kw["implementation"] = implementation
    if isinstance(kw.get("local_window_size"), list):
        kw["local_window_size"] = tuple(kw["local_window_size"])

    def call(arrays: dict[str, Any]) -> Any:
        return padded_dot_product_attention(**arrays, **kw)

    return call


def _trace_fix(repro: Mapping[str, Any], target: Target) -> str:
    jax = _jax.jax()

    call = _fix_call(repro["kwargs"], "cudnn")
    diff, const = _split(abstract_inputs(repro), repro)
    with jax_config(repro.get("config")), patched_probes(target):
        try:
            jax.eval_shape(_program(repro, call), diff, const)
        except Exception as e:  # noqa: BLE001 - reported in the detail
            return f"the fix (padded_dot_product_attention) also fails: {describe_exception(e)}"
    return "the fix (jax_cudnn_lint.kernels.padded_dot_product_attention) traces clean"


def _run_concrete(
    repro: Mapping[str, Any], call: Callable[[dict[str, Any]], Any], arrays: dict[str, Any]
) -> BaseException | None:
    jax = _jax.jax()

    diff, const = _split(arrays, repro)
    try:
        jax.block_until_ready(jax.jit(_program(repro, call))(diff, const))
    except Exception as e:  # noqa: BLE001 - any exception is an observation
        return e
    return None


def _execute_lstm(repro: Mapping[str, Any], env: Mapping[str, Any]) -> Outcome:
    where = f"executing on {env.get('device')}"
    call = lstm_call(repro["api"], repro["kwargs"])
    with jax_config(repro.get("config")):
        arrays = random_inputs(repro)
        exc = _run_concrete(repro, call, arrays)
    verdict, detail = judge(repro["expect"], exc, where)
    if (
        verdict == INCONCLUSIVE
        and exc is not None
        and repro["api"] == R.API_LSTM
        and not env.get("cuda")
        and isinstance(exc, AttributeError)
    ):
        detail += (
            "; jax.experimental.rnn.lstm needs a CUDA jaxlib past its seq_lengths and"
            " precision checks (catalog RNN-4): confirm it on a CUDA host"
        )
    return Outcome(verdict, detail, EXECUTE)


def _execute_attention(repro: Mapping[str, Any], env: Mapping[str, Any]) -> Outcome:
    where = f"executing on {env.get('device')}"
    try:
        with jax_config(repro.get("config")):
            arrays = random_inputs(repro)
    except CannotSynthesize as e:
        return Outcome(INCONCLUSIVE, str(e), EXECUTE)
    call = attention_call(repro["api"], repro["kwargs"])
    with jax_config(repro.get("config")):
        exc = _run_concrete(repro, call, arrays)
    verdict, detail = judge(repro["expect"], exc, where)
    if fix_applies(repro):
        with jax_config(repro.get("config")):
            detail += "; " + _compare_fix(repro, arrays)
    return Outcome(verdict, detail, EXECUTE)


def _row_weight(repro: Mapping[str, Any], arrays: dict[str, Any]) -> Any:
    """1 for the query rows inside query_seq_lengths, 0 past them (None: all rows)."""
    jnp = _jax.jnp()

    lengths = arrays.get("query_seq_lengths")
    if lengths is None:
        return None
    q_shape = repro["arrays"]["query"]["shape"]
    t = int(q_shape[-3])
    valid = jnp.arange(t)[None, :] < lengths[:, None]  # (B, T)
    if len(q_shape) == 3:
        valid = valid[0]
    return valid.astype(jnp.float32)[..., None, None]


def _compare_fix(repro: Mapping[str, Any], arrays: dict[str, Any]) -> str:
    """Run the padded kernel on cuDNN and the original call on XLA; max abs differences."""
    jax, jnp = _jax.jax(), _jax.jnp()

    weight = _row_weight(repro, arrays)
    diff, const = _split(arrays, repro)
    results: dict[str, dict[str, Any]] = {}
    for label, call in (
        ("fix", _fix_call(repro["kwargs"], "cudnn")),
        ("xla", attention_call(repro["api"], {**repro["kwargs"], "implementation": "xla"})),
    ):
        try:
            out: Any = jax.jit(_forward(call))(diff, const)
            if isinstance(out, (tuple, list)):
                out = cast("Sequence[Any]", out)[0]
            if weight is not None:
                out = out.astype(jnp.float32) * weight
            res: dict[str, Any] = {"out": out}
            if repro.get("differentiated"):
                grads = jax.jit(jax.grad(_loss(call, weight)))(diff, const)
                for name, g in grads.items():
                    res["d " + name] = g
            results[label] = jax.block_until_ready(res)
        except Exception as e:  # noqa: BLE001 - reported in the detail
            return f"the fix could not be compared ({label} failed: {describe_exception(e)})"
    dtype_name = str(repro["arrays"]["query"]["dtype"])
    rel_tol = _TOLERANCE.get(dtype_name, 4e-2)
    parts: list[str] = []
    worst_ratio = 0.0
    for name, ref in results["xla"].items():
        ref32 = jnp.asarray(ref, jnp.float32)
        got32 = jnp.asarray(results["fix"][name], jnp.float32)
        err = float(jnp.max(jnp.abs(got32 - ref32))) if ref32.size else 0.0
        scale = max(1.0, float(jnp.max(jnp.abs(ref32))) if ref32.size else 1.0)
        worst_ratio = max(worst_ratio, err / (rel_tol * scale))
        parts.append(f"{name} {err:.3g}")
    judgement = "within" if worst_ratio <= 1.0 else "EXCEEDS"
    return (
        "the fix (padded_dot_product_attention on cuDNN) vs implementation='xla': max abs error "
        + ", ".join(parts)
        + f" ({judgement} the {dtype_name} tolerance {rel_tol:g} x max|ref|)"
    )
