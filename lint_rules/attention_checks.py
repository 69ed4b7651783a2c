"""What JAX's cuDNN attention path certainly raises for one call, in JAX's own order.

JAX runs its checks one after another and raises the first that fails (catalog, section
0): the generic `jax.nn` checks (NN-2..NN-5), then inside
`fused_attention_stablehlo.dot_product_attention` the fp8 / window checks, the
bias-and-mask merge (FA-5), `check_layout` (FA-7..FA-10) and, when the custom_vjp runs,
`check_is_flash_attention` (FA-13..FA-18).  Batching rules, forward-mode autodiff and the
bias-gradient check come after; fp8 element types fail only at lowering.

Every check here is a pure function of an `AttentionCall` (and the target `Config`)
that returns a `Failure` only when the violation is certain from what the analysis
resolved.  The rules report their own failure and use `first_failure` to say when JAX
raises something else first.  Nothing here imports jax.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.lint_rules import versions
from jax_cudnn_lint.lint_rules.attention_call import AttentionCall
from jax_cudnn_lint.lint_rules.evidence import evidence_lines
from jax_cudnn_lint.shape_inference.dims import Dim, const
from jax_cudnn_lint.shape_inference.externals import module_config_at
from jax_cudnn_lint.shape_inference.handlers import caught
from jax_cudnn_lint.shape_inference.values import ArrayV, ConstV, ExternalV, IntV, TupleV, Value

SIXTEEN_BIT = frozenset({"float16", "bfloat16"})
FP8 = frozenset({"float8_e4m3fn", "float8_e5m2"})
CUDNN_DTYPES = SIXTEEN_BIT | FP8
_CANONICAL_32 = {"float64": "float32", "int64": "int32", "uint64": "uint32", "complex128": "complex64"}


@dataclass(frozen=True)
class Failure:
    """One check JAX certainly fails for a call."""

    catalog: str  # the catalog row, "FA-8"
    code: str | None  # the rule that reports it; None: no rule, used for notes only
    exception: str  # "NotImplementedError"
    message: str  # JAX's message for this call (exact when `exact`)
    regex: str | None  # `expect.message_regex` for a repro; None when a repro cannot show it
    exact: bool = True
    stage: str = "trace"  # "trace": raised while tracing; "lowering": when compiled

    def quoted(self) -> str:
        if not self.exact:
            return f"{self.exception} ({self.message})"
        return f"{self.exception}({self.message!r})" if '"' in self.message else f'{self.exception}("{self.message}")'

    def brief(self) -> str:
        """For a note in another rule's message."""
        who = f"see {self.code}" if self.code else f"catalog {self.catalog}"
        return f"{self.quoted()} ({who})"


def literal_regex(message: str) -> str:
    return re.escape(message).replace("\\ ", " ")


# -- reading the call -------------------------------------------------------------------------
@dataclass(frozen=True)
class Operands:
    """Layout-normalised dimensions of query / key / value (None: not known)."""

    rank: int
    B: Dim | None
    T: Dim | None
    S: Dim | None
    Nq: Dim | None
    Nk: Dim | None
    Nv: Dim | None
    Hq: Dim | None
    Hk: Dim | None
    Hv: Dim | None
    Bk: Dim | None
    Bv: Dim | None
    Sv: Dim | None


def _axes(layout: str | None, rank: int, api_is_nn: bool) -> tuple[int | None, int, int, int] | None:
    """(batch, seq, heads, head dim) axes."""
    if api_is_nn and rank == 3:
        return None, 0, 1, 2
    if rank != 4 or layout is None:
        return None
    if layout in ("BNTH", "BNSH"):
        return 0, 2, 1, 3
    return 0, 1, 2, 3


def operands(call: AttentionCall) -> Operands | None:
    q, k, v = call.query, call.key, call.value
    if q is None or k is None or v is None or q.shape is None or k.shape is None or v.shape is None:
        return None
    rank = len(q.shape)
    if len(k.shape) != rank or len(v.shape) != rank:
        return None
    axes = _axes(call.layout, rank, call.api_is_nn)
    if axes is None:
        return None
    b, t, n, h = axes
    one = const(1)
    return Operands(
        rank,
        q.shape[b] if b is not None else one,
        q.shape[t],
        k.shape[t],
        q.shape[n],
        k.shape[n],
        v.shape[n],
        q.shape[h],
        k.shape[h],
        v.shape[h],
        k.shape[b] if b is not None else one,
        v.shape[b] if b is not None else one,
        v.shape[t],
    )


def exact(dim: Dim | None) -> int | None:
    return dim.value if dim is not None else None


def differ(a: Dim | None, b: Dim | None) -> bool:
    """Certainly different."""
    x, y = exact(a), exact(b)
    return x is not None and y is not None and x != y


def array(value: Value | None) -> ArrayV | None:
    return value if isinstance(value, ArrayV) else None


def absent(value: Value | None) -> bool:
    return isinstance(value, ConstV) and value.value is None


def x64_on(call: AttentionCall) -> bool:
    if call.event.ctx.x64:
        return True
    flag = module_config_at(call.event, "jax_enable_x64")
    return flag is not None and flag.value is True


def dtype_as_seen(call: AttentionCall, dtype: str) -> tuple[str, str, str]:
    """The dtype JAX sees (64-bit types become 32-bit unless x64 is certainly on), a regex
    that also accepts the 64-bit name, and a note for the message ('' when exact)."""
    if dtype in _CANONICAL_32 and not x64_on(call):
        narrow = _CANONICAL_32[dtype]
        return narrow, f"({narrow}|{dtype})", f" ({dtype} if jax_enable_x64 is on)"
    return dtype, dtype, ""


def const_bool(value: Value | None) -> bool | None:
    if isinstance(value, ConstV) and isinstance(value.value, bool):
        return value.value
    return None


def const_int(value: Value | None) -> int | None:
    if isinstance(value, IntV):
        return value.dim.value
    return None


def mask_type_name(value: Value | None) -> str | None:
    if isinstance(value, ExternalV) and ".MaskType." in value.qualname:
        return value.qualname.rsplit(".", 1)[-1]
    if isinstance(value, ConstV) and value.value == "NO_MASK":
        return "NO_MASK"
    return None


def use_fp8(call: AttentionCall) -> bool | None:
    if call.api_is_nn:
        return False
    return const_bool(call.arg("use_fp8"))


def window(call: AttentionCall) -> tuple[int, int] | None:
    """jax.nn local_window_size as (left, right), when certain."""
    value = call.arg("local_window_size")
    single = const_int(value)
    if single is not None:
        return single, single
    if isinstance(value, TupleV) and len(value.items) == 2:
        left, right = const_int(value.items[0]), const_int(value.items[1])
        if left is not None and right is not None:
            return left, right
    return None


def seq_lengths_given(call: AttentionCall) -> bool | None:
    """jax.nn: query_seq_lengths or key_value_seq_lengths is passed (None: not certain)."""
    values = [call.arg("query_seq_lengths"), call.arg("key_value_seq_lengths")]
    if any(v is None for v in values):
        return None
    if all(absent(v) for v in values):
        return False
    if any(isinstance(v, (ArrayV, TupleV)) for v in values):
        return True
    return None


def last_two(arr: ArrayV) -> tuple[Dim, Dim] | None:
    if arr.shape is None or not arr.shape:
        return None
    if len(arr.shape) == 1:
        return const(1), arr.shape[0]
    return arr.shape[-2], arr.shape[-1]


def combined_bias_seq(call: AttentionCall) -> tuple[Dim, Dim, str] | None:
    """(bT, bS, what) of the bias JAX checks: bias + mask broadcast, when certain."""
    bias, mask = call.arg("bias"), call.arg("mask")
    if bias is None or mask is None:
        return None
    parts: list[tuple[str, ArrayV]] = []
    for name, value in (("bias", bias), ("mask", mask)):
        if absent(value):
            continue
        arr = array(value)
        if arr is None:
            return None
        parts.append((name, arr))
    if not parts:
        return None
    dims = [last_two(arr) for _, arr in parts]
    if any(d is None for d in dims):
        return None
    if len(parts) == 1:
        first = dims[0]
        assert first is not None
        return first[0], first[1], f"{parts[0][0]} {parts[0][1].render_shape()}"
    out: list[Dim] = []
    for axis in (0, 1):
        a, b = dims[0], dims[1]
        assert a is not None and b is not None
        x, y = exact(a[axis]), exact(b[axis])
        if x is None or y is None:
            return None
        if x == y or y == 1:
            out.append(a[axis])
        elif x == 1:
            out.append(b[axis])
        else:
            return None  # not broadcastable: FA-6, a TypeError first
    return out[0], out[1], f"bias {parts[0][1].render_shape()} + mask {parts[1][1].render_shape()}"


# -- the checks, in JAX's order --------------------------------------------------------------------
Check = Callable[[AttentionCall, Config], "Failure | None"]


def nn_generic(call: AttentionCall, config: Config) -> Failure | None:
    """NN-2 / NN-4: jax.nn's own shape and dtype checks, in its order (JCD212 reports a
    mask that is not boolean; the others raise on every host and only appear in notes)."""
    if not call.api_is_nn:
        return None
    q, k, v = call.query, call.key, call.value
    for name, arr in (("query", q), ("key", k), ("value", v)):
        if arr is not None and arr.rank is not None and arr.rank > 4:
            return Failure("NN-2", None, "ValueError", f"{name} has rank {arr.rank}, more than 4", None, exact=False)
        if arr is not None and arr.rank is not None and arr.rank < 3:
            return Failure("NN-2", None, "ValueError", f"{name} has rank {arr.rank}, fewer than 3", None, exact=False)
    if q is None or k is None or v is None:
        return None
    if q.rank is not None and k.rank is not None and v.rank is not None and not q.rank == k.rank == v.rank:
        return Failure("NN-2", None, "ValueError", "query, key and value ranks differ", None, exact=False)
    if k.dtype is not None and v.dtype is not None and k.dtype != v.dtype:
        return Failure("NN-2", None, "ValueError", f"value dtype should be {k.dtype}, but got {v.dtype}", None)
    if k.dtype is not None and q.dtype is not None and k.dtype != q.dtype:
        return Failure("NN-2", None, "ValueError", f"query dtype should be {k.dtype}, but got {q.dtype}", None)
    if k.shape is not None and v.shape is not None and len(k.shape) == len(v.shape) and any(differ(a, b) for a, b in zip(k.shape, v.shape)):
        return Failure("NN-2", None, "ValueError", f"value shape should be the key's {k.render_shape()}, got {v.render_shape()}", None, exact=False)
    ops = operands(call)
    if ops is not None and (differ(ops.Hq, ops.Hk) or (ops.rank == 4 and differ(ops.B, ops.Bk))):
        return Failure("NN-2", None, "ValueError", f"query shape should be [B, -1, -1, H] of the key's {k.render_shape()}, got {q.render_shape()}", None, exact=False)
    mask = array(call.arg("mask"))
    if mask is not None and mask.dtype is not None and mask.dtype != "bool":
        seen, seen_regex, _ = dtype_as_seen(call, mask.dtype)
        return Failure("NN-2", "JCD212", "ValueError", f"mask dtype should be bool, but got {seen}", f"mask dtype should be bool, but got {seen_regex}$")
    for name in ("bias", "mask"):
        arr = array(call.arg(name))
        if arr is not None and arr.rank is not None and arr.rank > 4:
            return Failure("NN-2", None, "ValueError", f"{name} ndim should be 4, but got {arr.rank}", None)
    return None


def gqa_heads(call: AttentionCall, config: Config) -> Failure | None:
    """NN-3: the query heads must be a multiple of the key/value heads (every implementation)."""
    if not call.api_is_nn or versions.before(config, (0, 4, 32)):
        return None
    ops = operands(call)
    if ops is None:
        return None
    n, k = exact(ops.Nq), exact(ops.Nk)
    if n is None or k is None or k == 0 or n % k == 0:
        return None
    message = f"The number of query heads must be a multiple of key/value heads, but got {n} vs {k}"
    return Failure("NN-3", "JCD206", "ValueError", message, literal_regex(message))


def right_window(call: AttentionCall, config: Config) -> Failure | None:
    """NN-5: a right window without a plain causal mask (cuDNN only, before any probing)."""
    if not call.api_is_nn or not call.is_cudnn or versions.before(config, (0, 4, 34)):
        return None
    win = window(call)
    if win is None or win[1] == 0:
        return None
    causal = const_bool(call.arg("is_causal"))
    padding = seq_lengths_given(call)
    if causal is None and padding is not True:
        return None  # (with sequence lengths the mask is PADDING or PADDING_CAUSAL: either way, probe 39c)
    if causal and padding is not True:
        return None  # CAUSAL (no lengths) accepts a right window; unknown: silent
    message = f"cuDNN doesn't support right window: {win[1]} when causal mask is not used."
    return Failure("NN-5", "JCD207", "ValueError", message, literal_regex(message))


def fp8_arguments(call: AttentionCall, config: Config) -> Failure | None:
    """FA-3: the fp8 path of the direct API takes fp8_params and no bias/mask/lengths."""
    if call.api_is_nn or use_fp8(call) is not True or versions.before(config, (0, 4, 38)):
        return None
    params = call.arg("fp8_params")
    if absent(params):
        return Failure("FA-3", "JCD210", "ValueError", "fp8_params should not be None.", literal_regex("fp8_params should not be None."))
    mask_type = mask_type_name(call.arg("mask_type"))
    if mask_type is not None and mask_type not in ("NO_MASK", "CAUSAL"):
        message = "Only NO_MASK or CAUSAL masks are supported for fp8."
        return Failure("FA-3", "JCD210", "ValueError", message, literal_regex(message))
    given = [name for name in ("bias", "mask", "q_seqlen", "kv_seqlen") if array(call.arg(name)) is not None]
    if given:
        message = "Expected 'None' for bias, mask, q_seqlen, and kv_seqlen, but got: bias=..."
        return Failure("FA-3", "JCD210", "ValueError", message + f" (passed: {', '.join(given)})", literal_regex("Expected 'None' for bias, mask, q_seqlen, and kv_seqlen"), exact=False)
    return None


_LAYOUTS = ("BSNH", "BNSH", "BTNH", "BNTH")


def layout_name(call: AttentionCall, config: Config) -> Failure | None:
    """FA-2: the direct API's `qkv_layout` must name one of four layouts."""
    if call.api_is_nn or versions.before(config, (0, 4, 27)):
        return None
    given = call.arg("qkv_layout")
    if not (isinstance(given, ConstV) and isinstance(given.value, str)) or given.value.upper() in _LAYOUTS:
        return None
    message = f"Unsupported qkv_layout: {given.value}"
    return Failure("FA-2", "JCD213", "ValueError", message, literal_regex(message))


def padding_without_lengths(call: AttentionCall, config: Config) -> Failure | None:
    """FA-4a: a PADDING / PADDING_CAUSAL mask type of the direct API needs both lengths."""
    if call.api_is_nn or use_fp8(call) is not False or versions.before(config, (0, 4, 29)):
        return None
    if mask_type_name(call.arg("mask_type")) not in ("PADDING", "PADDING_CAUSAL"):
        return None
    if not (absent(call.arg("q_seqlen")) or absent(call.arg("kv_seqlen"))):
        return None
    message = "Require q_seqlen and kv_seqlen to generate padding mask"
    return Failure("FA-4a", "JCD213", "ValueError", message, literal_regex(message))


def offsets_without_lengths(call: AttentionCall, config: Config) -> Failure | None:
    """FA-4c: packed segments (`q_offsets`) of the direct API need both lengths."""
    if call.api_is_nn or use_fp8(call) is not False or versions.before(config, (0, 5, 1)):
        return None
    if array(call.arg("q_offsets")) is None or not (absent(call.arg("q_seqlen")) or absent(call.arg("kv_seqlen"))):
        return None
    message = "Require q_seqlen and kv_seqlen to use packed layout"
    return Failure("FA-4c", "JCD213", "ValueError", message, literal_regex(message))


def sliding_window(call: AttentionCall, config: Config) -> Failure | None:
    """FA-4b: the left window must leave a positive sliding window."""
    if not call.is_cudnn or versions.before(config, (0, 4, 32)):
        return None
    if call.api_is_nn:
        win = window(call)
        causal = const_bool(call.arg("is_causal"))
        if win is None or causal is None or not (win[1] == 0 or causal):
            return None
        length = win[0] + 1
    else:
        value = const_int(call.arg("sliding_window_length"))
        if value is None or use_fp8(call) is not False:
            return None  # (the fp8 path never reads the window: probe 96a)
        length = value
    if length > 0:
        return None
    message = f"Require sliding_window_length > 0, got {length}"
    return Failure("FA-4b", "JCD213", "ValueError", message, literal_regex(message))


def bool_mask_dtype(call: AttentionCall, config: Config) -> Failure | None:
    """FA-5: a boolean mask is turned into a bias of the query's dtype, bf16/fp16 only."""
    if not call.is_cudnn or versions.before(config, versions.NN_CUDNN_SINCE) or use_fp8(call) is not False:
        return None
    dtype = call.dtype
    mask = array(call.arg("mask"))
    if dtype is None or mask is None or dtype in SIXTEEN_BIT:
        return None
    if mask.dtype != "bool" and not (call.api_is_nn and mask.dtype is None):
        return None  # jax.nn takes boolean masks only (NN-2); a float mask is a bias
    message = "Unsupported dtype for inputs."
    return Failure("FA-5", "JCD203", "ValueError", message, literal_regex(message))


def fa_layout(call: AttentionCall, config: Config) -> Failure | None:
    """FA-7 / FA-9 on the direct API: Q of rank 4, and Q, K, V that agree."""
    if call.api_is_nn:
        return None
    q, k, v = call.query, call.key, call.value
    if q is not None and q.rank is not None and q.rank != 4:
        return Failure("FA-7", "JCD213", "ValueError", f"Q must have a rank of 4, got {q.rank}", None)
    ops = operands(call)
    if ops is None or q is None or k is None or v is None:
        return None
    if differ(ops.B, ops.Bk) or differ(ops.B, ops.Bv):
        return Failure("FA-9", "JCD213", "ValueError", "QKV batch must be same", None, exact=False)
    if differ(ops.Hq, ops.Hk):
        return Failure("FA-9", "JCD213", "ValueError", f"QK must have same head dim, got {exact(ops.Hq)} vs {exact(ops.Hk)}", None)
    if differ(ops.Nk, ops.Nv):
        return Failure("FA-9", "JCD213", "ValueError", f"KV must have same number of heads, got {exact(ops.Nk)} vs {exact(ops.Nv)}", None)
    if differ(ops.S, ops.Sv):
        return Failure("FA-9", "JCD213", "ValueError", f"KV must have same seq length, got {exact(ops.S)} vs {exact(ops.Sv)}", None)
    return None


def qkv_dtype(call: AttentionCall, config: Config) -> Failure | None:
    """FA-8: Q must be fp16 / bf16 / fp8 (float32 is the usual culprit)."""
    if not call.is_cudnn or versions.before(config, versions.NN_CUDNN_SINCE):
        return None
    dtype = call.dtype
    if dtype is None or dtype in CUDNN_DTYPES:
        return None
    shown, pattern, _ = dtype_as_seen(call, dtype)
    if versions.before(config, (0, 4, 38)):
        message = f"the Q dtype check: fp16/bf16 only, got {shown}"
        return Failure("FA-8", "JCD203", "NotImplementedError", message, None, exact=False)
    message = f"Q must be fp16/bf16/fp8_e4m3fn/fp8_e5m2, got {shown}"
    regex = literal_regex("Q must be fp16/bf16/fp8_e4m3fn/fp8_e5m2, got ") + pattern
    return Failure("FA-8", "JCD203", "NotImplementedError", message, regex)


def bias_seq(call: AttentionCall, config: Config) -> Failure | None:
    """FA-10: the bias (bias + mask) must span exactly (T, S) in its last two axes."""
    if not call.is_cudnn or versions.before(config, (0, 4, 29)) or use_fp8(call) is not False:
        return None
    if call.api_is_nn and versions.before(config, versions.NN_CUDNN_SINCE):
        return None
    seq = combined_bias_seq(call)
    if seq is None or call.T is None or call.S is None:
        return None
    bT, bS, _ = seq
    if not (differ(bT, call.T) or differ(bS, call.S)):
        return None
    message = f"Bias must have same seq length as QKV, got {bT.render()} and {bS.render()}"
    return Failure("FA-10", "JCD205", "ValueError", message, literal_regex(message))


def compute_capability_10_3(call: AttentionCall, config: Config) -> Failure | None:
    """FA-13: compute capability 10.3 needs cuDNN 9.11 for every shape."""
    if not call.is_cudnn or versions.before(config, (0, 7, 0)):
        return None
    if not versions.cc_equal(config, 10, 3) or versions.cudnn_at_least(config, 9, 11):
        return None
    message = "Compute capability 10.3 requires cuDNN version >= 9.11."
    return Failure("FA-13", "JCD210", "NotImplementedError", message, literal_regex(message))


def fp8_shape(call: AttentionCall, config: Config) -> Failure | None:
    """FA-18: fp8 training needs H == 128 and T, S multiples of 128; inference H <= 256, H % 16 == 0."""
    if call.api_is_nn or use_fp8(call) is not True or versions.before(config, (0, 4, 38)):
        return None
    ops = operands(call)
    if ops is None:
        return None
    h, t, s = exact(ops.Hq), exact(ops.T), exact(ops.S)
    if h is None or t is None or s is None:
        return None
    inference_ok = h <= 256 and h % 16 == 0
    training_ok = h == 128 and t % 128 == 0 and s % 128 == 0
    if inference_ok and (training_ok or not call.differentiated):
        return None
    message = f"Unsupported sequence length Q {t}, KV {s} and head dim {h} for FP8."
    return Failure("FA-18", "JCD210", "NotImplementedError", message, literal_regex(message))


def head_dim(call: AttentionCall, config: Config) -> Failure | None:
    """FA-14: the head dim must be a multiple of 8 and at most H_max (target and version dependent)."""
    if not call.is_cudnn or use_fp8(call) is not False:
        return None
    if call.api_is_nn and versions.before(config, versions.NN_CUDNN_SINCE):
        return None
    ops = operands(call)
    limit = versions.head_dim_max(config)
    if ops is None or limit is None:
        return None
    h = exact(ops.Hq)
    if h is None:
        return None
    h_max, _ = limit
    if h % 8 == 0 and h <= h_max:
        return None
    message = versions.head_dim_message(config, h_max, str(h), None if call.T is None else call.T.render(), None if call.S is None else call.S.render())
    if message is None:
        return Failure("FA-14", "JCD204", "NotImplementedError", f"head dim {h} (limit {h_max}, multiple of 8)", None, exact=False)
    return Failure("FA-14", "JCD204", "NotImplementedError", message, literal_regex(message))


def odd_seqlen_in_training(call: AttentionCall, config: Config) -> Failure | None:
    """FA-15 (reported by JCD201): differentiated with an odd T or S."""
    T, S = call.T, call.S
    if not call.is_cudnn or not call.differentiated or use_fp8(call) is not False:
        return None
    if not (T is not None and T.parity() == 1 or S is not None and S.parity() == 1):
        return None
    if versions.before(config, (0, 4, 29)) and not call.has_bias_or_mask:
        return None
    if T is None or S is None:  # one length unknown: the message is not known in full
        return Failure("FA-15", "JCD201", "NotImplementedError", "Unsupported sequence length (an odd one)", None, exact=False)
    message = f"Unsupported sequence length Q {T.render()}, KV {S.render()}."
    return Failure("FA-15", "JCD201", "NotImplementedError", message, literal_regex(message))


def packed_layout(call: AttentionCall, config: Config) -> Failure | None:
    """FA-16: packed (q_offsets with several segments per batch) needs Hopper."""
    if call.api_is_nn or use_fp8(call) is not False or versions.before(config, (0, 6, 0)):
        return None
    if versions.cc_at_least(config, 9, 0):
        return None
    offsets = array(call.arg("q_offsets"))
    if offsets is None or offsets.shape is None or len(offsets.shape) != 2:
        return None
    for name in ("q_seqlen", "kv_seqlen"):
        lengths = array(call.arg(name))
        if lengths is None or lengths.rank != 2:
            return None  # FA-4c or FA-11 first
    width = exact(offsets.shape[1])
    if width is None or width - 1 <= 1:
        return None
    if versions.before(config, (0, 8, 0)):
        return Failure("FA-16", "JCD210", "NotImplementedError", "packed layout needs Hopper (compute capability 9.0)", None, exact=False)
    message = "Packed layout requires a GPU with at least Hopper architecture."
    return Failure("FA-16", "JCD210", "NotImplementedError", message, literal_regex(message))


def mla(call: AttentionCall, config: Config) -> Failure | None:
    """FA-17: a value head dim different from the query's (MLA) needs cuDNN 9.10 and Hopper."""
    if call.api_is_nn or use_fp8(call) is not False or versions.before(config, (0, 7, 0)):
        return None
    ops = operands(call)
    if ops is None or not differ(ops.Hq, ops.Hv):
        return None
    if versions.cudnn_at_least(config, 9, 10) and versions.cc_at_least(config, 9, 0):
        return None
    message = "mla requires cudnn version >= 9.10 and at least hopper arch."
    return Failure("FA-17", "JCD210", "NotImplementedError", message, literal_regex(message))


def fp8_without_use_fp8(call: AttentionCall, config: Config) -> Failure | None:
    """FA-24b: fp8 Q/K/V pass the dtype check but the non-fp8 kernel cannot lower them."""
    if not call.is_cudnn or use_fp8(call) is not False or versions.before(config, (0, 4, 38)):
        return None
    dtype = call.dtype
    if dtype not in FP8:
        return None
    ir_type = {"float8_e4m3fn": "Float8E4M3FNType(f8E4M3FN)", "float8_e5m2": "Float8E5M2Type(f8E5M2)"}[dtype]
    return Failure("FA-24b", "JCD203", "KeyError", ir_type, None, stage="lowering")


# The order JAX checks in (catalog section 0); later stages (batching, forward-mode AD, the
# bias gradient) come after all of these.
ORDER: tuple[tuple[str, Check], ...] = (
    ("NN-2", nn_generic),
    ("NN-3", gqa_heads),
    ("NN-5", right_window),
    ("FA-2", layout_name),
    ("FA-3", fp8_arguments),
    ("FA-4a", padding_without_lengths),
    ("FA-4b", sliding_window),
    ("FA-4c", offsets_without_lengths),
    ("FA-5", bool_mask_dtype),
    ("FA-7", fa_layout),
    ("FA-8", qkv_dtype),
    ("FA-10", bias_seq),
    ("FA-13", compute_capability_10_3),
    ("FA-18", fp8_shape),
    ("FA-14", head_dim),
    ("FA-15", odd_seqlen_in_training),
    ("FA-16", packed_layout),
    ("FA-17", mla),
)
# rows checked by another row's entry of ORDER (fa_layout reports FA-9 after FA-7)
_CHECKED_AS = {"FA-9": "FA-7"}
TRACE_END = "trace-end"  # after every check above: batching, forward-mode AD, bias gradient
LOWERING = "lowering"


def failures(call: AttentionCall, config: Config, before: str) -> list[Failure]:
    """Every certain failure among the checks JAX runs before `before` (a catalog id of
    ORDER, or TRACE_END / LOWERING for the stages after all of them)."""
    out: list[Failure] = []
    for catalog, check in ORDER:
        if catalog == _CHECKED_AS.get(before, before):
            break
        found = check(call, config)
        if found is not None:
            out.append(found)
    return out


def first_unhandled(call: AttentionCall, config: Config, checks: Sequence[Check]) -> Failure | None:
    """The first of a rule's `checks` that certainly fails, unless a handler around the
    call catches it (or what JAX raises before it)."""
    failure = next((found for check in checks if (found := check(call, config)) is not None), None)
    if failure is None or handled(call, config, failure.exception, failure.catalog):
        return None
    return failure


def operand_evidence(call: AttentionCall, labels: Sequence[str]) -> list[str]:
    """Evidence lines for the operands' dims a finding names (`T`, `S`, `B`, `H (query)`,
    `H (key)`, `H (value)`, `S (value)`), where resolved."""
    ops = operands(call)
    if ops is None:
        return []
    dims = {"T": ops.T, "S": ops.S, "B": ops.B, "H (query)": ops.Hq, "H (key)": ops.Hk, "H (value)": ops.Hv, "S (value)": ops.Sv}
    here = call.event.module.path
    return [line for label in labels if (dim := dims[label]) is not None for line in evidence_lines(label, dim.why, here)]


def first_failure(call: AttentionCall, config: Config, before: str) -> Failure | None:
    """What JAX raises before the check `before`."""
    found = failures(call, config, before)
    return found[0] if found else None


def first_note(call: AttentionCall, config: Config, before: str) -> str:
    """' (JAX first raises ...)' when an earlier check certainly fails, else ''."""
    first = first_failure(call, config, before)
    if first is None:
        return ""
    return f" (JAX first raises {first.brief()})"


def handled(call: AttentionCall, config: Config, exception: str, before: str, differentiation: bool = False) -> bool:
    """Is the rule's failure handled around the call (a `try` that carries on, a
    `suppress`)?  Where its own `exception` is caught, and where an earlier check's
    certain failure is: JAX stops there.  (An earlier failure that escapes is that
    check's finding; with it fixed, this one would be caught.)  A failure the
    `differentiation` raises is caught only by the handlers around the staged function
    it lies in (Ctx.staged_handled); an earlier one, raised while tracing, by all."""
    handled_here = call.event.ctx.handled
    if not handled_here:
        return False
    if caught(call.event.ctx.handled_when_differentiated() if differentiation else handled_here, exception):
        return True
    first = first_failure(call, config, before)
    return first is not None and caught(handled_here, first.exception)


def only_dtype_before(call: AttentionCall, config: Config, before: str) -> bool | None:
    """True: the only earlier failures are the dtype checks (FA-5/FA-8); None: none at all."""
    found = failures(call, config, before)
    if not found:
        return None
    return all(f.catalog in ("FA-5", "FA-8") for f in found)


def neutral_dtype_repro(repro: dict[str, object] | None, call: AttentionCall) -> dict[str, object] | None:
    """The repro with bfloat16 operands, so a later check can be shown on its own."""
    if repro is None:
        return None
    arrays = repro.get("arrays")
    if not isinstance(arrays, dict):
        return None
    patched: dict[str, object] = {}
    for name, spec in cast("dict[str, object]", arrays).items():
        if not isinstance(spec, dict):
            return None
        new = dict(cast("dict[str, object]", spec))
        if name in ("query", "key", "value") or (name == "bias" and new.get("dtype") != "bool"):
            new["dtype"] = "bfloat16"
        patched[name] = new
    previous = repro.get("shrunk")
    shrunk = [str(s) for s in cast("list[object]", previous)] if isinstance(previous, list) else []
    shrunk.append(f"dtype: {call.dtype} -> bfloat16 (the dtype check, JCD203, would fire first)")
    return {**repro, "arrays": patched, "shrunk": shrunk}


def repro_for(call: AttentionCall, config: Config, failure: Failure, code: str, *, differentiated: bool, before: str | None = None) -> dict[str, object] | None:
    """A repro that shows `failure`, with the dtype made cuDNN's when only it fails first."""
    if failure.regex is None or failure.stage != "trace" or operands(call) is None:
        return None  # the repro builder reads 3-D (jax.nn) or 4-D operands only
    repro = call.repro(code, differentiated=differentiated, expect_regex=failure.regex, exception=failure.exception)
    earlier = only_dtype_before(call, config, before or failure.catalog)
    if earlier is None:
        return repro
    if earlier and failure.catalog not in ("FA-5", "FA-8"):
        return neutral_dtype_repro(repro, call)
    return None


def describe_dims(names: Sequence[tuple[str, Dim | None]]) -> str:
    return ", ".join(f"{name}={dim.render()}" for name, dim in names if dim is not None)
