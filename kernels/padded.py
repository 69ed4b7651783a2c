"""The fix for JCD201/JCD202: pad T and S to even, mask the padding, slice the output back.

cuDNN's backward pass rejects odd sequence lengths (catalog FA-15: `Unsupported sequence
length Q {T}, KV {S}.`).  Zero-padding queries and keys at the end and excluding the padded
keys changes nothing for the real positions: a padded key gets no weight, a padded query
row is sliced off (its output gets no cotangent, so it adds nothing to any gradient).

How the padded keys are excluded: through `key_value_seq_lengths` (and
`query_seq_lengths`), not through a boolean mask.  Lengths keep the call on cuDNN's
padding-mask path with no (B, N, T, S) tensor to build, read or differentiate, a bool mask
would force a bf16/fp16 check (FA-5) and a full (T, S) shape (FA-10) on callers who pass
none, and they compose with a user's own mask or bias (padded here with False / 0).  The
lengths are computed from the query's values so that under `jax.vmap` they are batched
like the query (an unbatched operand next to a batched one is catalog FA-20 on JAX
<= 0.11.0).

Importing this module does not import jax; calling the kernel does.
"""

from __future__ import annotations

from typing import Any

from . import _jax


def _round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def _pad_axis(x: Any, axis: int, extra: int, value: Any) -> Any:
    jnp = _jax.jnp()

    if extra == 0:
        return x
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, extra)
    return jnp.pad(x, widths, constant_values=value)


def _pad_tail(x: Any, t: int, t_pad: int, s: int, s_pad: int, value: Any) -> Any:
    """Pad a bias or mask over its last two axes (T, S) where they are full-size.

    An axis of size 1 that is not the real length broadcasts and is left alone.
    """
    if x.ndim >= 2 and x.shape[-2] == t:
        x = _pad_axis(x, x.ndim - 2, t_pad - t, value)
    if x.ndim >= 1 and x.shape[-1] == s:
        x = _pad_axis(x, x.ndim - 1, s_pad - s, value)
    return x


def padded_dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    *,
    multiple: int = 2,
    **kwargs: Any,
) -> Any:
    """`jax.nn.dot_product_attention` with T and S padded up to a multiple of `multiple`.

    Same arguments and result as `jax.nn.dot_product_attention` (3-D TNH or 4-D BTNH,
    GQA, bias, mask, `is_causal`, `query_seq_lengths`, `key_value_seq_lengths`,
    `local_window_size`, `implementation`, `return_residual`), plus `multiple` (2 is
    what cuDNN's backward pass needs).  With `is_causal=True` a `local_window_size`
    `(left, right)` is passed as `(left, 0)`: causal attention never sees the right side,
    and cuDNN refuses a right window together with lengths (catalog NN-5).

    Known difference: a query row whose mask is all False (no key to attend to) has no
    defined result; XLA spreads it uniformly over the keys it sees, which now include the
    padding.
    """
    jax, jnp = _jax.jax(), _jax.jnp()

    if isinstance(multiple, bool) or not isinstance(multiple, int) or multiple < 1:  # pyright: ignore[reportUnnecessaryIsInstance] - callers are not type-checked
        raise ValueError(f"multiple must be a positive integer, got {multiple!r}")
    attention: Any = jax.nn.dot_product_attention
    q = jnp.asarray(query)
    k = jnp.asarray(key)
    v = jnp.asarray(value)
    if q.ndim not in (3, 4) or k.ndim != q.ndim or v.ndim != q.ndim:
        # Not a layout this kernel understands: let JAX report it as it would.
        return attention(query, key, value, bias, mask, **kwargs)
    seq_axis = q.ndim - 3
    t, s = int(q.shape[seq_axis]), int(k.shape[seq_axis])
    t_pad, s_pad = _round_up(t, multiple), _round_up(s, multiple)
    if (t_pad, s_pad) == (t, s):
        return attention(q, k, v, bias, mask, **kwargs)

    q = _pad_axis(q, seq_axis, t_pad - t, 0)
    k = _pad_axis(k, seq_axis, s_pad - s, 0)
    v = _pad_axis(v, seq_axis, s_pad - s, 0)
    if bias is not None:
        bias = _pad_tail(jnp.asarray(bias), t, t_pad, s, s_pad, 0)
    if mask is not None:
        mask = _pad_tail(jnp.asarray(mask), t, t_pad, s, s_pad, False)

    # One length per batch row, derived from the query's values (batched under vmap).
    row = q[:, 0, 0, 0] if q.ndim == 4 else q[:1, 0, 0]
    q_lengths = kwargs.pop("query_seq_lengths", None)
    kv_lengths = kwargs.pop("key_value_seq_lengths", None)
    if q_lengths is None:
        q_lengths = jnp.where(jnp.isnan(row), t, t).astype(jnp.int32)
    if kv_lengths is None:
        kv_lengths = jnp.where(jnp.isnan(row), s, s).astype(jnp.int32)

    window = kwargs.get("local_window_size")
    if window is not None and kwargs.get("is_causal", False):
        left = window if isinstance(window, int) else window[0]
        kwargs["local_window_size"] = (left, 0)

    out = attention(
        q,
        k,
        v,
        bias,
        mask,
        query_seq_lengths=q_lengths,
        key_value_seq_lengths=kv_lengths,
        **kwargs,
    )
    if kwargs.get("return_residual", False):
        out, residual = out
        return _slice_seq(out, seq_axis, t), _slice_seq(residual, seq_axis, t)
    return _slice_seq(out, seq_axis, t)


def _slice_seq(x: Any, axis: int, n: int) -> Any:
    return _jax.module("jax.lax").slice_in_dim(x, 0, n, axis=axis)
