"""Realistic models: the resolved T, S, head dim and dtype at each attention call of
the rule fixtures, and the provenance chain that explains T."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jax_cudnn_lint.lint_rules.attention_call import read_attention
from jax_cudnn_lint.lint_rules.targets import watch
from jax_cudnn_lint.shape_inference import analyse

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"


def sites(name: str) -> dict[int, set[tuple[str, str, str, str | None, str]]]:
    """line -> {(T, S, H, dtype, provenance of T)} over every context that reaches it."""
    path = FIXTURES / name
    analysis = analyse({str(path): ast.parse(path.read_text(encoding="utf-8"))}, watch)
    out: dict[int, set[tuple[str, str, str, str | None, str]]] = {}
    for event in analysis.events:
        call = read_attention(event)
        if call is None or call.T is None or call.S is None or call.query is None or call.query.shape is None:
            continue
        if call.T.value is None:
            continue
        head = call.query.shape[-1].render()
        why = " | ".join(step.text for step in call.T.why)
        out.setdefault(event.node.lineno, set()).add((call.T.render(), call.S.render(), head, call.dtype, why))
    return out


def line_of(name: str, needle: str) -> int:
    for number, line in enumerate((FIXTURES / name).read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(needle)


@pytest.mark.parametrize(
    "fixture, needle, T, S, H, dtype, provenance",
    [
        # nanoGPT-style LM: next-token shift of a 512-token batch
        ("JCD201_plain_jax.py", "is_causal=True, implementation=\"cudnn\")", "511", "511", "64", "bfloat16", "511 = 512 - 1, slice tokens[:, :-1]"),
        # ViT: a CLS token in front of 196 patches
        ("JCD201_plain_jax.py", "y = jax.nn.dot_product_attention(q, k, v, implementation=\"cudnn\")", "197", "197", "64", "float16", "197 = 1 + 196, concatenate at axis 1"),
        # CLIP-style cross-attention: 256 image tokens, 77 text tokens
        ("JCD201_plain_jax.py", "return jax.nn.dot_product_attention(q, kv, kv", "256", "77", "64", "bfloat16", "literal 256"),
        # T5-style decoder with a relative position bias
        ("JCD201_plain_jax.py", "q, q, q, bias=bias", "63", "63", "32", "bfloat16", "literal 63"),
        # a config's seq_len - 1
        ("JCD201_plain_jax.py", "mask=mask, implementation", "1023", "1023", "32", "bfloat16", "1023 = 1024 - 1"),
        # flax linen decoder: DenseGeneral to (3, heads, head_dim), model.apply under value_and_grad
        ("JCD201_flax_linen.py", "is_causal=True, implementation=\"cudnn\")", "255", "255", "32", "bfloat16", "255 = 256 - 1, slice batch[:, :-1]"),
        # flax nnx module: nnx.Linear then reshape to heads
        ("JCD201_nnx_equinox.py", "return jax.nn.dot_product_attention(q, k, v, implementation=\"cudnn\")", "77", "77", "32", "bfloat16", "literal 77"),
        # equinox module: unbatched (T, N, H) inputs
        ("JCD201_nnx_equinox.py", "return jax.nn.dot_product_attention(q, k, k", "129", "129", "32", "bfloat16", "literal 129"),
    ],
)
def test_resolved_values_and_provenance(fixture: str, needle: str, T: str, S: str, H: str, dtype: str, provenance: str) -> None:
    found = sites(fixture).get(line_of(fixture, needle), set())
    matching = [s for s in found if s[:4] == (T, S, H, dtype)]
    assert matching, f"resolved at that line: {sorted(s[:4] for s in found)}"
    assert any(provenance in s[4] for s in matching), [s[4] for s in matching]
