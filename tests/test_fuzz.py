"""Fuzz: generated programs never crash the engine or the flake8 plugin.

Four sources of programs:

* ``hypothesmith.from_grammar()`` and ``hypothesmith.from_node()``: arbitrary valid
  Python.  They almost never name our APIs, so they mostly exercise the gate and
  the parse path.
* ``spliced_programs``: hypothesmith statements and expressions spliced into real
  trigger snippets (cuDNN attention calls, ``jax.experimental.rnn``, ``jax.grad``),
  so the generated code lands in the analysis itself (call arguments, shapes,
  differentiated bodies).
* ``jax_programs``: a structured generator of JAX-looking programs (shape
  constructors, slicing, reshapes, aliases, ``functools.partial``, grad wrappers,
  odd and absurd dimensions, cycles, star imports) that drives shape inference and
  the differentiation analysis down every path we could think of.

The contract checked on each program (``check_program``):

* if ``ast.parse`` accepts the text, ``lint_source`` returns a list of well-formed
  findings and raises nothing; if it does not, ``lint_source`` raises only
  SyntaxError/ValueError (or returns [] when the gate stops it first);
* the plugin class, built as flake8 builds it, yields well-formed JCD results and
  raises nothing (conftest sets JCD_RAISE_INTERNAL_ERRORS=1, so a swallowed error
  surfaces here).

CI runs about 200 examples in all, derandomised (a fixed, reproducible set); run
``python benchmarks/fuzz.py --examples 5000`` for the real thing with fresh seeds.
"""

from __future__ import annotations

import ast
import json
from typing import Any

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jax_cudnn_lint import engine
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.flake8_plugin import JcdChecker

CI_SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
    "derandomize": True,
    "database": None,
    "print_blob": True,
}

# --- the contract ------------------------------------------------------------------


def _ast_parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _check_finding(f: Any, n_lines: int) -> None:
    assert isinstance(f, Finding), f"lint_source returned {type(f).__name__}, not Finding"
    assert f.code.startswith("JCD") and f.code[3:].isdigit(), f.code
    assert not f.code.startswith("JCD9"), f"internal error reported as a finding: {f}"
    assert 1 <= f.line <= n_lines + 1, f"line {f.line} outside 1..{n_lines + 1}: {f}"
    assert f.col >= 0, f
    assert isinstance(f.message, str) and f.message, f
    json.dumps(f.to_json())  # the repro and evidence must be plain JSON


def check_engine(text: str) -> list[Finding]:
    """lint_source's contract on one program; returns the findings."""
    parses = _ast_parses(text)
    try:
        findings = engine.lint_source(text, "fuzz.py")
    except (SyntaxError, ValueError) as exc:
        assert not parses, (
            f"lint_source raised {type(exc).__name__} on text that ast.parse accepts: {exc!r}"
        )
        return []
    assert isinstance(findings, list)
    n_lines = text.count("\n") + 1
    for f in findings:
        _check_finding(f, n_lines)
    return findings


def check_plugin(text: str) -> list[tuple[Any, ...]]:
    """The flake8 plugin's contract, built the way flake8 builds it (tree, lines, name)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # flake8 reports E999 itself and never calls a tree plugin
    lines = text.splitlines(keepends=True)
    checker = JcdChecker(tree=tree, lines=lines, filename="fuzz.py")
    results = list(checker.run())
    for r in results:
        assert isinstance(r, tuple) and len(r) == 4, r
        line, col, message, _ = r
        assert isinstance(line, int) and 1 <= line <= len(lines) + 1, r
        assert isinstance(col, int) and col >= 0, r
        assert isinstance(message, str) and message.startswith("JCD"), r
        assert not message.startswith("JCD9"), f"internal error from the plugin: {r}"
    return results


def check_program(text: str) -> None:
    check_engine(text)
    check_plugin(text)


# --- trigger snippets ----------------------------------------------------------------

HEADERS = (
    "import jax\nimport jax.numpy as jnp\n",
    "import functools\nimport jax\nimport jax.numpy as jnp\nfrom functools import partial\n",
    "from jax.experimental import rnn\nimport jax\nimport jax.numpy as jnp\n",
    "from jax import nn\nfrom jax import numpy as jnp\n",
    "from jax.nn import dot_product_attention as dpa\nimport jax\nimport jax.numpy as jnp\n",
    (
        "from jax._src.cudnn.fused_attention_stablehlo import dot_product_attention\n"
        "import jax\nimport jax.numpy as jnp\n"
    ),
    (
        "from jax._src.cudnn import fused_attention_stablehlo as fa\nimport jax\n"
        "import jax.numpy as jnp\n"
    ),
    "import jax as J\nimport jax.numpy as np\n",
    "from jax.nn import *\nfrom jax.experimental.rnn import *\nimport jax\n",
    "from flax import nnx\nimport equinox as eqx\nimport jax\nimport jax.numpy as jnp\n",
)

TRIGGERS = (
    'out = jax.nn.dot_product_attention(q, k, v, implementation="cudnn")',
    'out = jax.nn.dot_product_attention(q, k, v, bias=b, implementation="cudnn")',
    'out = jax.nn.dot_product_attention(q, k, v, mask=m, is_causal=True, implementation="cudnn")',
    "out = jax.nn.dot_product_attention(q, k, v)",
    'out = jax.nn.dot_product_attention(q, k, v, implementation="xla")',
    "out = jax.nn.dot_product_attention(q, k, v, implementation=impl)",
    'out = nn.dot_product_attention(q, k, v, implementation="cudnn")',
    'out = dpa(q, k, v, implementation="cudnn")',
    "out = dot_product_attention(q, k, v, scale=0.125, is_training=True)",
    "out = fa.dot_product_attention(q, k, v, None, None, None, None, scale=1.0)",
    'attn = functools.partial(jax.nn.dot_product_attention, implementation="cudnn")',
    'attn = partial(jax.nn.dot_product_attention, implementation="cudnn")\nout = attn(q, k, v)',
    "q = jnp.zeros((2, 511, 4, 64))\nk = jnp.zeros((2, 511, 4, 64))\nv = k",
    "q = jnp.ones((2, 512, 8, 64), jnp.bfloat16)\nq = q[:, :-1]\nk = v = q",
    "x = jax.random.normal(key, (4, 1023, 2, 32))\nq, k, v = x, x, x",
    (
        "y = rnn.lstm(x, h0, c0, w, seq_lengths, input_size=8, hidden_size=16, num_layers=2, "
        "dropout=0.5, bidirectional=False)"
    ),
    (
        "y = rnn.lstm_ref(x, h0, c0, wi, wh, bi, bh, seq_lengths, input_size=8, hidden_size=16, num_layers=1, "
        "dropout=0.1, bidirectional=True)"
    ),
    (
        "y = lstm_ref(x, h0, c0, wi, wh, bi, bh, seq_lengths, input_size=8, hidden_size=16, num_layers=1, "
        "dropout=d, bidirectional=False)"
    ),
    "g = jax.grad(loss)(params)",
    "g = jax.value_and_grad(loss, has_aux=True)(params, batch)",
    "f = jax.jit(jax.grad(lambda p: model(p, q, k, v).sum()))",
    "g = nnx.grad(loss)(model)",
    "g = eqx.filter_grad(loss)(model)",
    "_, vjp = jax.vjp(f, q, k, v)",
    "out = jax.nn.dot_product_attention(*args, **kwargs)",
    'out = jax.nn.dot_product_attention(**{"implementation": "cudnn"})',
    'fn = getattr(jax.nn, "dot_product_attention")',
    "jax = None",
    "del q",
)

WRAPPERS = ("plain", "grad_decorated", "grad_called", "method", "nested", "jit_grad")


def _wrap(body: list[ast.stmt], kind: str) -> list[ast.stmt]:
    """Put `body` into a function the analysis may treat as differentiated."""
    body = body or [ast.Pass()]
    fn = ast.FunctionDef(
        name="fuzz_fn",
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=a) for a in ("params", "q", "k", "v", "b", "m")],
            vararg=ast.arg(arg="args"),
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=ast.arg(arg="kwargs"),
            defaults=[],
        ),
        body=body + [ast.parse("return out").body[0]],
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    if kind == "grad_decorated":
        fn.decorator_list = [ast.parse("jax.grad", mode="eval").body]
        return [fn]
    if kind == "grad_called":
        return [fn, *ast.parse("g = jax.grad(fuzz_fn)(p0, q, k, v, b, m)").body]
    if kind == "jit_grad":
        return [fn, *ast.parse("g = jax.jit(jax.value_and_grad(fuzz_fn, argnums=(1, 2)))").body]
    if kind == "method":
        cls = ast.ClassDef(name="Block", bases=[], keywords=[], body=[fn], decorator_list=[])
        fn.args.args.insert(0, ast.arg(arg="self"))
        return [cls, *ast.parse("g = jax.grad(Block().fuzz_fn)(p0)").body]
    if kind == "nested":
        outer = ast.FunctionDef(
            name="outer",
            args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=[fn, ast.parse("return jax.grad(fuzz_fn)").body[0]],
            decorator_list=[],
            returns=None,
            type_comment=None,
        )
        return [outer]
    return [fn]


def _exprs(tree: ast.AST) -> list[ast.expr]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.expr) and not isinstance(n, (ast.Starred, ast.Slice))
    ]


class _Swap(ast.NodeTransformer):
    """Replace names in trigger snippets (q, k, v, dims, dropout...) by generated exprs."""

    def __init__(self, replacements: dict[str, ast.expr]) -> None:
        self.replacements = replacements

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.replacements:
            return self.replacements[node.id]
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        key = f"const:{node.value!r}"
        return self.replacements.get(key, node)


# Built once: from_grammar() compiles a Lark parser (seconds) each time it is called.
GRAMMAR = hypothesmith.from_grammar()


@st.composite
def spliced_programs(draw: st.DrawFn) -> str:
    """Generated statements/expressions spliced into trigger snippets, as one module."""
    header = draw(st.sampled_from(HEADERS))
    generated = draw(GRAMMAR)
    try:
        gen_tree = ast.parse(generated)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        gen_tree = ast.Module(body=[], type_ignores=[])
    gen_stmts = list(gen_tree.body)
    exprs = _exprs(gen_tree)
    triggers = draw(st.lists(st.sampled_from(TRIGGERS), min_size=1, max_size=5))
    trigger_stmts: list[ast.stmt] = []
    for snippet in triggers:
        trigger_stmts.extend(ast.parse(snippet).body)
    if exprs:
        names = ["q", "k", "v", "b", "m", "impl", "d", "params", "key", "x"]
        consts: list[object] = ["cudnn", 511, 512, 0.5, 64, 2, True]
        replacements: dict[str, ast.expr] = {}
        for name in draw(st.lists(st.sampled_from(names), max_size=3, unique=True)):
            replacements[name] = draw(st.sampled_from(exprs))
        for c in draw(st.lists(st.sampled_from(consts), max_size=2, unique=True)):
            replacements[f"const:{c!r}"] = draw(st.sampled_from(exprs))
        trigger_stmts = [_Swap(replacements).visit(s) for s in trigger_stmts]
    # Interleave: generated statements at random positions among the triggers.
    body: list[ast.stmt] = list(trigger_stmts)
    for stmt in gen_stmts:
        body.insert(draw(st.integers(0, len(body))), stmt)
    where = draw(st.sampled_from(("function", "module", "both")))
    module_body: list[ast.stmt] = []
    if where in ("function", "both"):
        module_body.extend(_wrap(body, draw(st.sampled_from(WRAPPERS))))
    if where in ("module", "both"):
        module_body.extend(body)
    module = ast.Module(body=module_body, type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        code = ast.unparse(module)
    except Exception:  # noqa: BLE001 - a tree unparse cannot print: fall back to text
        code = generated + "\n" + "\n".join(triggers)
    return header + code + "\n"


# --- structured JAX programs ---------------------------------------------------------

DIM_LITERALS = st.one_of(
    st.integers(-3, 1030),
    st.sampled_from(
        [
            0,
            1,
            2,
            3,
            63,
            64,
            127,
            128,
            511,
            512,
            513,
            1023,
            1024,
            4097,
            2**31 - 1,
            2**31,
            2**63,
            10**30,
            -1,
        ]
    ),
)
DIM_EXPRS = st.sampled_from(
    [
        "T",
        "S",
        "T - 1",
        "T + 1",
        "T // 2",
        "2 * T",
        "S - T",
        "T * S",
        "-T",
        "T ** 2",
        "T % 7",
        "len(x)",
        "x.shape[1]",
        "x.shape[-1]",
        "cfg.seq_len",
        "cfg['T']",
        "n",
        "None",
        "'a'",
        "1.5",
        "True",
        "(1, 2)",
        "-(-T // 2)",
        "max(T, 3)",
        "int('7')",
        "T if flag else S",
        "x.shape[1] - 1",
        "(T := 513)",
        "10 ** 40",
        "T >> 1",
        "~T",
    ]
)
DTYPES = st.sampled_from(
    [
        "jnp.float16",
        "jnp.bfloat16",
        "jnp.float32",
        "jnp.int8",
        "'bfloat16'",
        "None",
        "dtype",
        "jnp.float8_e4m3fn",
    ]
)
VARS = st.sampled_from(["q", "k", "v", "x", "bias", "mask", "y"])
IMPLS = st.sampled_from(
    [
        '"cudnn"',
        '"xla"',
        "None",
        "impl",
        '"CUDNN"',
        "'cu' + 'dnn'",
        'f"cudnn"',
        '"cudnn" if gpu else "xla"',
        "1",
    ]
)
WRAP_FNS = st.sampled_from(
    [
        "jax.grad",
        "jax.value_and_grad",
        "jax.vjp",
        "jax.jvp",
        "jax.linearize",
        "jax.jacrev",
        "jax.jacfwd",
        "jax.hessian",
        "jax.jacobian",
        "jax.jit",
        "jax.vmap",
        "jax.checkpoint",
        "nnx.grad",
        "nnx.value_and_grad",
        "eqx.filter_grad",
        "eqx.filter_value_and_grad",
        "jax.remat",
        "functools.partial(jax.grad, argnums=1)",
        "jax.custom_vjp",
    ]
)


@st.composite
def _dim(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return str(draw(DIM_LITERALS))
    return draw(DIM_EXPRS)


@st.composite
def _shape(draw: st.DrawFn) -> str:
    dims = draw(st.lists(_dim(), min_size=0, max_size=6))
    if len(dims) == 1 and draw(st.booleans()):
        return dims[0]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


@st.composite
def _stmt(draw: st.DrawFn) -> str:
    var = draw(VARS)
    other = draw(VARS)
    dim = _dim()
    choice = draw(st.integers(0, 27))
    if choice == 0:
        return f"{var} = jnp.zeros({draw(_shape())}, dtype={draw(DTYPES)})"
    if choice == 1:
        return f"{var} = jnp.ones({draw(_shape())}, {draw(DTYPES)})"
    if choice == 2:
        return f"{var} = jax.random.normal(key, {draw(_shape())})"
    if choice == 3:
        sl = draw(
            st.sampled_from(
                [
                    ":, :-1",
                    ":, 1:",
                    ":, ::2",
                    "..., 0",
                    "None",
                    ":, :T",
                    ":, {d}:{d}",
                    "0",
                    "::-1",
                    ":, :, :, :, :",
                    "jnp.newaxis",
                ]
            )
        )
        return f"{var} = {other}[{sl.format(d=draw(dim))}]"
    if choice == 4:
        return f"{var} = {other}.reshape({draw(dim)}, -1, {draw(dim)}, {draw(dim)})"
    if choice == 5:
        return f"{var} = jnp.reshape({other}, {draw(_shape())})"
    if choice == 6:
        return f"{var} = jnp.concatenate([{other}, {var}], axis={draw(st.integers(-5, 5))})"
    if choice == 7:
        return f"{var} = jnp.pad({other}, ((0, 0), (0, {draw(dim)}), (0, 0), (0, 0)))"
    if choice == 8:
        perm = draw(st.permutations([0, 1, 2, 3]))
        return f"{var} = jnp.transpose({other}, {tuple(perm)})"
    if choice == 9:
        return f"{var} = {other}.swapaxes({draw(st.integers(-4, 4))}, {draw(st.integers(-4, 4))})"
    if choice == 10:
        return f"q, k, v = jnp.split({other}, {draw(st.integers(0, 4))}, axis=-1)"
    if choice == 11:
        return f"{var} = {other}.astype({draw(DTYPES)})"
    if choice == 12:
        return f"T, S = {draw(dim)}, {draw(dim)}"
    if choice == 13:
        return f"{var} = jnp.einsum('bthd,bshd->bhts', {other}, {var})"
    if choice == 14:
        return f"{var} = {var}"
    if choice == 15:
        return f"{var} = {other}\n{other} = {var}"
    if choice == 16:
        return f"for _ in range({draw(dim)}):\n    {var} = {other}[:, :-1]"
    if choice == 17:
        return f"if flag:\n    {var} = {other}\nelse:\n    {var} = jnp.zeros({draw(_shape())})"
    if choice == 18:
        return f"{var} = jnp.broadcast_to({other}, {draw(_shape())})"
    if choice == 19:
        return f"{var} = jax.lax.dynamic_slice({other}, (0, 0, 0, 0), {draw(_shape())})"
    if choice == 20:
        return f"{var} = jnp.expand_dims({other}, {draw(st.integers(-5, 5))})"
    if choice == 21:
        return f"{var} = jnp.repeat({other}, {draw(dim)}, axis={draw(st.integers(-4, 4))})"
    if choice == 22:
        return f"{var}: jax.Array = {other} @ {var}"
    if choice == 23:
        return f"{var} = jnp.zeros_like({other})"
    if choice == 24:
        return f"{var} = {other}[:, {draw(dim)}]"
    if choice == 25:
        return f"{var} = jnp.asarray({other}, dtype={draw(DTYPES)})"
    if choice == 26:
        return "global q"
    return f"{var} = jax.numpy.stack([{other}] * {draw(dim)}, axis=1)"


@st.composite
def _call(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    impl = draw(IMPLS)
    q, k, v = draw(VARS), draw(VARS), draw(VARS)
    extras = draw(
        st.lists(
            st.sampled_from(
                [
                    "bias=bias",
                    "mask=mask",
                    "is_causal=True",
                    "is_causal=flag",
                    "scale=0.1",
                    "query_seq_lengths=lens",
                    "key_value_seq_lengths=lens",
                    "local_window_size=(2, 2)",
                    "bias=None",
                    "mask=None",
                    "*extra",
                    "**kw",
                ]
            ),
            max_size=3,
            unique=True,
        )
    )
    tail = "".join(", " + e for e in extras)
    if kind == 0:
        return f"out = jax.nn.dot_product_attention({q}, {k}, {v}{tail}, implementation={impl})"
    if kind == 1:
        return f"out = dpa({q}, {k}, {v}{tail}, implementation={impl})"
    if kind == 2:
        return (
            f"attn = functools.partial(jax.nn.dot_product_attention, implementation={impl})"
            f"\nout = attn({q}, {k}, {v}{tail})"
        )
    if kind == 3:
        return (
            f"out = fused.dot_product_attention({q}, {k}, {v}, scale=1.0, "
            f"is_training={draw(st.sampled_from(['True', 'False', 'train']))})"
        )
    if kind == 4:
        return f"out = model.attention_fn({q}, {k}, {v}{tail})"
    if kind == 5:
        drop = draw(
            st.sampled_from(
                [
                    "0.0",
                    "0.5",
                    "0",
                    "1",
                    "rate",
                    "-0.1",
                    "'0.3'",
                    "1e-300",
                    "None",
                    "cfg.dropout",
                    "0.0 + 0.1",
                ]
            )
        )
        fn = draw(st.sampled_from(["rnn.lstm", "rnn.lstm_ref", "lstm_ref", "jrnn.lstm_ref"]))
        return (
            f"y = {fn}(x, h0, c0, w, seq_lengths, input_size={draw(_dim())}, "
            f"hidden_size={draw(_dim())}, num_layers={draw(_dim())}, dropout={drop}, "
            f"bidirectional={draw(st.sampled_from(['True', 'False', 'bi']))})"
        )
    if kind == 6:
        return f"out = nn.dot_product_attention({q}, {k}, {v}{tail}, implementation={impl})"
    if kind == 7:
        return f"fn = jax.nn.dot_product_attention\nout = fn({q}, {k}, {v}, implementation={impl})"
    if kind == 8:
        return f"out = nnx.dot_product_attention({q}, {k}, {v})"
    return f"out = jax.vmap(jax.nn.dot_product_attention)({q}, {k}, {v})"


JAX_HEADER = (
    "import functools\n"
    "import jax\n"
    "import jax.numpy as jnp\n"
    "from jax import nn\n"
    "from jax.nn import dot_product_attention as dpa\n"
    "from jax._src.cudnn import fused_attention_stablehlo as fused\n"
    "from jax.experimental import rnn\n"
    "from jax.experimental import rnn as jrnn\n"
    "from jax.experimental.rnn import lstm_ref\n"
    "from flax import nnx\n"
    "import equinox as eqx\n"
)


def _indent(block: str, n: int = 1) -> str:
    pad = "    " * n
    return "\n".join(pad + line for line in block.splitlines())


@st.composite
def jax_programs(draw: st.DrawFn) -> str:
    """Structured JAX-like modules: shapes flow into attention/LSTM calls under grad."""
    parts = [JAX_HEADER]
    if draw(st.booleans()):
        parts.append(f"T = {draw(_dim())}\nS = {draw(_dim())}\nB, H, D = 2, 4, 64")
    n_funcs = draw(st.integers(1, 3))
    for i in range(n_funcs):
        stmts = draw(st.lists(_stmt(), min_size=0, max_size=8))
        calls = draw(st.lists(_call(), min_size=1, max_size=2))
        body = stmts + calls
        order = draw(st.permutations(range(len(body))))
        body = [body[j] for j in order] if draw(st.booleans()) else body
        body.append(
            draw(
                st.sampled_from(
                    [
                        "return out",
                        "return y",
                        "return out.sum()",
                        "return fn_0(q, k, v)",
                        "yield out",
                        "pass",
                    ]
                )
            )
        )
        sig = draw(
            st.sampled_from(
                [
                    "q, k, v",
                    "x",
                    "*args, **kw",
                    "params, batch",
                    "q, k=None, v=None, *, impl='cudnn'",
                    "self, x",
                ]
            )
        )
        deco = draw(
            st.sampled_from(
                [
                    "",
                    "@jax.jit\n",
                    "@jax.grad\n",
                    "@jax.checkpoint\n",
                    "@functools.partial(jax.jit, static_argnums=0)\n",
                    "@nnx.jit\n",
                    "@eqx.filter_jit\n",
                ]
            )
        )
        asyn = "async " if draw(st.integers(0, 15)) == 0 else ""
        parts.append(f"{deco}{asyn}def fn_{i}({sig}):\n{_indent(chr(10).join(body))}")
    for _ in range(draw(st.integers(0, 3))):
        wrap = draw(WRAP_FNS)
        target = f"fn_{draw(st.integers(0, n_funcs))}"  # may name a function that is missing
        form = draw(st.integers(0, 4))
        if form == 0:
            parts.append(f"g = {wrap}({target})(params, batch)")
        elif form == 1:
            parts.append(f"g = {wrap}(lambda p: {target}(p, p, p).sum())")
        elif form == 2:
            parts.append(f"def loss(p):\n    return {target}(p, p, p)\n\ng = {wrap}(loss)")
        elif form == 3:
            parts.append(f"g = {wrap}({wrap}({target}))")
        else:
            parts.append(f"def rec(p):\n    return jax.grad(rec)(p) + {target}(p)")
    if draw(st.integers(0, 6)) == 0:
        parts.append(
            "class M(nnx.Module):\n    def __call__(self, q, k, v):\n"
            "        return jax.nn.dot_product_attention(q, k, v, "
            "implementation='cudnn')\n\ng = nnx.grad(lambda m: m(q, q, q).sum())(M())"
        )
    return "\n\n".join(parts) + "\n"


# --- the tests (about 200 examples in all) -----------------------------------------


@settings(max_examples=50, **CI_SETTINGS)
@given(GRAMMAR)
def test_grammar_programs(text: str) -> None:
    check_program(text)


@settings(max_examples=25, **CI_SETTINGS)
@given(hypothesmith.from_node())
def test_node_programs(text: str) -> None:
    check_program(text)


@settings(max_examples=60, **CI_SETTINGS)
@given(spliced_programs())
def test_spliced_programs(text: str) -> None:
    check_program(text)


@settings(max_examples=65, **CI_SETTINGS)
@given(jax_programs())
def test_jax_programs(text: str) -> None:
    check_program(text)


@pytest.mark.parametrize("snippet", TRIGGERS)
def test_each_trigger_alone(snippet: str) -> None:
    """Every trigger snippet reaches the analysis on its own, under each header."""
    for header in HEADERS:
        for kind in WRAPPERS:
            body = ast.parse(snippet).body
            module = ast.Module(body=_wrap(body, kind), type_ignores=[])
            check_program(header + ast.unparse(ast.fix_missing_locations(module)) + "\n")
