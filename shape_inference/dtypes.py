"""Dtype names and promotion, as far as the rules need them (16-bit floats vs the rest)."""

from __future__ import annotations

_ALIASES = {
    "float32": "float32", "f32": "float32", "float": "float32", "single": "float32",
    "float64": "float64", "f64": "float64", "double": "float64",
    "float16": "float16", "f16": "float16", "half": "float16",
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "int32": "int32", "int64": "int64", "int16": "int16", "int8": "int8",
    "uint32": "uint32", "uint8": "uint8", "uint16": "uint16", "uint64": "uint64",
    "bool": "bool", "bool_": "bool",
    "complex64": "complex64", "complex128": "complex128",
}

# bytes per element (`x.dtype.itemsize`)
DTYPE_BYTES = {
    "bool": 1, "int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "int16": 2, "uint16": 2, "float16": 2,
    "bfloat16": 2, "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8, "complex64": 8, "complex128": 16,
}

# NumPy's dtype kind (`x.dtype.kind`): ml_dtypes' bfloat16 and float8 types are "V"
DTYPE_KINDS = {
    "bool": "b", "int8": "i", "int16": "i", "int32": "i", "int64": "i", "uint8": "u", "uint16": "u", "uint32": "u", "uint64": "u",
    "float16": "f", "float32": "f", "float64": "f", "bfloat16": "V", "float8_e4m3fn": "V", "float8_e5m2": "V", "complex64": "c", "complex128": "c",
}

FLOAT_ORDER = ["float8_e4m3fn", "float8_e5m2", "bfloat16", "float16", "float32", "float64"]


def canonical_dtype(name: str) -> str | None:
    return _ALIASES.get(name.lower().replace("jnp.", "").replace("np.", ""))


# NumPy's aliases that jax.numpy does not have: `jnp.half` is an AttributeError (probe 39a)
_NOT_IN_JAX_NUMPY = frozenset({"half"})


def dtype_of_qualname(qualname: str) -> str | None:
    """The dtype a library attribute names (`jax.numpy.bfloat16`, `numpy.half`)."""
    module, _, last = qualname.rpartition(".")
    if module == "jax.numpy" and last in _NOT_IN_JAX_NUMPY:
        return None
    return canonical_dtype(last)


def real_part(name: str | None) -> str | None:
    """The dtype of the real (or imaginary) part, or of the magnitude, of an array of
    dtype `name`: complex64's is float32; a real dtype is its own."""
    return {"complex64": "float32", "complex128": "float64"}.get(name, name) if name is not None else None


def is_float(name: str | None) -> bool:
    return name is not None and name.startswith(("float", "bfloat"))


def promote(a: str | None, b: str | None) -> str | None:
    """JAX's promotion for the cases that matter; None when unsure."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if {a, b} == {"bfloat16", "float16"}:
        return "float32"
    if is_float(a) and not is_float(b):
        return a
    if is_float(b) and not is_float(a):
        return b
    if is_float(a) and is_float(b):
        return max(a, b, key=FLOAT_ORDER.index) if a in FLOAT_ORDER and b in FLOAT_ORDER else None
    if a == "bool" or b == "bool":
        return b if a == "bool" else a
    if a[:3] == b[:3] == "int" or a[:4] == b[:4] == "uint":
        return max(a, b, key=lambda name: int(name.lstrip("uint")))  # int32 + int64: int64
    return None
