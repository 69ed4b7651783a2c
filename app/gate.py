"""The substring gate, in a module of its own: the flake8 plugin imports only this
(and the rule codes) up front, and loads the analysis the first time a file passes.
"""

from __future__ import annotations

# The names of JAX's differentiation transforms (jax, flax.nnx, equinox spellings):
# shared by the command's cheap entry test (discovery) and the analysis (scopes).
DIFFERENTIATION_NAMES = frozenset(
    {"grad", "value_and_grad", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "jacobian", "hessian",
     "filter_grad", "filter_value_and_grad", "filter_vjp", "filter_jacfwd", "filter_jacrev", "filter_hessian",
     "check_grads", "check_jvp", "check_vjp"}
)


# The largest file the analysis parses, in MB (10**6 bytes): ast.parse of a 50 MB
# generated table takes minutes and GBs.  Larger files that pass the gate are
# reported (JCD900) instead; `--max-file-size` / `--jcd-max-file-size` change it.
DEFAULT_MAX_FILE_MB = 5.0


def too_large(size: int, limit_mb: float | None) -> str | None:
    """The JCD900 message for a file of `size` bytes over the limit (None: within it;
    a limit of 0 or None means no limit)."""
    if not limit_mb or size <= limit_mb * 1e6:
        return None
    return (
        f"too large to analyse ({size / 1e6:.1f} MB, the limit is {limit_mb:g} MB;"
        " raise it with --max-file-size)"
    )


# A file can host a finding only if it names one of the APIs the rules are about.
# Cheap, and most files of a JAX repository stop here (CONVENTIONS.md, habit 4).
def might_matter(text: str) -> bool:
    """The substring gate: False means no rule can fire in this file alone.

    `rnn.lstm` is reachable only through an import that spells `experimental.rnn` or
    `experimental import rnn`, the fused cuDNN API only through one that spells
    `fused_attention_stablehlo`; `dot_product_attention` counts only as a whole
    identifier, so PyTorch's `scaled_dot_product_attention`, flax's
    `dot_product_attention_weights` or a `"dot_product_attention_fwd_wrapper"` key
    alone do not pass.  `in` and `find` (C speed) on the hot path.
    """
    if "lstm_ref" in text or "fused_attention_stablehlo" in text:
        return True
    if "experimental" in text and ("experimental.rnn" in text or "experimental import rnn" in text):
        return True
    return _has_identifier(text, "dot_product_attention")


def _has_identifier(text: str, name: str) -> bool:
    """Does `name` occur with no letter, digit or underscore right before or after it?"""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            return True
        at = text.find(name, end)
    return False
