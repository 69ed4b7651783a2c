"""The substring gate, in a module of its own: the flake8 plugin imports only this
(and the rule codes) up front, and loads the analysis the first time a file passes.
"""

from __future__ import annotations


# A file can host a finding only if it names one of the APIs the rules are about.
# Cheap, and most files of a JAX repository stop here (CONVENTIONS.md, habit 4).
def might_matter(text: str) -> bool:
    """The substring gate: False means no rule can fire in this file alone.

    `rnn.lstm` is reachable only through an import that spells `experimental.rnn` or
    `experimental import rnn`; PyTorch's `scaled_dot_product_attention` alone does
    not pass.  Only `in` and `count` (C speed) on the hot path.
    """
    if "lstm_ref" in text or "fused_attention" in text:
        return True
    if "experimental" in text and ("experimental.rnn" in text or "experimental import rnn" in text):
        return True
    if "dot_product_attention" in text:
        return text.count("dot_product_attention") > text.count("scaled_dot_product_attention")
    return False
