"""Which operands of a cuDNN attention call a vmap batches, and over which axis (JCD209).

JAX's batching rule for cuDNN attention rejects some mappings (transform_rules.py judges
them); this module works out, for certain or not at all, how each operand reaches the
call: the attention sits in the function that `jax.vmap` maps (a decorated function, or a
function or lambda passed to `jax.vmap` by name) or in the functions it calls down to it
(`_hops`, in any module of the project), and each operand is worked out from that function's parameters as they came in
(batched as `in_axes` says) or from names outside it (not batched by this vmap), through
what each function computes in straight-line code (`_Frames`).  Anything it cannot follow
for certain (a value stored while running, a nested function's names, an unbound method
call) leaves the operand out: JCD209 then says nothing of it.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from jax_cudnn_lint.lint_rules.attention_call import AttentionCall
from jax_cudnn_lint.lint_rules.targets import SIGNATURES
from jax_cudnn_lint.shape_inference.context import CallEvent, VmapInfo
from jax_cudnn_lint.shape_inference.modules import ModuleInfo
from jax_cudnn_lint.shape_inference.values import UNKNOWN, ArrayV, ClassV, ConstV, DictV, ExternalV, FunctionV, IntV, ModuleV, TupleV, Value, make_int

# The vmaps judged, by qualified name, with the spelling a message uses.  nnx.vmap and
# eqx.filter_vmap map array operands as jax.vmap does (integer in_axes; filter_vmap's
# default maps every array over axis 0): JAX raises the same errors through them.
VMAPS = {"jax.vmap": "jax.vmap", "flax.nnx.vmap": "nnx.vmap", "equinox.filter_vmap": "eqx.filter_vmap", "flax.linen.vmap": "nn.vmap", "haiku.vmap": "hk.vmap"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
_PARENTS: dict[int, tuple[ast.Module, dict[int, ast.AST]]] = {}


def _parents(tree: ast.Module) -> dict[int, ast.AST]:
    """Each node's parent in the module, with what the rule asks of the module once
    (_TREE_OF, _WRITTEN, _CALLS_BY_LINE), all in one walk."""
    cached = _PARENTS.get(id(tree))
    if cached is not None and cached[0] is tree:
        return cached[1]
    parents: dict[int, ast.AST] = {}
    written: set[str] = set()
    stored: list[ast.Attribute] = []
    by_line: dict[int, list[ast.Call]] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _TREE_OF[id(node)] = (node, tree)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            stored.append(node)
        elif isinstance(node, ast.Call):
            by_line.setdefault(node.lineno, []).append(node)
            if isinstance(node.func, (ast.Name, ast.Attribute)) and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) in ("setattr", "__setattr__"):
                written.add("*")
            elif isinstance(node.func, ast.Attribute) and _names_an_objects_dict(node.func.value):
                written.add("*")  # (`vars(self).update(memory=q)`, `self.__dict__.update(...)`: probe 160a)
        elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load) and _names_an_objects_dict(node.value):
            written.add("*")  # (`self.__dict__["memory"] = q`)
        elif isinstance(node, ast.Global):
            written.update(f"global {name}" for name in node.names)  # (a module name a function rebinds)
    written.update(_stored_name(node) for node in stored if not _in_constructor(node, parents))
    _PARENTS[id(tree)] = (tree, parents)
    _WRITTEN[id(tree)] = frozenset(written)
    _CALLS_BY_LINE[id(tree)] = by_line
    return parents


def _stored_name(node: ast.Attribute) -> str:
    """The attribute a store writes, as `_WRITTEN` holds it: an nnx Variable's payload
    by its owner's field (`self.cache.value = k`: "cache.value", which no read of
    `self.memory.value` meets: probe 160a), any other by its name."""
    return f"{node.value.attr}.value" if node.attr == "value" and isinstance(node.value, ast.Attribute) else node.attr


def _names_an_objects_dict(expr: ast.expr) -> bool:
    """`vars(obj)`, `obj.__dict__`: an object's attributes as a dict."""
    return isinstance(expr, ast.Attribute) and expr.attr == "__dict__" or isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "vars"


# each analysed function's module tree, and the attributes its module stores on objects
# as the program runs (`CONTEXT.kv = memory`; "*": a setattr), not as one is built
_TREE_OF: dict[int, tuple[ast.AST, ast.Module]] = {}
_WRITTEN: dict[int, frozenset[str]] = {}
_CALLS_BY_LINE: dict[int, dict[int, list[ast.Call]]] = {}  # each module's calls by line
_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "setup", "__new__"})


def _forget_modules_if_many() -> None:
    """Drop what _parents learnt of the modules, past 64 of them: only between two
    attention calls, never while one is read (a function whose module is not known reads
    less: the answer must not depend on what came before)."""
    if len(_PARENTS) > 64:
        _PARENTS.clear()
        _IMPORTED.clear()
        _TREE_OF.clear()
        _WRITTEN.clear()
        _CALLS_BY_LINE.clear()


def _calls_by_line(tree: ast.Module) -> dict[int, list[ast.Call]]:
    _parents(tree)  # (made with the module's parents, and dropped with them)
    return _CALLS_BY_LINE.get(id(tree), {})


def _in_constructor(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    function = _enclosing_function(node, parents)
    return isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and function.name in _CONSTRUCTORS


def _written_while_running(func: ast.FunctionDef | ast.AsyncFunctionDef, attr: str) -> bool:
    """Is `attr` stored on some object outside a constructor, in `func`'s module (in
    `func` itself where its module is not known)?  A value read through it may be one the
    mapped function stored: batched (probe 150a: a namespace's field, an nnx cache's value)."""
    known = _TREE_OF.get(id(func))
    if known is not None and known[0] is func and id(known[1]) in _WRITTEN:
        written = _WRITTEN[id(known[1])]
    else:
        written = frozenset(node.attr for node in ast.walk(func) if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load))
    written |= _CHAIN_WRITTEN[0]
    return attr in written or "*" in written and not attr.startswith("global ")


# what the modules of the attention call's chain store as they run (the mapped function's
# and each hop's: `model.read.bank = x` in train.py is read in layers.py), for the call read
_CHAIN_WRITTEN: list[frozenset[str]] = [frozenset()]


def _enclosing_function(node: ast.AST, parents: dict[int, ast.AST]) -> Function | None:
    current = parents.get(id(node))
    while current is not None:
        if isinstance(current, _FUNCTIONS):
            return current
        current = parents.get(id(current))
    return None


_VMAP_NAMES = ("vmap", "filter_vmap")


def _ends_with_vmap(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr in _VMAP_NAMES
    return isinstance(func, ast.Name) and func.id in _VMAP_NAMES


def _vmapped_function(tree: ast.Module, line: int) -> Function | None:
    """The function a `jax.vmap` at `line` maps: a decorated def, or the function or
    lambda handed to `jax.vmap(...)` there; None when it is anything else."""
    defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    calls: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(node.name, []).append(node)
            if any(d.lineno == line for d in node.decorator_list):
                return node
        elif isinstance(node, ast.Call) and node.lineno == line and _ends_with_vmap(node.func) and node.args:
            calls.append(node)
    if len(calls) != 1:
        return None
    target = calls[0].args[0]
    if isinstance(target, ast.Lambda):
        return target
    if isinstance(target, ast.Name) and len(defs.get(target.id, [])) == 1:
        return defs[target.id][0]
    return None


def _stores_attribute(func: Function, owner: str, attr: str | None) -> bool:
    """`owner.attr = ...` (or `+=`, `del`) somewhere in the function (any attribute: None)."""
    return any(isinstance(node, ast.Attribute) and attr in (None, node.attr) and isinstance(node.value, ast.Name) and node.value.id == owner and not isinstance(node.ctx, ast.Load) for node in ast.walk(func))


def _assigned_in(func: Function, name: str) -> bool:
    """`name` is (re)bound somewhere in the function's own body."""
    if isinstance(func, ast.Lambda):
        return False
    cached = _ASSIGNED.get(id(func))
    if cached is None or cached[0] is not func:
        names: set[str] = set()
        stack: list[ast.AST] = list(func.body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
                continue
            if isinstance(node, ast.Lambda):
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                names.update(node.names)
            stack.extend(ast.iter_child_nodes(node))
        if len(_ASSIGNED) > 4096:
            _ASSIGNED.clear()
        cached = _ASSIGNED[id(func)] = (func, frozenset(names))
    return name in cached[1]


# the names each function binds in its own body, once per function (probe 153b: a mapped
# function of 3000 calls asked again for each)
_ASSIGNED: dict[int, tuple[ast.AST, frozenset[str]]] = {}


_KEEPS_BATCH_AXIS = frozenset({"astype", "reshape"})  # (reshape's batching rule puts the batch axis first)
_UNKNOWN_AXIS = (False, None)
# batched, at an axis the reading does not follow (a matmul against a batched weight: its
# batching rule puts the batch axis among the weight's free axes, after the input's): as
# unknown to everything but a reshape, whose batching rule moves it to the front
_BATCHED_SOMEWHERE = (False, -1)
# the array libraries' products, whose output is batched where an input is
_PRODUCTS = frozenset({"einsum", "matmul", "dot", "tensordot", "inner", "outer", "vdot"})
# ...and their joins of arrays, made by concatenate
_JOINS = frozenset({"stack", "concatenate", "hstack", "vstack"})


def _derived_axis(func: Function, use: ast.expr, params: list[str], in_axes: Value | None) -> tuple[bool, Axis]:
    """The batching of a name (or an expression) the mapped function computes in straight-line code at its
    top level: batched (axis 0) when computed elementwise, by `astype` or `reshape`, from
    values batched at axis 0, or by a matmul whose left operand alone is; unbatched when
    computed from none (parameters mapped with None, names from outside, shapes).
    (known, axis); unknown for anything else (an index, an einsum, a function of it:
    JAX's batching rules choose their own axis)."""
    if isinstance(func, ast.Lambda):
        return _UNKNOWN_AXIS
    at = _statement_at(func, use)
    if at is None:
        return _UNKNOWN_AXIS
    return _axis_of_expr(func, use, at, params, in_axes, 0)


# how deep _axis_of_expr follows expressions and the names they read (probe 107e: a mask
# built from a comparison with a position array named on its own line took nine steps;
# probe 157b: a decoder's residual through a layer norm and an attention helper, 15)
_MAX_AXIS_DEPTH = 24
# ...and how many expressions it reads for one attention call (helpers' arguments and
# returns branch: the reading stays linear in the code, whatever calls what)
_MAX_AXIS_STEPS = 5000
_STEPS = [_MAX_AXIS_STEPS]


def _axis_of_expr(func: ast.FunctionDef | ast.AsyncFunctionDef, expr: ast.expr, at: int, params: list[str], in_axes: Value | None, depth: int) -> tuple[bool, Axis]:
    _STEPS[0] -= 1
    if depth > _MAX_AXIS_DEPTH or _STEPS[0] < 0:
        return _UNKNOWN_AXIS
    if isinstance(expr, ast.Constant):
        return True, None
    if isinstance(expr, ast.Name):
        return _axis_of_name(func, expr.id, at, params, in_axes, depth)
    if isinstance(expr, ast.Attribute) and expr.attr in _PER_EXAMPLE_FACTS or isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape":
        return True, None  # a shape, a dtype: Python values, per example
    if isinstance(expr, ast.UnaryOp):
        return _axis_of_expr(func, expr.operand, at, params, in_axes, depth + 1)
    if isinstance(expr, (ast.Tuple, ast.List)):  # a shape: unbatched if its items are
        items = [_axis_of_expr(func, item, at, params, in_axes, depth + 1) for item in expr.elts]
        return (True, None) if all(found == (True, None) for found in items) else _UNKNOWN_AXIS
    if isinstance(expr, ast.Attribute):
        stored = _stored_name(expr) if expr.attr == "value" and not _written_while_running(func, "value") else expr.attr  # ("value": stored through a name)
        if not _array_library_call(func, expr) and _written_while_running(func, stored):  # (`jnp.bfloat16`: a library's, never stored)
            return _UNKNOWN_AXIS  # (`CONTEXT.kv = memory` in the mapped function: probe 150a)
        base = _axis_of_expr(func, expr.value, at, params, in_axes, depth + 1)
        return base if base == (True, None) else _UNKNOWN_AXIS  # `jnp.bfloat16`, `cfg.scale`
    if isinstance(expr, ast.Subscript) and _adds_axes_only(expr.slice):
        # `mask[None, None]`, `x[:, None]`: new axes, nothing dropped; the batching rule keeps
        # an axis-0 batch in front (traced: a per-example (T, S) mask made (1, 1, T, S),
        # probe 63c)
        base = _axis_of_expr(func, expr.value, at, params, in_axes, depth + 1)
        return base if base in ((True, 0), (True, None)) else _UNKNOWN_AXIS
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        # `params["anchors"]`: an entry of a dict, which in_axes maps leaf by leaf as it maps
        # the dict (probe 68c: a PINN's anchors in params mapped with None)
        named = expr.value.id if isinstance(expr.value, ast.Name) else None
        if named in params and not _stored_at(func, named):
            # in_axes given key by key for this parameter (`in_axes=({"q": 0, "k": None},)`: probe 69a)
            entry = _dict_entry_axis(in_axes, params.index(named), expr.slice.value)
            if entry is not None:
                return entry if entry[1] is None or entry[1] >= 0 else _UNKNOWN_AXIS
        base = _axis_of_expr(func, expr.value, at, params, in_axes, depth + 1)
        return base if base in ((True, 0), (True, None)) else _UNKNOWN_AXIS
    gathered = _gathered(func, expr)
    if gathered is not None:
        # `emb[items]`, `emb[items, :]`, `jnp.take(emb, items, axis=0)`: a table gathered by
        # indices; the gather's batching rule puts the batch axis first where the table
        # or the indices are batched at axis 0 and the other is not (probes 79b, 80a)
        table, index = (_axis_of_expr(func, part, at, params, in_axes, depth + 1) for part in gathered)
        if {table, index} == {(True, None), (True, 0)}:
            return True, 0
    if isinstance(expr, ast.Subscript):
        # `kv[:, :, 0]` of an unbatched fused projection, by unbatched indices: unbatched
        # (probe 77b: a shared text context's keys and values split by index)
        base = _axis_of_expr(func, expr.value, at, params, in_axes, depth + 1)
        items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        bounds = [b for i in items for b in ((i.lower, i.upper, i.step) if isinstance(i, ast.Slice) else (i,)) if b is not None]
        unbatched = base == (True, None) and all(_axis_of_expr(func, b, at, params, in_axes, depth + 1) == (True, None) for b in bounds)
        return (True, None) if unbatched else _UNKNOWN_AXIS
    parts: list[ast.expr]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.MatMult):
        # `x @ w` with only x batched: dot_general's batching rule keeps x's batch axis among
        # its free axes, first when it is first (probe 29b: a projection before attention)
        left = _axis_of_expr(func, expr.left, at, params, in_axes, depth + 1)
        right = _axis_of_expr(func, expr.right, at, params, in_axes, depth + 1)
        if right == (True, None) and left in ((True, 0), (True, None)):
            return left
        return _computed_from(left, right)
    if isinstance(expr, ast.BinOp) and any(_number(_bound_number(func, side, at)) for side in (expr.left, expr.right)):
        # `q * 0.125`: with a Python number the batching rule calls the primitive as it is,
        # the batch axis where it was (traced on 0.10.2: axis 1 stays 1; probe 57a)
        other = expr.right if _number(_bound_number(func, expr.left, at)) else expr.left
        return _axis_of_expr(func, other, at, params, in_axes, depth + 1)
    if isinstance(expr, ast.BinOp):
        parts = [expr.left, expr.right]
    elif isinstance(expr, ast.Compare) and len(expr.comparators) == 1:
        parts = [expr.left, *expr.comparators]  # `items > 0`: elementwise, as arithmetic is
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _KEEPS_BATCH_AXIS and not any(isinstance(a, ast.Starred) for a in expr.args):
        parts = [expr.func.value, *expr.args, *(k.value for k in expr.keywords)]
        arguments = [_axis_of_expr(func, a, at, params, in_axes, depth + 1) for a in parts[1:]]
        if any(known is False or axis is not None for known, axis in arguments):
            return _UNKNOWN_AXIS  # a shape or dtype computed from a batched value
        known, axis = _axis_of_expr(func, expr.func.value, at, params, in_axes, depth + 1)
        if (known, axis) == _BATCHED_SOMEWHERE:
            # `(x @ p["wq"]).reshape(b, t, h, d)` with the weights mapped (an ensemble's
            # members: probe 157b's r02): a reshape puts the batch axis first
            return (True, 0) if expr.func.attr == "reshape" and not _reshaped_to_itself(expr) else _BATCHED_SOMEWHERE
        if known and axis is not None:
            # astype keeps the batch axis where it is (axis 1 too: probe 40b), and so does a
            # reshape to the operand's own shape (`q.reshape(q.shape)`: JAX returns the
            # operand, probes 83b, 90c); any other reshape's batching rule moves it to the front
            return (True, axis) if expr.func.attr == "astype" or _reshaped_to_itself(expr) else (True, 0)
        return known, axis
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _ARRAY_METHODS_KEEPING_AXIS_0 and not _array_library_call(func, expr.func):
        # `x32.mean(-1, keepdims=True)`, `h.transpose(0, 2, 1, 3)` of a value batched at
        # axis 0, by unbatched arguments: a reduction over other axes keeps it first, a
        # transpose puts it first (probe 157b: a layer norm between two attentions)
        if any(isinstance(a, ast.Starred) for a in expr.args) or any(k.arg is None for k in expr.keywords):
            return _UNKNOWN_AXIS
        arguments = [_axis_of_expr(func, a, at, params, in_axes, depth + 1) for a in [*expr.args, *(k.value for k in expr.keywords)]]
        if any(found != (True, None) for found in arguments):
            return _UNKNOWN_AXIS
        receiver = _axis_of_expr(func, expr.func.value, at, params, in_axes, depth + 1)
        return (True, 0) if receiver == (True, 0) else _computed_from(receiver)
    elif isinstance(expr, ast.Call) and (lam := _local_lambda(func, expr, at, params)) is not None:
        # `heads = lambda w: (x @ w).reshape(...)` then `heads(params["wq"])`: the lambda's
        # body read where it is called, its parameters as the call passes them (probe 151b)
        items = [_axis_value(_axis_of(in_axes, index)) for index in range(len(params))]
        items += [_axis_value(_axis_of_expr(func, arg, at, params, in_axes, depth + 1)) for arg in expr.args]
        return _axis_of_expr(func, lam.body, at, [*params, *_positional_params(lam)], TupleV(tuple(items), False, (), False), depth + 1)
    elif isinstance(expr, ast.Call) and (helper := _helper_of(func, expr)) is not None:
        # `split_heads(x @ w)`, `length_mask(n, t)`: what a helper of ours returns, batched
        # as its return expression is, its parameters as the call passes them (probe 151a)
        return _axis_returned(func, expr, helper, at, params, in_axes, depth)
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Call) and (own := _inline_linen_layer(func, expr.func)) is not None:
        # `nn.Dense(d)(x)` in a linen module's compact method: its kernel is the module's
        # variable, unbatched where the module is (probe 161a)
        return _layer_output(func, expr, _axis_of_name(func, own, at, params, in_axes, depth + 1), at, params, in_axes, depth)
    elif isinstance(expr, ast.Call) and (method := _method_of(func, expr)) is not None:
        # `self.split_heads(x)`, `self.attn(h, h)` (the `__call__` of the layer the
        # constructor builds): read as a helper, `self` as the receiver (probe 159b)
        helper, receiver = method
        if isinstance(helper, ast.FunctionDef):
            return _axis_returned(func, expr, helper, at, params, in_axes, depth, receiver)
        module = _axis_of_expr(func, receiver, at, params, in_axes, depth + 1)
        if helper == _LINEN_PARAMETER:
            # `self.param("wq", init, shape)` of a linen module whose variables are not mapped
            return (True, None) if module == (True, None) else _UNKNOWN_AXIS
        # a library's linear layer (`self.q = nnx.Linear(...)`: a matmul against its
        # weights: probe 157b's r04) or norm (`nnx.RMSNorm`, over the features: probe 160b)
        return _layer_output(func, expr, module, at, params, in_axes, depth)
    elif isinstance(expr, ast.Call) and (query := _cudnn_attention_query(func, expr)) is not None and _axis_of_expr(func, query, at, params, in_axes, depth + 1) == (True, 0):
        # `h = attend(x, x, x)` then `attend(h, memory, memory)`: cuDNN attention's
        # batching rule gives its output the query's batch axis
        return True, 0
    elif isinstance(expr, ast.Call) and _array_library_call(func, expr.func) and not any(isinstance(a, ast.Starred) for a in expr.args) and all(k.arg is not None for k in expr.keywords):
        # `jnp.ones((B, 1, T, T))`: JAX's or NumPy's function of nothing batched is unbatched
        # (not a method or helper of ours: it may read state the mapped function batched)
        parts = [*expr.args, *(k.value for k in expr.keywords)]
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _CONSTANT_LIKE:
            # `jnp.zeros_like(q)`: a constant of the per-example shape, not batched (probe
            # 79e); full_like's fill value counts
            parts = parts[1:]
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _KEEP_AXIS_0:
            # `jnp.stack([s, a], axis=1)`, `jnp.tanh(x)`: the items of a list argument count
            # one by one (probe 75e: a stream of states and actions stacked)
            parts = [item for part in parts for item in (part.elts if isinstance(part, (ast.List, ast.Tuple)) else [part])]
        inputs = [_axis_of_expr(func, part, at, params, in_axes, depth + 1) for part in parts]
        if all(found == (True, None) for found in inputs):
            return True, None
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _PRODUCTS:
            return _computed_from(*inputs)  # (an einsum's subscripts: a string, unbatched)
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _JOINS and expr.args and isinstance(expr.args[0], (ast.List, ast.Tuple)) and len(expr.args[0].elts) > 1:
            # `jnp.stack([s, s], axis=1)` of a value batched at axis 1: concatenate's
            # batching rule moves every batch axis to the front (of two or more arrays:
            # jnp returns one as it is)
            return (True, 0) if _computed_from(*inputs) == _BATCHED_SOMEWHERE else _UNKNOWN_AXIS
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _KEEP_AXIS_0:
            return (True, 0) if all(found in ((True, 0), (True, None)) for found in inputs) else _computed_from(*inputs)
        return _UNKNOWN_AXIS
    else:
        return _UNKNOWN_AXIS
    axes = [_axis_of_expr(func, part, at, params, in_axes, depth + 1) for part in parts]
    if any(not known for known, _ in axes):
        return _computed_from(*axes)  # (an operand batched somewhere: so is the result)
    batched = {axis for _, axis in axes if axis is not None}
    if not batched:
        return True, None
    return (True, 0) if batched == {0} else _BATCHED_SOMEWHERE


def _layer_output(func: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, module: tuple[bool, Axis], at: int, params: list[str], in_axes: Value | None, depth: int) -> tuple[bool, Axis]:
    """What a library layer that keeps the batch axis (_LAYERS_KEEPING_AXIS_0) returns
    for its one argument, where the module holding its weights is unbatched: batched as
    the argument (somewhere, where that is at another axis)."""
    if module != (True, None) or len(call.args) != 1 or call.keywords:
        return _UNKNOWN_AXIS
    found = _axis_of_expr(func, call.args[0], at, params, in_axes, depth + 1)
    return found if found in ((True, 0), (True, None)) else _computed_from(found)


def _computed_from(*operands: tuple[bool, Axis]) -> tuple[bool, Axis]:
    """What a primitive computes from `operands` where no rule here tells its batch axis
    (`x @ w` with the weights mapped, an einsum, `jnp.tanh` of a value batched at axis 1):
    batched somewhere where some operand is batched and each is known; unknown else."""
    batched = [found for found in operands if found == _BATCHED_SOMEWHERE or found[0] and found[1] is not None]
    if batched and all(found == _BATCHED_SOMEWHERE or found[0] for found in operands):
        return _BATCHED_SOMEWHERE
    return _UNKNOWN_AXIS


def _local_lambda(func: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, at: int, params: list[str]) -> ast.Lambda | None:
    """The lambda `call` names, bound once by `func` at its top level before statement
    `at` (`heads = lambda w: ...`), called with its positional parameters exactly, none
    of which `func` names otherwise (the body is read as `func`'s own code)."""
    if not isinstance(call.func, ast.Name) or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    stores = _stored_at(func, call.func.id)
    if len(stores) != 1 or stores[0] >= at:
        return None
    stmt = func.body[stores[0]]
    lam = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) else None
    if not isinstance(lam, ast.Lambda) or lam.args.vararg or lam.args.kwarg or lam.args.kwonlyargs or lam.args.defaults:
        return None
    own = _positional_params(lam)
    if len(own) != len(call.args) or any(name in params or name in _other_params(func) or _stored_at(func, name) for name in own):
        return None
    return lam


def _axis_value(found: tuple[bool, Axis]) -> Value:
    """An axis as an entry of `in_axes`: an int, None (not batched), or Unknown."""
    known, axis = found
    return UNKNOWN if not known else ConstV(None) if axis is None else make_int(axis)


def _helper_of(func: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> ast.FunctionDef | None:
    """The function of `func`'s module that `call` names (`split_heads(x)`), where its
    batching can be read from its code: defined once at the module's top level, not
    rebound in `func`, decorated only with what passes its arguments as they are, its
    body straight-line code ending in its one `return` (a value that a branch, a loop
    or a nested function computes is unjudged), the call passing no `*args`/`**kwargs`."""
    if not isinstance(call.func, (ast.Name, ast.Attribute)) or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    known = _TREE_OF.get(id(func))
    if known is None or known[0] is not func:
        return None
    if isinstance(call.func, ast.Name):
        # `split_heads(x)` of this module, or `mha(x)` after `from .layers import mha` (probe 157b)
        named = call.func.id
        helper = None if _stored_at(func, named) else _top_level_defs(known[1]).get(named) or _imported_function(known[1], named)
    else:
        # `layers.self_attend(x)`: a helper of the project module the name imports (probe 157b)
        holder = _imported_module(known[1], call.func.value) if isinstance(call.func.value, ast.Name) and not _stored_at(func, call.func.value.id) else None
        helper = _top_level_defs(holder).get(call.func.attr) if holder is not None else None
    return _readable(helper)


def _readable(helper: ast.FunctionDef | None) -> ast.FunctionDef | None:
    """`helper` where its batching can be read from its code (_helper_of)."""
    if helper is None or not _passes_arguments(helper) or helper.args.vararg is not None or helper.args.kwarg is not None:
        return None
    if {"checkpoint", "remat"} & set(_decorator_names(helper)):
        return None  # (remat's batching rule returns its outputs batched at axis 0: probe 152a)
    body = helper.body
    last = body[-1]
    if not isinstance(last, ast.Return) or last.value is None:
        return None
    if any(not isinstance(stmt, (ast.Assign, ast.Expr)) or isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Constant) for stmt in body[:-1]):
        return None  # (a docstring and assignments only: `_axis_of_name` reads no other binding)
    return helper


# the libraries' layers whose call keeps its one argument's batch axis first: a matmul
# against the layer's kernel (then a bias), a norm over the example's features
_LAYERS_KEEPING_AXIS_0 = frozenset({
    "flax.nnx.Linear", "flax.linen.Dense", "haiku.Linear",
    "flax.nnx.LayerNorm", "flax.nnx.RMSNorm", "flax.linen.LayerNorm", "flax.linen.RMSNorm",
})


# what `_method_of` finds that is not a method of ours
_LIBRARY_LAYER = "a library's layer keeping the batch axis"
_LINEN_PARAMETER = "a linen module's parameter"
_LINEN_MODULES = frozenset({"flax.linen.Module"})


def _method_of(func: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> tuple[ast.FunctionDef | str, ast.expr] | None:
    """The method `call` runs in method `func`, with its receiver: `self.heads(x)` (a
    method of `func`'s class, which no class of the module derived from it defines), or
    `self.attn(h)` (the `__call__` of the class that `func`'s class builds once for
    `attn` in its constructor, not stored on as the program runs; _LIBRARY_LAYER for a
    library's linear layer or norm), or `self.param(...)` of a linen module (_LINEN_PARAMETER).
    None where it is anything else."""
    if not isinstance(call.func, ast.Attribute) or not isinstance(call.func.value, ast.Name) or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    found = _method_class(func)
    if found is None or found[2] != call.func.value.id or _written_while_running(func, call.func.attr):
        return None
    tree, cls, _ = found
    name = call.func.attr
    methods = [stmt for stmt in cls.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name]
    if methods:
        others = [node for node in _classes(tree) if _derives_from(node, cls.name) and any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in node.body)]
        method = methods[0]
        if len(methods) != 1 or others or not isinstance(method, ast.FunctionDef) or _is_static(method) or _decorator_names(method) or _built_in_constructor(cls, name) is not None:
            return None  # (a subclass may override it; a property, a classmethod)
        helper = _readable(method)
        return (helper, call.func.value) if helper is not None else None
    if name == "param" and _is_linen(tree, cls):
        return _LINEN_PARAMETER, call.func.value
    layer = _built_class(tree, cls, name)
    if isinstance(layer, ast.ClassDef):
        runs = [stmt for stmt in layer.body if isinstance(stmt, ast.FunctionDef) and stmt.name == "__call__"]
        helper = _readable(runs[0]) if len(runs) == 1 and not _decorator_names(runs[0]) else None
        return (helper, call.func) if helper is not None else None
    return (_LIBRARY_LAYER, call.func) if layer in _LAYERS_KEEPING_AXIS_0 else None


def _classes(tree: ast.Module) -> list[ast.ClassDef]:
    """The module's classes, nested ones too (once per module: asked at each method call
    the reading meets)."""
    cached = _CLASSES.get(id(tree))
    if cached is None or cached[0] is not tree:
        if len(_CLASSES) > 64:
            _CLASSES.clear()
        cached = _CLASSES[id(tree)] = (tree, [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)])
    return cached[1]


_CLASSES: dict[int, tuple[ast.Module, list[ast.ClassDef]]] = {}


def _of_the_callees_class(calls: list[ast.Call], callee: ast.FunctionDef | ast.AsyncFunctionDef, method: bool, parents: dict[int, ast.AST], above_parents: dict[int, ast.AST]) -> list[ast.Call]:
    """Of several calls at a line that may run `callee`, an object's `__call__`, those
    whose receiver is a field the caller's constructor builds as the callee's class
    (`self.reader(self.norm(x), docs)`: probe 160b); the calls as they are otherwise."""
    if len(calls) < 2 or not method or callee.name != "__call__":
        return calls
    owner = parents.get(id(callee))
    kept: list[ast.Call] = []
    for call in calls:
        caller = _enclosing_function(call, above_parents)
        if isinstance(owner, ast.ClassDef) and caller is not None and _field_class(caller, call.func) is owner:
            kept.append(call)
    return kept


def _method_class(func: Function) -> tuple[ast.Module, ast.ClassDef, str] | None:
    """Method `func`'s module, class and `self` name, where `func` is a method (not a
    staticmethod) of a known module that does not rebind `self`."""
    known = _TREE_OF.get(id(func))
    if isinstance(func, ast.Lambda) or known is None or known[0] is not func or _is_static(func):
        return None
    cls = _parents(known[1]).get(id(func))
    own = _positional_params(func)[:1]
    if not isinstance(cls, ast.ClassDef) or not own or _assigned_in(func, own[0]):
        return None
    return known[1], cls, own[0]


def _field_class(func: Function, expr: ast.expr) -> ast.ClassDef | str | None:
    """The class of `self.<field>` in method `func`, as its class's constructor builds it
    once (`self.reader = CrossReader(...)`); None where it is not so known."""
    found = _method_class(func)
    if found is None or not isinstance(expr, ast.Attribute) or not isinstance(expr.value, ast.Name) or expr.value.id != found[2]:
        return None
    return _built_class(found[0], found[1], expr.attr)


def _built_class(tree: ast.Module, cls: ast.ClassDef, attr: str) -> ast.ClassDef | str | None:
    """The class `cls`'s constructor builds once for `self.<attr>` (_class_named)."""
    built = _built_in_constructor(cls, attr)
    return _class_named(tree, built.func) if built is not None else None


def _is_linen(tree: ast.Module, cls: ast.ClassDef) -> bool:
    """Does `cls` name flax linen's `nn.Module` among its bases?"""
    return any(_class_named(tree, base) in _LINEN_MODULES for base in cls.bases)


def _inline_linen_layer(func: ast.FunctionDef | ast.AsyncFunctionDef, built: ast.Call) -> str | None:
    """`self`'s name where `built` makes a library layer that keeps the batch axis
    (`nn.Dense(d)`) inside a method of a linen module (`nn.Module` among its bases): the
    layer's variables are the module's; None for anything else."""
    found = _method_class(func)
    if found is None or _class_named(found[0], built.func) not in _LAYERS_KEEPING_AXIS_0 or not _is_linen(found[0], found[1]):
        return None
    return found[2]


def _derives_from(cls: ast.ClassDef, name: str) -> bool:
    """Does `cls` name `name` among its bases (`class Cross(Attention)`, `layers.Attention`)?"""
    return any(isinstance(base, ast.Name) and base.id == name or isinstance(base, ast.Attribute) and base.attr == name for base in cls.bases)


def _built_in_constructor(cls: ast.ClassDef, attr: str) -> ast.Call | None:
    """The call that `cls`'s constructor stores as `self.<attr>`, where that is the one
    store of the attribute in the class (`self.attn = layers.MHA(d, heads, key)`)."""
    stores = [node for node in ast.walk(cls) if isinstance(node, ast.Attribute) and node.attr == attr and not isinstance(node.ctx, ast.Load)]
    if len(stores) != 1:
        return None
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name in _CONSTRUCTORS:
            for line in stmt.body:
                if isinstance(line, ast.Assign) and len(line.targets) == 1 and line.targets[0] is stores[0] and isinstance(line.value, ast.Call):
                    return line.value
    return None


def _class_named(tree: ast.Module, expr: ast.expr) -> ast.ClassDef | str | None:
    """The class `expr` names in module `tree`: one of the project's (`MHA`, `layers.MHA`,
    bound once), or a library's by its qualified name (`nnx.Linear`)."""
    if isinstance(expr, ast.Name):
        bound = _imported(tree, expr.id)
    elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        holder = _imported_module(tree, expr.value)
        if holder is None:
            library = _imported(tree, expr.value.id)  # (`nnx` of `from flax import nnx`)
            return f"{library.qualname}.{expr.attr}" if isinstance(library, ExternalV) else None
        bound = _imported(holder, expr.attr)
    else:
        return None
    if isinstance(bound, ClassV):
        return bound.node
    return bound.qualname if isinstance(bound, ExternalV) else None


# the project's modules by path, for the attention call being read (batching)
_MODULES: list[Mapping[str, ModuleInfo] | None] = [None]


def _imported_module(tree: ast.Module, name: ast.expr) -> ast.Module | None:
    """The tree of the project module that `name` is bound to by the one top-level import
    of `tree` that binds it (`import pkg.layers as layers`, `from pkg import layers`,
    `from . import layers`); None for anything else."""
    if not isinstance(name, ast.Name) or name.id in _ARRAY_LIBRARIES:
        return None
    bound = _imported(tree, name.id)
    if not isinstance(bound, ModuleV):
        return None
    _parents(bound.info.tree)  # (its functions' module known: their helpers, what it stores)
    return bound.info.tree


def _imported_function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    """The function of another project module that `name` is bound to by the one
    top-level import of `tree` that binds it (`from .layers import mha`, `as attend`),
    where that module defines it once at its top level; None for anything else."""
    bound = _imported(tree, name)
    if not isinstance(bound, FunctionV) or bound.module.tree is tree or not isinstance(bound.node, ast.FunctionDef):
        return None
    helper = _top_level_defs(bound.module.tree).get(bound.node.name)
    if helper is not bound.node:
        return None
    _parents(bound.module.tree)
    return helper


def _imported(tree: ast.Module, name: str) -> Value | None:
    """What the interpreter bound `name` to in `tree`'s namespace (its own import
    resolution: relative imports, packages), where the module binds the name once."""
    modules = _MODULES[0]
    if modules is None:
        return None
    key = (id(tree), name)
    cached = _IMPORTED.get(key)
    if cached is None or cached[0] is not tree:
        here = next((info for info in modules.values() if info.tree is tree), None)
        bound = here.namespace.get(name) if here is not None and _binding_counts(tree).get(name) == 1 else None
        cached = _IMPORTED[key] = (tree, bound)
    return cached[1]


# the names of each module bound once, as the interpreter bound them (`_imported` is
# asked at every call the reading meets: `jnp.tanh(x)` too)
_IMPORTED: dict[tuple[int, str], tuple[ast.Module, Value | None]] = {}


_TOP_LEVEL_DEFS: dict[int, tuple[ast.Module, dict[str, ast.FunctionDef], dict[str, int]]] = {}


def _top_level_defs(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """The module's top-level functions defined once, by name."""
    return _module_bindings(tree)[1]


def _binding_counts(tree: ast.Module) -> dict[str, int]:
    """How many places of the module bind each name (defs, stores, imports)."""
    return _module_bindings(tree)[2]


def _module_bindings(tree: ast.Module) -> tuple[ast.Module, dict[str, ast.FunctionDef], dict[str, int]]:
    cached = _TOP_LEVEL_DEFS.get(id(tree))
    if cached is not None and cached[0] is tree:
        return cached
    counts: dict[str, int] = {}
    for stmt in tree.body:
        for node in ast.walk(stmt):
            names: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                names = [node.id]
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [(alias.asname or alias.name).split(".")[0] for alias in node.names]  # (one may replace the def)
            for name in names:
                counts[name] = counts.get(name, 0) + 1
    defs = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, ast.FunctionDef) and counts.get(stmt.name) == 1}
    if len(_TOP_LEVEL_DEFS) > 64:
        _TOP_LEVEL_DEFS.clear()
    found = _TOP_LEVEL_DEFS[id(tree)] = (tree, defs, counts)
    return found


def _axis_returned(func: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, helper: ast.FunctionDef, at: int, params: list[str], in_axes: Value | None, depth: int, receiver: ast.expr | None = None) -> tuple[bool, Axis]:
    """The batching of what `helper` returns to `call` in `func`: its return expression
    read in the helper, each parameter batched as the argument `func` passes for it (a
    default: made at definition, not batched), a method's `self` as its `receiver`."""
    names = _positional_params(helper)
    defaults = dict(zip(names[len(names) - len(helper.args.defaults):], helper.args.defaults))
    items: list[Value] = []
    if receiver is not None:
        items.append(_axis_value(_axis_of_expr(func, receiver, at, params, in_axes, depth + 1)))
    for index, name in enumerate(names[len(items):]):
        passed = call.args[index] if index < len(call.args) else next((k.value for k in call.keywords if k.arg == name), None)
        if passed is None:
            items.append(ConstV(None) if name in defaults else UNKNOWN)
            continue
        items.append(_axis_value(_axis_of_expr(func, passed, at, params, in_axes, depth + 1)))
    last = helper.body[-1]
    assert isinstance(last, ast.Return) and last.value is not None
    return _axis_of_expr(helper, last.value, len(helper.body) - 1, names, TupleV(tuple(items), False, (), False), depth + 1)


def _reshaped_to_itself(call: ast.Call) -> bool:
    """`x.reshape(x.shape)` / `x.reshape(*x.shape)`: the same name's own shape."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr != "reshape" or len(call.args) != 1 or call.keywords:
        return False
    receiver = call.func.value
    if not isinstance(receiver, ast.Name):
        return False
    shape = call.args[0].value if isinstance(call.args[0], ast.Starred) else call.args[0]
    return isinstance(shape, ast.Attribute) and shape.attr == "shape" and isinstance(shape.value, ast.Name) and shape.value.id == receiver.id


def _gathered(func: ast.FunctionDef | ast.AsyncFunctionDef, expr: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """(table, indices) of `table[idx]`, `table[idx, :]`, `table[(idx,)]` or
    `jnp.take(table, idx, axis=0)` (an array library's take: _array_library_call); None
    otherwise."""
    if isinstance(expr, ast.Subscript):
        items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        whole = [isinstance(i, ast.Slice) and i.lower is None and i.upper is None and i.step is None for i in items[1:]]
        if items and not isinstance(items[0], (ast.Slice, ast.Starred)) and not (isinstance(items[0], ast.Constant) and items[0].value in (None, Ellipsis)) and all(whole):
            return expr.value, items[0]
        return None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "take" and _array_library_call(func, expr.func):
        axis = next((k.value for k in expr.keywords if k.arg == "axis"), expr.args[2] if len(expr.args) > 2 else None)
        if len(expr.args) >= 2 and isinstance(axis, ast.Constant) and axis.value == 0 and all(k.arg == "axis" for k in expr.keywords):
            return expr.args[0], expr.args[1]
    return None


def _adds_axes_only(index: ast.expr) -> bool:
    """An index of `None`s, `...` and whole-axis `:`s only (at least one None)."""
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(i, ast.Constant) and i.value is None for i in items) and all(
        isinstance(i, ast.Constant) and i.value in (None, Ellipsis) or isinstance(i, ast.Slice) and i.lower is None and i.upper is None and i.step is None for i in items
    )


def _bound_number(func: ast.FunctionDef | ast.AsyncFunctionDef, expr: ast.expr, at: int) -> ast.expr:
    """A name the mapped function binds once, at its top level before statement `at`, as
    what it is bound to (`scale = 1 / math.sqrt(h)`: probe 59a); else `expr`."""
    if not isinstance(expr, ast.Name):
        return expr
    stores = _stored_at(func, expr.id)
    if len(stores) != 1 or stores[0] >= at or expr.id in _positional_params(func) or expr.id in _other_params(func):
        return expr
    stmt = func.body[stores[0]]
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.value
    return expr


def _number(expr: ast.expr, depth: int = 0) -> bool:
    """Certainly a Python number: a literal (`0.125`, `-1`), a `math` function's result
    (`math.sqrt(64)`: math returns Python numbers only), or arithmetic of those."""
    if depth > 8:
        return False
    if isinstance(expr, ast.UnaryOp):
        return _number(expr.operand, depth + 1)
    if isinstance(expr, ast.BinOp):
        return _number(expr.left, depth + 1) and _number(expr.right, depth + 1)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "math":
        return True
    return isinstance(expr, ast.Constant) and type(expr.value) in (int, float)


# the conventional names of the array libraries, whose functions read only their arguments
_ARRAY_LIBRARIES = frozenset({"jnp", "np", "jax", "numpy", "lax", "math"})
# Their functions whose batching rules leave a result batched at axis 0 where every
# batched input is (elementwise: the common axis, or all moved to 0; concatenate and
# reshape: moved to 0; transpose, pad, squeeze, reductions over other axes: kept), for
# the axes they take as arguments.  Not einsum, matmul, dot or indexing: a dot_general's
# batch dimensions come first, a gather's axis is its own.
_KEEP_AXIS_0 = frozenset({
    "stack", "concatenate", "hstack", "vstack", "pad", "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze", "tile", "broadcast_to",
    "where", "clip", "maximum", "minimum", "tanh", "exp", "log", "sin", "cos", "sqrt", "rsqrt", "abs", "square", "negative",
    "sigmoid", "gelu", "relu", "silu", "swish", "softmax", "log_softmax", "softplus", "elu", "leaky_relu", "mean", "sum", "cumsum",
})
# The methods of an array that leave a value batched at axis 0 so (reductions over the
# example's axes, transposes), called on one: only where the value is known to be batched
# (an unbatched receiver may be any object, its method reading what the mapped function stored).
_ARRAY_METHODS_KEEPING_AXIS_0 = frozenset({"mean", "sum", "var", "std", "max", "min", "prod", "transpose", "swapaxes", "squeeze", "clip"})
# ...and those that read only their first argument's shape and dtype
_CONSTANT_LIKE = frozenset({"zeros_like", "ones_like", "empty_like", "full_like"})
# what an array tells of itself, the same for every example
_PER_EXAMPLE_FACTS = frozenset({"shape", "dtype", "ndim", "size"})
# ...except the collectives, which read the mapped axis (`lax.axis_index("b")` is batched)
_COLLECTIVES = frozenset({"axis_index", "psum", "pmean", "pmax", "pmin", "all_gather", "all_to_all", "ppermute", "pshuffle", "pswapaxes", "psum_scatter", "pbroadcast"})


def _cudnn_attention_query(func: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> ast.expr | None:
    """The query of `jax.nn.dot_product_attention(q, ..., implementation="cudnn")`
    spelled so (another implementation's output may carry its batch axis anywhere)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "dot_product_attention" and _array_library_call(func, call.func)):
        return None
    if not any(k.arg == "implementation" and isinstance(k.value, ast.Constant) and k.value.value == "cudnn" for k in call.keywords):
        return None
    return call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else next((k.value for k in call.keywords if k.arg == "query"), None)


def _array_library_call(func: ast.FunctionDef | ast.AsyncFunctionDef, callee: ast.expr) -> bool:
    """`jnp.ones`, `jax.numpy.zeros`, `np.tril`: a function of an array library, by the
    name it is conventionally imported as (not rebound in the mapped function)."""
    root = callee
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(callee, ast.Attribute) and callee.attr not in _COLLECTIVES and isinstance(root, ast.Name) and root.id in _ARRAY_LIBRARIES and not _stored_at(func, root.id)


def _axis_of_name(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str, at: int, params: list[str], in_axes: Value | None, depth: int) -> tuple[bool, Axis]:
    """A name read by the top-level statement `at`: the last top-level assignment to it
    before, else the parameter (or the outside name) it is; unknown where it is bound
    any other way (in a branch or loop, by unpacking an array, ...)."""
    stores = _stored_at(func, name)
    if not _only_plain_stores(func, name, stores):
        return _UNKNOWN_AXIS
    before = [i for i in stores if i < at]
    if before:
        stmt = func.body[before[-1]]
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Tuple):
            if isinstance(stmt.value, ast.Name):
                return _axis_of_unpacked(func, stmt.targets[0], stmt.value.id, name, params, in_axes)
            if isinstance(stmt.value, ast.Tuple):
                # `q, k, v = heads(wq), heads(wk), heads(wv)`: each its own expression (probe 151b)
                position = next(i for i, t in enumerate(stmt.targets[0].elts) if isinstance(t, ast.Name) and t.id == name)
                return _axis_of_expr(func, stmt.value.elts[position], before[-1], params, in_axes, depth + 1)
            split = _split_of(stmt.value)
            if split is not None:
                # `k, v = jnp.split(kv, 2, axis=-1)`: split's batching rule keeps the batch
                # axis on every part (probe 157b's r04)
                parts = [_axis_of_expr(func, arg, before[-1], params, in_axes, depth + 1) for arg in split]
                return parts[0] if all(found == (True, None) for found in parts[1:]) else _UNKNOWN_AXIS
            return True, None  # `b, t, d = q.shape`
        assert isinstance(stmt, ast.Assign)
        return _axis_of_expr(func, stmt.value, before[-1], params, in_axes, depth + 1)
    if name in params:
        known, axis = _axis_of(in_axes, params.index(name))
        # (another axis only where what reads it keeps it: `x.astype(...)`; a negative one
        # needs the rank)
        return (known, axis) if axis is None or axis >= 0 else _UNKNOWN_AXIS
    if name in _other_params(func) or stores or _written_while_running(func, f"global {name}"):
        return _UNKNOWN_AXIS
    return True, None  # from outside the mapped function


def _stored_names(stmt: ast.stmt) -> set[str]:
    """The names a statement binds anywhere in it (a def or class by its name too)."""
    found: set[str] = set()
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            found.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(n.name)
    return found


_STORE_INDEX: dict[int, tuple[ast.AST, dict[str, list[int]]]] = {}


def _stored_at(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[int]:
    """The indices of `func`'s top-level statements that bind `name` (indexed once per
    function: a long function asked about each name of a derivation, probe 153b)."""
    cached = _STORE_INDEX.get(id(func))
    if cached is None or cached[0] is not func:
        index: dict[str, list[int]] = {}
        for i, stmt in enumerate(func.body):
            for stored in _stored_names(stmt):
                index.setdefault(stored, []).append(i)
        if len(_STORE_INDEX) > 4096:
            _STORE_INDEX.clear()
        cached = _STORE_INDEX[id(func)] = (func, index)
    return cached[1].get(name, [])


_PLAIN: dict[tuple[int, str], tuple[ast.AST, bool]] = {}


def _only_plain_stores(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str, stores: list[int]) -> bool:
    """Is every top-level statement of `func` binding `name` a plain store (once per
    function and name: 20,000 rebindings asked at each step, probe 153b)?"""
    cached = _PLAIN.get((id(func), name))
    if cached is None or cached[0] is not func:
        if len(_PLAIN) > 65536:
            _PLAIN.clear()
        cached = _PLAIN[(id(func), name)] = (func, all(_plain_store(func.body[i], name) for i in stores))
    return cached[1]


def _plain_store(stmt: ast.stmt, name: str) -> bool:
    """`name = expr` (`k = v = memory` too: probe 149a), `a, name, c = x.shape`,
    `q, kv = pair`, or `q, k = e1, e2`: the only ways a derived operand is read."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) > 1 and all(isinstance(t, ast.Name) for t in stmt.targets):
        return not _stores_inside(stmt.value, name)
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return False
    target = stmt.targets[0]
    if isinstance(target, ast.Name):
        return target.id == name and not _stores_inside(stmt.value, name)
    value = stmt.value
    return (
        isinstance(target, ast.Tuple)
        and all(isinstance(t, ast.Name) for t in target.elts)
        and (
            isinstance(value, ast.Attribute) and value.attr == "shape"
            or isinstance(value, ast.Name)
            or _split_of(value) is not None
            or isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts) and not any(isinstance(e, ast.Starred) for e in value.elts) and not _stores_inside(value, name)
        )
    )


def _split_of(value: ast.expr) -> list[ast.expr] | None:
    """The arguments of `jnp.split(x, ...)` / `jnp.array_split` (the array first), a
    value unpacked part by part; None for anything else."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) or value.func.attr not in ("split", "array_split") or not value.args:
        return None
    root = value.func.value
    if not isinstance(root, ast.Name) or root.id not in ("jnp", "np", "numpy") or any(isinstance(a, ast.Starred) for a in value.args) or any(k.arg is None for k in value.keywords):
        return None
    return [*value.args, *(k.value for k in value.keywords)]


def _axis_of_unpacked(func: ast.FunctionDef | ast.AsyncFunctionDef, target: ast.Tuple, source: str, name: str, params: list[str], in_axes: Value | None) -> tuple[bool, Axis]:
    """`q, kv = pair` of a parameter that `in_axes` maps item by item (`in_axes=((0, 1),)`:
    probe 70a): the axis of the item unpacked; unknown for anything else."""
    if source not in params or _stored_at(func, source) or source in (t.id for t in target.elts if isinstance(t, ast.Name)):
        return _UNKNOWN_AXIS
    index = params.index(source)
    entries = in_axes.items[index] if isinstance(in_axes, TupleV) and index < len(in_axes.items) else None
    if not isinstance(entries, TupleV) or len(entries.items) != len(target.elts):
        return _UNKNOWN_AXIS
    position = next(i for i, t in enumerate(target.elts) if isinstance(t, ast.Name) and t.id == name)
    known, axis = _axis_item(entries.items[position]) or _UNKNOWN_AXIS
    return (known, axis) if axis is None or axis >= 0 else _UNKNOWN_AXIS


def _stores_inside(expr: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(expr))  # a walrus


def _positional_params(func: Function) -> list[str]:
    return [a.arg for a in (*func.args.posonlyargs, *func.args.args)]


def _other_params(func: Function) -> set[str]:
    names = {a.arg for a in func.args.kwonlyargs}
    for star in (func.args.vararg, func.args.kwarg):
        if star is not None:
            names.add(star.arg)
    return names


Axis = int | None


def _axis_of(in_axes: Value | None, index: int) -> tuple[bool, Axis]:
    """(known, axis) that `in_axes` gives the positional argument `index`."""
    if in_axes is None:
        return True, 0
    if isinstance(in_axes, IntV) and in_axes.dim.value is not None:
        return True, in_axes.dim.value
    if isinstance(in_axes, ConstV) and in_axes.value is None:
        return True, None
    if isinstance(in_axes, TupleV) and index < len(in_axes.items):
        return _axis_item(in_axes.items[index]) or (False, None)
    return False, None


def _axis_item(item: Value | None) -> tuple[bool, Axis] | None:
    """One entry of `in_axes`: None (not mapped) or an int; None for anything else."""
    if isinstance(item, ConstV) and item.value is None:
        return True, None
    if isinstance(item, IntV) and item.dim.value is not None:
        return True, item.dim.value
    return None


def _dict_entry_axis(in_axes: Value | None, index: int, key: str) -> tuple[bool, Axis] | None:
    """The axis `in_axes` gives the entry `key` of the positional argument `index` where
    it gives that argument a dict of axes; None otherwise."""
    entries = in_axes.items[index] if isinstance(in_axes, TupleV) and index < len(in_axes.items) else None
    return _axis_item(entries.get(key)) if isinstance(entries, DictV) else None


@dataclass(frozen=True)
class Batched:
    """How one attention operand is batched by the innermost vmap."""

    name: str  # the operand's parameter name in the attention API
    source: str  # the expression at the call ("q")
    axis: Axis  # normalised to the batched rank; None: not batched
    per_example: ArrayV


def _operand_expr(call: AttentionCall, name: str) -> ast.expr | None:
    node = call.event.node
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    if len(call.event.args) != len(node.args):
        return None  # a partial supplied positional arguments: positions do not line up
    positional = SIGNATURES[call.event.qualname].positional
    index = positional.index(name)
    if index < len(node.args):
        return node.args[index]
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def batching(call: AttentionCall, info: VmapInfo) -> dict[str, Batched] | None:
    """The certain batching of the operands passed to the attention call, by name."""
    event = call.event
    if info.transform not in VMAPS:
        return None
    if info.direct is not None and info.function is None:
        return _direct_batching(call, info, *info.direct)
    tree = event.module.tree
    # the mapped function as the analysis followed it (imported from another module
    # too), else as the vmap's line shows it in the call's own module
    func = info.function if info.function is not None else _vmapped_function(tree, info.line) if info.path == event.module.path else None
    if func is None:
        return None
    _forget_modules_if_many()
    _MODULES[0] = info.modules  # (the hops' imports are resolved in them too)
    if info.function_tree is not None:
        _parents(info.function_tree)  # (its module's facts: its helpers, what it stores)
    enclosing = _enclosing_function(event.node, _parents(tree))
    if enclosing is None:
        return None
    # the attention in the mapped function, or in the functions it calls down to it
    # (`sdpa(q, k, v)` in `attend` in the mapped `cross_attend`: probe 149a)
    # (the mapped function's module: the vmap's, where the function was not recorded)
    function_path = info.function_path if info.function is not None else info.path
    hops = [] if enclosing is func else _hops(func, function_path, enclosing, event, info.modules)
    if hops is None:
        return None
    _CHAIN_WRITTEN[0] = _written_in(func, hops, tree, info.function_tree)
    params = _positional_params(func)
    own_name = params[0] if info.bound and params else None  # `self` of a mapped instance's `__call__` (or method)
    # (its fields read in the mapped function itself; not a linen module lifted by
    # `nn.vmap`, whose `variable_axes` may map its parameters: probe 160a)
    own = own_name if not hops and info.transform != "flax.linen.vmap" else None
    # what the function computes reads `self`'s fields as unmapped: certain only where it
    # neither rebinds self nor stores on it (`self.bank = q`: a mapped value); below it,
    # a method's `self` is its receiver (_Frames.axis)
    self_unmapped = not info.bound or not params or not (_assigned_in(func, params[0]) or _stores_attribute(func, params[0], None) or info.transform == "flax.linen.vmap")
    if info.bound:
        params = params[1:]  # `jax.vmap(module)`: the arguments map to `__call__`'s after self
    elif params[:1] in (["self"], ["cls"]):
        return None
    frames = _Frames(func, own_name, params, info.in_axes, self_unmapped, hops)
    _STEPS[0] = _MAX_AXIS_STEPS
    out: dict[str, Batched] = {}
    for name in ("query", "key", "value", "bias", "mask"):
        value = call.arg(name)
        if not isinstance(value, ArrayV) or value.rank is None:
            continue
        expr = _operand_expr(call, name)
        if expr is None:
            continue
        if own is not None and isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == own and not _assigned_in(func, own) and not _stores_attribute(func, own, expr.attr):
            # `jax.vmap(reader)`: the instance's own fields (`self.bank`) are not mapped (probe 39c)
            out[name] = Batched(name, ast.unparse(expr), None, value)
            continue
        level, source = frames.passed_up(len(hops), expr)
        if source is None:
            continue
        known, axis = frames.axis(level, source, value.rank if level == 0 or not hops else None)
        if known:
            out[name] = Batched(name, ast.unparse(source), axis, value)
    return out


def _written_in(func: Function, hops: list[Hop], tree: ast.Module, function_tree: ast.Module | None) -> frozenset[str]:
    """The attributes the modules of the chain (the mapped function's, each hop's, the
    attention's) store outside constructors."""
    trees = {id(tree): tree}
    for function in (func, *(hop.callee for hop in hops)):
        known = _TREE_OF.get(id(function))
        if known is not None and known[0] is function:
            trees[id(known[1])] = known[1]
    if function_tree is not None:
        trees[id(function_tree)] = function_tree
    written: set[str] = set()
    for module in trees.values():
        _parents(module)
        written |= _WRITTEN.get(id(module), frozenset())
    return frozenset(written)


@dataclass
class _Frames:
    """The mapped function (level 0) and the functions it calls down to the attention
    (level i: `hops[i - 1].callee`), where the batching of an expression is worked out."""

    func: Function
    own: str | None  # `self` of a mapped instance's `__call__`
    params: list[str]  # the mapped function's mapped parameters
    in_axes: Value | None
    self_unmapped: bool
    hops: list[Hop]

    def passed_up(self, level: int, expr: ast.expr) -> tuple[int, ast.expr | None]:
        """Where `expr` at `level` comes from as it is: through each parameter passed
        on unchanged, up to the level where it is computed (or the mapped function)."""
        while level > 0 and isinstance(expr, ast.Name):
            hop = self.hops[level - 1]
            if _assigned_in(hop.callee, expr.id) or expr.id not in _passing_params(hop.callee):
                break
            passed = _hop_argument(hop, expr.id)
            if passed is None:
                return level, None  # (its default: not followed)
            level, expr = level - 1, passed
        return level, expr

    def axis(self, level: int, expr: ast.expr, rank: int | None) -> tuple[bool, Axis]:
        """(known, axis) of `expr` as `level`'s function reads it."""
        level, source = self.passed_up(level, expr)
        if source is None:
            return _UNKNOWN_AXIS
        if level == 0:
            func = self.func
            if isinstance(source, ast.Name) and source.id == self.own and not self.self_unmapped:
                return _UNKNOWN_AXIS  # (a mapped instance that stores on itself: `self.kv = memory`, probe 150a)
            if isinstance(source, ast.Name) and (self.self_unmapped or not _assigned_in(func, source.id)):
                return _axis_in_mapped(func, source, self.params, self.in_axes, rank)
            if not isinstance(source, ast.Name) and self.self_unmapped and not isinstance(func, ast.Lambda):
                # an expression of the mapped function's own (`pair_bias.astype(jnp.bfloat16)`:
                # probe 56a), or one it passes down (`attend(q[None], ...)`: probe 101c),
                # batched as what it is computed from where that is certain
                return _derived_axis(func, source, self.params, self.in_axes)
            return _UNKNOWN_AXIS
        hop = self.hops[level - 1]
        callee = hop.callee
        if _enclosing_function(callee, hop.parents) is not None:
            return _UNKNOWN_AXIS  # (a nested function reads its enclosing function's names)
        # a value the function computes: batched as what it is computed from, each of its
        # parameters as what its caller passes for it; a method's `self` as its receiver
        # (`model(x, bank)` of a model the vmap does not map, then `self.read(h, bank)`:
        # probe 159b), its fields unbatched where no module of the chain stores them as
        # it runs (_written_while_running: an nnx cache is)
        params = _positional_params(callee)
        items: list[Value] = []
        for param in params:
            passed = _hop_argument(hop, param)
            items.append(_axis_value(self.axis(level - 1, passed, None) if passed is not None else _UNKNOWN_AXIS))
        return _derived_axis(callee, source, params, TupleV(tuple(items), False, (), False))


def _statement_at(func: ast.FunctionDef | ast.AsyncFunctionDef, expr: ast.expr) -> int | None:
    """The index of the top-level statement of `func` that holds `expr`."""
    return next((i for i, stmt in enumerate(func.body) if stmt.lineno <= expr.lineno <= (stmt.end_lineno or stmt.lineno)), None)


def _direct_batching(call: AttentionCall, info: VmapInfo, bound_args: int, bound_names: frozenset[str]) -> dict[str, Batched]:
    """The vmap maps the attention itself (or a `partial` of it: probe 32c, from JAX's own
    tests): its positional arguments after those the partial binds are the mapped ones, as
    `in_axes` says; what the partial binds is not batched."""
    out: dict[str, Batched] = {}
    positional = SIGNATURES[call.event.qualname].positional
    mapped = len(call.event.args) - bound_args
    # the mapped arguments as the call passes them (`jax.eval_shape(jax.vmap(f), q, k, v)`
    # ends with them), for the message; else the parameter's name
    given = call.event.node.args
    sources = [ast.unparse(a) for a in given[len(given) - mapped:]] if mapped > 0 and len(given) >= mapped and not any(isinstance(a, ast.Starred) for a in given) else []
    for name in ("query", "key", "value", "bias", "mask"):
        value = call.arg(name)
        if not isinstance(value, ArrayV) or value.rank is None:
            continue
        index = positional.index(name)
        if index < bound_args or (name in bound_names and index >= len(call.event.args)):
            out[name] = Batched(name, name, None, value)
            continue
        if index >= len(call.event.args):
            continue  # passed by keyword to the mapped call: not followed
        known, axis = _axis_of(info.in_axes, index - bound_args)
        if known and axis is not None:
            full = value.rank + 1
            if not -full <= axis < full:
                continue
            axis %= full
        if known:
            out[name] = Batched(name, sources[index - bound_args] if sources else name, axis, value)
    return out


def _axis_in_mapped(func: Function, expr: ast.Name, params: list[str], in_axes: Value | None, rank: int | None) -> tuple[bool, Axis]:
    """How a name the mapped function reads is batched: a parameter as `in_axes` maps it,
    a value it computes as `_derived_axis` says, a name from outside not at all."""
    if _assigned_in(func, expr.id):
        # `q = (q * 2).astype(...)`: batched as what it is computed from, where that is certain
        return _derived_axis(func, expr, params, in_axes)
    if expr.id in params:
        known, axis = _axis_of(in_axes, params.index(expr.id))
        if not known:
            return _UNKNOWN_AXIS
        if axis is not None:
            if rank is None:
                return (True, axis) if axis >= 0 else _UNKNOWN_AXIS  # (a negative axis needs the rank)
            full = rank + 1
            if not -full <= axis < full:
                return _UNKNOWN_AXIS
            axis %= full
        return True, axis
    if expr.id in _other_params(func):
        return _UNKNOWN_AXIS
    return True, None  # from outside the mapped function: not batched by this vmap


# the most calls followed from the mapped function down to the attention (probe 149a: a
# model, its block, its attention layer and a `sdpa` wrapper below a mapped loss)
_MAX_HOPS = 6
# decorators that call the function with its arguments as they are (jit, remat, flax's
# compact): a hop through a function decorated otherwise is not followed
_PASSING_DECORATORS = frozenset({"jit", "checkpoint", "remat", "compact", "named_call", "staticmethod"})


@dataclass(frozen=True)
class Hop:
    """One call on the way from the mapped function down to the attention: `call`, in the
    function above, runs `callee`, which is `receiver`'s method where that is not None."""

    call: ast.Call
    callee: ast.FunctionDef | ast.AsyncFunctionDef
    receiver: ast.expr | None
    parents: dict[int, ast.AST]  # of the callee's module


def _hops(func: Function, function_path: str, enclosing: Function, event: CallEvent, modules: Mapping[str, ModuleInfo] | None) -> list[Hop] | None:
    """The calls from the mapped function down to the function holding the attention,
    outermost first, as the call sites of the analysis's chain show them: each the one
    call at its step's line, in its step's file, that names the function below (a plain
    function, a method through its receiver, or an object's `__call__`); None where any
    is not certain.  The files are the project's (`modules`): a mapped function in
    train.py, its model's `decode` in model.py, the attention in layers.py (probe 157b)."""
    parents = _parents(event.module.tree)  # (of `current`'s module)
    hops: list[Hop] = []
    current = enclosing
    for step in reversed(event.ctx.chain[-_MAX_HOPS:]):
        if isinstance(current, ast.Lambda) or not _passes_arguments(current):
            return None
        method = isinstance(parents.get(id(current)), ast.ClassDef) and not _is_static(current)
        above = func if step.path == function_path and _calls_at(func, current, step.line, method) else None
        above_parents = parents
        if above is None:
            info = event.module if step.path == event.module.path else modules.get(step.path) if modules is not None else None
            if info is None:
                return None
            above_parents = _parents(info.tree)
            found = [node for node in _calls_by_line(info.tree).get(step.line, ()) if _names(node, current, method, info.tree)]
            found = _of_the_callees_class(found, current, method, parents, above_parents)
            holder = _enclosing_function(found[0], above_parents) if len(found) == 1 else None
            if holder is None or isinstance(holder, ast.Lambda):
                return None
            above = holder
        calls = _of_the_callees_class(_calls_at(above, current, step.line, method), current, method, parents, above_parents)
        if len(calls) != 1:
            return None
        call = calls[0]
        receiver = (call.func if current.name == "__call__" else cast(ast.Attribute, call.func).value) if method else None
        hops.append(Hop(call, current, receiver, parents))
        if above is func:
            return hops[::-1]
        current, parents = above, above_parents
    return None


def _names(call: ast.Call, callee: ast.FunctionDef | ast.AsyncFunctionDef, method: bool, tree: ast.Module | None) -> bool:
    """Does `call` (in module `tree`, where known) name `callee` (no `*args` or
    `**kwargs`)?  A method by attribute (`self.attend(...)`), an object's `__call__` by
    any name (`self.attn(h)`), a plain function by its name or by the name of its module,
    or as the module's imports bind it (`import pkg.layers as L`, `from .layers import
    mha as attend`)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return False
    if not method:
        # `attend(...)`, or `layers.attend(...)` through the module it is defined in
        if isinstance(call.func, ast.Name):
            return call.func.id == callee.name or tree is not None and _imported_function(tree, call.func.id) is callee
        if _through_a_module(call.func, callee.name):
            return True
        holder = _imported_module(tree, call.func.value) if tree is not None and isinstance(call.func, ast.Attribute) else None
        return holder is not None and _top_level_defs(holder).get(cast(ast.Attribute, call.func).attr) is callee
    if isinstance(call.func, ast.Attribute) and (call.func.attr == "__call__" or _names_a_class(call.func.value)):
        return False  # (`Layer.__call__(self.layer, x)`, `SelfAttn.attend(self, q, k, v)`: self passed as an argument, probe 150a)
    if callee.name == "__call__":
        # (not `Retriever(m)` of `Retriever(m)(q)`: a class built, its `__call__` not run)
        return isinstance(call.func, (ast.Name, ast.Attribute)) and not _names_a_class(call.func)
    return isinstance(call.func, ast.Attribute) and call.func.attr == callee.name


def _through_a_module(func: ast.expr, name: str) -> bool:
    """`layers.attend`, `nn_utils.attend`: an attribute of a name spelled as a module is
    (not a class's CapWords, not `self` or `cls`)."""
    return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) and func.value.id not in ("self", "cls") and not _names_a_class(func.value)


def _names_a_class(expr: ast.expr) -> bool:
    """`SelfAttn`, `layers.Block`: a CapWords name, as a class is spelled."""
    name = expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else ""
    return name[:1].isupper()


def _calls_at(func: Function, callee: ast.FunctionDef | ast.AsyncFunctionDef, line: int, method: bool) -> list[ast.Call]:
    """The calls naming `callee` at `line` in `func`'s own code (not a nested function's:
    that one is the caller, and reads `func`'s names as its own)."""
    known = _TREE_OF.get(id(func))
    if known is not None and known[0] is func:
        # (its module's calls at the line, those whose nearest function is `func`)
        parents = _parents(known[1])
        return [node for node in _calls_by_line(known[1]).get(line, ()) if _names(node, callee, method, known[1]) and _enclosing_function(node, parents) is func]
    found: list[ast.Call] = []
    stack: list[ast.AST] = [func.body] if isinstance(func, ast.Lambda) else list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            continue
        if isinstance(node, ast.Call) and node.lineno == line and _names(node, callee, method, None):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _passes_arguments(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated only with what calls it with its arguments as they are."""
    return all(name in _PASSING_DECORATORS for name in _decorator_names(func))


def _decorator_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The last name of each decorator (`jit` of `@partial(jax.jit, ...)`)."""
    names: list[str] = []
    for deco in func.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
        if name == "partial" and isinstance(deco, ast.Call) and deco.args:
            first = deco.args[0]
            name = first.attr if isinstance(first, ast.Attribute) else first.id if isinstance(first, ast.Name) else ""
        names.append(name)
    return names


def _is_static(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)


def _hop_argument(hop: Hop, param: str) -> ast.expr | None:
    """The expression the hop's call passes for the callee's parameter `param` (its
    receiver for `self`); None where it passes none (a default)."""
    params = _positional_params(hop.callee)
    if hop.receiver is not None:
        if params[:1] == [param]:
            return hop.receiver
        params = params[1:]
    if param in params and params.index(param) < len(hop.call.args):
        return hop.call.args[params.index(param)]
    return next((k.value for k in hop.call.keywords if k.arg == param), None)


def _passing_params(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The parameters a call passes by position or by name (not `*args`, `**kwargs`)."""
    return [*_positional_params(func), *(a.arg for a in func.args.kwonlyargs)]
