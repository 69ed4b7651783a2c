"""One evaluated attention call, read the way JAX's cuDNN path reads it.

Normalises `jax.nn.dot_product_attention` (BTNH, or TNH with the batch axis added)
and `fused_attention_stablehlo.dot_product_attention` (any qkv_layout) into the
facts every attention rule needs: does it reach cuDNN, T, S, heads, head dim,
dtype, bias / mask, and whether it is differentiated.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.kernels.repro import API_KWARGS
from jax_cudnn_lint.lint_rules.targets import FA_ATTENTION, NN_ATTENTION, Bound, bind
from jax_cudnn_lint.shape_inference.context import CallEvent
from jax_cudnn_lint.shape_inference.dims import Dim
from jax_cudnn_lint.shape_inference.values import ArrayV, ConstV, ExternalV, Value, const_value

_LAYOUT_T_AXIS = {"BTNH": 1, "BSNH": 1, "BNTH": 2, "BNSH": 2}
_NONE = ConstV(None)


def _is_none(value: Value | None) -> bool:
    return isinstance(value, ConstV) and value.value is None


def _const_str(value: Value | None) -> str | None:
    if value is None:
        return None
    ok, py = const_value(value)
    return py if ok and isinstance(py, str) else None


@dataclass
class AttentionCall:
    event: CallEvent
    bound: Bound
    api_is_nn: bool
    is_cudnn: bool
    cudnn_reason: str
    layout: str | None
    query: ArrayV | None
    key: ArrayV | None
    value: ArrayV | None
    T: Dim | None
    S: Dim | None
    has_bias_or_mask: bool | None
    differentiated: bool
    never_differentiated: bool = False  # stop_gradient on every operand

    @property
    def dtype(self) -> str | None:
        return self.query.dtype if self.query is not None else None

    def arg(self, name: str) -> Value | None:
        return self.bound.get(name)

    def repro(self, code: str, *, differentiated: bool, expect_regex: str, exception: str = "NotImplementedError") -> dict[str, Any] | None:
        """A self-contained repro, or None when a value it needs is not resolved.

        Batch is shrunk to at most 2 and heads to the smallest count with the same
        query/key-value ratio: the cuDNN checks the rules predict do not depend on them.
        """
        arrays: dict[str, dict[str, Any]] = {}
        q, k, v = self.query, self.key, self.value
        if q is None or k is None or v is None or self.layout is None:
            return None
        shrunk: list[str] = []
        exact: dict[str, list[int]] = {}
        for name, arr in (("query", q), ("key", k), ("value", v)):
            if arr.shape is None or arr.dtype is None or any(d.value is None for d in arr.shape):
                return None
            exact[name] = [d.value for d in arr.shape if d.value is not None]
        ranks = {len(shape) for shape in exact.values()}
        if ranks not in ({4}, {3}) or (ranks == {3} and not self.api_is_nn):
            return None  # JAX rejects these ranks before any check a rule predicts
        layout = self.layout if len(exact["query"]) == 4 else "TNH"
        n_axis = {"BTNH": 2, "BSNH": 2, "BNTH": 1, "BNSH": 1, "TNH": 1}[layout]
        b_axis = 0 if layout != "TNH" else None
        nq, nk = exact["query"][n_axis], exact["key"][n_axis]
        new_nq, new_nk = nq, nk
        if nk and nq % nk == 0 and nk > 1:
            new_nq, new_nk = nq // nk, 1
            shrunk.append("heads")
        batch_from: int | None = exact["query"][b_axis] if b_axis is not None else None
        new_b = min(batch_from, 2) if batch_from is not None else None
        if batch_from is not None and new_b != batch_from:
            shrunk.append("batch")
        for name, arr in (("query", q), ("key", k), ("value", v)):
            shape = list(exact[name])
            shape[n_axis] = new_nq if name == "query" else new_nk
            if b_axis is not None and new_b is not None:
                shape[b_axis] = new_b
            arrays[name] = {"shape": shape, "dtype": arr.dtype}
        for name in ("bias", "mask"):
            val = self.arg(name)
            if val is None:
                return None
            if _is_none(val):
                continue
            if not isinstance(val, ArrayV) or val.shape is None or any(d.value is None for d in val.shape):
                return None
            shape = [d.value for d in val.shape if d.value is not None]
            if len(shape) == 4:
                if batch_from is not None and new_b is not None and shape[0] == batch_from:
                    shape[0] = new_b
                if shape[1] == nq:
                    shape[1] = new_nq
                elif shape[1] == nk:
                    shape[1] = new_nk
            arrays[name] = {"shape": shape, "dtype": val.dtype or ("bool" if name == "mask" else q.dtype)}
        kwargs: dict[str, Any] = {}
        allowed = API_KWARGS.get(self.event.qualname, ((), ()))
        for name, val in self.bound.values.items():
            if name in ("query", "key", "value", "bias", "mask"):
                continue
            if name not in allowed[0] + allowed[1]:
                if name in self.bound.explicit and not _is_none(val):
                    return None  # an operand the repro schema cannot carry yet
                continue
            if _is_none(val) and name not in self.bound.explicit:
                continue
            ok, py = const_value(val)
            if ok and isinstance(py, (int, float, str, bool, type(None), tuple, list)):
                kwargs[name] = list(py) if isinstance(py, tuple) else py  # type: ignore[arg-type]
            elif isinstance(val, ExternalV):
                kwargs[name] = val.qualname.rsplit(".", 1)[-1]  # an enum member such as MaskType.CAUSAL
            elif name in self.bound.explicit:
                return None
        wrt = ["query", "key", "value"]
        return {
            "schema": "jax-cudnn-lint/repro/1",
            "code": code,
            "api": self.event.qualname,
            "differentiated": differentiated,
            "wrt": wrt,
            "arrays": arrays,
            "kwargs": kwargs,
            "expect": {"exception": exception, "message_regex": expect_regex},
            "shrunk": shrunk,
        }


def read_attention(event: CallEvent) -> AttentionCall | None:
    if event.qualname not in (NN_ATTENTION, FA_ATTENTION):
        return None
    bound = bind(event)
    if bound is None:
        return None
    api_is_nn = event.qualname == NN_ATTENTION
    if api_is_nn:
        impl = bound.get("implementation")
        impl_name = _const_str(impl)
        is_cudnn = impl_name == "cudnn"
        if is_cudnn:
            reason = "cuDNN: implementation='cudnn'" + (f" ({impl.why[-1].text}, line {impl.why[-1].line})" if impl is not None and impl.why and impl.why[-1].line != event.node.lineno else "")
        else:
            reason = f"not cuDNN: implementation={impl_name!r}" if impl_name is not None else "implementation not resolved"
        layout: str | None = "BTNH"
    else:
        is_cudnn = True
        reason = "cuDNN: fused_attention_stablehlo is cuDNN-only"
        layout = _const_str(bound.get("qkv_layout"))
        layout = layout.upper() if layout else None
        if layout not in _LAYOUT_T_AXIS:
            layout = None
    q = bound.get("query")
    k = bound.get("key")
    v = bound.get("value")
    query = q if isinstance(q, ArrayV) else None
    key = k if isinstance(k, ArrayV) else None
    value = v if isinstance(v, ArrayV) else None
    t_len: Dim | None = None
    s_len: Dim | None = None
    q_shape = query.shape if query is not None else None
    k_shape = key.shape if key is not None else None
    if layout is not None and (q_shape is not None or k_shape is not None):
        # each length from its own operand; one whose shape is unknown leaves only its
        # length unknown (a Perceiver's latents against inputs of unknown shape), but
        # ranks that certainly differ are another error
        ranks = {len(shape) for shape in (q_shape, k_shape) if shape is not None}
        rank = ranks.pop() if len(ranks) == 1 else None
        axis = 0 if api_is_nn and rank == 3 else _LAYOUT_T_AXIS[layout] if rank == 4 else None
        if axis is not None:
            t_len = q_shape[axis] if q_shape is not None else None
            s_len = k_shape[axis] if k_shape is not None else None
    bias = bound.get("bias")
    mask = bound.get("mask")
    has: bool | None
    if bias is None or mask is None:
        has = None
    else:
        has = not (_is_none(bias) and _is_none(mask))
        if (not _is_none(bias) and not isinstance(bias, ArrayV)) or (not _is_none(mask) and not isinstance(mask, ArrayV)):
            # a value that may be None or an array: presence is not certain; the
            # verdict does not depend on it after 0.4.29, so treat it as absent
            has = False
    operands = [x for x in (q, k, v, bias) if x is not None]
    differentiated = any(x.diff for x in operands)
    stopped = all(
        (isinstance(x, ArrayV) and x.stopped) or _is_none(x) for x in operands
    ) and any(isinstance(x, ArrayV) for x in operands)
    return AttentionCall(event, bound, api_is_nn, is_cudnn, reason, layout, query, key, value, t_len, s_len, has, differentiated, stopped)


# the attention calls of the last events list read: every attention rule reads the same
# list in turn (a file of 2,000 calls read them 13 times: probe 145a)
_last_read: tuple[list[CallEvent], tuple[CallEvent, ...], list[AttentionCall]] | None = None


def attention_calls(events: list[CallEvent], config: Config) -> Iterator[AttentionCall]:
    global _last_read
    last = _last_read
    if last is not None and last[0] is events and len(last[1]) == len(events) and all(a is b for a, b in zip(last[1], events)):
        yield from last[2]
        return
    calls = [call for event in events if (call := read_attention(event)) is not None]
    _last_read = (events, tuple(events), calls)
    yield from calls
