"""The abstract interpreter: runs the analysed code over abstract values.

It walks module bodies and function bodies statement by statement, joining the
states of branches, widening loops after two passes, and instantiating function
summaries at each call site (context-sensitive, memoised, depth-bounded; recursion
gives Unknown).  Calls to external APIs go to the tables in `jax_api`; calls to
watched APIs are recorded as `CallEvent`s for the rules.

Nothing is executed: the interpreter only reads the trees it is given.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import itertools
import copy
import os
import math
import re
import sys
import time
import weakref
from collections import ChainMap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar, cast

from jax_cudnn_lint.shape_inference import absl_flags, argparse_seeds, attribute_dicts, case_rows, cli_commands, configdict, data_files, enums, fiddle_configs, guards, jax_api, python_version, recursion
from jax_cudnn_lint.shape_inference.context import CallEvent, Ctx, Guard, Root, joined_config, with_config, with_handled
from jax_cudnn_lint.shape_inference.handlers import BUILTIN_EXCEPTIONS, EVERY_ERROR, LOGGER_NAMES, NO_RETURN_NAMES, catches_every_error, ends_path, name_of, recovered_by, relevant, swallowed_by_finally, tried_again
from jax_cudnn_lint.shape_inference.dims import Dim, Step, Why, merge_why
from jax_cudnn_lint.shape_inference.dtypes import DTYPE_KINDS
from jax_cudnn_lint.shape_inference.identity import IdentityTable
from jax_cudnn_lint.shape_inference.fixture_requests import requests_fixture
from jax_cudnn_lint.shape_inference.lazy_defs import LazyDef
from jax_cudnn_lint.shape_inference.patch_strings import ANY_NAME, BUILT_AT_RUN_TIME, OWN_CLASS, PatchStrings, StringValue
from jax_cudnn_lint.shape_inference.modules import ModuleInfo, Project, conftest_paths, folders_above, is_main_guard, is_test_path
from jax_cudnn_lint.gate import DIFFERENTIATION_NAMES
from jax_cudnn_lint.shape_inference.shapes import SymShapeV
from jax_cudnn_lint.shape_inference.scopes import CALLED_LATER, DICT_WRITES, DISPLAYS, FIXED_ARGUMENT_CALLERS, LITERAL, FunctionNode, ScopeFacts, CONTEXT_FLAGS, config_update, constructor_name, dotted_name, imported_name, made_by_partial, dict_of, differentiating_functions, every_statement, parameter_names, set_and_restored, statements
from jax_cudnn_lint.shape_inference.values import (
    NEVER,
    STORED_UNSPELLED,
    UNKNOWN,
    ArrayV,
    BoundMethodV,
    ClassV,
    class_chain,
    class_value_names,
    ConstV,
    DictV,
    DTypeV,
    ExternalV,
    ExtObjectV,
    FloatV,
    FunctionV,
    InstanceV,
    IntV,
    IterV,
    LazyDefV,
    LazyImportV,
    ModuleV,
    OpaqueV,
    PartialV,
    SetV,
    SuperV,
    TransformV,
    TupleV,
    UnknownV,
    Value,
    const_value,
    join,
    make_int,
    mark_changed_in_place,
    is_mutable_list,
    still_describes,
    mark_registry,
    not_a_sequence,
    same_key,
    store_in_place,
    same_import,
    fresh_copies,
    next_born,
    next_serial,
    with_key,
    without_key,
)
from jax_cudnn_lint.shape_inference.watched_apis import CUDNN_ATTENTION_MODULE, FA_ATTENTION, NN_ATTENTION, WATCHED, WATCHED_NAMES

_MAX_UNROLLED = 64  # items of a comprehension evaluated one by one (Criteo's 39 features: probe 67b)
_MAX_WIDENED_ITEMS = 1024  # items of a longer one, each described by the widened element
_MAX_UNROLLED_LOOP = 16  # items of a literal tuple or list a for loop runs one by one (_MAX_UNROLLED for functions; 8 before: a defaults dict of 10 options added to argparse in a loop, probe 76c)
_MAX_FOREVER_PASSES = 64  # passes of a `while True:` run one by one (its breaks are decided by the body)
_MAX_WHILE_PASSES = 256  # passes of a while loop whose test stays decided, run one by one (t5's random_spans_helper takes ~56 at 512 tokens, ~113 at 1024: probes 75c, 120c)
MAX_DEPTH = 10
# dunder methods that, called on an object by name, may change any of its attributes
_REBUILDING_DUNDERS = frozenset({"__init__", "__setattr__", "__delattr__", "__setstate__"})
_MAX_REPLAYED = 2000  # events replayed with another call site's chain, per analysis (a tree of helpers each called twice doubles them at each level)
_MAX_CACHE_HELD = 256  # objects of `functools.cache`d functions whose writes key the memo (Interpreter.cache_held)
# calls of one `__init__` open at once (Interpreter._may_reenter); the innermost is unknown
MAX_REENTRY = 5
MAX_PARAM_ROWS = 16
DEFAULT_STEP_BUDGET = 400_000  # per entry module and phase
DEFAULT_SECONDS = 5.0  # per entry module and phase
# A driver (a script calling training code it imports) is an extra way in, not code the
# gate chose: an eighth of the budget (maxtext's SFT scripts took 250 k steps each for
# no finding), and running out of it does not make the run partial.
DRIVER_BUDGET_SHARE = 8

State = dict[str, Value]


_T = TypeVar("_T")


class BudgetExceeded(Exception):
    """The per-run work budget ran out: what is not analysed stays Unknown."""


class Frame:
    """The running state of one body (module, class or function)."""

    __slots__ = ("state", "module", "func", "local_names", "closure", "returns", "ctx", "branch_depth", "made_since", "skip_before", "main_arm", "generic", "is_class", "anchor", "yields", "exits", "nested", "volatile", "jumps", "unrolling", "conditional", "raised", "flags", "yields_in_order")

    def __init__(
        self,
        module: ModuleInfo,
        state: State,
        ctx: Ctx,
        func: FunctionV | None = None,
        local_names: frozenset[str] = frozenset(),
        closure: tuple[State, ...] = (),
        generic: bool = False,
        is_class: bool = False,
    ) -> None:
        self.state: State | None = state
        self.module = module
        self.func = func
        self.local_names = local_names
        self.closure = closure
        self.returns: list[Value] = []
        self.yields: list[Value] | None = None  # a generator's body: every value it yields
        self.yields_in_order = True  # and each yield ran once, in order (none in an undecided arm or widened loop)
        self.exits: list[Ctx] | None = None  # the context at each `return` that had a config flag set
        self.nested: list[FunctionV] | None = None  # defs of a generic body, analysed when it returns
        self.volatile: set[str] | None = None  # names a nested def rebinds (`nonlocal n`): Unknown
        # for each loop being run, innermost last: the states at its `break`s and `continue`s
        self.jumps: list[tuple[list[State], list[State]]] = []
        self.unrolling = 0  # loops being run pass by pass around here (a while inside one is widened)
        # a call that certainly raises (NEVER) evaluated where it certainly runs (not in one
        # arm of an undecided `x if t else y`, a later `and`/`or` operand, a comprehension):
        # the simple statement around it raises, and its path ends there
        self.conditional = 0
        self.raised = False
        # names holding an undecided test's result (`eval_only = t in EVAL`): the value
        # bound and the origins of the numbers the test read (guards.py)
        self.flags: dict[str, tuple[Value, frozenset[Step]]] | None = None
        self.ctx = ctx
        self.branch_depth = 0
        # the birth number (InstanceV.born) of the first object made inside the
        # innermost if/else arm being run; _ALL_OLDER in a loop or try, and outside any
        # arm: see may_skip
        self.made_since = _ALL_OLDER
        # objects born before it may keep their old values whatever this body writes: it
        # was called from a branch, loop or try arm that may not run (set by call_function)
        self.skip_before = 0
        self.main_arm = False  # running a module's `if __name__ == "__main__":` arm
        self.generic = generic
        self.is_class = is_class
        # a module's namespace or a class's attributes: the dict others hold on to
        self.anchor: State | None = state if func is None or is_class else None

    def may_skip(self, obj: InstanceV) -> bool:
        """Would a write to `obj` here be one of several possible outcomes?  Inside a
        branch, a loop or a try, an object that existed before may keep its old value
        (the write joins them); one the current if/else arm made itself exists only on
        this path (`c = get_config(); c.seq_len = 511`).  (In a loop a later pass writes
        to what an earlier one made, and a try's handler to what its body made before it
        raised: there every write joins.)  So do the writes of a function called there
        (`if smoke: shrink(config)`) to objects older than that arm, except from a
        module's `if __name__ == "__main__":` arm, the program itself (`main()` setting
        up the module's config before it trains).  The arm's own writes to the module's
        objects join as any arm's: the functions that tests reach read them too.  A
        write to one item of a list described by one element joins too."""
        return obj.one_of_many or obj.born < self.skip_before or (self.branch_depth > 0 and obj.born < self.made_since)

    def settle(self) -> None:
        """After a branch or loop replaced the state, write it back into the anchor dict."""
        if self.anchor is not None and self.state is not None and self.state is not self.anchor:
            self.anchor.clear()
            self.anchor.update(self.state)
            self.state = self.anchor


# what JAX's checks raise (NotImplementedError, ValueError, TypeError) and a base of them
_ALL_OLDER = sys.maxsize
# the constants of libraries that a program reads as plain values: math's, numpy's and
# jax.numpy's floats, os's separators and sys.platform
_LIBRARY_CONSTANTS = {
    f"{module}.{name}": value
    for module in ("math", "numpy", "jax.numpy")
    for name, value in (("pi", math.pi), ("e", math.e), ("tau", math.tau))
    if not (module != "math" and name == "tau")
} | {
    # the target is a Linux GPU host: its path separators (probe 89b: a length read from a
    # checkpoint's path split on os.sep)
    "os.sep": "/", "os.path.sep": "/", "os.pathsep": ":", "os.linesep": "\n", "os.extsep": ".",
    # and its platform (a package __init__ importing its CUDA kernels on Linux: probe 94a)
    "sys.platform": "linux",
}
_NEWAXIS = frozenset({"numpy.newaxis", "jax.numpy.newaxis"})
# statements whose expressions all run when they run (exec_block ends a path where a call in one certainly raised)
_SIMPLE_STATEMENTS = frozenset({ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return})
_JUMPS = (ast.Continue, ast.Break, ast.Return)  # statements that leave a block for the next pass or the caller
class FixtureRun(NamedTuple):
    """One run of a test over parametrized fixtures: the value of each (by its def's id),
    and the parametrize row's values, which override the fixtures of their names."""

    by_fixture: Mapping[int, Value]
    by_name: Mapping[str, Value]


def _after_requester(candidates: list[FunctionV], requester: FunctionV, name: str) -> FunctionV | None:
    """The fixture pytest gives for `name`, from the candidates closest first: a fixture
    named `name` requesting `name` (`def seq_len(seq_len): return seq_len + 1`, an
    override) gets the next one out, not itself (probe 109a: it was applied three times)."""
    if not isinstance(requester.node, ast.Lambda) and requester.node.name == name:
        for i, candidate in enumerate(candidates):
            if candidate.node is requester.node:
                return candidates[i + 1] if i + 1 < len(candidates) else None
    return candidates[0] if candidates else None


def _falls_through(fr: Frame) -> bool:
    """Control reaches the end of the block just run (no return or raise on the way)."""
    return fr.state is not None


def join_states(a: State | None, b: State | None) -> State | None:
    if a is None:
        return None if b is None else dict(b)
    if b is None:
        return dict(a)
    out = dict(a)
    get = b.get
    for name in [name for name, va in a.items() if get(name) is not va]:  # (most names hold the same value on both paths)
        vb = get(name)
        out[name] = UNKNOWN if vb is None else same_import(a[name], vb) or join(a[name], vb)
    for name in [name for name in b if name not in a]:
        out[name] = UNKNOWN
    return out


# the operator part of the dunder names an augmented assignment calls (`__iadd__`)
_DUNDER_NAMES: dict[type, str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.MatMult: "matmul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift", ast.BitOr: "or", ast.BitXor: "xor", ast.BitAnd: "and",
}


_LIST_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"})


def _iterated(node: ast.expr) -> list[ast.expr]:
    """The names (or attributes) a loop iterates over, through enumerate, zip, reversed
    and iter, which read the list as the loop goes (`list(sizes)` copies it first)."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return [node]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("enumerate", "zip", "reversed", "iter"):
        return [found for arg in node.args for found in _iterated(arg)]
    return []


def _changes_in_place(body: list[ast.stmt], iterated: ast.expr) -> bool:
    """Does a loop body change the list it iterates over, named as the loop names it
    (`sizes.append(...)`, `sizes += [...]`, `sizes[i] = ...`, `del sizes[0]`)?"""
    if not isinstance(iterated, (ast.Name, ast.Attribute)):
        return False
    spelled = ast.dump(iterated, annotate_fields=False).replace("Store()", "Load()")
    for node in ast.walk(ast.Module(body=list(body), type_ignores=[])):
        target: ast.expr | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _LIST_MUTATORS:
            target = node.func.value
        elif isinstance(node, ast.AugAssign):
            target = node.target
        elif isinstance(node, (ast.Assign, ast.Delete)):
            for item in node.targets:
                if isinstance(item, ast.Subscript) and ast.dump(item.value, annotate_fields=False).replace("Store()", "Load()").replace("Del()", "Load()") == spelled:
                    return True
        if target is not None and ast.dump(target, annotate_fields=False).replace("Store()", "Load()") == spelled:
            return True
    return False


def _walk_names(loop: ast.For | ast.AsyncFor) -> list[str]:
    """Names a loop body rebinds to an item or attribute of themselves (`node =
    node[p]`, `node = node.get(p)`, `node = getattr(node, p)`)."""
    names: list[str] = []
    for node in ast.walk(ast.Module(body=list(loop.body), type_ignores=[])):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name, value = node.targets[0].id, node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("get", "setdefault"):
            value = value.func.value
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr" and value.args:
            value = value.args[0]
        elif isinstance(value, (ast.Subscript, ast.Attribute)):
            value = value.value
        if isinstance(value, ast.Name) and value.id == name:
            names.append(name)
    return names


def _written_through_after(scope: ast.AST, name: str, loop: ast.stmt) -> bool:
    """Does the function (or module) write into what `name` holds after `loop` (an item
    or attribute store, `setattr(name, ...)`, a changing method)?"""
    end = getattr(loop, "end_lineno", None) or loop.lineno
    for node in ast.walk(scope):
        if getattr(node, "lineno", 0) <= end:
            continue
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)) and isinstance(node.value, ast.Name) and node.value.id == name:
            return True
        if isinstance(node, ast.Call):
            func_node = node.func
            if isinstance(func_node, ast.Name) and func_node.id in ("setattr", "delattr") and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
                return True
            if isinstance(func_node, ast.Attribute) and isinstance(func_node.value, ast.Name) and func_node.value.id == name and func_node.attr in _IN_PLACE:
                return True
    return False


def _only_iterated(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Is `name` one of `func`'s parameters, or a new list it binds once (a display, a
    comprehension, a slice, a starred target: `*parents, leaf = path.split(".")`), which
    its body reads only as a `for` loop's iterable (an arm of one), `len()`'s argument or
    in `is None`, and no nested scope names?"""
    params = func.args
    parameter = name in {arg.arg for arg in (*params.posonlyargs, *params.args, *params.kwonlyargs)}
    fresh = _fresh_list_bindings(func, name)
    if not parameter and fresh != 1:
        return False
    allowed: set[int] = set()
    stores = 0
    uses = 0
    for node in ast.walk(ast.Module(body=list(func.body), type_ignores=[])):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            if any(isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(node)):
                return False
        elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Name):
            allowed.add(id(node.iter))
        elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.IfExp):
            allowed.update(id(arm) for arm in (node.iter.body, node.iter.orelse) if isinstance(arm, ast.Name))  # (`sys.argv[1:] if argv is None else argv`)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
            allowed.add(id(node.left))  # (`argv is None`: a read that changes nothing, probe 146a)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
            allowed.add(id(node.args[0]))
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            stores += 1
        elif isinstance(node, ast.Name) and node.id == name:
            uses += 1
            if id(node) not in allowed or not isinstance(node.ctx, ast.Load):
                return False
    return uses > 0 and stores == (0 if parameter else 1)


def _fresh_list_bindings(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> int:
    """How many assignments bind `name` to a list no other name holds: a display, a
    comprehension, a slice, or a starred target of an unpacking."""
    count = 0
    for node in ast.walk(func):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == name:
                value = node.value
                count += isinstance(value, (ast.List, ast.ListComp)) or isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice)
            elif isinstance(target, (ast.Tuple, ast.List)):
                count += any(isinstance(elt, ast.Starred) and isinstance(elt.value, ast.Name) and elt.value.id == name for elt in target.elts)
    return count


def _value_key(value: Value) -> object:
    return value.key()


def joined_with(state: State | None, jumped: list[State]) -> State | None:
    """`state` joined with the states a loop's `break`s or `continue`s carried."""
    for other in jumped:
        state = join_states(state, other)
    return state


_TYPE_CHECKING_NAMES = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})


class Interpreter:
    """One analysis run over a project.  Not shared across runs or processes."""

    def __init__(
        self,
        project: Project,
        watch: Callable[[str], bool],
        step_budget: int | None = None,
        seconds: float | None = None,
    ) -> None:
        self.project = project
        self.watch = watch
        self.events: list[CallEvent] = []
        # > 0 while mixed_tangents runs a function aside (its events are dropped): a
        # differentiation nested deeper is not run aside again
        self.aside_runs = 0
        # the id of the attention call site whose output a run aside marks differentiated
        # (jacobian_rows: does it reach a Jacobian's rows?)
        self.marked_site: int | None = None
        self.steps = 0
        self.step_budget = DEFAULT_STEP_BUDGET if step_budget is None else step_budget
        self.seconds = seconds = DEFAULT_SECONDS if seconds is None else seconds
        self.deadline = time.perf_counter() + seconds
        # Keys below hold id()s of values and nodes; each entry also holds those objects,
        # so that none is freed while its key lives and no id is recycled into a false hit.
        self.memo: dict[object, tuple[Value, tuple[CallEvent, ...], tuple[FunctionV, list[Value], dict[str, Value]]]] = {}
        # the chain of the call that filled each memo entry whose events sit under a vmap,
        # and how many events were replayed for other call sites (Interpreter.replayed)
        self.memo_chains: dict[object, tuple[Step, ...]] = {}
        # flax nnx layers whose variables the program replaced, by their construction's
        # argument tuple (layers.replace_variable)
        self.replaced_layers: dict[int, tuple[object, ...]] = {}
        self.replayed_events = 0
        self.globals_epoch = 0  # bumped when a module-level name is rebound (see assign_name)
        # the objects `functools.cache`d functions returned: a cache hands each caller the
        # one object, so a write to it is seen by any helper that reads it through the
        # cache (their writes are part of every memo key but the cached functions')
        self.cache_held: dict[int, InstanceV] = {}
        # typer apps (by id) and the commands registered on them, None once not followed
        # (a callback, a command we cannot read): cli_commands.run_app
        self.cli_apps: dict[int, list[Value] | None] = {}
        self.cli_app_objects: dict[int, Value] = {}
        self.cli_app_commands: dict[int, list[Value]] = {}  # every command registered on an app, followed or not
        self.cli_command_names: dict[int, dict[str, Value | None]] = {}  # an app's commands by name (None: two of one name)
        # the nodes of functions a command line runs as we do not follow: the parameters
        # whose defaults are not what runs (None: all of them)
        self.cli_unfollowed: dict[int, frozenset[str] | None] = {}
        self.cache_clears: dict[object, int] = {}  # `f.cache_clear()` calls, by function: part of its memo key
        self.cache_slots: dict[object, list[object]] = {}  # a small lru_cache's arguments, oldest first (_use_cache_slot)
        self.cache_generations: dict[tuple[object, object], int] = {}  # how often those were pushed out
        self.literals: dict[ast.Constant, Value] = {}  # e_constant's values, by node
        self.source_texts: dict[ast.AST, str] = {}  # source_text's, by node
        self._overrides_by_name: dict[tuple[str, int], frozenset[str]] = {}
        self._generic_templates: dict[tuple[int, int, int], InstanceV] = {}
        self._generic_class_views: dict[tuple[int, int, int], ClassV] = {}
        self.walrus_in: dict[ast.expr, bool] = {}  # (per node: does it hold a `:=`?)
        self.test_reads: dict[ast.expr, tuple[tuple[str, ...], tuple[ast.expr, ...]]] = {}  # (per undecided if-test: guards.test_reads)
        self.static_fields: dict[tuple[int, str], bool] = {}
        self.named_by_nested: dict[tuple[int, str], bool] = {}  # (scope node's id, name): Interpreter.named_by_nested_code
        self.list_changing_loops: dict[ast.stmt, tuple[ast.expr, ...]] = {}  # (per for loop: what it iterates that its body changes)
        self.only_iterated_parameters: dict[tuple[ast.AST, str], bool] = {}  # (per function and parameter: _only_iterated)
        self.walking_loops: dict[ast.stmt, tuple[str, ...]] = {}  # (per for loop: the names it walks down an object with)
        self.custom_rules: dict[int, tuple[Value, ...]] = {}  # a custom_vjp's / custom_jvp's function (its def's id) -> (fwd, bwd) / (jvp,)
        # functions stored in a container (`REGISTRY[name] = fn` in a decorator, `.append(fn)`):
        # called through it with arguments we do not see (their def's id)
        self.registered: set[int] = set()
        self.handed_out_defs: set[int] = set()  # nested defs their function hands on (analyse_nested)
        self.cli_apps_seen = False  # a click command or typer app was made (cli_commands.exits is asked)
        self._recipes: dict[object, int] = {}
        self._imports_of_roots: dict[str, tuple[set[int], dict[tuple[int, str], list[str]]]] = {}
        # the functions being analysed, by key (a definition with its closure): one that
        # calls itself is not entered again; two closures of one definition (a
        # decorator's `wrapped`, applied twice) are two functions
        self.active: list[object] = []
        self.analysed_generic: dict[object, object] = {}  # key -> the objects whose ids it holds
        self.root = Root()  # the analysis events are recorded in now (CallEvent.root)
        # functions some analysed code called: a generic body's nested def it called itself
        # and does not hand out is not analysed again on its own (analyse_nested)
        self.called_by_code: weakref.WeakSet[FunctionV] = weakref.WeakSet()
        self.context_spans: dict[int, list[tuple[int, int, list[ast.expr]]]] = {}  # id of a module's facts -> _context_spans_of
        self.patch_strings = PatchStrings(project)  # the strings patch targets are built from
        self.handed_out_names: dict[int, frozenset[str]] = {}  # id of a def -> _names_handed_out
        self.free_names: dict[int, tuple[str, ...]] = {}  # id of a def -> the names it reads and does not bind (_closure_key)
        self.materialized: IdentityTable[LazyDef, Value] = IdentityTable()  # the value each definition gave
        # each def's row-giving decorators (case_rows.record): per run, never per process
        self.parametrize: IdentityTable[ast.AST, list[case_rows.Mark]] = IdentityTable()
        self.absl_flags = absl_flags.FlagTable()
        self._imported: dict[str, frozenset[str]] = {}  # module path -> project modules it imports
        self.mutations = 0  # attribute writes to objects, counted: see IterV.stamp
        # functions (node ids) that set jax_default_matmul_precision with jax.config.update,
        # themselves or through a call; and what each of their calls leaves it at
        self.config_setters: set[int] = set()
        self.config_effects: dict[object, Value | None] = {}
        # the serials of the instances each memoised call made (values.fresh_copies)
        self.made_by_call: dict[object, tuple[int, int]] = {}
        # inside a flax apply that is given a cache and may change it (a decode step):
        # decode=True attention layers read their keys and values from it (layers.py)
        self.linen_decoding = 0
        self.haiku_policy = False  # hk.mixed_precision.set_policy ran: haiku dtypes unknown
        self.haiku_cast_roots = -1  # (haiku_casts: the number of analysed files it read)
        self.haiku_cast_files = False  # an analysed file sets a policy or a custom getter
        self.caught_by_try: IdentityTable[ast.Try, frozenset[str]] = IdentityTable()
        self.tried_again_at: IdentityTable[ast.Try, bool] = IdentityTable()
        self.try_spans: dict[int, list[tuple[int, int, frozenset[str]]]] = {}  # by id of a module
        self.top_level_defs: dict[int, tuple[list[int], list[ast.FunctionDef | ast.AsyncFunctionDef]]] = {}  # by id of a module: first lines, defs
        self.nonlocal_names: IdentityTable[ast.FunctionDef | ast.AsyncFunctionDef, frozenset[str]] = IdentityTable()
        self.class_stores_seen: dict[tuple[str, int], frozenset[tuple[str | None, str]]] = {}
        self.attribute_stores_seen: dict[tuple[str, int], frozenset[str]] = {}
        self.exhausted = False
        self.exhausted_paths: list[str] = []  # entry modules whose budget ran out
        # watched JAX APIs an analysed module replaces (_mark_api_patches) -> where: their
        # calls on paths through those places are not judged
        self.patched_apis: dict[str, list[PatchScope]] = {}
        # id of a module's registry dict (ScopeFacts.registries) -> (the dict, its module)
        self.registries: dict[int, tuple[DictV, ModuleInfo]] = {}
        # registrations made while a module no run module imports was running (an entry
        # file the analysis runs on its own): (key, value, that module), by registry id;
        # they hold once something that has run imports the module (registry_item)
        self.pending_registrations: dict[int, list[tuple[object, Value, ModuleInfo]]] = {}
        self.module_stack: list[ModuleInfo] = []  # the modules whose bodies run now, innermost last
        self.main_arm_modules: list[ModuleInfo] = []  # the modules whose `if __name__ == "__main__":` arm runs now
        self.changes_arguments: set[object] = set()  # memo keys of calls that change a dict or list argument in place
        self._imports_indexed: set[int] = set()  # modules that ran whose imports are in _imported_by_run
        self._imported_by_run: set[int] = set()  # modules an import statement of a module that ran names
        self._top_imports_indexed: set[int] = set()  # modules not run whose top-level imports are in _imported_by_run
        self._imported_not_indexed: list[ModuleInfo] = []  # modules a conditional import that ran names (note_import_run)
        self.package_reexports: dict[tuple[int, int, str], bool] = {}  # (_package_reexports)
        self.packages_imported_whole: dict[int, tuple[ModuleInfo, ...]] = {}  # (by a module's id: its `import pkg`s of project packages)
        self.cpu_test_roots: dict[str, bool] = {}  # (tests_force_cpu, by the entry's path)
        # a reached module's facts with the lazy definitions that mention some names parsed in
        self.facts_with_definitions: dict[tuple[int, tuple[str, ...]], ScopeFacts | None] = {}
        from jax_cudnn_lint.shape_inference import jax_api

        # the API tables are typed loosely here: they take this interpreter and its
        # frames, which pyright sees twice (source tree and installed package)
        self.api: Any = jax_api
        self.configs: Any = configdict

    # -- driving --------------------------------------------------------------------
    def run(self) -> None:
        """Evaluate the entry modules, then their functions and methods with unknown
        arguments.  Other project modules run only when an import reaches them."""
        with recursion.headroom():
            jax_api.forget_sources()
            try:
                self._run()
            finally:
                jax_api.forget_sources()

    def _run(self) -> None:
        roots = [info for info in self.project.roots if _worth_entering(info)]
        for info in [*self.project.roots, *self.project.conftests()]:
            self.mark_patches(info)  # (a conftest's autouse fixture patches for every test)
        for phase in (self.run_entry, self.analyse_generically):
            for info in roots:
                # each entry module gets its own budget: one huge file costs only itself
                share = DRIVER_BUDGET_SHARE if info.entry == "driver" else 1
                self.steps = self.step_budget - self.step_budget // share
                self.deadline = time.perf_counter() + self.seconds / share
                try:
                    phase(info)
                except BudgetExceeded:
                    if info.entry == "driver":
                        continue
                    self.exhausted = True
                    if info.path not in self.exhausted_paths:
                        self.exhausted_paths.append(info.path)

    def mark_patches(self, info: ModuleInfo) -> None:
        """The globals of project modules that `info` sets from outside: `mod.NAME = v`
        (`pkg.mod.NAME = v` too), `setattr(mod, "NAME", v)`, `monkeypatch.setattr(mod,
        "NAME", v)`, `mock.patch.object(mod, "NAME", v)` (a call, a decorator or a with
        item), and the dotted-string forms `monkeypatch.setattr("pkg.mod.NAME", v)` /
        `mock.patch("pkg.mod.NAME", v)`.  Also what it sets on a class or an object it
        imports by name: `Config.SEQ = v` (`cfg.Config.SEQ`, "pkg.cfg.Config.SEQ") makes
        that class attribute unknown, `CFG.seq_len = v` the object `CFG` (a name not in
        CapWords is taken for an object).  Statements only (a patch is one, or decorates
        or opens one); imports are resolved only for the names patched."""
        patches: list[tuple[str, str]] = []  # (the module's dotted local name, NAME; "": the object itself)
        spans: list[FunctionSpan] = []  # the functions seen so far (outer before inner)
        # the strings names are bound to so far (patch targets), by scope: the module's top
        # level (0), each function (by its first line); a function reads the module's names
        # as the module ends (it runs after), a top-level statement as they are so far
        scoped: dict[int, dict[str, StringValue]] = {0: {}}
        final = self.patch_strings.as_functions_read(info)
        built_targets = info.facts.patches_by_expression()  # (most modules patch nothing, or by literals)
        defs: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}  # by first line: whose parameters a target may be
        for stmt in _statements_with_patching_defs(info):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                spans.append(function_span(stmt))
                if built_targets and not isinstance(stmt, ast.ClassDef):
                    defs[stmt.lineno] = stmt
            elif isinstance(stmt, (ast.With, ast.AsyncWith)) and any("ExitStack" in (dotted_name(item.context_expr.func) or "") for item in stmt.items if isinstance(item.context_expr, ast.Call)):
                if not any(isinstance(node, ast.Attribute) and node.attr == "pop_all" for inner in stmt.body for node in ast.walk(inner)):
                    # (`stack.pop_all()` hands the patches on past the block: they hold where a
                    # patch in the enclosing function would)
                    spans.append(FunctionSpan(stmt.lineno, stmt.end_lineno or stmt.lineno, "<exit stack>", False, False, is_stack=True))
            elif isinstance(stmt, ast.If) and is_main_guard(stmt.test):
                spans.append(FunctionSpan(stmt.lineno, stmt.end_lineno or stmt.lineno, "<main>", False, False, is_stack=True))  # (probe 37a: not under pytest)
            strings: Mapping[str, StringValue] = scoped[0]
            enclosing: ast.FunctionDef | ast.AsyncFunctionDef | None = None
            if built_targets:
                scope = next((span.first for span in reversed(spans) if span.first <= stmt.lineno <= span.last and not span.is_class and not span.is_stack and span.first != stmt.lineno), 0)
                owner = next((span.name for span in reversed(spans) if span.is_class and span.first < scope <= span.last), None) if scope else None
                own_class = {OWN_CLASS: owner} if owner is not None else {}  # a method reads `self.TARGET` from it
                strings = ChainMap(scoped.setdefault(scope, {}), own_class, final) if scope else scoped[0]  # type: ignore[arg-type]
                self.patch_strings.record(info, stmt, scoped[scope], strings)
                enclosing = defs.get(scope)
            self._mark_api_patches(info, stmt, spans, strings, enclosing)
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    if isinstance(target, ast.Attribute) and (owner := dotted_name(target.value)) is not None and owner not in ("self", "cls"):
                        patches.append((owner, target.attr))
                    elif isinstance(target, ast.Subscript) and (owner := dotted_name(_container(target))) is not None:
                        patches.append((owner, ""))  # `CFG["seq_len"] = 255`: the object changes in place
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute):
                if stmt.value.func.attr in _IN_PLACE and (owner := dotted_name(_container(stmt.value.func.value))) is not None:
                    patches.append((owner, ""))  # `CFG.update(seq_len=255)`
            for call in _patching_calls(stmt):
                for local, full, name in (found_target for resolved in self._resolved_targets(info, call, strings, enclosing) for found_target in _patch_targets(resolved)):
                    if full is not None:  # "pkg.mod.NAME" given whole
                        found = self.project.find(full)
                        if found is not None and found is not info:
                            found.patched.add(name)
                        elif found is None and "." in full and (holder := self.project.find(full.rpartition(".")[0])) is not None:
                            self._patch_class_attribute(holder, full.rpartition(".")[2], name)  # "pkg.mod.Config.SEQ"
                    elif local is not None:
                        patches.append((local, name))
        if not patches:
            return
        wanted = {owner.split(".")[0] for owner, _ in patches}
        modules: dict[str, ModuleInfo] = {}
        # local names taken by name from project modules (`from cfg import Config`): their source and name there
        taken: dict[str, tuple[ModuleInfo, str]] = {}
        for stmt in info.facts.imports():
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                if local not in wanted:
                    continue
                found = self.project.bound_module(info, stmt, alias)
                if isinstance(stmt, ast.ImportFrom) and found is None and (base := self.project.from_base(info, stmt)) and (source := self.project.find(base)) is not None:
                    taken[local] = (source, alias.name)
                if found is not None:
                    modules[local] = found
        for owner, name in patches:
            first, _, rest = owner.partition(".")
            target = modules.get(first)
            if not name:  # an object changed in place: unknown as a whole to readers
                if target is not None and rest and "." not in rest and target is not info and self.project.find(f"{target.name}.{rest}") is None:
                    target.patched.add(rest)  # `config.CFG["k"] = v`
                elif target is None and not rest and first in taken:
                    self._patch_object(*taken[first], info)  # `CFG["k"] = v` after `from config import CFG`
                continue
            if target is not None and rest:
                deeper = self.project.find(f"{target.name}.{rest}")  # `pkg.deep.X = v`
                if deeper is None and "." not in rest:
                    self._patch_class_attribute(target, rest, name)  # `cfg.Config.SEQ = v`
                target = deeper
            elif target is None and not rest and first in taken:
                source, original = taken[first]
                self._patch_class_attribute(source, original, name)  # `Config.SEQ = v` after `from cfg import Config`
                if not (original[:1].isupper() and not original.isupper()):
                    self._patch_object(source, original, info)  # `CFG.seq_len = v`: an object, not a class (by its name)
            if target is not None and target is not info:
                target.patched.add(name)

    def _mark_api_patches(self, info: ModuleInfo, stmt: ast.stmt, spans: list[FunctionSpan], strings: Mapping[str, StringValue], enclosing: ast.FunctionDef | ast.AsyncFunctionDef | None = None) -> None:
        """The watched JAX APIs the statement replaces, and where (patch_scope): `jax.nn.
        dot_product_attention = f`, `setattr(jax.nn, "dot_product_attention", f)`,
        `monkeypatch.setattr(...)`, `mock.patch("jax.nn.dot_product_attention", ...)` /
        `patch.object(jax.nn, ...)` (a call, a decorator, a with item; not `wraps=`, which
        calls JAX still), and any attribute of the cuDNN attention module (JAX's own tests
        swap its primitive wrappers: both attention APIs run through them)."""

        if not isinstance(stmt, _MAY_PATCH_STATEMENTS):
            return

        def note(api: str, internals: bool = False) -> None:
            self.patched_apis.setdefault(api, []).append(patch_scope(info.path, stmt, spans, internals))

        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []
        found = [(owner, target.attr) for target in targets if isinstance(target, ast.Attribute) and (owner := dotted_name(target.value)) is not None]
        for call in (_as_mock_patch(info, call) for call in (*_patching_calls(stmt), *_factory_patches(info, stmt))):
            if any(keyword.arg == "wraps" for keyword in call.keywords):
                continue  # a mock that calls the real function
            for local, full, name in (found_target for resolved in self._resolved_targets(info, call, strings, enclosing) for found_target in _patch_targets(resolved)):
                if full == BUILT_AT_RUN_TIME:
                    for api in WATCHED:
                        if api.rpartition(".")[2] == name:
                            note(api)  # `mock.patch(f"{MODULE}.dot_product_attention")`: whichever module it names
                        elif name == ANY_NAME:
                            # a target not known (a parameter, a row): it may be any API, in the
                            # lines the patch holds in, not wherever a helper that patches is called
                            scope = patch_scope(info.path, stmt, spans, False)
                            self.patched_apis.setdefault(api, []).append(scope._replace(lasting=False))
                    continue
                if full is not None and not full.startswith("jax.") and ".jax." in f"{full}.":
                    full = full[full.index(".jax.") + 1 :] if ".jax." in full else "jax"  # "model.jax.nn": the module's `jax` (probe 36a)
                apis, internals = self._watched_by_target(f"{full}.{name}") if full is not None else (frozenset[str](), False)
                for api in sorted(apis):
                    note(api, internals)  # `mock.patch("jax.nn.dot_product_attention")`, or the cuDNN module's internals
                if not apis and full is None and local is not None:
                    found.append((local, name))
        for owner, name in found:
            api = imported_name(info.facts, f"{owner}.{name}") if name in WATCHED_NAMES else None
            if api is not None and not api.startswith("jax.") and ".jax." in api:
                api = api[api.index(".jax.") + 1 :]  # `patch.object(model.jax.nn, ...)`: the module's `jax` (probe 37a)
            if api is not None and self.watch(self.api.canonical(api)):
                note(self.api.canonical(api))  # `jax.nn.dot_product_attention = _xla_only`
            elif name and self.api.canonical(imported_name(info.facts, owner) or "") == CUDNN_ATTENTION_MODULE:
                note(NN_ATTENTION, True)
                note(FA_ATTENTION, True)

    def _resolved_targets(self, info: ModuleInfo, call: ast.Call, strings: Mapping[str, StringValue], enclosing: ast.FunctionDef | ast.AsyncFunctionDef | None) -> list[ast.Call]:
        """_resolved_target; a target that is a parameter of the enclosing function, as
        each string its rows or its callers give it (PatchStrings.parameter_values)."""
        resolved = self._resolved_target(info, call, strings)
        first = resolved.args[0] if resolved.args else None
        if enclosing is None or not call.args or not isinstance(target := call.args[0], ast.Name) or not (isinstance(first, ast.Constant) and first.value == f"{BUILT_AT_RUN_TIME}.{ANY_NAME}"):
            return [resolved]
        given = self.patch_strings.parameter_values(info, enclosing, target.id, strings)
        if given is None:
            return [resolved]
        values, rows = given
        patched = [self._watched_by_target(value)[0] for value in values]
        if any(apis != patched[0] for apis in patched):
            # rows: the test runs once per row, and a row patching tanh beside one patching
            # the attention leaves a run that reaches cuDNN (probe 44a); callers: each call
            # patches where it is made, which the patch's scope does not tell apart (any API)
            # (a row the test may skip or leave before the patch may be the only unpatched one)
            return [] if rows and not _may_leave_before(enclosing, call.lineno) else [resolved]
        return [ast.Call(call.func, [ast.Constant(values[0]), *call.args[1:]], call.keywords)]

    def _watched_by_target(self, text: str) -> tuple[frozenset[str], bool]:
        """The watched APIs a dotted patch target string replaces ("jax.nn.dot_product_attention"),
        and whether it replaces the cuDNN module's internals (every attention API runs
        through them: both)."""
        full, _, name = text.rpartition(".")
        if self.watch(self.api.canonical(text)):
            return frozenset({self.api.canonical(text)}), False
        if full and self.api.canonical(full) == CUDNN_ATTENTION_MODULE and name:
            return frozenset({NN_ATTENTION, FA_ATTENTION}), True
        return frozenset(), False

    def _resolved_target(self, info: ModuleInfo, call: ast.Call, strings: Mapping[str, StringValue]) -> ast.Call:
        """`call` with a target that is no literal written as the string it is (patch_
        strings: `f"{MODULE}.dot_product_attention"`, `consts.ATTENTION`; probes 37a, 38b,
        40a); a string built from parts not known whose last name is literal, that name in
        BUILT_AT_RUN_TIME (whichever module it names); else `call` as it is."""
        named = dotted_name(call.func) or ""
        if not call.args or isinstance(call.args[0], ast.Constant) or not (named == "patch" or named.endswith((".patch", ".setattr"))):
            return call  # (only these take a dotted string)
        if not _may_be_mock_patch(info, named):
            return call
        if len(call.args) >= 2 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str) or named.endswith(".setattr") and len(call.args) >= 3:
            return call  # `setattr(obj, "NAME", v)`, `monkeypatch.setattr(cfg, key, v)`: the object is the first argument
        text = self.patch_strings.target(info, call.args[0], strings)
        return ast.Call(call.func, [ast.Constant(text), *call.args[1:]], call.keywords) if text is not None else call

    def _patch_class_attribute(self, module: ModuleInfo, cls_name: str, name: str) -> None:
        """The attribute `name` of the class `cls_name` that `module` binds (or re-exports)
        is set from another file: unknown in that class."""
        origin, original = self._reexported_from(module, cls_name, through_modules=True)
        self.project.patched_class_attrs.setdefault((origin.path, original), set()).add(name)

    def _patch_object(self, module: ModuleInfo, name: str, patcher: ModuleInfo) -> None:
        """A module-level object another file changes: unknown where it is bound, and in
        each module that re-exports it on the way there."""
        for _ in range(4):
            if module is not patcher:
                module.patched.add(name)
            origin, original = self._reexported_from(module, name, through_modules=True, hops=1)
            if origin is module:
                break
            module, name = origin, original

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.step_budget:
            raise BudgetExceeded
        if not self.steps & 1023 and time.perf_counter() > self.deadline:
            raise BudgetExceeded

    def run_entry(self, info: ModuleInfo) -> None:
        """Run an entry module's body, as the analysis does for each on its own (not as an
        import of it: ModuleInfo.imported stays as it was)."""
        self.module_namespace(info, imported=False)

    def module_namespace(self, info: ModuleInfo, imported: bool = True) -> State:
        if imported:
            info.imported = True
        if info.state == "new":
            self.project.load(info)
            info.state = "running"
            frame = Frame(info, info.namespace, Ctx())
            self.module_stack.append(info)
            try:
                self.exec_block(info.tree.body, frame)
            except RecursionError:
                pass
            finally:
                self.module_stack.pop()
                info.state = "done"
                for name in info.facts.registries() if info.facts.mutated_globals() or info.loader is None else ():
                    held = info.namespace.get(name)
                    if isinstance(held, DictV):
                        self.registries[id(held)] = (held, info)
                        mark_registry(held)
                for name in info.facts.mutated_globals() - info.facts.registries():
                    # a dict or list some function changes in place: after the module ran,
                    # what a function reads from it depends on which ran first
                    held = info.namespace.get(name)
                    if isinstance(held, (DictV, TupleV, SetV)):
                        mark_changed_in_place(held)
        return info.namespace

    def analyse_generically(self, info: ModuleInfo) -> None:
        """Analyse each function and method as if called from outside with unknown values."""
        wanted: set[str] | None = None
        if info.entry != "full" and (seeds := _entry_seeds(info)) is not None:
            wanted = differentiating_functions(info.facts, _functions_of(info), seeds | self._tested_functions(info) | self._stored_transforms(info))
        for name, value in list(info.namespace.items()):
            if isinstance(value, FunctionV) and value.module is info:
                if wanted is None or name in wanted:
                    self.generic_call(value, None, by_closure=True)
                    if (decorated := _decorated_def(value, name)) is not None:
                        # `@plain_wrap def test_x():` bound to the decorator's `wrapper(*args,
                        # **kwargs)`, whose call of the test passes unknown arguments: the
                        # test itself is analysed as well (probe 38b)
                        self.generic_call(decorated, None)
            elif isinstance(value, TransformV):
                inner = _unwrap_function(value)
                if inner is not None and inner.module is info:
                    self.generic_transform_call(value, inner)
                    self.generic_call(inner, None)
            elif (wrapped := self._opaquely_decorated(value)) is not None:
                # `@hydra.main(...)`, `@click.command()`: the decorator is not followed,
                # the function it wraps still is
                inner = _unwrap_function(wrapped)
                if inner is not None and inner.module is info and (wanted is None or name in wanted):
                    self.generic_call(inner, None)
            elif isinstance(value, ClassV) and value.module is info and value.qualname.endswith(name):
                self.generic_class(value, wanted)

    def generic_transform_call(self, value: TransformV, inner: FunctionV) -> None:
        """A module-level `train_step = jax.jit(jax.grad(loss))` (or a decorated def):
        its function analysed as the transforms call it, with unknown arguments, so a
        training step that nothing in the file calls is still seen under grad.  Only a
        chain of transforms straight over the def (a partial in between binds arguments
        the generic ones would not line up with)."""
        chain: Value = value
        kinds: list[str] = []
        while isinstance(chain, TransformV):
            kinds.append(chain.kind)
            chain = chain.func
        if chain is not inner or not any(kind in self.api.GRAD_LIKE or kind in self.api.VMAP_LIKE for kind in kinds):
            return  # (GRAD_LIKE has the forward-mode jacfwd/hessian too; through jit, remat or a custom rule alone the function runs as it is analysed already)
        key = ("through", id(value))
        if key in self.analysed_generic or self._skipped(inner):
            return
        self.analysed_generic[key] = (value, inner)
        args, kwargs = self._generic_args(inner, None, None)
        frame = Frame(inner.module, {}, Ctx(), None, frozenset(), (), True)
        try:
            self.api.call_transform(self, value, args, kwargs, False, inner.node, frame)
        except RecursionError:
            pass

    def _opaquely_decorated(self, value: Value) -> Value | None:
        """What a decorator the analysis does not follow was given, else None."""
        wrapped: Value | None = self.api.decorated_function(value)
        return wrapped

    def generic_class(self, cls: ClassV, wanted: set[str] | None = None) -> None:
        if id(cls.node) in self.analysed_generic:
            return
        self.analysed_generic[id(cls.node)] = cls
        for attr, member in list(cls.attrs.items()):
            func = member if isinstance(member, FunctionV) else _unwrap_function(member)
            if func is None or attr == "setup" or (wanted is not None and f"{cls.node.name}.{attr}" not in wanted):
                continue
            if self.api.is_classmethod(func):
                self.generic_call(func, self.generic_class_view(cls))
                continue
            inst = self.generic_instance(cls)
            if attr.startswith("test"):
                self._set_up(cls, inst)
            self.generic_call(func, inst)

    def _set_up(self, cls: ClassV, inst: InstanceV) -> None:
        """Run the hook a test framework runs on the test's instance before each test:
        unittest's `setUp`, pytest's `setup_method` (probe 33b: `self.q = jnp.zeros(...)`)."""
        hook_name = "setUp" if any(base.endswith("TestCase") for base in cls.external_bases()) else "setup_method" if cls.node.name.startswith("Test") else None
        once = _lookup_before_libraries(cls, "setUpClass") if hook_name == "setUp" else None
        once = once if isinstance(once, FunctionV) else _unwrap_function(once) if once is not None else None
        if isinstance(once, FunctionV) and not isinstance(once.node, ast.Lambda) and self.api.is_classmethod(once) and len(once.node.decorator_list) == 1:
            # unittest's setUpClass runs once before the tests: what it stores on `cls`
            # (`cls.seq_len = 127`, a model built once) each test reads as `self.x` (probe
            # 48c); the instance stands for the class, under the setUp that runs after it
            try:
                self.call_function(once, [inst], {}, False, Ctx(), None, generic=True)
            except RecursionError:
                pass
        hook = _lookup_before_libraries(cls, hook_name) if hook_name is not None else None
        if not isinstance(hook, FunctionV) or isinstance(hook.node, ast.Lambda) or hook.node.decorator_list:
            return
        extra = [UNKNOWN for _ in hook.node.args.args[1:]]  # (setup_method's `method`)
        try:
            self.call_function(hook, [inst, *extra], {}, False, Ctx(), None, generic=True)
        except RecursionError:
            return

    def generic_instance(self, cls: ClassV) -> InstanceV:
        """A `self` for a method analysed as any caller's: each method gets its own, so
        that what one method's analysis stores on it no other sees.  Built once per class
        while no module is parsed (subclasses may differ) where it holds only plain data;
        each method then gets a copy."""
        key = (id(cls.node), len(self.project.parsed), len(self.project.roots))
        template = self._generic_templates.get(key)
        if template is not None:
            return InstanceV(cls, dict(template.attrs), False, template.why, recipe=template.recipe)
        inst = self._new_generic_instance(cls)
        if all(_plain(value) for value in inst.attrs.values()):
            self._generic_templates[key] = inst
            return InstanceV(cls, dict(inst.attrs), False, inst.why, recipe=inst.recipe)
        return inst

    def generic_class_view(self, cls: ClassV) -> ClassV:
        """The `cls` of a classmethod analysed as any caller's, or `type(self)` of a generic
        `self`: the class or any subclass, so what a subclass binds again is Opaque
        (`cls.seq_len` of a base whose subclass sets 128: probe 92a).  The class itself
        where no subclass rebinds a name it has."""
        overridden = [name for name in self.subclass_overrides(cls) if cls.lookup(name) is not None]
        if not overridden:
            return cls
        key = (id(cls.node), len(self.project.parsed), len(self.project.roots))
        view = self._generic_class_views.get(key)
        if view is None:
            attrs = dict(cls.attrs)
            for name in overridden:
                attrs[name] = OpaqueV(f"{cls.node.name}.{name}")
            view = self._generic_class_views[key] = dataclasses.replace(cls, attrs=attrs, linearised=None)
        return view

    def _new_generic_instance(self, cls: ClassV) -> InstanceV:
        inst = InstanceV(cls, {}, False, (Step(cls.module.path, cls.node.lineno, f"an instance of {cls.node.name}"),))
        for name, _default, annotation in cls.all_fields():
            inst.attrs[name] = self.seed_from_annotation(annotation, f"self.{name}", cls.module) or OpaqueV(f"self.{name}")
        for name in cls.module.facts.self_attrs(cls.node):
            inst.attrs.setdefault(name, OpaqueV(f"self.{name}"))
        for name in self.subclass_overrides(cls):
            if cls.lookup(name) is not None:  # a subclass's value or method may be the one
                inst.attrs.setdefault(name, OpaqueV(f"self.{name}"))
        values = class_value_names(cls)
        if values:
            stored, dynamic = self._attribute_stores_reaching(cls)
            for name in values:
                if dynamic or name in stored:  # `m.p = 0.0` somewhere: an instance's own value may shadow it
                    inst.attrs.setdefault(name, OpaqueV(f"self.{name}"))
        if self.api.is_linen_class(cls):
            self.api.linen_setup(self, inst, Ctx(), generic=True)
        built = (id(cls.node), tuple((name, value.key()) for name, value in inst.attrs.items()))
        inst.recipe = self._recipes.setdefault(built, len(self._recipes))  # (a small key: memo keys hash it at every call)
        return inst

    def _static_field(self, cls: ClassV, name: str) -> bool:
        """jax_api.is_static_field, cached per class and name (read at every attribute
        read of a differentiated module)."""
        key = (id(cls.node), name)
        found = self.static_fields.get(key)
        if found is None:
            found = self.static_fields[key] = self.api.is_static_field(cls, name)
        return found

    def _may_be_replaced(self, func: FunctionV) -> bool:
        """Might code replace this function before it is called (`setattr(Checker, "check",
        ...)`, `mock.patch.object(Checker, "check", ...)`, `setattr(sys.modules[...],
        "check", ...)`)?  Its name is a string literal in its module or an analysed file."""
        name = getattr(func.node, "name", None)
        if name is None:
            return False
        return name in func.module.facts.string_constants() or any(name in root.facts.string_constants() for root in self.project.roots)

    def _stored_on_class(self, cls: ClassV, name: str) -> bool:
        """Does a function of the class's module or of the analysed files store `name`
        on this class or one of its bases (ScopeFacts.class_stores)?"""
        stores = self._seen_from(cls, self.class_stores_seen, lambda facts: facts.class_stores())
        if not any(attr == name for _, attr in stores):
            return False  # (most reads: no walk of the bases)
        return (None, name) in stores or any((current.node.name, name) in stores for current in class_chain(cls))

    def _attribute_stores_reaching(self, cls: ClassV) -> tuple[frozenset[str], bool]:
        """The attribute names stored on objects other than `self` in the class's module
        and the analysed files (any object's: `m.p = 0.0` may be this class's
        instance), and whether attributes the code does not spell are stored on this
        class's instances (by its methods or its bases', or on any object in its module)."""
        names = self._seen_from(cls, self.attribute_stores_seen, lambda facts: facts.attribute_stores()[0])
        dynamic = cls.module.facts.attribute_stores()[1] or any(id(current.node) in current.module.facts.attribute_stores()[2] for current in class_chain(cls))
        return names, dynamic

    def _seen_from(self, cls: ClassV, cache: dict[tuple[str, int], frozenset[_T]], fact: Callable[[ScopeFacts], frozenset[_T]]) -> frozenset[_T]:
        """A per-module fact of the class's module and of every analysed file, united
        (cached until more files are analysed)."""
        key = (cls.module.path, len(self.project.roots))
        found = cache.get(key)
        if found is None:
            found = fact(cls.module.facts)
            for root in self.project.roots:
                found |= fact(root.facts)
            cache[key] = found
        return found

    def subclass_overrides(self, cls: ClassV) -> frozenset[str]:
        """What subclasses of `cls` bind again, in any module parsed so far: its name as
        their bases give it (over-approximate, so a method's generic `self` is unknown
        wherever a subclass may differ).  Cached until more modules are parsed."""
        loaded = self.project.parsed
        key = (cls.node.name, len(loaded))
        found = self._overrides_by_name.get(key)
        if found is None:
            names: set[str] = set()
            parents = frozenset({cls.node.name})
            grown = True
            while grown:  # a chain of subclasses may cross modules
                grown = False
                for info in loaded:
                    subclasses, rebound = info.facts.subclass_overrides(parents)
                    names |= rebound
                    if not subclasses <= parents:
                        parents |= subclasses
                        grown = True
            found = self._overrides_by_name[key] = frozenset(names)
        return found

    def _handled_at_every_call(self, func: FunctionV) -> frozenset[str]:
        """The classes that a `try` around every call of a module-level function catches,
        where the analysis sees all its calls (its module's, none from other files): a
        `train()` whose only call is `try: train() except NotImplementedError: ...` fails
        nowhere unhandled, though it fails whenever it is called (probe 30a)."""
        node = func.node
        if func.owner is not None or isinstance(node, ast.Lambda) or node not in func.module.tree.body:
            return frozenset()
        return self._handled_around_calls(func.module, node, 0)

    def _handled_around_calls(self, info: ModuleInfo, node: FunctionNode, depth: int) -> frozenset[str]:
        """What every call of the module-level function `node` has around it: a `try` at
        the call, or (up to three frames) around every call of the module-level function
        the call is in (`try: main()` where main calls train_step: probe 31a)."""
        if depth > 3 or isinstance(node, ast.Lambda):
            return frozenset()
        calls = info.facts.direct_calls(node.name)
        if not calls or CALLED_LATER in calls:
            return frozenset()
        tries = self._try_spans(info)
        if not tries:
            return frozenset()  # (no `try` in the module: nothing around any call; probe 145a's 3000-deep chain)
        caught: frozenset[str] | None = None
        for call in calls:
            around = frozenset[str]().union(*(found for start, end, found in tries if start <= call.lineno <= end))
            caller = self._top_level_def_at(info, call.lineno)
            if caller is not None and caller is not node:
                around |= self._handled_around_calls(info, caller, depth + 1)
            caught = around if caught is None else caught & around
            if not caught:
                return frozenset()
        outside = self._calls_from_other_roots(info, node.name)
        return caught if caught is not None and outside == [] else frozenset()

    def _context_at_every_call(self, func: FunctionV, ctx: Ctx) -> Ctx:
        """`ctx` under the precision or x64 context that every call of a module-level
        function has around it, where the analysis sees all its calls (its module's, and
        those of the other files that import it): `with jax.default_matmul_precision(
        "float32"): encode(...)` is how encode() runs (probes 40b, 42c: JCD103 and JCD102
        were reported on its generic run)."""
        node = func.node
        if func.owner is not None or isinstance(node, ast.Lambda) or node not in func.module.tree.body:
            return ctx
        if not self._context_spans_of(func.module.facts) and not func.module.facts.updates_config(CONTEXT_FLAGS):
            return ctx  # (a module that neither enters such a context nor sets these flags: most)
        calls = func.module.facts.direct_calls(node.name)
        if calls is None or CALLED_LATER in calls:
            return ctx
        outside = self._calls_from_other_modules(func.module, node.name)
        if outside is None or not calls and not outside:
            return ctx
        every = [*((func.module.facts, call) for call in calls), *outside]
        if any(call is CALLED_LATER or made_by_partial(call) for _, call in every):
            return ctx
        common: set[str] | None = None
        contexts: dict[str, tuple[ScopeFacts, ast.expr]] = {}
        for facts, call in every:
            around = {ast.dump(expr): (facts, expr) for start, end, exprs in self._context_spans_of(facts) if start <= call.lineno <= end for expr in exprs}
            contexts.update(around)
            common = set(around) if common is None else common & set(around)
            if not common:
                return ctx
        if common is None or len(common) != 1:
            return ctx  # (two contexts around every call: which one is inner is not told here)
        facts, expr = contexts[common.pop()]
        from_update = expr in _SETTINGS_AS_CONTEXTS
        if facts is not func.module.facts:
            # another file's context, read as JAX's own with its arguments as they are
            # spelled (that file's top level is not run for it: a script's is its program)
            maker = cast("ast.Call", expr)
            named = (dotted_name(maker.func) or "").rpartition(".")[2]
            expr = ast.fix_missing_locations(ast.copy_location(ast.Call(ast.Attribute(ast.Name("jax", ast.Load()), named, ast.Load()), maker.args, maker.keywords), maker))
            frame = Frame(func.module, {"jax": self.external("jax")}, Ctx())
        else:
            frame = Frame(func.module, func.module.namespace, Ctx())
        entered = self.api.enter_context(self, self.ev(expr, frame), ctx, ast.withitem(expr), frame)
        if from_update and isinstance(entered.precision, ConstV):
            # a message says how it was set: by the update, not a `with` (probe 94e)
            where = next((info.path for info in self.project.parsed if info.facts is facts), func.module.path)
            update_step = Step(where, expr.lineno, f"jax.config.update('jax_default_matmul_precision', {entered.precision.value!r}) restored in a finally")
            entered = dataclasses.replace(entered, precision=ConstV(entered.precision.value, (update_step,)))
        return entered

    def _context_spans_of(self, facts: ScopeFacts) -> list[tuple[int, int, list[ast.expr]]]:
        """Each `with` body of a module (as its facts' tree holds it) by its lines, with the
        precision and x64 contexts it enters (`jax.default_matmul_precision(...)`,
        `jax.enable_x64(...)`)."""
        found = self.context_spans.get(id(facts))
        if found is None:
            found = list[tuple[int, int, list[ast.expr]]]()
            if facts.tree is None or not (facts.calls_attribute("default_matmul_precision") or facts.calls_attribute("enable_x64") or facts.updates_config(CONTEXT_FLAGS)):
                self.context_spans[id(facts)] = found  # (no such context or update in the module: most)
                return found
            for stmt in every_statement(facts.tree.body):
                if isinstance(stmt, (ast.With, ast.AsyncWith)) and stmt.body:
                    exprs: list[ast.expr] = [item.context_expr for item in stmt.items if isinstance(item.context_expr, ast.Call) and (dotted_name(item.context_expr.func) or "").endswith(("default_matmul_precision", "enable_x64"))]
                    if exprs:
                        found.append((stmt.body[0].lineno, stmt.end_lineno or stmt.lineno, exprs))
                for held in (getattr(stmt, field, None) for field in ("body", "orelse", "finalbody")):
                    block = cast("list[ast.stmt]", held) if isinstance(held, list) else []
                    for before, after in set_and_restored(block):
                        if (setting := _config_setting(before)) is not None:
                            # the try's body runs as under `with` the setting (probe 41a)
                            found.append((after.body[0].lineno, after.body[-1].end_lineno or after.body[-1].lineno, [setting]))
            self.context_spans[id(facts)] = found
        return found

    def _top_level_def_at(self, info: ModuleInfo, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The module-level function whose lines hold `line`, by bisection over the
        module's defs (read once per module)."""
        found = self.top_level_defs.get(id(info))
        if found is None:
            defs = [stmt for stmt in info.tree.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))]
            found = self.top_level_defs[id(info)] = ([stmt.lineno for stmt in defs], defs)
        starts, defs = found
        at = bisect.bisect_right(starts, line) - 1
        if at < 0:
            return None
        stmt = defs[at]
        return stmt if line <= (stmt.end_lineno or stmt.lineno) else None

    def _try_spans(self, info: ModuleInfo) -> list[tuple[int, int, frozenset[str]]]:
        """Each `try` body of a module by its lines, with what its handlers catch (read by
        their syntax: handlers.recovered_by), those that catch something only."""
        found = self.try_spans.get(id(info))
        if found is None:
            found = list[tuple[int, int, frozenset[str]]]()
            for stmt in every_statement(info.tree.body):  # (statements only: a third of ast.walk's cost)
                if isinstance(stmt, ast.Try) and stmt.body and not any(_keeps_the_error(handler) for handler in stmt.handlers):
                    caught = EVERY_ERROR if swallowed_by_finally(stmt) else relevant(recovered_by(stmt.handlers))
                    if caught:
                        found.append((stmt.body[0].lineno, stmt.body[-1].end_lineno or stmt.body[-1].lineno, caught))
            self.try_spans[id(info)] = found
        return found

    def _stored_transforms(self, info: ModuleInfo) -> frozenset[str]:
        """Names through which a module reaches a differentiation another project module
        stored at its top level (`full_grad = jax.grad(loss)` in finetune.py, called as
        `finetune.full_grad(...)` or imported by name, at the top or in a function): its
        functions that use them are entered too (probe 66a)."""
        found: set[str] = set()
        for node in info.facts.imports():
            if isinstance(node, ast.Import):
                pairs = [(alias.name, None) for alias in node.names]
            elif node.module and not node.level:
                pairs = [(node.module, alias.name) for alias in node.names]
            else:
                continue
            for module, name in pairs:
                other = self.project.find(module)
                if other is None or other is info:
                    continue
                stored = other.facts.stored_transform_names()
                found.update(stored if name is None else stored & {name})
        return frozenset(found)

    def _tested_functions(self, info: ModuleInfo) -> frozenset[str]:
        """In a test file that differentiates, the leading names bound to functions (`from
        layers import mha`): its forward-only tests call them too, and a dtype or head dim
        fails there without a grad (probe 30a).  Not modules or classes: keras' op and
        layer tests would cost 13 % of the corpus for nothing."""
        if info.entry != "differentiating" or not is_test_path(info.path) or not info.entry_names:
            return frozenset()
        return frozenset(name for name in info.entry_names if name in info.namespace and isinstance(self.resolved(info.namespace, name), FunctionV))

    def generic_call(self, func: FunctionV, self_value: Value | None, by_closure: bool = False) -> None:
        """Analyse `func` as if called by code we cannot see.

        Required parameters are opaque (symbols); parameters with defaults take their
        defaults, as in a call that leaves them out; the rows a test framework calls
        it with (case_rows: pytest's parametrize, absl's parameterized, hypothesis'
        examples) bind the parameters they name (one analysis per row), and a test's parameter
        named after a `@pytest.fixture` of its module takes the fixture's value.
        """
        # a module-level name bound to a decorator's `wrapper` is keyed by its closure too:
        # the `wrapper` analysed where the decorator itself was analysed generically (its
        # `f` unknown) is another function than the one that wraps `case_b`.  Nested
        # definitions keep one analysis per definition (per closure: 1.4 s more on the corpus)
        scopes = tuple(id(scope) for scope in func.closure) if by_closure else ()
        key = (id(func.node), scopes, id(self_value) if self_value is not None else None)
        if key in self.analysed_generic:
            return
        self.analysed_generic[key] = (func, self_value)
        if self._skipped(func):
            return
        rows = self._fixture_param_rows(func, case_rows.rows(self.parametrize, func))
        ctx = self._context_at_every_call(func, Ctx(handled=self._handled_at_every_call(func) | self._expected_by_xfail(func)))
        for row in rows or [None]:
            args, kwargs = self._generic_args(func, self_value, row)
            row_ctx = ctx
            if row is not None and (mark := row.get(case_rows.EXPECTED)) is not None:
                # `pytest.param(33, marks=pytest.mark.xfail(raises=...))`: this row expects it
                expects = self._xfail_expects(getattr(mark, "args", []), getattr(mark, "kwargs", {}), func.module)
                row_ctx = with_handled(ctx, ctx.handled | expects)
            saved_root = self.root
            self.root = Root()
            try:
                self.call_function(func, args, kwargs, False, row_ctx, None, generic=True)
            except RecursionError:
                continue
            finally:
                self.root = saved_root

    def _skipped(self, func: FunctionV) -> bool:
        """A test that never runs: its def or its class has a skip decorator, or its class
        or module says `pytestmark = pytest.mark.skip(...)`."""
        truth = self._condition_truth(func.module)
        if case_rows.skipped(self.parametrize, func.node, truth, True):
            return True
        if func.owner is not None and case_rows.skipped(self.parametrize, func.owner.node, truth, True):
            return True
        if func.owner is not None and case_rows.module_skipped(func.owner.attrs, truth, True):
            return True  # `pytestmark = pytest.mark.skip(...)` in the class body (probe 38b)
        return case_rows.module_skipped(func.module.namespace, truth, True)

    def _expected_by_xfail(self, func: FunctionV) -> frozenset[str]:
        """The classes a test's `pytest.mark.xfail` marks expect (of the def, its class, or
        a `pytestmark`): a failure of one is what the test wants.  A mark whose condition is
        certainly false does not apply, and `raises=ValueError` does not expect JAX's
        NotImplementedError (probe 38b: both failed under pytest)."""
        marks = list(self.parametrize.get(func.node) or ())
        if func.owner is not None:
            marks += [*(self.parametrize.get(func.owner.node) or ()), *case_rows.module_marks(func.owner.attrs)]
        marks += case_rows.module_marks(func.module.namespace)
        expected: frozenset[str] = frozenset()
        for qualname, args, kwargs, _ in marks:
            if qualname == case_rows.XFAIL:
                expected |= self._xfail_expects(args, kwargs, func.module)
        return expected

    def _xfail_expects(self, args: list[Value], kwargs: dict[str, Value], module: ModuleInfo) -> frozenset[str]:
        """The classes one xfail mark expects: none where its condition is certainly false,
        those its raises= names, every class where it names none or cannot be read."""
        if not case_rows.xfail_condition_holds(args, kwargs, self._condition_truth(module)):
            return frozenset()
        raises = kwargs.get("raises")
        return (_builtin_classes(raises) if raises is not None else frozenset()) or EVERY_ERROR

    def _condition_truth(self, module: ModuleInfo) -> case_rows.Truth:
        """A skip or xfail condition's truth: a constant, or a string pytest evaluates in
        the module's namespace (`"jax.default_backend() != 'gpu'"`), read here as an
        expression of that module (parsed, never run)."""

        def truth(condition: Value) -> bool | None:
            if isinstance(condition, ConstV) and isinstance(condition.value, str) and condition.value.strip():
                try:
                    expr = ast.parse(condition.value.strip(), mode="eval").body
                    condition = self.ev(expr, Frame(module, module.namespace, Ctx()))
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    return None
            return case_rows.constant_truth(condition)

        return truth

    def _generic_args(
        self, func: FunctionV, self_value: Value | None, row: dict[str, Value] | None
    ) -> tuple[list[Value], dict[str, Value]]:
        node = func.node
        a = node.args
        params = [*a.posonlyargs, *a.args]
        first_default = len(params) - len(a.defaults)
        args: list[Value] = []
        kwargs: dict[str, Value] = {}
        for i, param in enumerate(params):
            if i == 0 and self_value is not None:
                args.append(self_value)
            elif row is not None and param.arg in row:
                if i < first_default:
                    args.append(row[param.arg])
                else:
                    kwargs[param.arg] = row[param.arg]
            elif i < first_default:
                seeded = self.seed_from_annotation(param.annotation, param.arg, func.module)
                fixture = self._fixture_value(func, param.arg) if param.arg not in self._given_names(func) else None
                args.append(seeded or fixture or OpaqueV(param.arg))
        for name in self._defaults_every_call_overrides(func, params, first_default, row):
            kwargs[name] = OpaqueV(name)
        kw_defaults = {name for name, _ in func.kw_defaults}
        for param in a.kwonlyargs:
            if row is not None and param.arg in row:
                kwargs[param.arg] = row[param.arg]
            elif param.arg not in kw_defaults:
                seeded = self.seed_from_annotation(param.annotation, param.arg, func.module)
                kwargs[param.arg] = seeded or OpaqueV(param.arg)
        return args, kwargs

    def _defaults_every_call_overrides(self, func: FunctionV, params: list[ast.arg], first_default: int, row: dict[str, Value] | None) -> list[str]:
        """Parameters whose default no run of the project uses: a module-level function
        that its module and the other analysed files (a main.py driving trainer.py) only
        call, every call passing the parameter.  Analysed without a caller, they are
        unknown, not their default (`def train(seq_len=255)` called as `train(256)` never
        runs with 255).  A function nobody calls keeps its defaults: outside callers may
        leave them out."""
        node = func.node
        if isinstance(node, ast.Lambda):
            return []
        # (parameter, its index among the positional ones or -1 for a keyword-only one, default)
        with_defaults = [
            *((param, i, default) for i, (param, default) in enumerate(zip(params[first_default:], node.args.defaults), first_default)),
            *((param, -1, default) for param, default in zip(node.args.kwonlyargs, node.args.kw_defaults) if default is not None),
        ]
        if not any(_could_fail(default, param.arg, func) for param, _, default in with_defaults):
            return []  # the module's call index costs a walk: only where a default could matter
        if func.owner is None and node.name in func.module.facts.rewritten_functions():
            return [param.arg for param, _, _ in with_defaults]  # `f.__defaults__ = (512,)`
        if id(node) in self.cli_unfollowed:
            # a command line's parameters that something else than their defaults decides (an
            # env var, a default_map, a patched sys.argv: cli_commands, probe 120a)
            which = self.cli_unfollowed[id(node)]
            return [param.arg for param, _, _ in with_defaults if which is None or param.arg in which]
        if func.owner is not None:
            if not any(_could_fail(default, param.arg, func) and not (isinstance(default, ast.Constant) and default.value is None and not _method_none_sensitive(param.arg)) for param, _, default in with_defaults):
                # a method's odd literal (`fit(self, seq_len=255)`) or dtype default is judged
                # by its callers, and a None a rule reads (`q_len=None`: probe 137a); its other
                # None defaults are not worth the module's call index
                return []
            calls = self._method_calls(func)
            local: set[int] = set()  # (any file's: a bare name passed may be another module's constant)
            shift = 1  # `trainer.fit(256)` passes the parameter after self first
        elif node in func.module.tree.body:
            direct = func.module.facts.direct_calls(node.name)
            outside = self._calls_from_other_roots(func.module, node.name)
            calls = None if direct is None or outside is None else [*direct, *outside]
            local = {id(call) for call in direct or ()}
            shift = 0
        else:
            return [param.arg for param, _, _ in with_defaults] if id(node) in self.handed_out_defs else []
        if not calls:
            # nobody calls it where we see: its defaults may run, unless a registry (a
            # decorator's `REGISTRY[name] = fn`) is how it is reached
            return [param.arg for param, _, _ in with_defaults] if id(node) in self.registered else []
        dead: list[str] = []
        for param, i, default in with_defaults:
            name = param.arg
            if row is not None and name in row:
                continue
            if all(_passes(call, i - shift if i >= 0 else -1, name, default, id(call) in local) for call in calls):
                dead.append(name)
        return dead

    def _method_calls(self, func: FunctionV) -> list[ast.Call] | None:
        """Every `<x>.name(...)` call of a plain method (no decorator, not a dunder that
        Python calls for us) in its module and the other analysed files; None where
        `.name` is used another way.  Any object's `.name` counts, since `<x>` is not
        resolved: another class's `.fit()` keeps the default alive (as methods kept
        them all before), and one that passes the parameter can hide it (silence)."""
        node = func.node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        called = node.name == "__call__"
        if (node.decorator_list and not (called and all(_is_compact(d) for d in node.decorator_list))) or (node.name.startswith("__") and node.name.endswith("__") and not called):
            return None
        owner = func.owner
        if owner is None or owner.node not in func.module.tree.body or func.module not in self.project.roots:  # (None: a plain function)
            return None  # a class of a module parsed in part (lazy_defs): its calls cannot all be seen
        if called:
            return self._instance_calls(func.module, owner.node.name)
        calls: list[ast.Call] = []
        for info in [func.module, *(root for root in self.project.roots if root is not func.module)]:
            found = self._attribute_calls(info, node.name)
            if found is None:
                return None
            calls.extend(call for call in found if self._may_run_method(call, func, info))
        return calls

    def _instance_calls(self, module: ModuleInfo, name: str) -> list[ast.Call] | None:
        """The calls of the instances of `module`'s class `name` (its `__call__`), in
        its module and the other analysed files, under the names they import it by."""
        calls: list[ast.Call] = []
        roots = self.project.roots
        # the analysed files, and the project modules outside them that import it (probe 36a)
        for info in [module, *(root for root in roots if root is not module), *(i for i in self.project.importers_of(module) if i not in roots)]:
            names = {name} if info is module else set(self._root_imports(info)[1].get((id(module), name), ()))
            if info is not module and id(module) in self._root_imports(info)[0]:
                names.add(name)  # `layers.Block(...)`
            if not names:
                continue
            facts = info.facts if info in roots else self._facts_with_definitions(info, sorted(names))
            found = facts.instance_calls(frozenset(names)) if facts is not None else None
            if found is None:
                return None
            calls.extend(found)
        return calls

    def _may_run_method(self, call: ast.Call, func: FunctionV, info: ModuleInfo) -> bool:
        """May the call `<x>.name(...)` in `info` run the method `func`?  Not where its
        arguments cannot bind to the method's parameters (`.encode()` for
        `encode(self, x)` would be a TypeError), nor where `<x>` is a literal
        (`"run".encode()`) or certainly made by another class: `XlaAttn().attend(q)`,
        or `layer.attend(q)` with `layer` only ever bound to `XlaAttn(...)`, where
        XlaAttn is not the method's class, or defines the method again (a subclass
        whose own default runs; its `super().attend(q, dtype)` is a call seen apart)."""
        assert isinstance(func.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and func.owner is not None
        if not _binds(call, func.node.args, 1):
            return False
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if receiver is None:
            return True
        if isinstance(receiver, DISPLAYS):
            return False
        made = constructor_name(receiver)
        if made is None and isinstance(receiver, (ast.Name, ast.Attribute)) and not (isinstance(receiver, ast.Name) and receiver.id in info.patched):
            # (a global another file replaces, `impls.IMPL = CudnnAttn()`, may be anything)
            made = info.facts.constructed().get(receiver.id if isinstance(receiver, ast.Name) else receiver.attr)
        return made is None or (made != LITERAL and self._instance_runs(info, made, func))

    def _instance_runs(self, info: ModuleInfo, made: str, func: FunctionV) -> bool:
        """Does an instance of the class `made` (a name in `info`) run the method `func`?
        Yes where `made` is not one class we can see (it may be anything); otherwise
        where a chain of bases leads from it to the method's class with no class on the
        way defining the method again."""
        assert func.owner is not None
        owner, method = func.owner.node, func.node.name if isinstance(func.node, (ast.FunctionDef, ast.AsyncFunctionDef)) else ""
        start = self._class_named(info, made)
        if start is None:
            return True
        todo, seen = [start], set[int]()
        while todo:
            module, node = todo.pop()
            if node is owner or any(_defines(node, hook) for hook in ("__getattribute__", "__new__")):
                return True  # (a proxy that intercepts, a constructor that returns another class's instance)
            if id(node) in seen or _defines(node, method):
                continue
            if _defines(node, "__getattr__"):
                return True  # a proxy that delegates what it lacks (an EMA wrapper)
            seen.add(id(node))
            for base in node.bases:
                named = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
                found = self._class_named(module, named) if named is not None else None
                if found is not None:
                    todo.append(found)
                elif named == owner.name:
                    return True  # `layers.Block`: most likely the method's class
        return False

    def _getattr_hook_answers(self, cls: ClassV, reader: ModuleInfo) -> bool:
        """Is a class's own `__getattr__` what answers a read its object lacks?  Not where a
        base of a library (a `dict` subclass: `cfg.update` is dict's method, found first)
        has members we do not see, nor where the class's methods, or the code of its
        module or of the reading one, store attributes they do not spell (`self.__dict__[
        key] = v`, `vars(cfg)[k] = v`: what they stored is found first, probes 114a, 115a)."""
        if cls.external_bases() - {"builtins.object"}:
            return False
        if cls.module.facts.attribute_stores()[1] or reader.facts.attribute_stores()[1]:
            return False
        order = cls.mro()
        if order is None:
            return False
        return not any(id(klass.node) in klass.module.facts.attribute_stores()[2] for klass in order)

    def _class_named(self, info: ModuleInfo, name: str) -> tuple[ModuleInfo, ast.ClassDef] | None:
        """The one class that `name` is in module `info`: defined there at top level, or
        imported by name from a project module; None where unknown or not one."""
        here = info.facts.classes_named().get(name)
        if here is None:
            for stmt in info.facts.imports():
                if not isinstance(stmt, ast.ImportFrom) or here is not None:
                    continue
                for alias in stmt.names:
                    if (alias.asname or alias.name) == name and (source := self.project.find(self.project.from_base(info, stmt))) is not None:
                        info, original = self._reexported_from(source, alias.name, through_modules=True)
                        self.project.load(info)
                        here = info.facts.classes_named().get(original)
                        break
        if here is None or len(here) != 1:
            return None
        node = here[0][1]
        tree = node.parse("<lazy>") if isinstance(node, LazyDef) else node
        return (info, tree) if isinstance(tree, ast.ClassDef) else None

    def _calls_from_other_roots(self, module: ModuleInfo, name: str) -> list[ast.Call] | None:
        """The calls of `module`'s function `name` in the other analysed files that import
        it by name (`from trainer import train`), and in the modules the analysis reached
        (model.py between layers.py and train.py: probe 32b); None where one uses it
        otherwise, or imports the module itself (`trainer.train` may be passed anywhere)."""
        found = self._calls_from_other_modules(module, name)
        return [call for _, call in found] if found is not None else None

    def _calls_from_other_modules(self, module: ModuleInfo, name: str) -> list[tuple[ScopeFacts, ast.Call]] | None:
        """_calls_from_other_roots, each call with the facts of its module (its tree with
        the definitions that hold the calls parsed)."""
        calls: list[tuple[ScopeFacts, ast.Call]] = []
        roots = self.project.roots
        for info in [*roots, *(info for info in self.project.importers_of(module) if info not in roots)]:
            if info is module:
                continue
            whole, by_name = self._root_imports(info)
            imports_whole = id(module) in whole or (info in roots and self._package_reexports(info, module, name))
            bound_names = list(by_name.get((id(module), name), ()))
            if (id(module), "*") in by_name:
                bound_names.append(name)  # `from trainer import *`: its own name, if it uses it
            if not imports_whole and not bound_names:
                continue
            # (a reached module's definitions parsed first: `layers.attention(...)` in one, probe 36a)
            facts = info.facts if info in roots else self._facts_with_definitions(info, [name, *bound_names])
            if facts is None:
                return None
            attribute = imports_whole and name in facts.module_names()
            if not attribute and not bound_names:
                continue
            if attribute:
                through = facts.attribute_calls(name)  # `trainer.train(...)`
                if through is None:
                    return None
                calls.extend((facts, call) for call in through)
            for bound in bound_names:
                found = facts.direct_calls(bound)
                if found is None:
                    return None
                calls.extend((facts, call) for call in found)
        return calls

    def _package_reexports(self, info: ModuleInfo, module: ModuleInfo, name: str) -> bool:
        """Does `info` import whole a package that re-exports `module`'s `name` under that
        name (`import mylib` where mylib/__init__.py says `from mylib.ops import attention`:
        `mylib.attention(...)` calls it; probe 32b)?"""
        key = (id(info), id(module), name)
        found = self.package_reexports.get(key)
        if found is None:
            packages = self.packages_imported_whole.get(id(info))
            if packages is None:
                packages = self.packages_imported_whole[id(info)] = tuple(
                    package
                    for stmt in info.facts.imports()
                    if isinstance(stmt, ast.Import)
                    for alias in stmt.names
                    if (package := self.project.find(self.project.absolute_import(info, alias.name))) is not None and package.is_package
                )
            found = self.package_reexports[key] = any(package is not module and self._reexported_from(package, name) == (module, name) for package in packages)
        return found

    def _facts_with_definitions(self, info: ModuleInfo, names: list[str]) -> ScopeFacts | None:
        """A reached module's facts with the definitions it has not parsed yet (lazy_defs)
        that mention any of `names` parsed in: their calls count.  None where one of them
        does not parse."""
        lazy = [stmt for stmt in info.tree.body if isinstance(stmt, LazyDef)]
        if not lazy:
            return info.facts
        key = (id(info), tuple(names))
        found = self.facts_with_definitions.get(key)
        if found is None and key not in self.facts_with_definitions:
            body: list[ast.stmt] = []
            for stmt in info.tree.body:
                if not isinstance(stmt, LazyDef):
                    body.append(stmt)
                elif any(n in stmt.text for n in names):
                    definition = stmt.parse(info.path)
                    if definition is None:
                        break
                    body.append(definition)
            else:
                found = ScopeFacts(ast.Module(body=body, type_ignores=[]))
            self.facts_with_definitions[key] = found
        return found

    def _attribute_calls(self, info: ModuleInfo, name: str) -> list[ast.Call] | None:
        """Every `<x>.name(...)` call of a root; None where `<x>.name` is used another way
        (passed, stored).  Any object's `.name` counts: another object's `.train(...)`
        passing the parameter may hide a default (silence), one leaving it keeps it."""
        return info.facts.attribute_calls(name)

    def _root_imports(self, info: ModuleInfo) -> tuple[set[int], dict[tuple[int, str], list[str]]]:
        """What a root imports from project modules (cached): the modules it imports
        whole, and for (module, name) the names it binds them to ('*' for a star)."""
        cached = self._imports_of_roots.get(info.path)
        if cached is None:
            whole: set[int] = set()
            by_name: dict[tuple[int, str], list[str]] = {}
            for stmt in info.facts.imports():
                if isinstance(stmt, ast.Import):
                    whole.update(id(m) for a in stmt.names if (m := self.project.find(self.project.absolute_import(info, a.name))) is not None)
                else:
                    base = self.project.from_base(info, stmt)
                    source = self.project.find(base)
                    for alias in stmt.names:
                        sub = self.project.find(f"{base}.{alias.name}" if base else alias.name)
                        if sub is not None and source is not None and source.is_package and self._reexported_from(source, alias.name)[0] is not source:
                            sub = None  # the package's `from .attention import attention` binds the function over the submodule (probe 32b)
                        if sub is not None:
                            whole.add(id(sub))  # `from pkg import trainer`
                        elif source is not None:
                            origin, original = self._reexported_from(source, alias.name)
                            by_name.setdefault((id(origin), original), []).append(alias.asname or alias.name)
            cached = self._imports_of_roots[info.path] = (whole, by_name)
        return cached

    def _reexported_from(self, source: ModuleInfo, name: str, through_modules: bool = False, hops: int = 3) -> tuple[ModuleInfo, str]:
        """The module and name `from source import name` really takes, through package
        `__init__` re-exports (`from .trainer import train`, `*`), up to three hops; with
        `through_modules`, through plain modules' imports too (parsing them)."""
        for _ in range(hops):
            if not source.is_package and not through_modules:
                break
            if through_modules and _defines_at_top(self.project, source, name):
                break
            self.project.load(source)
            found: tuple[ModuleInfo, str] | None = None
            for stmt in source.facts.imports():
                if isinstance(stmt, ast.ImportFrom):
                    for alias in stmt.names:
                        base = self.project.from_base(source, stmt)
                        if alias.name == "*":  # `from .trainer import *`: if trainer defines it, or re-exports in turn
                            origin = self.project.find(base)
                            if origin is not None and origin is not source and (origin.is_package or _defines_at_top(self.project, origin, name)):
                                found = (origin, name)
                        elif (alias.asname or alias.name) == name:
                            origin = self.project.find(base) if self.project.find(f"{base}.{alias.name}" if base else alias.name) is None else None
                            if origin is not None and origin is not source:
                                found = (origin, alias.name)
            if found is None:
                break
            source, name = found
        return source, name

    def _fixture_value(self, func: FunctionV, name: str, depth: int = 0, test_module: ModuleInfo | None = None, test_class: ClassV | None = None, run: FixtureRun | None = None) -> Value | None:
        """What pytest injects for a test's parameter `name`: the value of the
        `@pytest.fixture` of that name that the test's module sees (its own, else its
        conftest.py files'), with the fixture's own parameters injected the same way, as
        seen from the test too (a test module's fixture overrides a conftest's for the
        conftest fixtures that request it); a yield fixture gives what it yields.
        None: no such fixture, or one with `params=`, whose value is `request.param`.
        `run`: the parametrized fixtures' values of one run of the test."""
        if depth > 3 or not func.qualname.split(".")[-1].startswith("test") and depth == 0:
            return None
        if run is not None and name in run.by_name:
            return run.by_name[name]  # (a parametrize row overrides the fixture of its name)
        seen_from = test_module or func.module
        in_class = test_class if depth else func.owner  # a test class's own fixtures come first
        candidates = [
            *((self._fixture_in(in_class.attrs, name),) if in_class is not None else ()),
            self._fixture_in(seen_from.namespace, name),
            *self._conftest_fixtures(seen_from, name),
        ]
        fixture = _after_requester([c for c in candidates if c is not None], func, name)
        if fixture is None:
            return None
        if run is not None and id(fixture.node) in run.by_fixture:
            return run.by_fixture[id(fixture.node)]
        if not self.api.is_plain_fixture(fixture):
            return None  # (its value is one of its params: the test's rows choose it)
        value = self._call_fixture(fixture, depth, seen_from, in_class, None, run)
        return None if isinstance(value, UnknownV) else value

    def _call_fixture(self, fixture: FunctionV, depth: int, seen_from: ModuleInfo, in_class: ClassV | None, request: Value | None, run: FixtureRun | None = None) -> Value:
        """A fixture's value: called with its own parameters injected as fixtures (and
        `request`, where given; `run`: the values of the parametrized fixtures of one of
        the test's runs), what a yield fixture yields."""
        args: list[Value] = []
        a = fixture.node.args
        for param in [*a.posonlyargs, *a.args][: len(a.posonlyargs) + len(a.args) - len(a.defaults)]:
            given = request if param.arg == "request" else None
            args.append(given or self._fixture_value(fixture, param.arg, depth + 1, seen_from, in_class, run) or OpaqueV(param.arg))
        try:
            value = self.call_function(fixture, args, {}, False, Ctx(), None, generic=True)
        except RecursionError:
            return UNKNOWN
        if isinstance(value, IterV) and fixture.module.facts.is_generator(fixture.node):
            value = self.api.iter_element(self, value, fixture.node, Frame(fixture.module, {}, Ctx()))
        return value

    def _fixture_param_rows(self, func: FunctionV, rows: list[dict[str, Value]] | None) -> list[dict[str, Value]] | None:
        """A test's rows crossed with the `params=` of the fixtures its parameters name
        (`@pytest.fixture(params=[128, 255])` returning `request.param`): pytest runs the
        test once per param."""
        if not func.qualname.split(".")[-1].startswith("test"):
            return rows
        a = func.node.args
        given = self._given_names(func)
        for param in [*a.posonlyargs, *a.args]:
            if rows is not None and all(param.arg in row for row in rows) or param.arg in given:
                continue
            fixture = self._any_fixture(func, param.arg)
            values = self._param_values(fixture, func.module) if fixture is not None else None
            if values is None:
                continue
            rows = [{**row, param.arg: value} for row in (rows or [{}]) for value in values][:case_rows.MAX_ROWS]
        return self._rows_through_fixtures(func, rows, given)

    def _rows_through_fixtures(self, func: FunctionV, rows: list[dict[str, Value]] | None, given: frozenset[str]) -> list[dict[str, Value]] | None:
        """A test's rows crossed with the `params=` of the fixtures its fixtures request,
        at any depth (`tokens(seq_len)` with `seq_len` over [64, 127]; an override
        `seq_len(seq_len)` of a parametrized one): one run per param, every fixture of
        the run built from the same value, as pytest shares one value per run; a
        parametrize row's value overrides the fixture of its name (probes 108d, 109a)."""
        a = func.node.args
        names = [p.arg for p in [*a.posonlyargs, *a.args]]
        overridden = frozenset[str](name for name in rows[0] if all(name in row for row in rows)) if rows else frozenset[str]()
        built: dict[str, FunctionV] = {}  # the test's parameters to build, by their fixtures
        roots: dict[int, tuple[FunctionV, list[Value]]] = {}  # the parametrized fixtures they reach
        for name in names:
            if rows is not None and all(name in row for row in rows) or name in given:
                continue
            fixture = self._any_fixture(func, name)
            if fixture is None or self.api.fixture_param_list(fixture) is not None or isinstance(fixture.node, ast.Lambda):
                continue
            reached: list[tuple[FunctionV, list[Value]]] = []
            if self._parametrized_below(func, fixture, 0, overridden, reached):
                built[name] = fixture
                for root, values in reached:
                    roots.setdefault(id(root.node), (root, values))
        if not built:
            return rows
        out: list[dict[str, Value]] = []
        keys = list(roots)
        for row in rows or [{}]:
            for combination in itertools.product(*(roots[key][1] for key in keys)):
                run = FixtureRun(dict(zip(keys, combination)), row)
                values = {name: self._call_fixture(fixture, 1, func.module, None, None, run) for name, fixture in built.items()}
                out.append({**row, **values})
                if len(out) >= case_rows.MAX_ROWS:
                    return out
        return out

    def _parametrized_below(self, test: FunctionV, fixture: FunctionV, depth: int, overridden: frozenset[str], found: list[tuple[FunctionV, list[Value]]]) -> bool:
        """Does `fixture` request, at any depth up to three as pytest resolves them for
        `test`, a parametrized fixture (each added to `found` with its values) or one a
        parametrize row overrides (`overridden`, by name)?"""
        if depth > 3 or isinstance(fixture.node, ast.Lambda):
            return False
        depends = False
        inner = fixture.node.args
        for param in [*inner.posonlyargs, *inner.args][: len(inner.posonlyargs) + len(inner.args) - len(inner.defaults)]:
            if param.arg in overridden:
                depends = True
                continue
            dependency = self._any_fixture(test, param.arg, fixture) if param.arg != "request" else None
            if dependency is None or dependency.node is fixture.node:
                continue
            values = self._param_values(dependency, test.module)
            if values is not None:
                found.append((dependency, values))
                depends = True
            elif self._parametrized_below(test, dependency, depth + 1, overridden, found):
                depends = True
        return depends

    def _param_values(self, fixture: FunctionV, seen_from: ModuleInfo) -> list[Value] | None:
        """A parametrized fixture's value for each of its `params=`: the param itself where
        it returns `request.param`, else its body run with each (`jnp.zeros(shape,
        request.param)`); None for a fixture without params."""
        values = self.api.fixture_params(fixture)
        if values is None and (params := self.api.fixture_param_list(fixture)) is not None:
            values = [self._fixture_with_param(fixture, value, seen_from) for value in params]
        return values

    def _given_names(self, func: FunctionV) -> frozenset[str]:
        """The parameters hypothesis' `@given(...)` supplies: its keywords, and as many of
        the rightmost positional parameters as it has strategies.  pytest asks no fixture
        for them (probe 53b: a conftest fixture `seq_len` with params=[128, 255] was taken
        for a test's `@given(seq_len=st.sampled_from([128, 256]))` argument)."""
        found: set[str] = set()
        node = func.node
        if isinstance(node, ast.Lambda):
            return frozenset()
        params = [p.arg for p in [*node.args.posonlyargs, *node.args.args] if p.arg not in ("self", "cls")]
        for decorator in node.decorator_list:
            if not (isinstance(decorator, ast.Call) and (dotted_name(decorator.func) or "").rpartition(".")[2] == "given"):
                continue
            maker = self.ev(decorator.func, Frame(func.module, func.module.namespace, Ctx()))
            if not (isinstance(maker, ExternalV) and maker.qualname == "hypothesis.given"):
                continue
            found.update(k.arg for k in decorator.keywords if k.arg is not None)
            if decorator.args:
                found.update(params[-len(decorator.args):])
        return frozenset(found)

    def _fixture_with_param(self, fixture: FunctionV, param: Value, seen_from: ModuleInfo) -> Value:
        """A parametrized fixture's value for one of its params: called with a `request`
        whose `.param` is it, its other parameters injected as fixtures (probe 30a)."""
        request = ClassV(ast.ClassDef(name="FixtureRequest", bases=[], keywords=[], body=[], decorator_list=[]), fixture.module, (), {}, [], "_pytest.fixtures.FixtureRequest")
        return self._call_fixture(fixture, 0, seen_from, None, InstanceV(request, {"param": param}, False, ()))

    def _any_fixture(self, func: FunctionV, name: str, requester: FunctionV | None = None) -> FunctionV | None:
        """The fixture named `name` that pytest gives `func` (class, module, conftest),
        parametrized or not; asked by the fixture `requester` of that very name (an
        override requesting what it overrides), the next one out."""
        scopes: list[State] = []
        if func.owner is not None:
            scopes.append(func.owner.attrs)
        scopes.append(func.module.namespace)
        for path in conftest_paths(func.module.path):
            info = self.project.by_path.get(path)
            if info is not None:
                scopes.append(self.module_namespace(info))
        found = [fixture for scope in scopes if (fixture := self._fixture_in(scope, name)) is not None]
        return _after_requester(found, requester, name) if requester is not None else found[0] if found else None

    def _conftest_fixtures(self, module: ModuleInfo, name: str) -> list[FunctionV]:
        """The `@pytest.fixture`s named `name` in the conftest.py files pytest loads for a
        test module (its folder's and the folders' above), closest first."""
        found: list[FunctionV] = []
        for path in conftest_paths(module.path):
            info = self.project.by_path.get(path)
            if info is None:
                continue
            fixture = self._fixture_in(self.module_namespace(info), name)
            if fixture is not None:
                found.append(fixture)
        return found

    def _fixture_in(self, namespace: State, name: str) -> FunctionV | None:
        """The namespace's `@pytest.fixture` function named `name`, parametrized or not."""
        fixture = self.resolved(namespace, name) if name in namespace else None
        if isinstance(fixture, FunctionV) and any(getattr(d, "qualname", None) == "pytest.fixture" for d in fixture.decorators):
            return fixture
        return None

    def seed_from_annotation(self, annotation: ast.expr | None, name: str, module: ModuleInfo) -> Value | None:
        if annotation is None:
            return None
        return self.api.jaxtyping_seed(self, annotation, name, module)

    # -- statements -------------------------------------------------------------------
    def exec_block(self, stmts: Iterable[ast.stmt], fr: Frame) -> None:
        for stmt in stmts:
            if fr.state is None:
                return
            fr.raised = False
            try:
                self.exec_stmt(stmt, fr)
            except RecursionError:
                self._too_deep(stmt, fr)
            if fr.raised:
                fr.raised = False
                if type(stmt) in _SIMPLE_STATEMENTS:
                    if isinstance(stmt, ast.Return) and fr.returns:
                        fr.returns.pop()  # `return f(validate(x))` returns nothing: it raises
                    fr.state = None  # a call in it certainly raised: nothing after it runs on this path

    def _too_deep(self, stmt: ast.stmt, fr: Frame) -> None:
        """A statement nested too deep to follow (a 500-term expression, a long call
        chain): anything it may change is Unknown, and the body goes on.  The names it
        binds; the objects its names hold (`CFG.update(...)`, `m.set_seq(...)`,
        `self.seq = ...`, `lens.insert(...)`); the class attributes it stores."""
        if fr.state is None:
            return
        if isinstance(stmt, (ast.Return, ast.Raise)):
            if isinstance(stmt, ast.Return):
                fr.returns.append(UNKNOWN)  # what it returns is Unknown; the path ends here
            fr.state = None
            return
        for name in _stored_names(stmt):
            self.assign_name(name, UNKNOWN, fr)
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
                continue
            held = self.ev(node, fr)  # a name: one step deep
            if isinstance(held, InstanceV):
                held.forget_all()
            elif isinstance(held, (DictV, TupleV, SetV)):
                mark_changed_in_place(held)
                self.assign_name(node.id, UNKNOWN, fr)
        for node in ast.walk(stmt):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
                owner = self.ev(node.value, fr)
                if isinstance(owner, ClassV):
                    owner.attrs[node.attr] = UNKNOWN
                    self.globals_epoch += 1
        self.mutations += 1

    def exec_stmt(self, stmt: ast.stmt, fr: Frame) -> None:
        self.tick()
        handler = _STMT_HANDLERS.get(type(stmt))
        if handler is not None:
            handler(self, stmt, fr)
        else:
            # statements we do not model: make every name they bind Unknown
            for name in _stored_names(stmt):
                self.assign_name(name, UNKNOWN, fr)

    def assign_name(self, name: str, value: Value, fr: Frame) -> None:
        if fr.volatile is not None and name in fr.volatile:
            value = UNKNOWN
        if fr.state is not None:
            if fr.func is None and not fr.is_class:
                old = fr.state.get(name)
                if old is not None and old is not value:
                    # a module-level name rebound (a loop at module level): calls
                    # memoised before may have read the old value
                    self.globals_epoch += 1
            fr.state[name] = value

    def assign(self, target: ast.expr, value: Value, fr: Frame, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value, fr)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.assign_unpack(target.elts, value, fr, node)
        elif isinstance(target, ast.Attribute):
            base = self.ev(target.value, fr)
            if isinstance(base, ExternalV) and base.qualname == absl_flags.FLAGS:
                self.absl_flags.forget(target.attr)
            elif isinstance(base, ArrayV) and target.attr in ("shape", "dtype", "strides"):
                # `ids.shape = (18, 7)`, `ids.dtype = np.int16`: a NumPy array reshaped in place
                # (probe 102c); the name that holds it now holds an array of unknown shape
                self.forget_array(target.value, base, fr, node)
            elif isinstance(base, InstanceV):
                self.mutations += 1
                base.touch()
                if attribute_dicts.stores_attributes_apart(base.cls):
                    base.attrs[target.attr] = UNKNOWN
                    return
                if self.api.is_mapping_namespace(base):
                    self.configs.set_field(self, base, target.attr, value, node, fr)
                    return
                if self.api.runs_a_setter(base.cls.lookup(target.attr)) or isinstance(base.cls.lookup("__setattr__"), FunctionV) or self.api.validates_assignment(base.cls):
                    value = UNKNOWN  # a property's setter, a descriptor's __set__, the class's __setattr__ or pydantic's validators decide what is stored
                if fr.may_skip(base):
                    old = base.attrs.get(target.attr)
                    value = join(old, value) if old is not None else UNKNOWN
                base.attrs[target.attr] = value
            elif isinstance(base, ClassV) and (fr.func is not None or base.module is fr.module):
                # `Knob.DROPOUT = 0.0`: at its module's top level, in order; in a
                # function, the class's value before or after, as code that runs in an
                # order we do not follow may read either (another module's top level
                # patches it: Project.patched_class_attrs)
                old_member = base.attrs.get(target.attr)
                if fr.func is not None:
                    value = join(old_member, value) if old_member is not None and not isinstance(old_member, FunctionV) else UNKNOWN
                base.attrs[target.attr] = value
                self.globals_epoch += 1  # calls memoised before may have read the old value
            elif isinstance(base, ExtObjectV):
                self.api.replace_layer_variable(self, base, value)  # `layer.kernel = Frozen(...)` (probe 155a)
            elif isinstance(base, cli_commands.CliCommandV):
                base.opened = True  # (`cli.context_settings = {...}`: what runs is not followed, probe 142a)
            elif isinstance(base, ModuleV) and base.info is not fr.module:
                # `consts.MAX_LEN = 256` from another module: which value a reader sees
                # depends on which program ran first (an eval script, a test, a branch)
                base.info.patched.add(target.attr)
                self.globals_epoch += 1  # calls memoised before may have read the old value
        elif isinstance(target, ast.Subscript):
            self.register_functions([value])
            if (view := dict_of(target.value)) is not None:
                self._stores_unspelled(view, None, fr)  # `vars(cfg)[k] = v`
            container_v = self.ev(target.value, fr)
            self.mutations += 1  # in place: a generator run earlier may have read the old item
            held = target.value
            if isinstance(held, ast.Attribute) and held.attr in ("keywords", "args") and isinstance(held.value, ast.Name) and fr.state is not None and isinstance(fr.state.get(held.value.id), PartialV):
                fr.state[held.value.id] = UNKNOWN  # `attn.keywords["implementation"] = "xla"`: the partial changed (probe 42b)
                return
            if isinstance(container_v, InstanceV) and self.api.is_mapping_namespace(container_v):
                # cfg["seq"] = n on a ConfigDict / DictConfig: its attribute
                ok, key = const_value(self.ev(target.slice, fr))
                if not ok or not isinstance(key, str):
                    container_v.forget()
                else:
                    container_v.touch()
                    self.configs.set_field(self, container_v, key, value, node, fr)
                return
            if isinstance(held, ast.Name) and fr.func is not None and isinstance(container_v, DictV) and fr.module.namespace.get(held.id) is container_v and held.id in fr.module.facts.registries():
                self._register(container_v, target, value, fr)
                return
            if isinstance(container_v, IterV) and container_v.is_list and not isinstance(target.slice, ast.Slice) and still_describes(container_v, [value]):
                return  # an item of a list of unknown length replaced by one its element describes
            # item assignment on a dict or list: every holder of it sees the change; the
            # name it was stored through is rebound to what it now holds
            mark_changed_in_place(container_v)
            if isinstance(target.value, ast.Subscript) and isinstance(target.slice, ast.Constant) and isinstance(container_v, DictV):
                self.rebind_path(target.value, DictV(with_key(container_v.items, target.slice.value, value), container_v.why), fr)
            elif isinstance(target.value, ast.Name) and fr.state is not None and target.value.id in fr.state:
                container = fr.state[target.value.id]
                if isinstance(container, (DictV, TupleV)):
                    key_v = self.ev(target.slice, fr)
                    ok, key = const_value(key_v)
                    if not self.held_once([container], fr):
                        self.forget_holders(container, fr)
                    elif ok and isinstance(container, DictV) and not fr.branch_depth:
                        fr.state[target.value.id] = DictV(with_key(container.items, key, value), container.why)
                    elif ok and isinstance(container, TupleV) and container.is_list and type(key) is int and -len(container.items) <= key < len(container.items) and not fr.branch_depth:
                        # `widths[1] = (0, pad)` on a list built just before (`[(0, 0)] * x.ndim`)
                        listed = list(container.items)
                        listed[key] = value
                        fr.state[target.value.id] = TupleV(tuple(listed), True, container.why)
                    else:
                        fr.state[target.value.id] = UNKNOWN
                elif isinstance(container, UnknownV) and container.diff and not value.diff:
                    # `inner["probe"] = stop_gradient(inner["probe"])` in differentiated
                    # params not known key by key: which keys keep their tangents is not
                    # known (probe 65b's c17)
                    fr.state[target.value.id] = UnknownV(False, container.why)
                    fr.ctx = fr.ctx.reach_unknown()
        elif isinstance(target, ast.Starred):
            self.assign(target.value, UNKNOWN, fr, node)

    def forget_array(self, held: ast.expr, array: ArrayV, fr: Frame, node: ast.AST) -> None:
        """A NumPy array changed in place (`.shape = ...`, `.resize(...)`): the name or
        attribute that holds it is rebound to an array of unknown shape and dtype."""
        self.mutations += 1
        if isinstance(held, (ast.Name, ast.Attribute)):
            self.assign(held, ArrayV(None, None, array.diff, array.why), fr, node)

    def held_once(self, objects: Sequence[Value], fr: Frame) -> bool:
        """Is each of `objects` (a list or dict changed in place, and the dicts holding it
        down a path) held once in sight: by one name of the frame, or by the one dict
        above it?  A second name (`b = a`; two calls a memo answered with one object), a
        container or an object holding it too, or a module global seen from a function,
        and a change made through one name must not be told to the others as a new
        object (probe 86a: an alias appended to after the loop; a section of a config
        changed through its alias, then through the config).  Past _MAX_HOLDER_SCAN
        values looked at: not known, so not once.  (A closure's name is not in the frame:
        held there once, as far as the frame can tell.)"""
        wanted = {id(obj): 0 for obj in objects}
        seen: set[int] = set()
        budget = [_MAX_HOLDER_SCAN]

        def visit(value: Value, depth: int) -> bool:
            if id(value) in wanted:
                wanted[id(value)] += 1
            if id(value) in seen or depth > 4:
                return True
            seen.add(id(value))
            budget[0] -= 1
            if budget[0] < 0:
                return False
            if isinstance(value, (TupleV, SetV)):
                return all(visit(item, depth + 1) for item in value.items)
            if isinstance(value, IterV):
                return visit(value.element, depth + 1)  # (the object each item stands for)
            if isinstance(value, DictV):
                return all(visit(item, depth + 1) for _, item in value.items)
            if isinstance(value, InstanceV):
                return all(visit(item, depth + 1) for item in list(value.attrs.values()))
            if isinstance(value, BoundMethodV):
                return visit(value.self_value, depth + 1)  # `push = ids.append` (probe 87a)
            return True

        scopes = [fr.state or {}]
        if fr.func is not None and fr.module.namespace is not fr.state:
            scopes.append(fr.module.namespace)
        for scope in scopes:
            for held in list(scope.values()):
                if not visit(held, 0):
                    return False
        return all(count <= 1 for count in wanted.values())  # (0: reached through a closure's name)

    def forget_holders(self, obj: Value, fr: Frame) -> None:
        """After a change in place not followed: the frame's names for `obj` are Unknown."""
        for name, held in list((fr.state or {}).items()):
            if held is obj:
                fr.state[name] = UNKNOWN.tainted(obj.diff)  # type: ignore[index]

    def rebind_path(self, expr: ast.expr, value: Value, fr: Frame) -> bool:
        """Rebind `expr`, a name or a chain of literal keys from a name holding dicts
        (`cfg["model"]`), to `value`: the name gets dicts holding it, one level at a time
        (probe 85a: `cfg["model"]["seq_len"] = 63`, `cfg["model"].update(...)` on a deep
        copy).  The dicts changed in place were marked so before: their other holders (a
        shallow copy's original) read them as unknown.  False: not such a path."""
        keys: list[object] = []
        while isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and len(keys) < 5:
            keys.append(expr.slice.value)
            expr = expr.value
        if not isinstance(expr, ast.Name) or fr.state is None or expr.id not in fr.state or fr.branch_depth:
            return False
        root = fr.state[expr.id]
        keys.reverse()  # outermost first
        chain: list[DictV] = []
        held: Value | None = root
        for key in keys:
            if not isinstance(held, DictV):
                return False
            chain.append(held)
            held = held.get(key)
        # the dicts down the path (the root's name holds the first) and what they lead to
        path = [*chain, held] if keys else [root]
        if not self.held_once([obj for obj in path if obj is not None], fr):
            self.forget_holders(root, fr)
            return True  # (changed, not followed: the names for it are Unknown)
        if not keys:
            fr.state[expr.id] = value
            return True
        rebuilt = value
        for outer, key in zip(reversed(chain), reversed(keys)):
            rebuilt = DictV(with_key(outer.items, key, rebuilt), outer.why)
        fr.state[expr.id] = rebuilt
        return True

    def _register(self, registry: DictV, target: ast.Subscript, value: Value, fr: Frame) -> None:
        """`_MODELS[name] = cls` in a function, into a module's registry (ScopeFacts.
        registries): in a run the program makes (a decorator applied at import, a call
        in order), the dict itself gains the entry, as Python's every holder of it sees.
        A key given two different values is not known; one not known makes the whole
        dict so.  A generic run adds nothing (no program makes it), but a key it names
        that is there is not known any more."""
        ok, key = const_value(self.ev(target.slice, fr))
        if fr.generic:
            if ok and registry.get(key) is not None:
                store_in_place(registry, key, UNKNOWN)  # (a key it names: set again at a time not known)
            return
        if not ok or registry.changed_in_place:
            mark_changed_in_place(registry)
            return
        running = self.module_stack[-1] if self.module_stack else fr.module
        if self.main_arm_modules and self.main_arm_modules[-1] is running:
            # a script's main arm registers for that program alone, which the analysis
            # does not tell apart from the others, and not where the module is imported
            # (probe 53a): left out
            return
        if running is not fr.module and not _runs_as_a_program(running) and not self._imported_by_a_run_module(running):
            # an entry file the analysis runs on its own, which the program may never
            # import (probe 52a: a registration nothing imports, a KeyError where it runs)
            self.pending_registrations.setdefault(id(registry), []).append((key, value, running))
            return
        self._store_registration(registry, key, value)

    def _store_registration(self, registry: DictV, key: object, value: Value) -> None:
        old = registry.get(key)
        store_in_place(registry, key, value if old is None or _same_value(old, value) else UNKNOWN)
        self.globals_epoch += 1  # calls memoised before may have read the dict without it

    def registry_item(self, registry: DictV, key: object) -> Value | None:
        """`REGISTRY[key]` where the key is not there yet: the modules that import the
        registry's module may add it when they run (`@register("vit")` in models/vit.py,
        which a package __init__ imports for that alone): the analysis runs a submodule,
        and a reached module's definitions, when first used.  They run now, decorated
        definitions included, and the key is looked up again (probe 50b)."""
        owner = self.registries.get(id(registry))
        if owner is None or owner[0] is not registry:
            return None
        pending = self.pending_registrations.get(id(registry), [])
        for held in list(pending):
            if self._imported_by_a_run_module(held[2]):
                pending.remove(held)
                self._store_registration(registry, held[0], held[1])
        for importer in self.project.importers_of(owner[1]) or self._parsed_importers(owner[1]):
            if importer.state == "new" and not self._imported_by_a_run_module(importer):
                continue  # (a module no analysed program imports: its registrations do not happen)
            if importer.state == "new":
                self.module_namespace(importer)
            for stmt in list(importer.tree.body):
                # a reached module's decorated definitions run when first used: their
                # decorators (the registration) run now
                held = importer.namespace.get(stmt.name) if isinstance(stmt, LazyDef) and stmt.text.lstrip().startswith("@") else None
                if isinstance(held, LazyDefV) and held.node is stmt:
                    self.materialize(held)
        return registry.get(key)

    def _imported_by_a_run_module(self, module: ModuleInfo) -> bool:
        """Does a module that has run (or runs now) import `module`, so that Python would
        have run it at that import (probe 52a: a registration in a file nothing imports
        was taken, where the program meets a KeyError)?"""
        if module.imported:
            return True
        # each module's imports are read once (probe cost): all of them once it has run,
        # its top-level ones while it has not
        pending = [info for info in self.project.parsed if info.state != "new" and id(info) not in self._imports_indexed]
        pending += self._imported_not_indexed
        self._imported_not_indexed = []
        while pending:
            info = pending.pop()
            ran = info.state != "new"
            if id(info) in (self._imports_indexed if ran else self._top_imports_indexed):
                continue
            (self._imports_indexed if ran else self._top_imports_indexed).add(id(info))
            for found in self._modules_imported(info, not ran):
                if found is not info and id(found) not in self._imported_by_run:
                    self._imported_by_run.add(id(found))
                    if found.state == "new":
                        # not run by the analysis, but by Python at that import, with its
                        # own top-level imports (`import pkg`, whose __init__ imports the
                        # registering module: probe 92d)
                        self.project.load(found)
                        pending.append(found)
        return id(module) in self._imported_by_run

    def _modules_imported(self, info: ModuleInfo, top_level: bool = False) -> Iterator[ModuleInfo]:
        """The project modules the import statements of `info` name (a `from pkg import
        sub`'s package and submodule both): with `top_level`, those it certainly runs when
        it is imported; else those of functions too, but not those under a module-level
        `if` that its run did not take (`if TYPE_CHECKING:`, a flag that is False: probe
        93a; an import statement run reports itself: note_import_run)."""
        if top_level:
            statements = _top_level_imports(info.tree)
        else:
            conditional = _conditional_imports(info.tree)
            statements = [stmt for stmt in info.facts.imports() if stmt not in conditional] if conditional else info.facts.imports()
        for stmt in statements:
            yield from self._modules_named(info, stmt)

    def _modules_named(self, info: ModuleInfo, stmt: ast.Import | ast.ImportFrom) -> Iterator[ModuleInfo]:
        if isinstance(stmt, ast.ImportFrom):
            base = self.project.from_base(info, stmt)
            named = [base, *(f"{base}.{alias.name}" if base else alias.name for alias in stmt.names)]
        else:
            named = [self.project.absolute_import(info, alias.name) for alias in stmt.names]
        for name in named:
            found = self.project.find(name)
            if found is not None:
                yield found

    def note_import_run(self, stmt: ast.Import | ast.ImportFrom, fr: Frame) -> None:
        """An import under a module-level `if` that the analysis runs: the modules it
        names count as imported by a module that ran (_modules_imported leaves it out)."""
        # (an arm the analysis cannot decide, or a module's main arm, which does not run
        # where the module is imported: probe 94a)
        if fr.func is None and fr.branch_depth == 0 and not fr.main_arm and stmt in _conditional_imports(fr.module.tree):
            for found in self._modules_named(fr.module, stmt):
                if found is not fr.module and id(found) not in self._imported_by_run:
                    self._imported_by_run.add(id(found))
                    self._imported_not_indexed.append(found)

    def _parsed_importers(self, module: ModuleInfo) -> list[ModuleInfo]:
        """The parsed modules whose imports name `module` (where no project scan said who
        imports what: modules handed to `analyse` together)."""
        if self.project.imported_by:
            return []
        return [info for info in self.project.parsed if info is not module and any(found is module for found in self._modules_imported(info))]

    def assign_unpack(self, targets: Sequence[ast.expr], value: Value, fr: Frame, node: ast.AST) -> None:
        items = self.api.unpack(self, value, len(targets), any(isinstance(t, ast.Starred) for t in targets), node, fr)
        if items is None:
            for t in targets:
                self.assign(t, UNKNOWN.tainted(value.diff), fr, node)
            return
        star_index = next((i for i, t in enumerate(targets) if isinstance(t, ast.Starred)), None)
        if star_index is None:
            for t, v in zip(targets, items):
                self.assign(t, v, fr, node)
            return
        n_after = len(targets) - star_index - 1
        for t, v in zip(targets[:star_index], items[:star_index]):
            self.assign(t, v, fr, node)
        middle = items[star_index : len(items) - n_after]
        star_target = targets[star_index]
        assert isinstance(star_target, ast.Starred)
        self.assign(star_target.value, TupleV(tuple(middle), True), fr, node)
        for t, v in zip(targets[len(targets) - n_after :], items[len(items) - n_after :]):
            self.assign(t, v, fr, node)

    def s_assign(self, stmt: ast.Assign, fr: Frame) -> None:
        value = self.ev(stmt.value, fr)
        call = stmt.value
        if self.cli_apps_seen and isinstance(call, ast.Call) and (isinstance(call.func, ast.Name) or isinstance(call.func, ast.Attribute) and call.func.attr in ("main", "run")) and cli_commands.exits(self.ev(call.func, fr), call):
            fr.state = None  # (`status = main([...])` in click's standalone mode: the program ends, probe 135a)
            return
        if (held := dict_of(stmt.value)) is not None and not (isinstance(value, DictV) and getattr(value, "view_of", None) is not None):
            self._stores_unspelled(held, None, fr)  # `d = obj.__dict__`: written through d where we cannot follow it (probe 146a)
        for target in stmt.targets:
            self.assign(target, value, fr, stmt)
        if isinstance(target := stmt.targets[0], ast.Name) and (fr.flags is not None or guards.is_flag_test(stmt.value)):
            self._note_flag(target.id, stmt.value, value, fr)
        self.api.learn_rank_from_unpacking(self, stmt, value, fr)

    def s_annassign(self, stmt: ast.AnnAssign, fr: Frame) -> None:
        if stmt.value is None:
            return
        value = self.ev(stmt.value, fr)
        if isinstance(value, (UnknownV, OpaqueV)) and isinstance(stmt.target, ast.Name):
            seeded = self.seed_from_annotation(stmt.annotation, stmt.target.id, fr.module)
            if seeded is not None:
                value = seeded
        self.assign(stmt.target, value, fr, stmt)

    def s_augassign(self, stmt: ast.AugAssign, fr: Frame) -> None:
        current = self.ev(_as_load(stmt.target), fr)
        operand = self.ev(stmt.value, fr)
        if isinstance(current, InstanceV):
            self.assign(stmt.target, self._inplace_dunder(current, stmt, operand, fr), fr, stmt)
            return
        value = self.api.binop(self, stmt.op, current, operand, stmt, fr)
        if value is not current and (isinstance(current, (DictV, SetV)) or is_mutable_list(current)) and fr.state is not None:
            # `lens += [512]`, `cfg |= {...}`: a list or dict is changed in place.  Held by
            # another name too (`b` after `a = b = [511]`, or two calls a memo answered with
            # one object: which, not known), every name for it is Unknown; other holders
            # (attributes, callers) see it change
            self.mutations += 1
            if not self.held_once([current], fr):
                self.forget_holders(current, fr)
                value = UNKNOWN.tainted(value.diff)
            mark_changed_in_place(current)
        self.assign(stmt.target, value, fr, stmt)

    def _inplace_dunder(self, obj: InstanceV, stmt: ast.AugAssign, operand: Value, fr: Frame) -> Value:
        """`acc += 1` on an object of the analysed code: its `__iadd__` (or the method
        of that operator) as called, which may change it; without one Python falls back
        on `__add__`, a new object, leaving it as it is.  A library base may have one
        we cannot see: the object may have changed."""
        method = obj.cls.lookup(f"__i{_DUNDER_NAMES.get(type(stmt.op), '?')}__")
        if isinstance(method, FunctionV):
            return self.call(BoundMethodV(method, obj), [operand], {}, False, stmt, fr)
        if obj.cls.external_bases():
            self.mutations += 1
            obj.forget()
        return UNKNOWN

    def s_expr(self, stmt: ast.Expr, fr: Frame) -> None:
        if not isinstance(stmt.value, ast.Constant):  # a docstring does nothing
            self.ev(stmt.value, fr)
            call = stmt.value
            if isinstance(call, ast.Call) and (isinstance(call.func, ast.Name) or isinstance(call.func, ast.Attribute) and (call.func.attr in NO_RETURN_NAMES or self.cli_apps_seen and call.func.attr in ("main", "run"))):
                # (any plain name: `from sys import exit as bye; bye(0)`, probe 47c)
                callee = self.ev(call.func, fr)
                if self.api.never_returns(self, callee) or cli_commands.exits(callee, call):
                    fr.state = None  # `pytest.skip(...)`, `sys.exit(...)`, `main()` of a click command: control ends here
                    return
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ("applymarker", "add_marker") and len(call.args) == 1:
                # `request.applymarker(pytest.mark.xfail(raises=NotImplementedError))` for the odd
                # rows: what it expects is what the rest of the test may raise (probe 38b)
                from jax_cudnn_lint.shape_inference.jax_api import ExtCallDecoratorV

                mark = self.ev(call.args[0], fr)
                if isinstance(mark, ExtCallDecoratorV) and mark.qualname == case_rows.XFAIL:
                    fr.ctx = with_handled(fr.ctx, fr.ctx.handled | relevant(self._xfail_expects(mark.args, mark.kwargs, fr.module)))
                elif isinstance(mark, ExternalV) and mark.qualname == case_rows.XFAIL:
                    fr.ctx = with_handled(fr.ctx, fr.ctx.handled | relevant(EVERY_ERROR))
            elif isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)) and name_of(call.func) == "assume" and len(call.args) == 1:
                assumed = self.ev(call.func, fr)
                if isinstance(assumed, ExternalV) and assumed.qualname == "hypothesis.assume":
                    # hypothesis drops an input (an explicit @example too) whose assumption
                    # fails, as an assert would end the path (probe 38b)
                    if self.api.truth(self.ev(call.args[0], fr)) is False:
                        fr.state = None
                    else:
                        self.api.refine(self, call.args[0], True, fr)

    def s_return(self, stmt: ast.Return, fr: Frame) -> None:
        value = self.ev(stmt.value, fr) if stmt.value is not None else ConstV(None)
        fr.returns.append(value)
        if fr.nested:
            self.analyse_nested(fr)
        fr.state = None
        if fr.ctx.config_precision is not None:
            if fr.exits is None:
                fr.exits = []
            fr.exits.append(fr.ctx)

    def s_raise(self, stmt: ast.Raise, fr: Frame) -> None:
        fr.state = None

    def s_pass(self, stmt: ast.stmt, fr: Frame) -> None:
        return

    def s_if(self, stmt: ast.If, fr: Frame) -> None:
        truth = self.test_truth(stmt.test, fr, dicts=True)
        if truth is True:
            self.exec_block(stmt.body, fr)
            return
        if truth is False:
            self.exec_block(stmt.orelse, fr)
            return
        self.branch(fr, [(stmt.body, stmt.test, True), (stmt.orelse, stmt.test, False)])

    def _guard_origins(self, test: ast.expr, fr: Frame) -> frozenset[Step]:
        """The origins of the known ints an undecided test reads (`t in eval_only`,
        `cfg.t == eval_len`, `x.shape[1] in short`, a flag set from one): which arm runs
        may depend on them, so a length made from one is not certain in either (a guard
        keeping odd lengths out of a grad arm through a set the analysis could not read:
        probes 101a, 103a, 105a)."""
        state = fr.state
        if state is None:
            return frozenset()
        reads = self.test_reads.get(test)
        if reads is None:
            reads = self.test_reads[test] = guards.test_reads(test)
        names, larger = reads
        found: set[Step] = set()
        flags = fr.flags
        for name in names:
            held = state.get(name)
            if isinstance(held, IntV):
                if held.dim.value is not None:
                    found.update(held.dim.why)
            elif flags is not None and held is not None and (flag := flags.get(name)) is not None and flag[0] is held:
                found.update(flag[1])
        if larger:
            mark = len(self.events)
            for node in larger:
                held = self.ev(node, fr)
                if isinstance(held, IntV) and held.dim.value is not None:
                    found.update(held.dim.why)
            del self.events[mark:]  # (a property read again: its calls were recorded the first time)
        return frozenset(found)

    def _note_flag(self, name: str, test: ast.expr, value: Value, fr: Frame) -> None:
        """`eval_only = t in EVAL`: a later `if eval_only:` reads what the test read."""
        if fr.flags is not None:
            fr.flags.pop(name, None)
        if guards.is_flag_test(test) and self.api.truth(value) is None:
            origins = self._guard_origins(test, fr)
            if origins:
                if fr.flags is None:
                    fr.flags = {}
                fr.flags[name] = (value, origins)

    def branch(self, fr: Frame, arms: Sequence[tuple[Sequence[ast.stmt], ast.expr | None, bool]], bound: Sequence[dict[str, Value]] = ()) -> None:
        """Run each arm (its body, under its test taken with its sense) from the same
        state and join where they end; `bound`: names each arm starts with (a match case's
        captures)."""
        start = fr.state
        if start is None:
            return
        merged: State | None = None
        first = True
        start_ctx = fr.ctx
        live: list[Ctx] = []  # each arm's context where it falls through
        falling: list[frozenset[Guard]] = []  # and what the test guards in it
        jumps_only = True  # every other arm guarded by the test ends by a jump, not a raise
        read_by_test: dict[ast.expr, frozenset[Step]] = {}
        changed = False  # an arm changed the context (jax.config.update): join what they left
        fr.branch_depth += 1
        outer_made_since, fr.made_since = fr.made_since, next_born()
        outer_main_arm, fr.main_arm = fr.main_arm, fr.func is None and is_main_guard(arms[0][1])
        if fr.main_arm and not outer_main_arm:
            self.main_arm_modules.append(fr.module)
        # a module's top-level arm runs in the module's namespace itself: the functions it
        # calls read the globals it rebinds (`if __name__ == "__main__": SEQ = 256; train()`)
        in_namespace = fr.anchor is not None and fr.anchor is fr.module.namespace and not fr.is_class and start is fr.anchor
        before = dict(start) if in_namespace else start
        try:
            for i, (body, test, sense) in enumerate(arms):
                if in_namespace and fr.anchor is not None:
                    fr.anchor.clear()
                    fr.anchor.update(before)
                    fr.state = fr.anchor
                else:
                    fr.state = dict(start)
                if bound:
                    fr.state.update(bound[i])
                if fr.ctx is not start_ctx:
                    changed = True
                    fr.ctx = with_config(fr.ctx, start_ctx.x64, start_ctx.config_precision)
                guarded = frozenset[Guard]()
                if test is not None:
                    origins = read_by_test.get(test)
                    if origins is None:
                        origins = read_by_test[test] = self._guard_origins(test, fr)  # (before the arm's refinement: the same for each arm)
                    guarded = frozenset((origin, id(test), sense) for origin in origins)
                    self.api.refine(self, test, sense, fr)
                arm_ctx = fr.ctx = dataclasses.replace(fr.ctx, guarded=fr.ctx.guarded | guarded) if guarded - fr.ctx.guarded else fr.ctx
                self.exec_block(body, fr)
                if arm_ctx is not start_ctx:
                    # (what the arm guarded ends with it; a context it changed otherwise stays)
                    fr.ctx = start_ctx if fr.ctx is arm_ctx else dataclasses.replace(fr.ctx, guarded=start_ctx.guarded)
                if _falls_through(fr):
                    live.append(fr.ctx)
                    falling.append(guarded)
                elif not (body and isinstance(body[-1], _JUMPS)):
                    jumps_only = False  # (an arm that raises: what follows the `if` is not guarded by it)
                ended: State | None = getattr(fr, "state")  # (an arm may end it: a return, a raise)
                if in_namespace and ended is not None:
                    ended = dict(ended)
                merged = ended if first else join_states(merged, ended)
                first = False
        finally:
            fr.branch_depth -= 1
            fr.made_since = outer_made_since
            if fr.main_arm and not outer_main_arm:
                self.main_arm_modules.pop()
            fr.main_arm = outer_main_arm
            if in_namespace and fr.anchor is not None:
                fr.anchor.clear()
                fr.anchor.update(before)
        if changed or fr.ctx is not start_ctx:
            fr.ctx = joined_config(fr.ctx, live, UNKNOWN)
        if len(falling) == 1 and falling[0] and jumps_only and len(arms) > 1:
            # `if t in eval_only: continue` (or `return`, `break`) with the rest of the body
            # after it: that rest is the other arm, guarded by the test to where the jump
            # leads (the loop's pass, the function's end; probe 105a)
            fr.ctx = dataclasses.replace(fr.ctx, guarded=fr.ctx.guarded | falling[0])
        fr.state = merged
        fr.settle()

    @staticmethod
    def _guards_end(fr: Frame, guarded: frozenset[Guard]) -> None:
        """A loop's pass ends what a jump in it guarded (branch: `if t in E: continue`)."""
        if fr.ctx.guarded != guarded:
            fr.ctx = dataclasses.replace(fr.ctx, guarded=guarded)

    def s_assert(self, stmt: ast.Assert, fr: Frame) -> None:
        if self.api.truth(self.ev(stmt.test, fr)) is False:
            fr.state = None  # AssertionError: nothing after it runs on this path
            return
        self.api.refine(self, stmt.test, True, fr)

    def loop(self, fr: Frame, body: Sequence[ast.stmt], orelse: Sequence[ast.stmt], bind: Callable[[Frame], None], exits: bool = True, runs: bool = False) -> None:
        """A loop run to its widened state: the body's end and its `continue`s lead back
        to the head, a `break` past the `else` (`exits`: the loop may also end by its
        test or iterator, running the `else`; not so for `while True`; `runs`: the body
        runs at least once, so that ending so comes after a pass)."""
        start = fr.state
        if start is None:
            return
        mark = len(self.events)
        start_ctx = fr.ctx
        fr.branch_depth += 1
        outer_made_since, fr.made_since = fr.made_since, _ALL_OLDER  # a later pass writes to what an earlier one made
        breaks: list[State] = []
        continues: list[State] = []
        fr.jumps.append((breaks, continues))
        end: State | None = None
        try:
            state: State | None = dict(start)
            for attempt in range(3):
                del self.events[mark:]
                # each pass starts as the first iteration does: a `jax.config.update` in
                # the body has not run yet
                if fr.ctx is not start_ctx:
                    fr.ctx = with_config(fr.ctx, start_ctx.x64, start_ctx.config_precision)
                    self._guards_end(fr, start_ctx.guarded)
                fr.state = dict(state) if state is not None else None
                if fr.state is None:
                    break
                bind(fr)
                breaks.clear()
                continues.clear()
                self.exec_block(body, fr)
                end = joined_with(fr.state, continues)
                widened = join_states(state, end)
                if widened is not None and state is not None and _states_equal(widened, state):
                    break
                if attempt == 1 and widened is not None and state is not None:
                    widened = {k: (v if k in state and _same_value(state[k], v) else UNKNOWN.tainted(v.diff)) for k, v in widened.items()}
                state = widened
            fr.state = None if not exits else end if runs else join_states(start, state)
        finally:
            fr.branch_depth -= 1
            fr.made_since = outer_made_since
            fr.jumps.pop()
        if fr.ctx is not start_ctx:
            self._guards_end(fr, start_ctx.guarded)
            fr.ctx = joined_config(fr.ctx, [start_ctx, fr.ctx], UNKNOWN)  # the body may run no time
        if orelse and fr.state is not None:
            fr.settle()
            self.exec_block(orelse, fr)
        fr.state = joined_with(fr.state, breaks)
        fr.settle()

    def s_for(self, stmt: ast.For | ast.AsyncFor, fr: Frame) -> None:
        iterable = self.ev(stmt.iter, fr)
        if isinstance(iterable, ArrayV) and isinstance(stmt.iter, ast.Call):
            iterable = self._numpy_arange_as_range(stmt.iter, fr) or iterable
        empty_range = isinstance(iterable, self.api.RangeV) and self.api.known_items(iterable, 0) == []
        source = stmt.iter
        while isinstance(source, ast.IfExp) and (truth := self.test_truth(source.test, fr)) is not None:
            source = source.body if truth else source.orelse  # `sys.argv[1:] if argv is None else argv` (probe 145b)
        # a list no other name holds: a display, a comprehension, or a slice's new list
        # (`for arg in argv[1:]` on a run without arguments: MaxText's override loop, probe 114d)
        fresh = isinstance(source, (ast.List, ast.Tuple, ast.ListComp)) or isinstance(source, ast.Subscript) and isinstance(source.slice, ast.Slice)
        # or a parameter (or new list) the function only iterates over (`main(sys.argv[1:])`
        # looping over its `overrides`, `*parents, leaf = path.split(".")`: nothing here can
        # append to it, probes 117b, 119b)
        fresh = fresh or isinstance(source, ast.Name) and isinstance(iterable, TupleV) and not iterable.changed_in_place and self._only_iterated_parameter(source.id, fr)
        # or the list a parse made (`for item in args.overrides:`, a `nargs="*"` positional
        # none were given to: probe 128b), which no code changed
        fresh = fresh or isinstance(source, ast.Attribute) and isinstance(iterable, TupleV) and not iterable.changed_in_place and self._parsed_namespace(source.value, fr)
        if empty_range or isinstance(iterable, (TupleV, DictV)) and not iterable.items and not (isinstance(iterable, TupleV) and iterable.is_list and not fresh):
            # nothing to iterate over (an empty **kwargs, `()`, `[]`, `range(0)`): the body
            # never runs.  Not an empty list held by a name: another name for it may have
            # appended to it
            if stmt.orelse:
                self.exec_block(stmt.orelse, fr)
            return
        if self._loop_changes_its_list(stmt, fr):
            iterable = UnknownV(iterable.diff)  # `for s in sizes: sizes.append(...)`: the loop sees what it appends
        items = self._unrolled_items(iterable)
        if isinstance(iterable, IterV) and iterable.items is not None and iterable.stamp == self.mutations and isinstance(stmt.iter, ast.Call):
            # a generator's few yields, in order, from a generator made here (one held by a
            # name may have been advanced or used up: probe 107a)
            items = list(iterable.items)
        if items is None and isinstance(iterable, ArrayV) and iterable.shape and 0 < (iterable.shape[0].value or 0) <= _MAX_UNROLLED_LOOP:
            # `for k in jax.random.split(key, n_layers):` building a list of layers: one
            # pass per row, so the list holds them (probe 100d: widened, the appended layers
            # were forgotten and the model's lengths with them)
            items = self.api.unpack(self, iterable, None, False, stmt, fr)
        if isinstance(stmt, ast.For) and items is not None:
            # `for seq_len in (128, 255):`, `for stage in range(3):` run each item: one
            # pass per item, in order (a funnel that halves T each stage is exact)
            self._unrolled(stmt, items, fr)
            return
        element = self.api.iter_element(self, iterable, stmt, fr)
        appending = self._appending_loop(stmt, iterable, fr)

        def bind(frame: Frame) -> None:
            self.assign(stmt.target, element, frame, stmt)

        walked = self._walked_objects(stmt, fr)
        self.loop(fr, stmt.body, stmt.orelse, bind, runs=items is not None)
        if appending is not None and fr.state is not None:
            self._appended(stmt, element, *appending, fr)
        for name, before in walked:
            if fr.state is None or fr.state.get(name) is not before:
                # the name may still hold the object, or what the walk reached inside it,
                # both unknown now: a write through the name changes them where we cannot
                # see (a dotted-path setter, `node[leaf] = value`: probe 119b)
                _changed_by_unseen_code(before, self.api.is_frozen_class)

    def _walked_objects(self, stmt: ast.For | ast.AsyncFor, fr: Frame) -> list[tuple[str, Value]]:
        """The names a loop walks down an object with (`node = node[p]`, `node =
        getattr(node, p)`), holding a dict or an object before it, that the function
        writes through after the loop (`node[leaf] = value`): with what they held."""
        if fr.state is None:
            return []
        scope: ast.AST = fr.func.node if fr.func is not None else fr.module.tree
        found: list[tuple[str, Value]] = []
        names = self.walking_loops.get(stmt)
        if names is None:
            names = self.walking_loops[stmt] = tuple(_walk_names(stmt))
        for name in names:
            before = fr.state.get(name)
            if isinstance(before, (InstanceV, DictV)) and _written_through_after(scope, name, stmt):
                found.append((name, before))
        return found

    def _appending_loop(self, stmt: ast.For | ast.AsyncFor, iterable: Value, fr: Frame) -> tuple[ast.Call, str, TupleV, int] | None:
        """`for i in range(127): ids.append(f(i))` over more items than are run one by one:
        a body that appends one item to a list each pass, whatever else it does, and
        leaves the loop no other way.  (The append, the list's name, the list before, the
        passes.)"""
        if not isinstance(stmt, ast.For) or stmt.orelse or fr.state is None:
            return None
        count = self.api.known_length(iterable)
        if count is None or not 0 < count <= _MAX_WIDENED_ITEMS:
            return None
        appends = [call for s in stmt.body if isinstance(s, ast.Expr) and (call := _one_append(s.value)) is not None]
        if len(appends) != 1:
            return None
        call = appends[0]
        receiver = cast(ast.Attribute, call.func)
        name = cast(ast.Name, receiver.value).id
        held = fr.state.get(name)
        if not (isinstance(held, TupleV) and held.is_list) or len(held.items) + count > _MAX_WIDENED_ITEMS or not self.held_once([held], fr):
            return None
        if self.named_by_nested_code(name, fr):
            return None  # (a closure made before the loop may change it after: probe 87a)
        for node in (n for s in stmt.body for n in ast.walk(s)):
            if isinstance(node, _LEAVES_A_PASS) or isinstance(node, ast.Name) and node.id == name and node is not receiver.value:
                return None  # (a jump, a handler, or the list used another way: a call given it)
            if isinstance(node, ast.Attribute) and node.attr in _LENGTH_CHANGERS and node is not receiver:
                return None  # (another list changed: it may be this one under another name)
        return call, name, held, count

    def named_by_nested_code(self, name: str, fr: Frame) -> bool:
        """Does a function or lambda inside the running function (at module level: any
        function of the module) name `name`?  It may change the object the name holds at
        a time the frame does not see."""
        scope: ast.AST = fr.func.node if fr.func is not None else fr.module.tree
        key = (id(scope), name)
        found = self.named_by_nested.get(key)
        if found is None:
            nested = (n for n in ast.walk(scope) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, LazyDef)) and n is not scope)
            found = self.named_by_nested[key] = any(
                name in n.text if isinstance(n, LazyDef) else any(isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(n)) for n in nested
            )
        return found

    def _appended(self, stmt: ast.For | ast.AsyncFor, element: Value, call: ast.Call, name: str, before: TupleV, count: int, fr: Frame) -> None:
        """After an appending loop: the list with `count` more items, each what the appended
        expression gives in the loop's widened state with the loop's target bound to what
        describes every item it iterates over (Unknown where it calls code of ours or
        names a mutable object: one object would stand for many)."""
        item: Value = UNKNOWN
        if all(_pure_library_call(node) for node in ast.walk(call.args[0]) if isinstance(node, ast.Call)) and not any(isinstance(node, _NOT_REEVALUATED) for node in ast.walk(call.args[0])):
            mark = len(self.events)
            inner = Frame(fr.module, dict(fr.state or {}), fr.ctx, fr.func, fr.local_names, fr.closure, fr.generic)
            inner.branch_depth = 1
            self.assign(stmt.target, element, inner, stmt)
            found = self.ev(call.args[0], inner)
            del self.events[mark:]
            item = found if _immutable(found) else UNKNOWN.tainted(found.diff)
        why = (self.step(fr, stmt, f"{count} passes appending to {name}"),)
        self.assign_name(name, TupleV((*before.items, *(item,) * count), True, merge_why(before.why, why)), fr)

    def _numpy_arange_as_range(self, call: ast.Call, fr: Frame) -> Value | None:
        """`for start in np.arange(0, n, 1024)` over ints: NumPy's ints, iterated as a
        range's are (probe 77d: a document cut into chunks, the last one shorter); the
        step may be given by name (`step=63`: probe 78a)."""
        named = [k.arg for k in call.keywords]
        if named not in ([], ["step"]) or not 1 <= len(call.args) + len(named) <= 3 or named and len(call.args) != 2 or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        callee = self.ev(call.func, fr)
        if not isinstance(callee, ExternalV) or callee.qualname != "numpy.arange":
            return None
        args = [self.ev(a, fr) for a in (*call.args, *(k.value for k in call.keywords))]
        if not all(isinstance(a, IntV) for a in args):
            return None
        return self.api.call_external(self, "builtins.range", args, {}, False, call, fr)

    def _only_iterated_parameter(self, name: str, fr: Frame) -> bool:
        """Is `name` a parameter of the running function (or a new list it binds once)
        that its body uses only as what a `for` loop iterates over or `len()` counts, in
        no nested scope (_only_iterated)?"""
        func = fr.func.node if fr.func is not None else None
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        answer = self.only_iterated_parameters.get((func, name))
        if answer is None:
            answer = self.only_iterated_parameters[(func, name)] = _only_iterated(func, name)
        return answer

    def _parsed_namespace(self, node: ast.expr, fr: Frame) -> bool:
        held = self.ev(node, fr) if isinstance(node, ast.Name) else None
        return isinstance(held, InstanceV) and held.cls.qualname == argparse_seeds.NAMESPACE

    def _loop_changes_its_list(self, stmt: ast.For | ast.AsyncFor, fr: Frame) -> bool:
        """Does the body change a list the loop iterates over (`for s in sizes`, or
        through `enumerate(sizes)`, `zip(sizes, ...)`, `reversed(sizes)`)?"""
        changed = self.list_changing_loops.get(stmt)
        if changed is None:
            changed = self.list_changing_loops[stmt] = tuple(expr for expr in _iterated(stmt.iter) if _changes_in_place(stmt.body, expr))
        return any(is_mutable_list(self.ev(expr, fr)) for expr in changed)

    def _unrolled(self, stmt: ast.For, items: list[Value], fr: Frame) -> None:
        """A for loop over known items, one pass each: a `continue` goes on to the next
        item, a `break` past the `else`, which runs where the last pass ends."""
        breaks: list[State] = []
        continues: list[State] = []
        fr.jumps.append((breaks, continues))
        fr.unrolling += 1
        guarded = fr.ctx.guarded
        try:
            for item in items:
                if fr.state is None:
                    break
                self._guards_end(fr, guarded)
                self.assign(stmt.target, item, fr, stmt)
                continues.clear()
                self.exec_block(stmt.body, fr)
                fr.state = joined_with(fr.state, continues)
        finally:
            fr.jumps.pop()
            fr.unrolling -= 1
        self._guards_end(fr, guarded)
        if fr.state is not None and stmt.orelse:
            fr.settle()
            self.exec_block(stmt.orelse, fr)
        fr.state = joined_with(fr.state, breaks)
        fr.settle()

    def _unrolled_items(self, iterable: Value) -> list[Value] | None:
        """The items of a short literal tuple or list, or of a short range with known
        bounds, that a for loop runs one by one."""
        items: list[Value] | None = self.api.known_items(iterable, _MAX_UNROLLED_LOOP)
        if items is None and isinstance(iterable, TupleV) and len(iterable.items) <= _MAX_UNROLLED and all(isinstance(item, (FunctionV, PartialV)) for item in iterable.items):
            # functions (ablation variants, a test's matrix of steps): joined, none is known,
            # and the calls through the loop variable would not be followed (probe 47b)
            items = list(iterable.items)
        return items if items else None

    def s_while(self, stmt: ast.While, fr: Frame) -> None:
        """Pass by pass while the test is decided (`while t > 125: t //= 2` halves a
        known length to the end), at most _MAX_WHILE_PASSES passes; from the first
        pass whose test is not decided, the widened loop.  Inside a loop that is run
        pass by pass already, widened at once (nested, the passes would multiply)."""
        forever = isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)  # `while True:` ends only by a jump
        breaks: list[State] = []
        continues: list[State] = []
        fr.jumps.append((breaks, continues))
        decided = False
        fr.unrolling += 1
        guarded = fr.ctx.guarded
        try:
            # (one test more than passes: a loop of exactly _MAX_WHILE_PASSES passes ends
            # decided, probe 76a)
            # (`while True:` ends only by a jump, which a long body seldom decides: fewer)
            most = _MAX_FOREVER_PASSES if forever else _MAX_WHILE_PASSES
            for passes in range(most + 1 if fr.unrolling == 1 else 0):
                truth = None if fr.state is None else True if forever else self.test_truth(stmt.test, fr)
                if fr.state is None or truth is False:
                    decided = fr.state is not None or bool(breaks)
                    break
                if truth is None or passes == most:
                    break
                continues.clear()
                self.exec_block(stmt.body, fr)
                self._guards_end(fr, guarded)
                fr.state = joined_with(fr.state, continues)
                fr.settle()
        finally:
            fr.jumps.pop()
            fr.unrolling -= 1
        if decided or fr.state is None:
            if fr.state is not None and stmt.orelse:
                self.exec_block(stmt.orelse, fr)
        else:
            runs = self.test_truth(stmt.test, fr) is True
            # a test that assigns (`while (n := n + 1) < 256`) runs again at each pass's
            # head: its names are widened with the body's (probe 50c)
            walrus = any(isinstance(node, ast.NamedExpr) for node in ast.walk(stmt.test))

            def head(frame: Frame) -> None:
                if walrus:
                    self.ev(stmt.test, frame)

            self.loop(fr, stmt.body, stmt.orelse, head, exits=not forever, runs=runs)
        fr.state = joined_with(fr.state, breaks)
        fr.settle()

    def s_break(self, stmt: ast.Break, fr: Frame) -> None:
        if fr.jumps and fr.state is not None:
            fr.jumps[-1][0].append(dict(fr.state))  # (a copy: at module level the state may be the namespace itself)
            fr.state = None

    def s_continue(self, stmt: ast.Continue, fr: Frame) -> None:
        if fr.jumps and fr.state is not None:
            fr.jumps[-1][1].append(dict(fr.state))
            fr.state = None

    def s_with(self, stmt: ast.With | ast.AsyncWith, fr: Frame) -> None:
        saved = fr.ctx
        suppressing: list[tuple[ast.expr, Value | None]] = []  # (the context expression, the manager of ours)
        unsure: list[ast.expr] = []  # context managers that may swallow what the body raises (an ExitStack, a library's)
        for item in stmt.items:
            value = self.ev(item.context_expr, fr)
            fr.ctx = self.api.enter_context(self, value, fr.ctx, item, fr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, self._entered(value, stmt, fr), fr, stmt)
            context = item.context_expr
            # what made it, for a `@contextmanager` function or `suppress` under another name
            # (an object of the analysed code answers for itself: no second evaluation)
            maker = self.ev(context.func, fr) if isinstance(context, ast.Call) and isinstance(context.func, (ast.Name, ast.Attribute)) and not isinstance(value, InstanceV) else None
            if _is_suppress(context) or _suppressing_maker(maker) or _may_swallow(value) or maker is not None and _may_swallow(maker):
                suppressing.append((context, value if _may_swallow(value) else maker))
            elif not _never_swallows(value, maker):
                unsure.append(context)
                if isinstance(item.optional_vars, ast.Name):
                    # `stack.enter_context(suppress(NotImplementedError))` in an ExitStack's body
                    entered = [call.args[0] for call in _entered_contexts(stmt.body, item.optional_vars.id) if _is_suppress(call.args[0])]
                    fr.ctx = with_handled(fr.ctx, fr.ctx.handled.union(*(relevant(self._swallowed(inner, None, fr)) for inner in entered)))
                    for call in _entered_contexts(stmt.body, item.optional_vars.id):
                        inner = call.args[0]
                        if isinstance(inner, ast.Call) and (dotted_name(inner.func) or "").endswith(("default_matmul_precision", "enable_x64")):
                            # `stack.enter_context(jax.default_matmul_precision("float32"))`: from
                            # the block's start (probe 40b; a call before it in the block is read
                            # under it too)
                            fr.ctx = self.api.enter_context(self, self.ev(inner, fr), fr.ctx, item, fr)
        if fr.state is not None and suppressing:
            # `with contextlib.suppress(KeyError):` may leave its body at any statement;
            # one that swallows JAX's errors (NotImplementedError, ValueError, Exception)
            # handles what the body's calls raise
            fr.ctx = with_handled(fr.ctx, fr.ctx.handled.union(*(relevant(self._swallowed(context, value, fr)) for context, value in suppressing)))
            start = dict(fr.state)
            fr.branch_depth += 1
            outer_made_since, fr.made_since = fr.made_since, _ALL_OLDER
            try:
                self.exec_block(stmt.body, fr)
            finally:
                fr.branch_depth -= 1
                fr.made_since = outer_made_since
            after = self._after_suppress(start, fr.state, _stored_names_block(stmt.body))
            fr.state = after
        elif unsure and fr.state is not None:
            # the body ran as written; where it certainly raised (no return, break or
            # continue ended it), a context manager we cannot see may have swallowed it
            start = dict(fr.state)
            returned, jumped = len(fr.returns), [len(states) for pair in fr.jumps for states in pair]
            self.exec_block(stmt.body, fr)
            if getattr(fr, "state") is None and len(fr.returns) == returned and jumped == [len(states) for pair in fr.jumps for states in pair]:
                fr.state = self._after_suppress(start, None, _stored_names_block(stmt.body))
        else:
            self.exec_block(stmt.body, fr)
        # (what a jump in the body guarded goes on past the block: `with mesh: if t in E: return`)
        fr.ctx = saved if fr.ctx.guarded == saved.guarded else dataclasses.replace(saved, guarded=fr.ctx.guarded)

    def s_try(self, stmt: ast.Try, fr: Frame) -> None:
        start = fr.state
        if start is None:
            return
        if not stmt.finalbody and self._imports_jax_apis(stmt.body):
            # `try: from jax.nn import dot_product_attention as dpa / except ImportError:
            # dpa = None`: the APIs the rules are about exist in the JAX they judge, so
            # the handler's fallback never runs (probe 32b)
            self.exec_block(stmt.body, fr)
            self.exec_block(stmt.orelse, fr)
            return
        returned = len(fr.returns)
        jumped = tuple(len(states) for states in fr.jumps[-1]) if fr.jumps else ()
        start_ctx = fr.ctx
        fr.branch_depth += 1
        outer_made_since, fr.made_since = fr.made_since, _ALL_OLDER  # a handler sees what the body made, half done
        try:
            fr.state = dict(start)
            if stmt.handlers or stmt.finalbody:
                fr.ctx = with_handled(fr.ctx, start_ctx.handled | relevant(self._caught_by(stmt, fr)))
            self.exec_block(stmt.body, fr)
            fr.ctx = with_handled(fr.ctx, start_ctx.handled)
            self.exec_block(stmt.orelse, fr)
            after_body = fr.state
            merged = after_body
            body_ctx = fr.ctx
            live = [body_ctx] if _falls_through(fr) else []
            for handler in stmt.handlers:
                # an exception may leave the body at any point
                handler_state = join_states(start, after_body) or dict(start)
                for name in _stored_names_block(stmt.body):
                    handler_state[name] = UNKNOWN
                fr.state = handler_state
                fr.ctx = joined_config(body_ctx, [start_ctx, body_ctx], UNKNOWN)
                if handler.name:
                    self.assign_name(handler.name, UNKNOWN, fr)
                self.exec_block(handler.body, fr)
                if _falls_through(fr):
                    live.append(fr.ctx)
                merged = join_states(merged, fr.state) if merged is not None else fr.state
            fr.state = merged
            fr.ctx = joined_config(fr.ctx, live, UNKNOWN)
        finally:
            fr.branch_depth -= 1
            fr.made_since = outer_made_since
        fr.settle()
        if stmt.finalbody and jumped:
            self._finally_on_jumps(stmt.finalbody, fr, jumped)
            if any(isinstance(node, (ast.Break, ast.Continue)) for node in statements(stmt.finalbody)):
                # a jump in the finally block may drop what the body returned (it runs
                # there on the returned path's state, which is not kept): not certain
                fr.returns[returned:] = [UNKNOWN.tainted(value.diff) for value in fr.returns[returned:]]
        if stmt.finalbody:
            if any(isinstance(final, ast.Return) for final in stmt.finalbody) or (jumped and any(isinstance(final, (ast.Break, ast.Continue)) for final in stmt.finalbody)):
                # `finally: return ...` replaces what the body or a handler returned (one
                # it may skip, under an `if`, is joined with them as it runs); a
                # `finally: break` in a loop drops it
                del fr.returns[returned:]
            if fr.state is None:
                # the finally block runs, but control does not continue after it
                probe = Frame(fr.module, dict(start), fr.ctx, fr.func, fr.local_names, fr.closure, fr.generic)
                probe.yields = fr.yields
                probe.jumps = fr.jumps  # a `break` there leaves the loop from here
                self.exec_block(stmt.finalbody, probe)
                fr.returns.extend(probe.returns)
            else:
                self.exec_block(stmt.finalbody, fr)

    def _finally_on_jumps(self, finalbody: list[ast.stmt], fr: Frame, counts: tuple[int, ...]) -> None:
        """A `break` or `continue` in a try body or handler runs the finally block on
        its way out: the states it leaves with are those the block ends with."""
        for states, count in zip(fr.jumps[-1], counts):
            pending = states[count:]
            del states[count:]
            for state in pending:
                probe = Frame(fr.module, dict(state), fr.ctx, fr.func, fr.local_names, fr.closure, fr.generic)
                probe.yields = fr.yields
                self.exec_block(finalbody, probe)
                fr.returns.extend(probe.returns)
                if probe.state is not None:
                    states.append(probe.state)

    def _imports_jax_apis(self, body: Sequence[ast.stmt]) -> bool:
        """Is the block only imports of watched JAX APIs and of the JAX modules that hold
        them (absolute, no project module in between)?"""
        if not body:
            return False
        for stmt in body:
            if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
                names = [f"{stmt.module}.{alias.name}" for alias in stmt.names]
            elif isinstance(stmt, ast.Import):
                names = [alias.name for alias in stmt.names]
            else:
                return False
            for name in names:
                canonical = self.api.canonical(name)
                if not (self.watch(canonical) or canonical in _API_MODULES):
                    return False
        return True

    def _caught_by(self, stmt: ast.Try, fr: Frame) -> frozenset[str]:
        """The classes the handlers catch and carry on from (handlers.recovered), read as
        their names evaluate here (a module constant, an imported or local tuple), and a
        handler ending in a call that certainly never returns catches nothing.  Every
        error where `finally: return` drops it.  Cached per statement where that reading
        cannot differ (builtin class names, no logger-named call)."""
        if swallowed_by_finally(stmt):
            return EVERY_ERROR
        found = self.caught_by_try.get(stmt)
        if found is None:
            retried, every_frame = self._tried_again(stmt, fr)
            if every_frame and all(_plain_handler(handler) for handler in stmt.handlers):
                found = self.caught_by_try[stmt] = recovered_by(stmt.handlers, retried=retried)
            else:
                found = recovered_by(stmt.handlers, lambda handler: self._classes(handler.type, fr), lambda end: self._ends_handler(end, fr), retried)
        return found

    def _tried_again(self, stmt: ast.Try, fr: Frame) -> tuple[bool, bool]:
        """handlers.tried_again, where a handler of any error only logs, and whether
        that holds in every frame (cached then): not where the loop's options were read
        here (`for name in table:` over a parameter)."""
        if not any(handler.type is None or (isinstance(handler.type, ast.Name) and handler.type.id in ("Exception", "BaseException")) for handler in stmt.handlers):
            return False, True
        found = self.tried_again_at.get(stmt)
        if found is not None:
            return found, True
        node = fr.func.node if fr.func is not None else None
        body = node.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else fr.module.tree.body if fr.func is None else []
        consulted: list[ast.expr] = []

        def options(expr: ast.expr) -> list[object] | None:
            consulted.append(expr)
            return self._constant_options(expr, fr)

        found = tried_again(stmt, body, options)
        if not consulted:
            self.tried_again_at[stmt] = found
        return found, not consulted

    def _constant_options(self, expr: ast.expr, fr: Frame) -> list[object] | None:
        """The options a loop's iterable holds, where the analysis reads it here as a tuple
        or list of constants, dtypes or functions (`IMPLS = ("cudnn", "xla")`, `(jnp.
        float32, jnp.bfloat16)`), or a dict (its values where they are constants, else
        its keys: `{"fast": "cudnn", "safe": "xla"}`)."""
        if isinstance(expr, ast.Call) and not expr.keywords and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("values", "keys", "items") and not expr.args:
            table = self.ev(expr.func.value, fr)  # `DTYPES.values()` (probe 36a)
            if not isinstance(table, DictV):
                return None
            if expr.func.attr == "keys":
                return [key for key, _ in table.items]
            return _options_of([item if expr.func.attr == "values" else TupleV((ConstV(key), item)) for key, item in table.items])
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "zip" and expr.args and not expr.keywords:
            columns = [self._constant_options(part, fr) for part in expr.args]  # `zip(IMPLS, NAMES)`
            if any(column is None for column in columns):
                return None
            return [tuple(row) for row in zip(*(column for column in columns if column is not None))]
        if not isinstance(expr, (ast.Name, ast.Attribute, ast.Tuple, ast.List)):
            return None
        value = self.ev(expr, fr)
        if isinstance(value, DictV):
            values = _options_of([item for _, item in value.items])
            return values if values is not None else [key for key, _ in value.items]
        return _options_of(value.items) if isinstance(value, TupleV) else None

    def _swallowed(self, context: ast.expr, manager: Value | None, fr: Frame) -> frozenset[str]:
        """What a `with` item that may swallow catches: `pytest.raises(X)` / `assertRaises(X)`
        the classes X names (everything where they cannot be read: a test of these very
        failures), a `suppress(...)` the classes its arguments name (`suppress(*ERRORS)`),
        a `@contextmanager` of ours what the handlers around its `yield` recover from, and
        an object whose `__exit__` may return true everything (we cannot tell which)."""
        if manager is not None and _raises_object(manager):
            payload = getattr(manager, "payload", None)
            return (_builtin_classes(payload) if isinstance(payload, Value) else frozenset()) or EVERY_ERROR  # `with expectation:`
        if _expects_failure(context) or isinstance(manager, ExternalV) and manager.qualname in self.api.EXPECTS_RAISE:
            expected = context.args[0] if isinstance(context, ast.Call) and context.args and not isinstance(context.args[0], ast.Starred) else None
            return self._classes(expected, fr) or EVERY_ERROR
        if isinstance(manager, InstanceV):
            return EVERY_ERROR
        func = getattr(manager, "func", None) if not isinstance(manager, FunctionV) else manager
        if isinstance(func, FunctionV) and not isinstance(func.node, ast.Lambda):
            tries = [node for node in ast.walk(func.node) if isinstance(node, ast.Try) and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for s in node.body for n in ast.walk(s))]
            return frozenset[str]().union(*(EVERY_ERROR if swallowed_by_finally(t) else recovered_by(t.handlers) for t in tries))
        if not isinstance(context, ast.Call):
            return frozenset()
        found: frozenset[str] = frozenset()
        for arg in context.args:
            read = self._classes(arg.value if isinstance(arg, ast.Starred) else arg, fr)
            found |= read or (frozenset({name_of(arg)}) if isinstance(arg, (ast.Name, ast.Attribute)) else frozenset())
        return found

    def _classes(self, kind: ast.expr | None, fr: Frame) -> frozenset[str]:
        """The builtin exception classes an `except` clause's (or a `suppress`'s) value
        names: `except RECOVERABLE:`, `suppress(*ERRORS)`; none where it cannot be read."""
        if kind is None:
            return frozenset()
        value = self.ev(kind, fr) if fr.state is not None and _readable_class_expr(kind) else UNKNOWN
        return _builtin_classes(value)

    def _ends_handler(self, stmt: ast.stmt, fr: Frame) -> bool:
        """A handler statement that ends its path: a `raise`, or a call that never returns,
        resolved where its name is a logger's too (`logging.error(...)` logs;
        `parser.error(...)` and absl's `logging.fatal(...)` exit), or an `if` whose test is
        decided here and whose arm taken does (`if STRICT: raise`)."""
        if ends_path(stmt):
            return True
        if isinstance(stmt, ast.If):
            truth = self.test_truth(stmt.test, fr) if fr.state is not None else None
            arm = stmt.body if truth is True else stmt.orelse if truth is False else []
            return any(self._ends_handler(inner, fr) for inner in arm)
        if isinstance(stmt, ast.With) and not any(_is_suppress(item.context_expr) for item in stmt.items):
            return any(self._ends_handler(inner, fr) for inner in stmt.body)  # `with lock: raise`
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)) and name_of(call.func) in LOGGER_NAMES):
            return False
        callee = self.ev(call.func, fr) if fr.state is not None else UNKNOWN
        if self.api.never_returns(self, callee):
            return True
        # an unresolved `x.error(...)` exits where x is named as argparse's parser
        return callee is UNKNOWN and name_of(call.func) == "error" and isinstance(call.func, ast.Attribute) and "pars" in ast.unparse(call.func.value).lower()

    def s_match(self, stmt: ast.stmt, fr: Frame) -> None:
        """The cases that may run: a value or singleton pattern the subject certainly
        does not match is skipped, the first it certainly matches (or a wildcard) ends
        the choice.  A name a pattern captures takes the part of the subject it matched
        (`case Cfg(_, impl):` binds cfg.impl), where the pattern says which; else unknown."""
        subject_node = getattr(stmt, "subject", None)
        subject = self.ev(subject_node, fr) if isinstance(subject_node, ast.expr) else UNKNOWN
        cases = getattr(stmt, "cases", [])
        arms: list[tuple[Sequence[ast.stmt], ast.expr | None, bool]] = []
        captures: list[dict[str, Value]] = []
        settled = False
        for case in cases:
            verdict = self._pattern_matches(case.pattern, subject, fr)
            if verdict is not False and case.guard is not None:
                # a guard is decided here, with the pattern's captures bound where each is
                # known (probe 54a: `case {"seq": t} if t % 2 == 1:`); else it may fail
                guard = self._guard_truth(case, subject, fr) if verdict is True or not _stored_names(case.pattern) else None
                verdict = False if guard is False else verdict if guard is True else None
            if verdict is False:
                continue
            arms.append((list(case.body), None, True))
            captures.append(self._captured(case.pattern, subject, fr))
            if verdict is True:
                settled = True
                break
        if not settled:
            arms.append(([], None, True))
            captures.append({})
        start = fr.state
        if start is not None:
            for case in cases:
                for name in _stored_names(case.pattern):
                    start[name] = UNKNOWN
        if len(arms) == 1:
            if fr.state is not None:
                fr.state.update(captures[0])
            self.exec_block(arms[0][0], fr)
        else:
            self.branch(fr, arms, captures)

    def _guard_truth(self, case: ast.match_case, subject: Value, fr: Frame) -> bool | None:
        """A case's guard evaluated where the pattern matched: its captures bound (all of
        them known, or not decided)."""
        stored = _stored_names(case.pattern)
        if not stored or fr.state is None:
            return self.test_truth(case.guard, fr) if case.guard is not None else True
        captured = self._captured(case.pattern, subject, fr)
        if not all(name in captured for name in stored) or case.guard is None:
            return None
        saved = fr.state
        fr.state = {**saved, **captured}
        try:
            return self.test_truth(case.guard, fr)
        finally:
            fr.state = saved

    def _pattern_matches(self, pattern: ast.AST, subject: Value, fr: Frame) -> bool | None:
        """Does the subject certainly match (True), certainly not (False), or may it?"""
        kind = type(pattern).__name__
        if kind == "MatchAs":
            inner = getattr(pattern, "pattern", None)
            return True if inner is None else self._pattern_matches(inner, subject, fr)
        if kind == "MatchStar":
            return True  # (its sequence pattern decided the length)
        if kind == "MatchValue":
            return self.api.equals(subject, self.ev(getattr(pattern, "value"), fr))
        if kind == "MatchSingleton":
            return self.api.same_object(subject, ConstV(getattr(pattern, "value")))
        if kind == "MatchOr":
            verdicts = [self._pattern_matches(p, subject, fr) for p in getattr(pattern, "patterns", [])]
            return True if True in verdicts else False if all(v is False for v in verdicts) else None
        if kind == "MatchClass":
            return self._class_pattern_matches(pattern, subject, fr)
        if kind in ("MatchSequence", "MatchMapping"):
            parts = self._pattern_parts(pattern, subject, fr)
            if not isinstance(parts, list):
                return parts  # (certainly not, or not known)
            verdicts = [self._pattern_matches(part, value, fr) for part, value in parts]
            return False if False in verdicts else True if all(v is True for v in verdicts) else None
        return None

    def _pattern_parts(self, pattern: ast.AST, subject: Value, fr: Frame) -> list[tuple[ast.AST, Value]] | bool | None:
        """A sequence or mapping pattern against a subject whose items (a tuple or list)
        or keys (a dict) are all known (probe 50c: `case (a, b):`, `case {"seq": s}:`): each
        subpattern with the part it matches (a star or `**rest` with a list or dict of the
        rest); False where the subject certainly does not match (length, a missing key, not
        a sequence or mapping); None where it may or may not."""
        if isinstance(subject, InstanceV) and not (subject.cls.external_bases() - {"builtins.object"}):
            return False  # a class of the code's own on no library base: no sequence or mapping (probe 84d)
        if type(pattern).__name__ == "MatchSequence":
            if isinstance(subject, (DictV, ConstV, IntV, FloatV, ArrayV)) or getattr(subject, "not_sequence", False):
                return False  # (a str, an array, a generator and a dict view are no sequences to a pattern)
            if not isinstance(subject, TupleV):
                return None
            patterns = list(getattr(pattern, "patterns", []))
            stars = [i for i, p in enumerate(patterns) if type(p).__name__ == "MatchStar"]
            items = subject.items
            if len(stars) > 1 or (not stars and len(items) != len(patterns)) or (stars and len(items) < len(patterns) - 1):
                return False if len(stars) <= 1 else None
            if not stars:
                return list(zip(patterns, items))
            star = stars[0]
            after = len(patterns) - star - 1
            rest = TupleV(items[star : len(items) - after], True, subject.why)
            return [*zip(patterns[:star], items[:star]), (patterns[star], rest), *zip(patterns[star + 1 :], items[len(items) - after :])]
        if isinstance(subject, (TupleV, ConstV, IntV, FloatV)):
            return False
        if not isinstance(subject, DictV):
            return None
        found: list[tuple[ast.AST, Value]] = []
        for key_node, part in zip(getattr(pattern, "keys", []), getattr(pattern, "patterns", [])):
            ok, key = const_value(self.ev(key_node, fr))
            if not ok:
                return None
            value = subject.get(key)
            if value is None:
                return False
            found.append((part, value))
        return found

    def _captured(self, pattern: ast.AST, subject: Value, fr: Frame) -> dict[str, Value]:
        """The names a pattern binds that we can read, with the values they take: a
        capture (`case x:`, `as x`) takes what it matched, a class pattern's parts take
        the attributes they match, a sequence's or mapping's the items they match
        (_pattern_parts).  Or-patterns: none."""
        kind = type(pattern).__name__
        if kind == "MatchAs":
            inner = getattr(pattern, "pattern", None)
            found = {} if inner is None else self._captured(inner, subject, fr)
            name = getattr(pattern, "name", None)
            if name is not None:
                found[name] = subject
            return found
        if kind == "MatchStar":
            name = getattr(pattern, "name", None)
            return {name: subject} if name is not None else {}
        if kind in ("MatchSequence", "MatchMapping"):
            parts = self._pattern_parts(pattern, subject, fr)
            found = {}
            for part, value in parts if isinstance(parts, list) else ():
                found |= self._captured(part, value, fr)
            rest = getattr(pattern, "rest", None)
            if rest is not None:
                # `**rest`: the other keys, where the subject's keys are all known
                keys = [const_value(self.ev(key, fr)) for key in getattr(pattern, "keys", [])]
                found[rest] = DictV(tuple((k, v) for k, v in subject.items if not any(ok and same_key(k, key) for ok, key in keys)), subject.why) if isinstance(subject, DictV) and isinstance(parts, list) else UNKNOWN
            return found
        if kind != "MatchClass":
            return {}
        positional = getattr(pattern, "patterns", [])
        cls = self.ev(getattr(pattern, "cls"), fr)
        if _self_matching(cls) and len(positional) == 1 and not getattr(pattern, "kwd_patterns", []):
            return self._captured(positional[0], subject, fr)  # (probe 86a: `case int(n): return n`)
        names = self._match_args(cls) if positional else []
        if names is None or len(positional) > len(names):
            return {}
        found: dict[str, Value] = {}
        for attr, part in [*zip(names, positional), *zip(getattr(pattern, "kwd_attrs", []), getattr(pattern, "kwd_patterns", []))]:
            if _stored_names(part):
                found |= self._captured(part, self.getattr_(subject, attr, pattern, fr), fr)
        return found

    def _class_pattern_matches(self, pattern: ast.AST, subject: Value, fr: Frame) -> bool | None:
        """`case Cudnn():`, `case Backend(name="cudnn"):`: isinstance, then each keyword
        pattern against the attribute, and each positional one against the attribute
        `__match_args__` names there (a dataclass's or NamedTuple's fields in order)."""
        from jax_cudnn_lint.shape_inference.externals import is_instance

        cls = self.ev(getattr(pattern, "cls"), fr)
        verdict = is_instance(subject, cls)
        positional = getattr(pattern, "patterns", [])
        if verdict is True and _self_matching(cls) and len(positional) == 1 and not getattr(pattern, "kwd_patterns", []):
            return self._pattern_matches(positional[0], subject, fr)  # `case int(n):` matches n against the subject itself
        names = self._match_args(cls) if positional and verdict is True else []
        if verdict is not True or names is None or len(positional) > len(names):
            return False if verdict is False else None
        pairs = [*zip(names, positional), *zip(getattr(pattern, "kwd_attrs", []), getattr(pattern, "kwd_patterns", []))]
        verdicts = [self._pattern_matches(p, self.getattr_(subject, attr, pattern, fr), fr) for attr, p in pairs]
        return False if False in verdicts else True if all(v is True for v in verdicts) else None

    def _match_args(self, cls: Value) -> list[str] | None:
        """The attributes positional class patterns match: `__match_args__` where the class
        gives it as a tuple of strings, else a dataclass's or NamedTuple's fields."""
        if not isinstance(cls, ClassV):
            return None
        given = cls.lookup("__match_args__")
        if given is not None:
            items = given.items if isinstance(given, TupleV) else ()
            names = [const_value(item)[1] for item in items]
            return [n for n in names if isinstance(n, str)] if items and all(isinstance(n, str) for n in names) else None
        if self.api.is_dataclass_like(cls) or "typing.NamedTuple" in cls.external_bases():
            fields = cls.all_fields()
            # `field(init=False)`, `kw_only=`, `KW_ONLY` and `match_args=` change which fields
            # Python lists: not modelled (probe 31a)
            if any("kw_only" in getattr(deco, "kwargs", {}) or "match_args" in getattr(deco, "kwargs", {}) for deco in cls.decorators):
                return None
            for _, default, annotation in fields:
                options: Value | None = getattr(default, "payload", None) if getattr(default, "qualname", None) == "dataclasses.field" else None
                if isinstance(options, DictV) and any(key in ("init", "kw_only") for key, _ in options.items):
                    return None
                if annotation is not None and "KW_ONLY" in ast.unparse(annotation):
                    return None
            return [name for name, _, _ in fields]
        return None

    def s_import(self, stmt: ast.Import, fr: Frame) -> None:
        self.note_import_run(stmt, fr)
        for alias in stmt.names:
            if alias.asname:
                self.assign_name(alias.asname, self.import_module_value(self.project.absolute_import(fr.module, alias.name)), fr)
            else:
                top = alias.name.split(".")[0]
                self.assign_name(top, self.import_module_value(self.project.absolute_import(fr.module, top)), fr)

    def s_importfrom(self, stmt: ast.ImportFrom, fr: Frame) -> None:
        self.note_import_run(stmt, fr)
        base = self.project.from_base(fr.module, stmt)
        for alias in stmt.names:
            if alias.name == "*":
                info = self.project.find(base)
                if info is not None and fr.state is not None:
                    namespace = self.module_namespace(info)
                    exported = self.api.known_items(namespace["__all__"], 10_000) if "__all__" in namespace else None
                    if exported is not None:
                        for item in exported:  # `__all__` says what a star import binds
                            ok, name = const_value(item)
                            if ok and isinstance(name, str) and name in namespace:
                                fr.state[name] = namespace[name]
                        continue
                    for name, value in namespace.items():
                        if not name.startswith("_"):
                            fr.state[name] = value if "__all__" not in namespace else UNKNOWN  # (an `__all__` we cannot read: bound or not)
                elif info is None and fr.state is not None and self.project.alone and _maybe_a_project_module(base, fr.module.path):
                    # in the flake8 plugin's one-file view, a module of the project out of
                    # sight may rebind any public name bound before: `T = 511; from common
                    # import *` (probe 47c; not the standard library's, nor in the command's
                    # view, where a module not found is no project's: probe 48a)
                    for name, value in list(fr.state.items()):
                        if not name.startswith("_") and not isinstance(value, (ModuleV, ExternalV, FunctionV, ClassV)):
                            fr.state[name] = UNKNOWN
                continue
            local = alias.asname or alias.name
            self.assign_name(local, self.import_from(base, alias.name), fr)

    def import_module_value(self, dotted: str) -> Value:
        info = self.project.find(dotted)
        if info is not None:
            return ModuleV(info)
        return self.external(dotted)

    def import_from(self, base: str, name: str) -> Value:
        info = self.project.find(base)
        if info is not None and name in info.patched:
            return UNKNOWN  # set from outside: bound before or after, who can tell
        if info is not None and info.state != "new" and name in info.facts.written_by_code():
            return UNKNOWN  # `globals().update(overrides)` in that module
        if info is not None:
            if info.state == "new":
                return LazyImportV(info, name)
            if name in info.namespace:
                return self.resolved(info.namespace, name)
            sub = self.project.find(f"{base}.{name}") if base else self.project.find(name)
            if sub is not None:
                return ModuleV(sub)
            return self._lazy_module_attribute(info, info.namespace, name)
        sub = self.project.find(f"{base}.{name}") if base else None
        if sub is not None:
            return ModuleV(sub)
        return self.external(f"{base}.{name}" if base else name)

    def imported_paths(self, info: ModuleInfo) -> frozenset[str]:
        """The project modules that `info`'s import statements name, at any depth (those
        of definitions not parsed yet aside): where a flag it reads may be defined."""
        found = self._imported.get(info.path)
        if found is None:
            paths: set[str] = set()
            for node in ast.walk(info.tree):
                names: list[str] = []
                if isinstance(node, ast.Import):
                    names = [self.project.absolute_import(info, alias.name) for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = self.project.from_base(info, node)
                    names = [base, *(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")]
                for dotted in names:
                    target = self.project.find(dotted) if dotted else None
                    if target is not None:
                        paths.add(target.path)
            found = self._imported[info.path] = frozenset(paths)
        return found

    def haiku_casts(self, info: ModuleInfo) -> bool:
        """May haiku cast parameters and layer outputs: a mixed-precision policy set (as the
        analysis ran, or by any analysed file, whichever order it runs in), or a custom
        getter or creator in `info` or an analysed file?  A file linted on its own may be
        run under a policy its project's training script sets (probe 43b)."""
        if self.haiku_policy or self.project.alone:
            return True
        hooks = ("set_policy", "push_policy", "custom_getter", "custom_creator")
        if len(self.project.roots) != self.haiku_cast_roots:
            self.haiku_cast_roots = len(self.project.roots)
            self.haiku_cast_files = any(root.facts.calls_attribute(hook) for root in self.project.roots for hook in hooks)
        return self.haiku_cast_files or any(info.facts.calls_attribute(hook) for hook in hooks)

    def external(self, qualname: str) -> Value:
        """A name from outside the project.  `typing.TYPE_CHECKING` is False, as when the
        code runs: an `if TYPE_CHECKING:` block is not analysed (in transformers such
        blocks star-import every model, and a name bound only there would be unknown
        after the `if` anyway)."""
        if qualname in _TYPE_CHECKING_NAMES:
            return ConstV(False)
        canonical = self.api.canonical(qualname)
        constant = _LIBRARY_CONSTANTS.get(canonical)
        if constant is not None:
            return ConstV(constant)  # `q * jnp.pi` keeps q's shape
        if canonical in _NEWAXIS:
            return ConstV(None)  # `pad[:, jnp.newaxis, :]` adds an axis, as None does
        return ExternalV(canonical)

    def s_functiondef(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef, fr: Frame) -> None:
        defaults = tuple(self.ev(d, fr) for d in stmt.args.defaults)
        kw_defaults = tuple(
            (a.arg, self.ev(d, fr)) for a, d in zip(stmt.args.kwonlyargs, stmt.args.kw_defaults) if d is not None
        )
        decorators = tuple(self.ev(d, fr) for d in stmt.decorator_list)
        closure = fr.closure if fr.is_class else ((fr.state,) + fr.closure if fr.func is not None and fr.state is not None else fr.closure)
        qual = f"{fr.func.qualname}.{stmt.name}" if fr.func is not None else stmt.name
        func = FunctionV(stmt, fr.module, closure, defaults, kw_defaults, qual, decorators)
        value: Value = func
        for deco, deco_node in reversed(list(zip(decorators, stmt.decorator_list))):
            value = self.api.apply_decorator(self, deco, value, deco_node, fr)
        self.assign_name(stmt.name, value, fr)
        rebound: frozenset[str] = self._nonlocal_names(stmt) if fr.func is not None and fr.state is not None else frozenset()
        if rebound and fr.state is not None:
            # a closure that rebinds this body's names (`nonlocal n; n = 256`) may run
            # at any call from here on: they are Unknown
            fr.volatile = (fr.volatile or set()) | rebound
            for name in rebound:
                fr.state[name] = UNKNOWN
        if fr.func is not None and fr.generic:
            # nested functions are analysed in the scope they were defined in, as it is
            # when the enclosing body returns: a closure reads its variables when it runs,
            # after what the body changed since the `def` (`cfg["seq_len"] = 256`)
            if fr.nested is None:
                fr.nested = []
            fr.nested.append(func)

    def _entered(self, value: Value, stmt: ast.stmt, fr: Frame) -> Value:
        """What `with cm as c` binds: an object of the analysed code's `__enter__`'s result
        (`return self`); anything else Unknown."""
        enter = value.cls.lookup("__enter__") if isinstance(value, InstanceV) else None
        if isinstance(enter, FunctionV):
            return self.call(BoundMethodV(enter, value), [], {}, False, stmt, fr)
        if isinstance(value, ExtObjectV) and value.qualname == data_files.OPENED:
            return value  # `with open("configs/lm.json") as f:` (data_files.py)
        return UNKNOWN

    @staticmethod
    def _after_suppress(start: State, ended: State | None, bound: list[str]) -> State:
        """The names after a `suppress` body that may have stopped at any statement: each
        it binds is Unknown, except one bound once (where the body stopped before it, the
        name keeps the same value, or is unbound and a later read raises NameError)."""
        after = join_states(start, ended) or start
        for name in bound:
            final = ended.get(name) if ended is not None else None
            if final is not None and bound.count(name) == 1 and (name not in start or start[name].key() == final.key()):
                after[name] = final
            else:
                after[name] = UNKNOWN
        return after

    def _nonlocal_names(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
        """The names a def (or a def inside it) declares `nonlocal` and binds (cached)."""
        found = self.nonlocal_names.get(stmt)
        if found is None:
            names: set[str] = set()
            for node in every_statement([stmt]):  # statements only: a nonlocal is one
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    declared = {name for inner in statements(node.body) if isinstance(inner, ast.Nonlocal) for name in inner.names}
                    if declared:
                        names |= declared & set(_stored_names_block(node.body))  # declared and bound again
            found = self.nonlocal_names[stmt] = frozenset(names)
        return found

    def s_classdef(self, stmt: ast.ClassDef, fr: Frame) -> None:
        bases = tuple(self.ev(b, fr) for b in stmt.bases)
        decorators = tuple(self.ev(d, fr) for d in stmt.decorator_list)
        cls = ClassV(stmt, fr.module, bases, {}, [], stmt.name, decorators)
        meta = next((self.ev(k.value, fr) for k in stmt.keywords if k.arg == "metaclass"), None)
        cls.metaclass_call = isinstance(meta, ClassV) and isinstance(meta.lookup("__call__"), FunctionV)
        body_frame = Frame(fr.module, cls.attrs, fr.ctx, fr.func, frozenset(), fr.closure, fr.generic, is_class=True)
        if fr.func is not None and fr.state is not None:
            body_frame.closure = (fr.state,) + fr.closure
        makes_fields = not self.api.namedtuple_subclass(cls)
        for item in stmt.body:
            if body_frame.state is None:
                break
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                default = self.ev(item.value, body_frame) if item.value is not None else None
                if makes_fields and not _is_classvar(item.annotation):
                    cls.fields.append((item.target.id, default, item.annotation))
                if default is not None:
                    cls.attrs[item.target.id] = default
                continue
            self.exec_stmt(item, body_frame)
        # methods see their class for `self`-less calls such as super()
        for name, member in list(cls.attrs.items()):
            if isinstance(member, FunctionV) and member.owner is None:
                cls.attrs[name] = FunctionV(
                    member.node, member.module, member.closure, member.defaults, member.kw_defaults,
                    f"{stmt.name}.{member.node.name}" if not isinstance(member.node, ast.Lambda) else member.qualname,
                    member.decorators, cls,
                )
        for name in self.project.patched_class_attrs.get((fr.module.path, stmt.name), ()):
            # another file sets it (`Config.SEQ = 128`): bound before or after?  (On this
            # class, over what it inherits too: the patch shadows the base's value.)
            cls.attrs[name] = UNKNOWN
        # what a metaclass of ours or a descriptor's `__set_name__` writes onto the class as it
        # is made is unknown (probe 42b: `ns["T"] = 512`); a metaclass that reads its own way
        # (a property, `__getattribute__`) answers the class's reads, not its instances'
        made = _meta_writes(meta)
        cls.rewritten = frozenset[str]().union(made, *(base.rewritten for base in bases if isinstance(base, ClassV)))
        cls.meta_reads = _meta_reads(meta) or any(isinstance(base, ClassV) and base.meta_reads for base in bases)
        cls.made_by_meta = meta is not None and not isinstance(meta, ExternalV) or any(isinstance(base, ClassV) and base.made_by_meta for base in bases)
        written = set(cls.rewritten)
        for member in list(cls.attrs.values()):
            hook = member.cls.lookup("__set_name__") if isinstance(member, InstanceV) else None
            if isinstance(hook, FunctionV) and not isinstance(hook.node, ast.Lambda):
                written |= _set_name_writes(hook.node)
        if written:
            for name, member in list(cls.attrs.items()):
                descriptor = isinstance(member, InstanceV) and any(isinstance(member.cls.lookup(hook), FunctionV) for hook in ("__get__", "__set__"))
                if not isinstance(member, FunctionV) and not descriptor and (name in written or ANY_ATTRIBUTE in written):
                    cls.attrs[name] = UNKNOWN  # (a descriptor stays: its __set__ / __get__ decide what reads give)
            cls.fields = [(name, UNKNOWN if default is not None and (name in written or ANY_ATTRIBUTE in written) else default, annotation) for name, default, annotation in cls.fields]
        if enums.is_enum(cls):
            enums.finish_class(cls)
        value: Value = cls
        for deco in reversed(decorators):
            if isinstance(deco, FunctionV):
                value = self.call(deco, [value], {}, False, stmt, fr)
            else:
                case_rows.record_class_decorator(self.parametrize, deco, cls)  # @unittest.skip(...)
        self.assign_name(stmt.name, value, fr)

    def s_delete(self, stmt: ast.Delete, fr: Frame) -> None:
        for target in stmt.targets:
            if isinstance(target, ast.Name) and fr.state is not None:
                fr.state.pop(target.id, None)
            elif isinstance(target, ast.Subscript):
                self._delete_item(target, fr)
            elif isinstance(target, ast.Attribute):
                base = self.ev(target.value, fr)
                if isinstance(base, InstanceV):
                    self.mutations += 1
                    base.touch()
                    if fiddle_configs.is_config(base):
                        base.attrs.pop(target.attr, None)  # (`del cfg.seq_len`: the called function's default again)
                    else:
                        base.attrs[target.attr] = UNKNOWN
                elif isinstance(base, ClassV):
                    base.attrs[target.attr] = UNKNOWN  # `del Child.T`: a base's value shows through (probe 42b)

    def _delete_item(self, target: ast.Subscript, fr: Frame) -> None:
        """`del cfg["key"]`: a known dict loses the key (`.get(key, default)` then gives
        the default); anything else is forgotten."""
        container = self.ev(target.value, fr)
        self.mutations += 1
        if isinstance(container, InstanceV):
            container.forget()
            return
        if isinstance(container, IterV) and container.is_list:
            return  # (a list of unknown length without some items: each left is as its element says)
        mark_changed_in_place(container)
        if not isinstance(target.value, ast.Name) or fr.state is None or target.value.id not in fr.state:
            return
        if isinstance(container, TupleV) and container.is_list and not fr.branch_depth and self.held_once([container], fr):
            kept = self._list_without(container, target.slice, fr)
            if kept is not None:
                fr.state[target.value.id] = kept
                return
        ok, key = const_value(self.ev(target.slice, fr))
        if isinstance(container, DictV) and ok and not fr.branch_depth:
            fr.state[target.value.id] = DictV(without_key(container.items, key), container.why, container.diff)
        else:
            fr.state[target.value.id] = UNKNOWN

    def _list_without(self, held: TupleV, index: ast.expr, fr: Frame) -> TupleV | None:
        """`del tokens[-1]`, `del tokens[:2]` with known bounds: the list without those
        items (probe 107a: 34 tokens less one were Unknown)."""
        bounds: list[int | None] = []
        for node in (index.lower, index.upper, index.step) if isinstance(index, ast.Slice) else (index,):
            ok, bound = const_value(self.ev(node, fr)) if node is not None else (True, None)
            if not ok or not (bound is None or isinstance(bound, int) and not isinstance(bound, bool)):
                return None
            bounds.append(bound)
        items = list(held.items)
        try:
            if isinstance(index, ast.Slice):
                del items[slice(*bounds)]
            else:
                del items[cast(int, bounds[0])]
        except (IndexError, ValueError, TypeError):
            return None
        return TupleV(tuple(items), True, merge_why(held.why, (self.step(fr, index, f"del {self.source_text(index)}"),)), held.diff)

    def s_global(self, stmt: ast.stmt, fr: Frame) -> None:
        return

    # -- expressions ----------------------------------------------------------------
    def ev(self, node: ast.expr, fr: Frame) -> Value:
        # self.tick(), inlined: this runs for every expression evaluated
        steps = self.steps = self.steps + 1
        if steps > self.step_budget or (not steps & 1023 and time.perf_counter() > self.deadline):
            raise BudgetExceeded
        handler = _EXPR_HANDLERS.get(type(node))
        if handler is None:
            return UNKNOWN
        return handler(self, node, fr)

    def source_text(self, node: ast.AST) -> str:
        """`node`'s source for evidence text, shortened; unparsed once per node (a binop in
        a loop or a function analysed many times asks again)."""
        text = self.source_texts.get(node)
        if text is None:
            text = self.source_texts[node] = self.api.src(node)
        return text

    def step(self, fr: Frame, node: ast.AST, text: str) -> Step:
        return Step(fr.module.path, getattr(node, "lineno", 0), text)

    def e_constant(self, node: ast.Constant, fr: Frame) -> Value:
        # A literal always evaluates to the same immutable value: made once per node.
        made = self.literals.get(node)
        if made is not None:
            return made
        value = node.value
        if isinstance(value, int) and not isinstance(value, bool):
            made = make_int(value, (self.step(fr, node, f"literal {value}"),))
        else:
            made = ConstV(value, (self.step(fr, node, f"literal {value!r}"),))
        self.literals[node] = made
        return made

    def e_name(self, node: ast.Name, fr: Frame) -> Value:
        return self.lookup(node.id, fr, node.lineno)

    def lookup(self, name: str, fr: Frame, line: int = 0) -> Value:
        state = fr.state
        if state is not None and name in state:
            if fr.func is None and state is fr.module.namespace and name in fr.module.global_names and self._rebound_by_now(fr.module, name, line):
                return UNKNOWN  # rebound by a function's `global` or through globals() (probe 35b)
            return self.resolved(state, name)
        if fr.func is not None and name in fr.local_names:
            return UNKNOWN
        for scope in fr.closure:
            if name in scope:
                return self.resolved(scope, name)
        namespace = fr.module.namespace
        if name in namespace:
            if fr.func is not None and (name in fr.module.global_names or name in fr.module.patched or fr.generic and name in fr.module.facts.rebound_around_calls()):
                return UNKNOWN
            return self.resolved(namespace, name)
        if name == "__package__" and fr.module.name:
            module = fr.module
            return ConstV(module.name if module.is_package else module.name.rpartition(".")[0])
        if name == "__file__":
            # (a config beside the module: `open(os.path.join(os.path.dirname(__file__), "lm.json"))`)
            return ConstV(os.path.abspath(fr.module.path), (Step(fr.module.path, line, "__file__"),))
        return self.api.builtin(name)

    def _setter_may_have_run(self, module: ModuleInfo, name: str, reader: ModuleInfo) -> bool:
        """May code have rebound `module`'s global `name` before `reader` reads it as
        `module.name`: written through globals() or exec, set by a setter the module's own
        top level may run, or by one `reader` names (`helper.configure(128)`)?  A setter
        nobody calls leaves the value (probe 38a)."""
        facts = module.facts
        if name in facts.written_by_code():
            return True
        setters = facts.setters_of(name)
        if not setters or facts.calls_reaching(setters):
            return True
        return bool(facts.reaching(setters) & reader.facts.module_names())

    def _rebound_by_now(self, module: ModuleInfo, name: str, line: int) -> bool:
        """At the top level, may a write through globals() or exec, or a function's
        `global` statement that the module's code has run by `line`, have rebound `name`?
        (Before a call that may run a setter of it, the `global` cannot have run.)"""
        if name in module.facts.written_by_code() or not line:
            return True
        return any(ran < line for ran in module.facts.calls_reaching(module.facts.setters_of(name)))

    def resolved(self, scope: State, name: str, depth: int = 0) -> Value:
        """A name's value, running the module a lazy import points to, or the lazy
        definition it names, if need be.  A package `__init__` that re-exports
        (`from .config import SEQ`) is followed to the module that defines the name."""
        value = scope[name]
        if isinstance(value, LazyImportV):
            namespace = self.module_namespace(value.info) if value.info.state != "running" else value.info.namespace
            found = namespace.get(value.name)
            if isinstance(found, LazyDefV):
                found = self.materialize(found)
            if isinstance(found, LazyImportV) and depth < 8:
                found = self.resolved(namespace, value.name, depth + 1)
            if isinstance(found, LazyImportV) or found is None:
                sub = self.project.find(f"{value.info.name}.{value.name}")
                found = ModuleV(sub) if sub is not None else self._lazy_module_attribute(value.info, namespace, value.name)
            if value.name in value.info.facts.written_by_code():
                found = UNKNOWN  # `globals().update(overrides)` in that module
            value.resolved_as(found)
            scope[name] = found
            value = found
        elif isinstance(value, LazyDefV):
            value = scope[name] = self.materialize(value)
        if value.changed_in_place:
            return UNKNOWN.tainted(value.diff)  # changed through another name or by a callee
        return value

    def _lazy_module_attribute(self, info: ModuleInfo, namespace: State, name: str, node: ast.AST | None = None, fr: Frame | None = None) -> Value:
        """A name a module does not bind, served by its module-level `__getattr__` (PEP
        562): what the hook returns, read as `pkg.Attention` (from the frame reading it)
        or by `from pkg import Attention` (probes 36b, 108a)."""
        hook = self.resolved(namespace, "__getattr__") if "__getattr__" in namespace else None
        if not isinstance(hook, FunctionV) or isinstance(hook.node, ast.Lambda) or len(hook.node.args.args) != 1:
            return UNKNOWN
        return self.call(hook, [ConstV(name)], {}, False, node or hook.node, fr or Frame(info, namespace, Ctx()))

    def s_lazydef(self, stmt: LazyDef, fr: Frame) -> None:
        self.assign_name(stmt.name, LazyDefV(fr.module, stmt), fr)

    def materialize(self, lazy: LazyDefV) -> Value:
        """Parse and run a reached module's top-level definition on its first use, in the
        module's scope as it is now.  The parsed node replaces the placeholder in the
        module's tree, where the rules look for enclosing functions."""
        node, info = lazy.node, lazy.info
        done = self.materialized.get(node)
        if done is not None:
            return done
        self.materialized[node] = UNKNOWN  # until it is done: a definition that needs itself
        definition = node.parse(info.path)
        value: Value = UNKNOWN
        if definition is not None:
            body = info.tree.body
            for i, stmt in enumerate(body):
                if stmt is node:
                    body[i] = definition
                    break
            scope: State = {}
            self.module_stack.append(info)  # (its decorators run as its module's body would)
            try:
                self.exec_stmt(definition, Frame(info, scope, Ctx()))
            finally:
                self.module_stack.pop()
            value = scope.get(node.name, UNKNOWN)
        self.materialized[node] = value
        if info.namespace.get(node.name) is lazy:
            info.namespace[node.name] = value
        return value

    def e_attribute(self, node: ast.Attribute, fr: Frame) -> Value:
        inner = node.value
        if node.attr in ("value", "name") and isinstance(inner, ast.Attribute):
            owner = self.ev(inner.value, fr)
            if isinstance(owner, ClassV) and enums.member(owner, inner.attr) is not None:
                held = owner.attrs[inner.attr]  # `Mode.TRAIN.value` / `.name`
                return enums.value_of(held) if node.attr == "value" else enums.name_of(owner, inner.attr)
            base = self.getattr_(owner, inner.attr, inner, fr)
        else:
            base = self.ev(inner, fr)
        if isinstance(base, ConstV) and isinstance(base.value, enums.EnumMember):
            if node.attr in ("value", "name"):
                return enums.value_of(base) if node.attr == "value" else ConstV(base.value.name)
        elif node.attr == "value" and (isinstance(base, IntV) or (isinstance(base, ConstV) and type(base.value) in (str, int, float))):
            # a mixin enum's member, held as its value (`impl.value` where
            # impl = AttnImpl.CUDNN): a plain str or int has no `.value`
            return base
        return self.getattr_(base, node.attr, node, fr)

    def getattr_(self, base: Value, name: str, node: ast.AST, fr: Frame) -> Value:
        if isinstance(base, ExternalV):
            if base.qualname == absl_flags.FLAGS:
                flag = self.absl_flags.read(name, fr.module.path, lambda: self.imported_paths(fr.module))
                if flag is not None:
                    return flag
            return self.external(f"{base.qualname}.{name}")
        if isinstance(base, ModuleV):
            if name in base.info.patched:
                return UNKNOWN
            namespace = self.module_namespace(base.info) if base.info.state != "running" else base.info.namespace
            if base.info is not fr.module and name in base.info.global_names and self._setter_may_have_run(base.info, name, fr.module):
                return UNKNOWN  # `helper.SEQ` after `helper.configure(128)` rebinds it with `global` (probe 35b)
            if name in namespace:
                return self.resolved(namespace, name)
            sub = self.project.find(f"{base.info.name}.{name}")
            if sub is not None:
                return ModuleV(sub)
            # a package's lazy attributes (PEP 562): `pkg.attention` served by its
            # module-level `__getattr__(name)` (probe 36b)
            return self._lazy_module_attribute(base.info, namespace, name, node, fr)
        if isinstance(base, InstanceV):
            if name == "__dict__" and base.cls.qualname in argparse_seeds.PLAIN_NAMESPACES:
                return self.api.call_external(self, "builtins.vars", [base], {}, False, node, fr)  # (a view: writes reach the namespace)
            if base.cls.intercepts is None:
                base.cls.intercepts = isinstance(base.cls.lookup("__getattribute__"), FunctionV)
            if base.cls.intercepts:
                return UNKNOWN.tainted(base.diff)  # its own `__getattribute__` answers every read (probe 42b)
            if name in base.attrs and not attribute_dicts.found_before_the_item(base.cls, name):
                found = base.attrs[name]
                if configdict.is_ref(found) and self.api.is_mapping_namespace(base):
                    found = self.configs.deref(self, found, node, fr)  # ConfigDict reads a FieldReference's value
                if found.changed_in_place:
                    return UNKNOWN.tainted(found.diff or base.diff)
                if base.one_of_many and isinstance(found, InstanceV):
                    found = found.one_item()  # `layers[0].cfg.seq = 511`: one item's config (probe 57a)
                if base.diff and not found.diff and not self._static_field(base.cls, name):
                    return found.tainted(True)
                return found
            member = base.cls.lookup(name)
            if member is not None and not isinstance(member, FunctionV) and (self._stored_on_class(base.cls, name) or member.changed_in_place):
                return UNKNOWN  # a class value a function stores on the class, or changes in place
            if member is not None:
                return self.api.bind_member(self, member, base, node, fr)
            if name == "__class__":
                return self.generic_class_view(base.cls) if base.recipe is not None else base.cls
            hook = base.cls.lookup("__getattr__")
            if isinstance(hook, FunctionV) and not (name.startswith("__") and name.endswith("__")) and STORED_UNSPELLED not in base.attrs and _may_know(base) and self._getattr_hook_answers(base.cls, fr.module):
                # what Python asks when the attribute is not found: the class's own
                # `__getattr__` (a config reading its dict, `return self._keys[name]`, as
                # MaxText's pyconfig does: probe 113b)
                return self.call(self.api.bind_member(self, hook, base, node, fr), [ConstV(name)], {}, False, node, fr)
            return self.api.instance_external_attr(self, base, name, node, fr)
        if isinstance(base, SuperV):
            if isinstance(base.self_value, ClassV):
                return self._super_classmethod(base.owner, base.self_value, name)
            order = base.self_value.cls.mro() if isinstance(base.self_value, InstanceV) else None
            if order is not None and any(current is base.owner for current in order):
                # past the method's class in the instance's own order: in a diamond,
                # `super()` in Left reaches Right, not Left's written base
                after = order[[id(current) for current in order].index(id(base.owner)) + 1:]
                found = next((current.attrs[name] for current in after if name in current.attrs), None)
                if found is not None and isinstance(base.self_value, InstanceV):
                    return self.api.bind_member(self, found, base.self_value, node, fr)
                inherited = self.api.library_base_method(base.self_value, name) if isinstance(base.self_value, InstanceV) else None
                if inherited is not None:
                    return inherited  # `super().__init__(num_heads=4, key_size=64)` of hk.MultiHeadAttention's subclass
                layer = base.self_value.attrs.get(self.api.LAYER_BASE) if isinstance(base.self_value, InstanceV) and name == "__call__" else None
                if layer is None and isinstance(base.self_value, InstanceV) and attribute_dicts.is_attribute_dict(base.self_value.cls):
                    # dict's own method on a dict of ours (`super(AttrDict, cfg).__setitem__(k, v)`):
                    # as `dict.__setitem__(cfg, k, v)`, which changes it (probe 102a)
                    return BoundMethodV(ExternalV(f"builtins.dict.{name}"), base.self_value)
                if layer is None:
                    return UNKNOWN
                # `super().__call__(x)` of a flax layer's subclass: the layer, differentiated with the object
                return layer.tainted(True) if base.self_value.diff and not layer.diff else layer
            for parent in base.owner.bases:  # past the method's class, in its bases' order
                found = parent.lookup(name) if isinstance(parent, ClassV) else None
                if found is not None and isinstance(base.self_value, InstanceV):
                    return self.api.bind_member(self, found, base.self_value, node, fr)
            return UNKNOWN
        if isinstance(base, ClassV):
            if name == "__name__":
                return self.api.getattr_value(self, base, name, node, fr)  # (type's, whatever the body binds)
            member = base.lookup(name)
            if isinstance(member, FunctionV) and self.api.is_classmethod(member):
                return BoundMethodV(member, base)
            if base.meta_reads and not isinstance(member, FunctionV):
                return UNKNOWN  # its metaclass answers reads on the class (a property, `__getattribute__`)
            if member is not None and not isinstance(member, FunctionV) and self._stored_on_class(base, name):
                return UNKNOWN  # a function stores it on the class: before or after, we cannot tell
            if member is not None and member.changed_in_place:
                return UNKNOWN  # a class's list that `self.sizes += [...]` extended
            if member is not None:
                return member
            if name in ("model_construct", "construct") and self.api.is_pydantic_model(base):
                return BoundMethodV(ExternalV(self.api.PYDANTIC_CONSTRUCT), base)  # (no validation: probe 75a)
            if name in ("model_validate", "parse_obj") and self.api.is_pydantic_model(base):
                return BoundMethodV(ExternalV(self.api.PYDANTIC_VALIDATE), base)  # (as the constructor given the dict: probe 141a)
            # inherited from a library base class: that class's attribute (TrainState.create)
            for qualname in sorted(base.external_bases()):
                return ExternalV(self.api.canonical(f"{qualname}.{name}"))
            return UNKNOWN
        return self.api.getattr_value(self, base, name, node, fr)

    def e_subscript(self, node: ast.Subscript, fr: Frame) -> Value:
        base = self.ev(node.value, fr)
        found: Value = self.api.subscript(self, base, node, fr)
        return UNKNOWN.tainted(found.diff) if found.changed_in_place else found

    def e_binop(self, node: ast.BinOp, fr: Frame) -> Value:
        left = self.ev(node.left, fr)
        right = self.ev(node.right, fr)
        return self.api.binop(self, node.op, left, right, node, fr)

    def e_unaryop(self, node: ast.UnaryOp, fr: Frame) -> Value:
        operand = self.ev(node.operand, fr)
        return self.api.unaryop(self, node, operand, fr)

    def e_boolop(self, node: ast.BoolOp, fr: Frame) -> Value:
        return self.api.boolop(node, self._operands(node, fr))

    def _operands(self, node: ast.BoolOp, fr: Frame) -> list[Value]:
        """The operands of `and`/`or` that run: none after one that settles the result
        (`False and (T := 511)` binds nothing); after one of unknown truth, a walrus in
        a later operand may or may not bind."""
        settles = isinstance(node.op, ast.Or)  # the operand truth that settles it
        values: list[Value] = []
        maybe_skipped = False
        for operand in node.values:
            fr.conditional += maybe_skipped
            try:
                if maybe_skipped and fr.state is not None and self._has_walrus(operand):
                    before = fr.state
                    fr.state = dict(before)
                    value = self.ev(operand, fr)
                    fr.state = join_states(before, fr.state)
                    fr.settle()
                else:
                    value = self.ev(operand, fr)
            finally:
                fr.conditional -= maybe_skipped
            values.append(value)
            truth = self.api.truth(value)
            if truth is settles:
                break
            maybe_skipped = maybe_skipped or truth is None
        return values

    def _has_walrus(self, node: ast.expr) -> bool:
        found = self.walrus_in.get(node)
        if found is None:
            found = self.walrus_in[node] = any(isinstance(inner, ast.NamedExpr) for inner in ast.walk(node))
        return found

    def e_compare(self, node: ast.Compare, fr: Frame) -> Value:
        left = self.ev(node.left, fr)
        rights = [self.ev(c, fr) for c in node.comparators]
        if len(rights) == 1 and isinstance(left, ExternalV | jax_api.JaxtypingV):
            if isinstance(left, ExternalV) and left.qualname == "sys.version_info":
                return python_version.version_check(node.ops[0], rights[0], None)
            base = self.ev(node.left.value, fr) if isinstance(node.left, ast.Subscript) and dotted_name(node.left.value) else None
            parts = python_version.version_parts(node.left, left, base)
            if parts is not None:
                return python_version.version_check(node.ops[0], rights[0], parts)
        return self.api.compare(node, left, rights)

    def e_set(self, node: ast.Set, fr: Frame) -> Value:
        """`{"cudnn", Impl.FAST}`: a set of constants (SetV), for `impl in ODD_OK`."""
        if any(isinstance(elt, ast.Starred) for elt in node.elts):
            return UNKNOWN
        return self._set_of([self.ev(elt, fr) for elt in node.elts], node, fr)

    def _set_of(self, items: list[Value], node: ast.Set | ast.SetComp, fr: Frame) -> Value:
        """A set of constants (SetV), each once; Unknown where one is not a constant."""
        distinct: dict[object, Value] = {}
        for item in items:
            ok, py = const_value(item)
            if not ok:
                return UNKNOWN
            distinct.setdefault((type(py), py), item)
        return SetV(tuple(distinct.values()), (self.step(fr, node, "a set display" if isinstance(node, ast.Set) else "a set comprehension"),))

    def test_truth(self, test: ast.expr, fr: Frame, dicts: bool = False) -> bool | None:
        """Is an if's test certainly true or false?  A boolean operation is decided by
        any operand that settles it, wherever it stands: `unknown or odd` is true when
        `odd` is (the other operands are evaluated as they are for its value).  With
        `dicts`, `if overrides:` on the **kwargs a call passed is decided by its keys
        (only an if's own test: deciding `kwargs or {}` everywhere sent keras' layer
        tests past the work budget, following every branch of its test harness)."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.BoolOp):
            inner = self.test_truth(test.operand, fr)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            truths = [self.api.truth(value) for value in self._operands(test, fr)]
            settles = isinstance(test.op, ast.Or)  # the operand truth that settles it
            if any(t is settles for t in truths):
                return settles
            return (not settles) if all(t is (not settles) for t in truths) else None
        value = self.ev(test, fr)
        return bool(value.items) if dicts and isinstance(value, DictV) else self.api.truth(value)

    def e_ifexp(self, node: ast.IfExp, fr: Frame) -> Value:
        truth = self.test_truth(node.test, fr)
        if truth is True:
            return self.ev(node.body, fr)
        if truth is False:
            return self.ev(node.orelse, fr)
        fr.conditional += 1
        try:
            body, orelse = self.ev(node.body, fr), self.ev(node.orelse, fr)
        finally:
            fr.conditional -= 1
        # an arm that certainly raises gives no value: the expression's is the other's
        return orelse if body is NEVER else body if orelse is NEVER else join(body, orelse)

    def e_tuple(self, node: ast.Tuple | ast.List, fr: Frame) -> Value:
        items: list[Value] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                inner = self.ev(elt.value, fr)
                spread = self.api.unpack(self, inner, None, False, elt, fr)
                if spread is None:
                    return UNKNOWN
                items.extend(spread)
            else:
                items.append(self.ev(elt, fr))
        return TupleV(tuple(items), isinstance(node, ast.List), (self.step(fr, node, "a literal"),))

    def e_dict(self, node: ast.Dict, fr: Frame) -> Value:
        """A dict display; one whose keys are not all known is unknown, and not marked
        differentiated by one differentiated value: `{**params, "head": head}` over a
        linen model differentiates the head only (probe 21a's s35).  Where a spread of
        unknown content is differentiated, the transforms around no longer know their
        reach (JCD202 where the call is not otherwise proven: `{**frozen, **lora}`,
        probe 64b)."""
        pairs: list[tuple[ast.expr | None, Value, Value | None]] = []
        for k, v in zip(node.keys, node.values):
            value = self.ev(v, fr)
            pairs.append((k, value, None if k is None else self.ev(k, fr)))
        given = [pair for pair in pairs if not (pair[0] is None and isinstance(pair[1], DictV) and not pair[1].items)]
        if len(given) == 1 and given[0][0] is None and isinstance(given[0][1], UnknownV):
            # `{**params}` (or `{**params, **{}}`: probe 72e) of params not known key by
            # key: differentiated as they are (probe 64b)
            return given[0][1]
        items: tuple[tuple[object, Value], ...] = ()
        for k, value, key_value in pairs:
            ok, key = (True, None) if key_value is None else const_value(key_value)
            if (k is None and not isinstance(value, DictV)) or not ok:
                if any(value.diff and k is None and not isinstance(value, DictV) for k, value, _ in pairs):
                    # (a differentiated key beside unknown ones, `{**params, "head": head}`,
                    # differentiates that key only: as before)
                    fr.ctx = fr.ctx.reach_unknown()
                return UNKNOWN
            spread = list(value.items) if k is None and isinstance(value, DictV) else [(key, value)]  # `**spread`: its keys win
            for key, item in spread:
                items = with_key(items, key, item)
        return DictV(items, (self.step(fr, node, "a dict literal"),))

    def e_lambda(self, node: ast.Lambda, fr: Frame) -> Value:
        defaults = tuple(self.ev(d, fr) for d in node.args.defaults)
        closure = (fr.state,) + fr.closure if fr.func is not None and fr.state is not None and not fr.is_class else fr.closure
        return FunctionV(node, fr.module, closure, defaults, (), "<lambda>")

    def e_namedexpr(self, node: ast.NamedExpr, fr: Frame) -> Value:
        value = self.ev(node.value, fr)
        self.assign(node.target, value, fr, node)
        return value

    def e_comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, fr: Frame) -> Value:
        iterated = node.generators[0].iter
        first = self.ev(iterated, fr)  # evaluated in the enclosing scope
        if isinstance(first, ArrayV) and isinstance(iterated, ast.Call):
            # `[x[s:s + 99] for s in np.arange(0, n, 50)]`: NumPy's ints, as a range's (probe 105c)
            first = self._numpy_arange_as_range(iterated, fr) or first
        value = self._comprehension(node, first, fr)
        if self._has_walrus(node) and fr.state is not None and self.api.known_items(first, 1) != []:
            # `[T := n for n in lens]` binds T in the enclosing function (PEP 572), as
            # many times as the comprehension runs: Unknown after it
            for inner in ast.walk(node):
                if isinstance(inner, ast.NamedExpr):
                    self.assign_name(inner.target.id, UNKNOWN, fr)
        return value

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, first: Value, fr: Frame) -> Value:
        unrolled = self.unrolled_comprehension(node, first, fr)
        if unrolled is not None:
            return unrolled
        element = self.widened_element(node, first, fr)
        if isinstance(node, (ast.SetComp, ast.DictComp)) or isinstance(element, UnknownV):
            return UNKNOWN.tainted(element.diff)
        return IterV(element, isinstance(node, ast.ListComp), (self.step(fr, node, "a comprehension"),))

    def widened_element(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, first: Value, fr: Frame) -> Value:
        """What describes every item of a comprehension: the element evaluated once with
        each target bound to what describes all the items it iterates over (conditions
        only drop items); the pieces are evaluated for their events.  A dict
        comprehension's: Unknown."""
        inner = Frame(fr.module, _comprehension_state(fr), fr.ctx, fr.func, fr.local_names, fr.closure, fr.generic)
        for i, gen in enumerate(node.generators):
            iterable = first if i == 0 else self.ev(gen.iter, inner)
            element = self.api.iter_element(self, iterable, gen, inner)
            self.assign(gen.target, element, inner, gen)
            for cond in gen.ifs:
                self.ev(cond, inner)
        inner.branch_depth = 1
        if isinstance(node, ast.DictComp):
            key = self.ev(node.key, inner)
            value = self.ev(node.value, inner)
            # (what it holds carries the items' tangents: `{k: f(v) for k, v in params.items()}`
            # of differentiated params is differentiated; probe 61a)
            return UNKNOWN.tainted(key.diff or value.diff)
        return self.ev(node.elt, inner)

    def unrolled_comprehension(self, node: ast.ListComp | ast.GeneratorExp | ast.DictComp | ast.SetComp, iterable: Value, fr: Frame) -> Value | None:
        """`[f(t) for t in (q, k, v)]`, `(x[:, i] for i in range(3))`: one generator over
        a short sequence whose items are known, filtered only by conditions the analysis
        decides, gives a tuple (or list) of the values, so that `q, k, v = ...` unpacks
        them; `{n: f(k) for n, k in zip("qkv", keys)}` gives a dict when every key is a
        constant, and `{f.name for f in fields}` a set of constants.  None: not that case
        (the caller evaluates the comprehension once, with the target unknown)."""
        if len(node.generators) == 2 and isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self._flattened(node, iterable, fr)
        if len(node.generators) != 1 or node.generators[0].is_async:
            return None
        gen = node.generators[0]
        items = self.api.unpack(self, iterable, None, False, gen, fr)
        count = len(items) if items is not None else self.api.known_length(iterable)
        if count is None and isinstance(iterable, ArrayV) and iterable.shape:
            count = iterable.shape[0].value  # its rows (`[x[s:s + n] for s in starts]`, starts an np.arange: probe 118b)
        if count is not None and _MAX_UNROLLED < count <= _MAX_WIDENED_ITEMS and not gen.ifs and not isinstance(node, (ast.DictComp, ast.SetComp)):
            # too many to evaluate one by one: each item is what the element evaluated once
            # with the target unknown describes, and there are that many of them
            # (`jnp.stack([x[:, i * s:i * s + p] for i in range(n)])`, 42 patches: probe 51c)
            widened = self.widened_element(node, iterable, fr)
            if not _immutable(widened):
                return None  # (one object for many: a change through one would show in all)
            items = TupleV((widened,) * count, isinstance(node, ast.ListComp), (self.step(fr, node, f"a comprehension of {count} items"),))
            return not_a_sequence(items) if isinstance(node, ast.GeneratorExp) else items
        if items is None or len(items) > _MAX_UNROLLED:
            return None
        mark = len(self.events)
        out: list[Value] = []
        entries: list[tuple[object, Value]] = []
        # one scope for every pass, as Python has: a lambda made in one pass reads the
        # target as the last pass left it (`[lambda: n for n in (511, 512)][0]()` is 512)
        scope = _comprehension_state(fr)
        for item in items:
            inner = Frame(fr.module, scope, fr.ctx, fr.func, fr.local_names, fr.closure, fr.generic)
            inner.branch_depth = 1
            self.assign(gen.target, item, inner, gen)
            keep = True
            for cond in gen.ifs:
                truth = self.api.truth(self.ev(cond, inner))
                if truth is None:
                    del self.events[mark:]
                    return None
                keep = keep and truth
            if keep and isinstance(node, ast.DictComp):
                ok, key = const_value(self.ev(node.key, inner))
                value = self.ev(node.value, inner)
                if not ok or not isinstance(key, (str, int)) or isinstance(key, bool):
                    del self.events[mark:]
                    return None
                entries = list(with_key(entries, key, value))
            elif keep and not isinstance(node, ast.DictComp):
                out.append(self.ev(node.elt, inner))
        if isinstance(node, ast.DictComp):
            return DictV(tuple(entries), (self.step(fr, node, "a dict comprehension"),))
        if isinstance(node, ast.SetComp):
            return self._set_of(out, node, fr)
        items = TupleV(tuple(out), isinstance(node, ast.ListComp), (self.step(fr, node, "a comprehension"),))
        return not_a_sequence(items) if isinstance(node, ast.GeneratorExp) else items

    def _flattened(self, node: ast.ListComp | ast.GeneratorExp, iterable: Value, fr: Frame) -> Value | None:
        """`[t for ids in token_lists for t in ids]` with no condition, over known outer
        items whose inner iterables have known lengths: a list as long as their sum, each
        item what the element is with both targets unknown (an immutable value, else
        Unknown), as a long comprehension's are (probe 87b: texts grouped into blocks
        after flattening).
        None: not that case."""
        outer, inner_gen = node.generators
        if outer.ifs or inner_gen.ifs or outer.is_async or inner_gen.is_async:
            return None
        items = self.api.unpack(self, iterable, None, False, outer, fr)
        if items is None or len(items) > _MAX_UNROLLED:
            return None
        mark = len(self.events)
        total = 0
        for item in items:
            scope = Frame(fr.module, _comprehension_state(fr), fr.ctx, fr.func, fr.local_names, fr.closure, fr.generic)
            scope.branch_depth = 1
            self.assign(outer.target, item, scope, outer)
            count = self.api.known_length(self.ev(inner_gen.iter, scope))
            if count is None:
                del self.events[mark:]
                return None
            total += count
            if total > _MAX_WIDENED_ITEMS:
                del self.events[mark:]
                return None
        del self.events[mark:]
        widened = self.widened_element(node, iterable, fr)
        if not _immutable(widened):
            widened = UNKNOWN.tainted(widened.diff)  # (one object must not stand for many)
        found = TupleV((widened,) * total, isinstance(node, ast.ListComp), (self.step(fr, node, f"a comprehension of {total} items"),))
        return not_a_sequence(found) if isinstance(node, ast.GeneratorExp) else found

    def e_joinedstr(self, node: ast.JoinedStr, fr: Frame) -> Value:
        """An f-string of known parts (`PRESETS[f"{modality}_{size}"]`), else Unknown."""
        parts: list[str] | None = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                ok, py = const_value(self.ev(value.value, fr))
                if parts is None or not ok or value.format_spec is not None or not isinstance(py, (str, int, bool)):
                    parts = None
                    continue
                parts.append(repr(py) if value.conversion == ord("r") else str(py))
            elif isinstance(value, ast.Constant) and isinstance(value.value, str) and parts is not None:
                parts.append(value.value)
            else:
                parts = None
        return ConstV("".join(parts), (self.step(fr, node, "an f-string"),)) if parts is not None else UNKNOWN

    def e_starred(self, node: ast.Starred, fr: Frame) -> Value:
        return self.ev(node.value, fr)

    def e_yield(self, node: ast.Yield, fr: Frame) -> Value:
        """`yield v` adds v to the generator's items; what `send` gives back is unknown."""
        value = self.ev(node.value, fr) if node.value is not None else ConstV(None)
        if fr.yields is not None:
            fr.yields.append(value)
            if fr.branch_depth or fr.conditional:
                fr.yields_in_order = False
        return UNKNOWN

    def e_yieldfrom(self, node: ast.YieldFrom, fr: Frame) -> Value:
        """`yield from it` yields each item of it."""
        value = self.ev(node.value, fr)
        if fr.yields is not None:
            known = self.api.known_items(value, _MAX_UNROLLED_LOOP) if not (fr.branch_depth or fr.conditional) else None
            if known is None:
                fr.yields.append(self.api.iter_element(self, value, node, fr))
                fr.yields_in_order = False
            else:
                fr.yields.extend(known)
        return UNKNOWN

    def e_await(self, node: ast.Await, fr: Frame) -> Value:
        self.ev(node.value, fr)
        return UNKNOWN

    def e_slice(self, node: ast.Slice, fr: Frame) -> Value:
        return UNKNOWN

    def e_call(self, node: ast.Call, fr: Frame) -> Value:
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.keywords:
            if not node.args:
                return self._super(fr)
            if len(node.args) == 2 and isinstance(owner := self.ev(node.args[0], fr), ClassV) and isinstance(bound := self.ev(node.args[1], fr), InstanceV):
                return SuperV(owner, bound)  # `super(Sub, self)`, the old spelling (probe 36a)
        callee = self.ev(node.func, fr)
        # (the receiver is read again: only a name or an attribute chain, which reading twice
        # changes nothing, unlike a call)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _REBUILDING_DUNDERS and _reread_safely(node.func.value) and not isinstance(callee, (BoundMethodV, FunctionV)):
            # `cfg.__init__(**overrides)` or `cfg.__setattr__(k, v)` through a method the
            # code does not define (a dataclass's generated `__init__`, object's
            # `__setattr__`): any attribute may change (probe 94b)
            receiver = self.ev(node.func.value, fr)
            if isinstance(receiver, InstanceV):
                for arg in (*node.args, *(kw.value for kw in node.keywords)):
                    self.ev(arg.value if isinstance(arg, ast.Starred) else arg, fr)
                self.mutations += 1
                receiver.forget_all()
                return ConstV(None)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "cache_clear" and not node.args and _reread_safely(node.func.value):
            owner = self.ev(node.func.value, fr)
            if isinstance(owner, FunctionV) and owner.decorators and _cached(owner):
                # `load_cfg.cache_clear()`: the next call makes a new object (probe 93a)
                self.cache_clears[owner.key()] = self.cache_clears.get(owner.key(), 0) + 1
                return ConstV(None)
        if isinstance(node.func, ast.Attribute) and node.func.attr in DICT_WRITES and (view := dict_of(node.func.value)) is not None:
            if self._stores_unspelled(view, node, fr):  # `self.__dict__.update(kw)`
                return ConstV(None)  # (each key stored: the dict's own update would forget the rest)
        args: list[Value] = []
        star_unknown = False
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                inner = self.ev(arg.value, fr)
                spread = self.api.unpack(self, inner, None, False, arg, fr)
                if spread is None:
                    star_unknown = True
                    break
                args.extend(spread)
            else:
                args.append(self.ev(arg, fr))
        kwargs: dict[str, Value] = {}
        for kw in node.keywords:
            value = self.ev(kw.value, fr)
            if kw.arg is None:
                fields = self.configs.items(self, value, kw, fr) if isinstance(value, InstanceV) else None
                if isinstance(value, DictV) and all(isinstance(k, str) for k, _ in value.items):
                    for k, v in value.items:
                        kwargs[str(k)] = v
                elif fields is not None:
                    kwargs.update(fields)  # `Model(**config.model)`: a ConfigDict's fields
                else:
                    star_unknown = True
            else:
                kwargs[kw.arg] = value
        result = None
        if isinstance(node.func, ast.Attribute) and node.func.attr == "__init__" and not star_unknown:
            result = self.api.generated_init(self, self.ev(node.func.value, fr), args, kwargs, node, fr)
        if result is None:
            result = self.call(callee, args, kwargs, star_unknown, node, fr)
        if result is NEVER and not fr.conditional:
            fr.raised = True  # `Model(Config(seq_len=511))`: the statement raises here
        return result

    # -- calls --------------------------------------------------------------------------
    def call(
        self,
        callee: Value,
        args: Sequence[Value],
        kwargs: dict[str, Value],
        star_unknown: bool,
        node: ast.AST,
        fr: Frame,
        via: tuple[Step, ...] = (),
    ) -> Value:
        self.tick()
        if isinstance(callee, FunctionV):
            if star_unknown:
                self.escape(args, kwargs)
                return UNKNOWN
            result = self.call_function(callee, list(args), kwargs, False, self.callee_ctx(fr, node, callee), fr)
            if callee.decorators and isinstance(result, InstanceV) and _cached(callee) and len(self.cache_held) < _MAX_CACHE_HELD:
                self.cache_held[id(result)] = result
            if callee.decorators and _cached(callee) and (isinstance(result, (DictV, SetV)) or is_mutable_list(result)):
                # `@functools.lru_cache`: every call with these arguments gets the one list or
                # dict the first made, which a caller may have changed in place, and which
                # the analysis makes anew for each call (probe 91a; an object of ours is
                # one object already: the memo answers with it)
                return UNKNOWN.tainted(result.diff)
            return result
        if isinstance(callee, BoundMethodV):
            return self.call(callee.func, [callee.self_value, *args], kwargs, star_unknown, node, fr, via)
        if isinstance(callee, PartialV):
            merged = dict(callee.kwargs)
            merged.update(kwargs)
            step = self.step(fr, node, "through functools.partial")
            return self.call(callee.func, [*callee.args, *args], merged, star_unknown, node, fr, via + (step,))
        if isinstance(callee, ClassV):
            if star_unknown:
                return UNKNOWN
            if enums.is_enum(callee):
                return enums.by_value(callee, args, kwargs)
            return self.api.instantiate(self, callee, list(args), kwargs, node, fr)
        if isinstance(callee, InstanceV):
            call_member = callee.cls.lookup("__call__")
            if call_member is not None:
                return self.api.call_module_instance(self, callee, call_member, list(args), kwargs, star_unknown, node, fr)
            return self.api.instance_external_call(self, callee, list(args), kwargs, star_unknown, node, fr)
        if isinstance(callee, TransformV):
            return self.api.call_transform(self, callee, list(args), kwargs, star_unknown, node, fr)
        if isinstance(callee, ExternalV):
            if isinstance(node, ast.Call) and self.watch(callee.qualname):
                self.record(callee.qualname, node, args, kwargs, star_unknown, fr, via)
                if self.marked_site == id(node):
                    return self.api.call_external(self, callee.qualname, list(args), kwargs, star_unknown, node, fr).tainted(True)
            return self.api.call_external(self, callee.qualname, list(args), kwargs, star_unknown, node, fr)
        if isinstance(callee, ExtObjectV):
            return self.api.call_ext_object(self, callee, list(args), kwargs, star_unknown, node, fr)
        if isinstance(callee, cli_commands.CliCommandV) and not star_unknown:
            return self.api.call_cli_command(self, callee, list(args), kwargs, node, fr)
        if isinstance(callee, self.api.ExtCallDecoratorV) and len(args) == 1 and not kwargs and not star_unknown and isinstance(args[0], (FunctionV, BoundMethodV, PartialV, TransformV)):
            # `jax.named_scope("mhsa")(f)`: the decorator applied by hand (probe 89e)
            return cast(Any, callee).apply(self, args[0], cast(ast.expr, node), fr)  # (jax_api's class, typed loosely as self.api is)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("setattr", "delattr") and len(args) >= 2:
            # `monkeypatch.setattr(Config, "impl", None)` through pytest's fixture (probe 116c)
            from jax_cudnn_lint.shape_inference.externals import unset_attribute

            unset_attribute(args[0], args[1])
        self.escape(args, kwargs, unseen=True)
        if callee.diff and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "copy" and _replaces_with_constants(args):
            # `params.copy({"encoder": jax.lax.stop_gradient(params["encoder"])})`, flax's
            # FrozenDict.copy(add_or_replace) of parameters not known key by key: which of
            # them still carry tangents is not known (probe 155a): JCD202, not JCD201
            fr.ctx = fr.ctx.reach_unknown()
            return UNKNOWN
        # a method of a differentiated value not known (`params.items()` of the params a
        # grad differentiates) gives what carries its tangents (probe 61a)
        return UNKNOWN.tainted(callee.diff)

    def _super(self, fr: Frame) -> Value:
        """`super()` in a method of an analysed class (its first parameter is the instance,
        or the class in a classmethod)."""
        func = fr.func
        if func is None or func.owner is None or isinstance(func.node, ast.Lambda) or fr.state is None:
            return UNKNOWN
        params = [*func.node.args.posonlyargs, *func.node.args.args]
        self_value = fr.state.get(params[0].arg) if params else None
        if isinstance(self_value, ClassV) and self.api.is_classmethod(func):
            return SuperV(func.owner, self_value)
        return SuperV(func.owner, self_value) if isinstance(self_value, InstanceV) else UNKNOWN

    def _super_classmethod(self, owner: ClassV, cls: ClassV, name: str) -> Value:
        """`super().run()` in a classmethod: the next classmethod of that name past `owner`
        in `cls`'s order, bound to `cls` (`BosTrainer.run` calling Trainer.run with cls
        BosTrainer: probe 93a); anything else through it is Unknown."""
        order = cls.mro()
        if order is None or not any(current.node is owner.node for current in order):
            return UNKNOWN
        after = order[[current.node for current in order].index(owner.node) + 1:]
        found = next((current.attrs[name] for current in after if name in current.attrs), None)
        if isinstance(found, FunctionV) and self.api.is_classmethod(found):
            return BoundMethodV(found, cls)
        return UNKNOWN

    def _stores_unspelled(self, obj: ast.expr, call: ast.Call | None, fr: Frame) -> bool:
        """`obj.__dict__` or `vars(obj)` written through: any attribute of obj may change,
        unless it is `.update(kw)` of a dict whose keys are all known (a config's
        `self.__dict__.update(kwargs)` given no extra keywords: probe 68b).  True where each
        key was stored."""
        value = self.ev(obj, fr)
        if not isinstance(value, InstanceV):
            return False
        self.mutations += 1
        plain = call is not None and isinstance(call.func, ast.Attribute) and call.func.attr == "update" and len(call.args) + len(call.keywords) >= 1
        given: Value | None = None
        if call is not None and plain and len(call.args) == 1 and not call.keywords and (isinstance(call.args[0], ast.Name) or _plain_dict_display(call.args[0])):
            given = self.ev(call.args[0], fr)  # (a name or a display of names and constants: read twice, no harm)
        elif call is not None and plain and not call.args and all(kw.arg is not None and isinstance(kw.value, (ast.Constant, ast.Name)) for kw in call.keywords):
            given = DictV(tuple((cast(str, kw.arg), self.ev(kw.value, fr)) for kw in call.keywords))  # `vars(cfg).update(dropout=0.1)` (probe 146a)
        if isinstance(given, DictV) and not given.changed_in_place and all(isinstance(key, str) for key, _ in given.items):
            for key, item in given.items:
                value.attrs[str(key)] = item
            if given.items:
                value.touch()
            return True
        value.forget_all()
        return False

    def register_functions(self, values: Sequence[Value]) -> None:
        """Functions stored in a container or on an object: called later, through it."""
        for value in values:
            if isinstance(value, FunctionV):
                self.registered.add(id(value.node))

    def escape(self, args: Sequence[Value], kwargs: dict[str, Value], unseen: bool = False) -> None:
        """A mutable object handed to code we cannot see may be changed by it.  `unseen`:
        a callee the analysis does not know at all (a helper in a file flake8 does not
        read), which may change a dict or list in place too (probe 57a: `drop_odd(buckets)`
        from another module); a library function is not taken to."""
        if args or kwargs:
            self.mutations += 1  # a dict or list among them may be changed in place too
        for value in (*args, *kwargs.values()):
            if unseen:
                if isinstance(value, _MAY_RUN_A_MODEL):
                    self.root.open = True  # (it may train what this program runs forward)
                _changed_by_unseen_code(value, self.api.is_frozen_class)
            elif isinstance(value, InstanceV) and not self.api.is_frozen_class(value.cls):
                value.forget()

    def record(
        self,
        qualname: str,
        node: ast.Call,
        args: Sequence[Value],
        kwargs: dict[str, Value],
        star_unknown: bool,
        fr: Frame,
        via: tuple[Step, ...] = (),
    ) -> None:
        if catches_every_error(fr.ctx.handled) and not qualname.endswith("reveal_type"):
            return  # inside `with pytest.raises(...)` (the failure is what the test wants) or a fallback
        patched_in = self.patched_apis.get(qualname)
        if patched_in is not None and self._through_a_patch(patched_in, node, fr):
            return  # replaced on this path (a test's mock, a library's install()): which calls reach JAX is not known
        settings = None
        if fr.module.state == "running" and fr.module.facts.updates_config(CONTEXT_FLAGS):
            from jax_cudnn_lint.shape_inference.externals import settings_now

            settings = settings_now(fr.module)  # (its body runs now: an update below does not hold yet)
        self.events.append(CallEvent(qualname, node, fr.module, tuple(args), dict(kwargs), star_unknown, fr.ctx, via, fr.generic, settings, self.root))

    def _through_a_patch(self, patched_in: list[PatchScope], node: ast.Call, fr: Frame) -> bool:
        """Does the call's path (its own line, the call sites of its chain) pass where a
        patch holds (PatchScope)?  Only a call that looks the API up when it runs
        (`jax.nn.dot_product_attention(...)`): a name imported before the patch is JAX's
        still; a patch of the module's internals holds for every call.  Not the other
        experiments of a tree (probe 33b), nor code after a `with mock.patch(...)` block,
        nor a program importing a module whose `install()` it never calls (probe 34a)."""
        looked_up = isinstance(node.func, ast.Attribute) and node.func.attr in WATCHED_NAMES
        places = [(fr.module.path, node.lineno), *((step.path, step.line) for step in fr.ctx.chain)]
        for scope in patched_in:
            if (looked_up or scope.internals) and any(self._patch_holds(scope, path, line) for path, line in places):
                return True
        return False

    def _patch_holds(self, scope: PatchScope, path: str, line: int) -> bool:
        if scope.context and scope.installer is not None:
            return self._in_with_of(path, line, scope.installer)
        if scope.set_up_class is not None and not (path == scope.path and scope.first <= line <= scope.last):
            return self._in_subclass_keeping_set_up(path, line, scope.set_up_class)
        conftest = os.path.basename(scope.path) == "conftest.py"
        if conftest and not path.startswith(os.path.join(os.path.dirname(scope.path), "")):
            return False
        if scope.fixture is not None:
            return scope.autouse or self._requests_fixture(path, line, scope.fixture, scope.path == path)
        if conftest and scope.lasting and (scope.installer is None or self._conftest_runs(scope.path, scope.installer)):
            return True  # the conftest's top level, a hook of it, or what those call: every test of its folder
        if path == scope.path and scope.first <= line <= scope.last:
            return True  # the rest of the with block, test or function that patches
        if not scope.lasting:
            return False
        if path != scope.path and path not in self.project.imported_by.get(scope.path, ()):
            return False
        if scope.installer is None:
            return True
        info = self.project.by_path.get(path)
        # the patching function runs where the module calls it (`testing_utils.install()`)
        return info is not None and bool(info.facts.direct_calls(scope.installer) or info.facts.attribute_calls(scope.installer))

    def _conftest_runs(self, path: str, function: str) -> bool:
        """Does pytest run the conftest function: a hook (`pytest_configure`), or one the
        conftest itself calls (its top level, a fixture, a hook)?  An uncalled helper that
        patches holds for no test (probe 42c)."""
        info = self.project.by_path.get(path)
        if function.startswith(("pytest_", "__")) or info is None:
            return True  # (a dunder runs where its class is made or used: `Router()` in a hook, probe 44a)
        calls = info.facts.direct_calls(function)
        # called, handed on (`pytest.fixture(autouse=True)(_route)`), or a method called
        # (`Router().install()` in a hook: probe 43a)
        return calls is None or bool(calls) or bool(info.facts.attribute_calls(function))

    def _in_subclass_keeping_set_up(self, path: str, line: int, base: str) -> bool:
        """Is the line in a class of that module whose setUp is `base`'s: found through
        its bases left to right, depth first (as Python's order does for these trees), where
        no class before it defines or assigns its own `setUp` without calling the base's
        and no library TestCase (whose own setUp shadows what follows) comes first (probes
        36a, 37a, 38a: a patch a base or mixin starts)?"""
        info = self.project.by_path.get(path)
        if info is None:
            return False
        classes = {stmt.name: stmt for stmt in every_statement(info.tree.body) if isinstance(stmt, ast.ClassDef)}
        around = [cls for cls in classes.values() if cls.lineno <= line <= (cls.end_lineno or cls.lineno)]
        if not around:
            return False

        def resolves(cls: ast.ClassDef, depth: int) -> bool | None:
            """True: `base`'s setUp runs; False: another does; None: not decided here."""
            if depth > 20:
                return False
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in _PER_TEST_SET_UP:
                    if not any(isinstance(node, ast.Attribute) and node.attr == stmt.name and isinstance(node.ctx, ast.Load) for node in ast.walk(stmt)):
                        return cls.name == base  # its own setUp, not calling the one after it
                elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id in _PER_TEST_SET_UP for t in stmt.targets):
                    return False  # `setUp = unittest.TestCase.setUp`
            if cls.name == base:
                return True
            for named in (dotted_name(b) for b in cls.bases):
                short = (named or "").rpartition(".")[2]
                if short in classes:
                    found = resolves(classes[short], depth + 1)
                    if found is not None:
                        return found
                elif short.endswith("TestCase"):
                    return False  # a library TestCase's own setUp comes first
            return None

        return resolves(max(around, key=lambda cls: cls.lineno), 0) is True

    def _in_with_of(self, path: str, line: int, manager: str) -> bool:
        """Is the line in the body of a `with manager(...)` block (by name or attribute)?"""
        info = self.project.by_path.get(path)
        if info is None:
            return False
        for stmt in every_statement(info.tree.body):
            if isinstance(stmt, (ast.With, ast.AsyncWith)) and stmt.body and stmt.body[0].lineno <= line <= (stmt.end_lineno or stmt.lineno):
                for item in stmt.items:
                    called = item.context_expr.func if isinstance(item.context_expr, ast.Call) else None
                    if (isinstance(called, ast.Name) and called.id == manager) or (isinstance(called, ast.Attribute) and called.attr == manager):
                        return True
        return False

    def _requests_fixture(self, path: str, line: int, fixture: str, defined_here: bool) -> bool:
        """Is the line in a test (or fixture) that requests `fixture` (fixture_requests),
        through the fixtures of its own module and of its conftest.py files?"""
        info = self.project.by_path.get(path)
        if info is None:
            return False
        conftests = [found for conftest in conftest_paths(path) if (found := self.project.by_path.get(conftest)) is not None]
        for conftest in conftests:
            self.project.load(conftest)
        return requests_fixture(info.tree, line, fixture, [info.tree, *(conftest.tree for conftest in conftests)], defined_here)

    def callee_ctx(self, fr: Frame, node: ast.AST, callee: Value) -> Ctx:
        name = callee.qualname if isinstance(callee, FunctionV) else ""
        step = Step(fr.module.path, getattr(node, "lineno", 0), f"called as {name}()" if name else "called")
        ctx = fr.ctx
        return Ctx(ctx.chain + (step,), ctx.transforms, ctx.params_diff, ctx.params_diff_why, ctx.vmaps, ctx.depth + 1, ctx.x64, ctx.precision, ctx.second_order, ctx.handled, ctx.config_precision, ctx.params_tree, ctx.mesh, ctx.staged_handled, None, ctx.guarded)

    def _may_reenter(self, func: FunctionV, key: object) -> bool:
        """A class's `__init__` building nested instances of itself (`ConfigDict(v) if
        isinstance(v, dict) else v`: probe 71a) runs a few levels deep; other recursion is
        not followed (walkers over trees not known would cost and resolve nothing)."""
        return isinstance(func.node, ast.FunctionDef) and func.node.name == "__init__" and self.active.count(key) < MAX_REENTRY

    def call_function(
        self,
        func: FunctionV,
        args: list[Value],
        kwargs: dict[str, Value],
        star_unknown: bool,
        ctx: Ctx,
        caller: Frame | None,
        generic: bool = False,
    ) -> Value:
        node = func.node
        active_key = func.key()
        if ctx.depth > MAX_DEPTH or active_key in self.active and not self._may_reenter(func, active_key):
            argparse_seeds.not_followed((*args, *kwargs.values()))
            return UNKNOWN
        generic = generic or (caller is not None and caller.generic)
        if caller is not None:
            self.called_by_code.add(func)
        if func.decorators and (size := _cache_size(func)) and all(const_value(given)[0] for given in (*args, *kwargs.values())):
            self._use_cache_slot(func, args, kwargs, size)  # (a run with unknown arguments is no call of the program's)
        shared = [a for a in (*args, *kwargs.values()) if isinstance(a, InstanceV) and a.recipe is not None]
        memo_key = self._memo_key(func, args, kwargs, ctx, generic, caller, bool(shared))
        if shared and memo_key not in self.memo and (own := self._memo_key(func, args, kwargs, ctx, generic, caller, False)) in self.memo:
            memo_key = own  # a call that changed this generic `self`, or hands it out
        if memo_key in self.memo:
            result, recorded, (_, first_args, first_kwargs) = self.memo[memo_key]
            self.events.extend(self.replayed(recorded, memo_key, ctx))
            if memo_key in self.changes_arguments:
                # the first call changed a dict or list it was given in place (`d.pop(k)`):
                # this call's are changed too (probe 53a: a module's dict read as before)
                self.mutations += 1
                for given in (*args, *kwargs.values()):
                    mark_changed_in_place(given)
            result = _reattributed(result, [*first_args, *first_kwargs.values()], [*args, *kwargs.values()])
            made = self.made_by_call.get(memo_key)
            if made is not None and not _cached(func):
                result = fresh_copies(result, *made)  # each call makes its own objects
            if memo_key in self.config_effects:
                self._config_set_by_call(caller, self.config_effects[memo_key])
            if isinstance(result, IterV) and result.stamp is not None:
                # the same generator called again with the same inputs: its items hold from now
                result = IterV(result.element, result.is_list, result.why, self.mutations)
            return result
        mark = len(self.events)
        first_made = next_serial()
        before = [_fingerprint(a) for a in shared]
        containers = [a for a in (*args, *kwargs.values()) if isinstance(a, (DictV, SetV)) or is_mutable_list(a)]
        state = self.bind_params(func, args, kwargs, generic, caller is None)
        if state is None:
            argparse_seeds.not_followed((*args, *kwargs.values()))
            return UNKNOWN
        local_names = func.module.facts.locals_of(node)
        frame = Frame(func.module, state, ctx, func, local_names, func.closure, generic)
        if caller is not None:
            frame.skip_before = _arm_start(caller)
        is_generator = func.module.facts.is_generator(node)
        if is_generator:
            frame.yields = []
        self.active.append(active_key)
        try:
            if isinstance(node, ast.Lambda):
                result = self.ev(node.body, frame)
            else:
                self.exec_block(node.body, frame)
                if frame.nested:
                    self.analyse_nested(frame)
                if id(node) in self.config_setters:
                    self.config_effects[memo_key] = effect = self._config_at_exit(frame, ctx)
                    self._config_set_by_call(caller, effect)
                never = frame.state is None and not frame.returns and not isinstance(node, ast.AsyncFunctionDef) and not _abstract(func) and not self._may_be_replaced(func)
                if frame.state is not None:
                    frame.returns.append(ConstV(None))
                result = frame.returns[0] if frame.returns else NEVER if never else UNKNOWN
                for other in frame.returns[1:]:
                    result = join(result, other)
                if result is NEVER and frame.returns:
                    result = UNKNOWN  # (a returned name that held what a raising call gave)
                if is_generator:
                    result = self.generator_value(func, frame.yields or [], frame.yields_in_order)
        finally:
            self.active.pop()
        made = (first_made, next_serial())
        if any(a.changed_in_place for a in containers):
            self.changes_arguments.add(memo_key)
        if shared and not (_plain(result) and before == [_fingerprint(a) for a in shared]):
            # it changed a generic `self` or hands it out: its memo serves that object only
            own = self._memo_key(func, args, kwargs, ctx, generic, caller, False)
            if memo_key in self.config_effects:
                self.config_effects[own] = self.config_effects.pop(memo_key)
            memo_key = own
        recorded = _distinct(self.events[mark:])
        if any(event.ctx.vmaps for event in recorded):
            self.memo_chains[memo_key] = ctx.chain
        if made[1] > made[0] and not _cached(func):
            # the objects as the call returns them: later calls get copies of these, not
            # of what the first caller went on to change (`config.seq_len = 127`)
            self.made_by_call[memo_key] = made
            self.memo[memo_key] = (fresh_copies(result, *made), recorded, (func, args, kwargs))
        else:
            self.memo[memo_key] = (result, recorded, (func, args, kwargs))
        return result

    def replayed(self, recorded: tuple[CallEvent, ...], memo_key: object, ctx: Ctx) -> Iterator[CallEvent]:
        """The events of a memoised call, for a call that the memo answers: this root's,
        and under a vmap with this call's own chain of call sites.  JCD209 reads the code
        along the chain, from the vmap down to the attention: a helper called twice with
        equal shapes (`attend(x, x, x)`, then `attend(h, memory, memory)` with `memory`
        not batched) must be judged at each call, not at the first only."""
        first = self.memo_chains.get(memo_key)
        for event in recorded:
            if event.root is not self.root:
                event = dataclasses.replace(event, root=self.root)
            if first is not None and event.ctx.vmaps and ctx.chain != first and event.ctx.chain[: len(first)] == first and self.replayed_events < _MAX_REPLAYED:
                self.replayed_events += 1
                event = dataclasses.replace(event, ctx=dataclasses.replace(event.ctx, chain=ctx.chain + event.ctx.chain[len(first) :]))
            yield event

    def _use_cache_slot(self, func: FunctionV, args: list[Value], kwargs: dict[str, Value], size: int) -> None:
        """`lru_cache(maxsize=k)` with k small: the calls in analysis order, as the cache
        sees them; arguments pushed out of it get a new generation, so the next call
        with them makes a new object (probe 94a: `preset("base")` after `preset("large")`
        under maxsize=1)."""
        slots = self.cache_slots.setdefault(func.key(), [])
        key = _cache_args_key(args, kwargs)
        if key in slots:
            slots.remove(key)
        slots.append(key)
        while len(slots) > size:
            evicted = slots.pop(0)
            generation = (func.key(), evicted)
            self.cache_generations[generation] = self.cache_generations.get(generation, 0) + 1

    def _memo_key(self, func: FunctionV, args: list[Value], kwargs: dict[str, Value], ctx: Ctx, generic: bool, caller: Frame | None, shared: bool) -> object:
        """What a call's result and events depend on.  With `shared`, a generic
        instance passed as an argument is keyed by how it was built rather than by
        identity: the methods of a class analysed as any caller's each get their own
        generic `self`, and a helper they all call with the same arguments is analysed
        once (where it neither changes that `self` nor hands it out)."""
        def key(value: Value) -> object:
            if isinstance(value, InstanceV) and value.recipe is not None:
                # what it holds now, by identity: the copies of one template share their
                # values until a method stores its own (`self.seq_len = 511`)
                return ("generic", value.recipe, value.diff, value.state(), tuple(value.attrs), tuple(map(id, value.attrs.values())))
            return value.key()

        keyed_value: Callable[[Value], object] = key if shared else _value_key

        def keyed(value: Value) -> object:
            # an int's provenance is what a finding's evidence cites: `make_q(31)` called by two
            # tests is two calls, or the second test's finding names the first one's literal
            if isinstance(value, IntV) and value.dim.value is not None and value.dim.why:
                return (keyed_value(value), tuple((step.path, step.line) for step in value.dim.why))
            return keyed_value(value)

        # where a patch of a watched API holds on the call's path, its events differ (a
        # test asking for a mocking fixture beside one that does not: probe 34a)
        patched = self._patched_on_chain(ctx) if self.patched_apis else ()
        # `caller is None`: an entry binds `*args`/`**kwargs` to unknown, a call to what it passes
        # (a call run aside by mixed_tangents does not mark the differentiations inside it:
        # its events serve aside runs only)
        # a cached function is run once per arguments until its cache_clear(), whatever
        # was written since (the cache's one object); any other may read a cached object
        # and see the writes
        if func.decorators and _cached(func):
            # (one form whatever else was cached: a key that changed its shape when another
            # function's arguments were pushed out missed the object: probe 95a)
            cleared = self.cache_clears.get(func.key(), 0) if self.cache_clears else 0
            pushed_out = self.cache_generations.get((func.key(), _cache_args_key(args, kwargs)), 0) if self.cache_generations else 0
            cache_state: object = (cleared, pushed_out)
        elif self.cache_held or self.cache_clears:
            cache_state = (sum(held.writes[0] for held in self.cache_held.values()), sum(self.cache_clears.values()))
        else:
            cache_state = 0
        # (a test whose conftest forces the CPU sees `jax.default_backend()` as "cpu")
        on_cpu = self.tests_force_cpu(ctx, func.module)
        return (func.key(), self._closure_key(func), tuple(map(keyed, args)), tuple(sorted((k, keyed(v)) for k, v in kwargs.items())), ctx.key(), generic, caller is None, self.linen_decoding > 0, self.globals_epoch, self.absl_flags.changes, patched, self.aside_runs > 0, self.marked_site, cache_state, on_cpu)

    def _closure_key(self, func: FunctionV) -> object:
        """What a nested function reads from its enclosing scopes now: those scopes change
        in place (`T = 128; step(); T = 127; step()`, a lambda made in each pass of a loop
        over implementations: probe 38b), so the same closure is not the same call."""
        if not func.closure:
            return ()
        free = self.free_names.get(id(func.node))
        if free is None:
            local = func.module.facts.locals_of(func.node)
            free = self.free_names[id(func.node)] = tuple(sorted({name.id for name in ast.walk(func.node) if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load)} - local))
        found: list[object] = []
        for name in free:
            for scope in func.closure:
                if name in scope:
                    held = scope[name]
                    # plain data by value; an object by identity (its key may walk all it holds)
                    found.append((name, held.key() if isinstance(held, _KEYED_BY_VALUE) else id(held)))
                    break
        return tuple(found)

    def tests_force_cpu(self, ctx: Ctx, module: ModuleInfo) -> bool:
        """Does the test this analysis runs from (its entry's module: the first call
        site's, else `module`) run on the CPU because its module, or a conftest.py that
        pytest loads for it, forces the platform before anything runs (`jax.config.update(
        "jax_platforms", "cpu")`)?  Then `jax.default_backend()` is "cpu" in all it calls,
        a library's backend pick included (probe 109b)."""
        root = ctx.chain[0].path if ctx.chain else module.path
        found = self.cpu_test_roots.get(root)
        if found is None:
            from jax_cudnn_lint.shape_inference.externals import forces_cpu_before_importing

            found = False
            if is_test_path(root):
                for path in (root, *conftest_paths(root)):
                    info = self.project.by_path.get(path)
                    if info is not None:
                        self.project.load(info)
                        if forces_cpu_before_importing(info, lambda name: self.project.find(name) is not None):
                            found = True
                            break
            self.cpu_test_roots[root] = found
        return found

    def _patched_on_chain(self, ctx: Ctx) -> tuple[str, ...]:
        """The watched APIs some patch holds for at a call site of the chain."""
        return tuple(sorted(api for api, scopes in self.patched_apis.items() if any(self._patch_holds(scope, step.path, step.line) for scope in scopes for step in ctx.chain)))

    def analyse_nested(self, fr: Frame) -> None:
        """The generic analysis of the functions a generic body defined, each with its
        closure as the body leaves it (the state at `def` where control ended otherwise)."""
        nested, fr.nested = fr.nested or [], None
        handed_out = self._handed_out(fr.func.node) if fr.func is not None and nested else frozenset[str]()
        for func in nested:
            if isinstance(func.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and func.node.name in handed_out:
                # handed on as a value (returned, stored, given to code we do not see:
                # `fdl.Config(train, seq_len=256)`, probe 129a): whoever calls it passes what
                # it passes, as for a module's function handed on (_defaults_every_call_overrides)
                self.handed_out_defs.add(id(func.node))
            if func in self.called_by_code and isinstance(func.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and func.node.name not in handed_out:
                # the body ran it where it runs (a test's `f` under its `pytest.raises`:
                # probe 38b); on its own it would be read outside that context
                continue
            if fr.state is not None and func.closure and not fr.is_class:
                func = FunctionV(func.node, func.module, (fr.state,) + func.closure[1:], func.defaults, func.kw_defaults, func.qualname, func.decorators, func.owner)
            self.generic_call(func, None)

    def _handed_out(self, node: FunctionNode) -> frozenset[str]:
        """_names_handed_out, once per definition (a body analysed in many contexts)."""
        found = self.handed_out_names.get(id(node))
        if found is None:
            found = self.handed_out_names[id(node)] = _names_handed_out(node)
        return found

    @staticmethod
    def _config_at_exit(frame: Frame, entry: Ctx) -> Value | None:
        """jax_default_matmul_precision where a function that ran `jax.config.update`
        returns: what every way out agrees on, else UNKNOWN."""
        paths = list(frame.exits or ())
        if len(paths) < len(frame.returns):
            paths.append(with_config(entry, entry.x64, None))  # a `return` with no flag set
        if frame.state is not None:
            paths.append(frame.ctx)
        return joined_config(entry, paths, UNKNOWN).config_precision if paths else entry.config_precision

    def _config_set_by_call(self, caller: Frame | None, precision: Value | None) -> None:
        """The caller continues with the flag its callee set, and sets it in turn."""
        if caller is None:
            return
        caller.ctx = with_config(caller.ctx, caller.ctx.x64, precision)
        if caller.func is not None:
            self.config_setters.add(id(caller.func.node))

    def generator_value(self, func: FunctionV, yields: list[Value], in_order: bool = False) -> Value:
        """A generator function's call: an iterable whose items are what the body yields
        (joined over every yield and path; loops were run to their widened state).  The
        body was run now, not lazily as Python does, so the items hold only until the
        analysis sees anything changed in place (the stamp: a dict item stored, an
        attribute set, a list appended to), and never for a generator that reads its
        enclosing function's variables, which may be rebound before it runs."""
        if not yields or self._reads_closure(func):
            return UNKNOWN
        element = yields[0]
        for other in yields[1:]:
            element = join(element, other)
        if isinstance(element, UnknownV):
            return element
        items = tuple(yields) if in_order and len(yields) <= _MAX_UNROLLED_LOOP else None
        return IterV(element, False, (), self.mutations, items)

    @staticmethod
    def _reads_closure(func: FunctionV) -> bool:
        if not func.closure or isinstance(func.node, ast.Lambda):
            return False
        free = func.module.facts.names_used(func.node) - func.module.facts.locals_of(func.node)
        return any(name in scope for scope in func.closure for name in free)

    def bind_params(self, func: FunctionV, args: list[Value], kwargs: dict[str, Value], generic: bool = False, entry: bool = True) -> State | None:
        a = func.node.args
        positional = [*a.posonlyargs, *a.args]
        state: State = {}
        n_defaults = len(func.defaults)
        first_default = len(positional) - n_defaults
        kwargs = dict(kwargs)
        for i, param in enumerate(positional):
            if i < len(args):
                state[param.arg] = args[i]
            elif param.arg in kwargs and param not in a.posonlyargs:
                state[param.arg] = kwargs.pop(param.arg)
            elif i >= first_default:
                state[param.arg] = func.defaults[i - first_default]
            else:
                state[param.arg] = UNKNOWN
        if a.vararg:
            # a caller we cannot see may pass any number of extra arguments.  Under a
            # generic analysis a method's *args stay unknown even where the call site says
            # what it passes: following them through library dispatch (keras' Layer.
            # __call__(*args, **kwargs)) cost 15 % more analysis on the corpus for no
            # finding.  A plain function's (`def grad_of(f, q, *rest)`) cost nothing, and
            # so does a constructor's (`Sequential(*layers)`, `TimestepEmbedSequential(*blocks)`)
            # and a method's that reads its *args without handing them on (a precision
            # policy's `cast_to_compute(self, *xs)`: probe 72c) or hands them to a function
            # it names (`return attention(*args)`: probe 84d)
            opaque = generic and (entry or (func.owner is not None and getattr(func.node, "name", "") != "__init__" and func.module.facts.forwards_varargs(func.node)))
            state[a.vararg.arg] = UNKNOWN if opaque else TupleV(tuple(args[len(positional) :]))
        elif len(args) > len(positional):
            return None  # the call does not fit the signature: not ours to judge
        kw_defaults = dict(func.kw_defaults)
        for param in a.kwonlyargs:
            if param.arg in kwargs:
                state[param.arg] = kwargs.pop(param.arg)
            elif param.arg in kw_defaults:
                state[param.arg] = kw_defaults[param.arg]
            else:
                state[param.arg] = UNKNOWN
        if a.kwarg:
            # **kwargs are what the call site passes, except for the analysis's own entry
            # call (`entry`: no caller), whose callers we cannot see: a config forwarded
            # as `**cfg` reaches the watched call
            state[a.kwarg.arg] = UNKNOWN if generic and entry else DictV(tuple(kwargs.items()))
        elif kwargs:
            return None
        return state



def _fallback_could_fail(func: FunctionV, param: str) -> bool:
    """Does the body rebind `param` (None by default) from something a rule could report:
    a literal (`seq_len or 255`), a global name or attribute (`SEQ`, `cfg.seq_len`) or a
    call (`make_mask(x)`)?  Not when it only falls back on the other parameters'
    values (`dtype = dtype or query.dtype`): those are unknown without a caller."""
    node = func.node
    if isinstance(node, ast.Lambda):
        return False
    params = _param_names(node.args)
    for stmt in statements(node.body):
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == param for t in stmt.targets):
            value: ast.expr | None = stmt.value
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and isinstance(stmt.target, ast.Name) and stmt.target.id == param:
            value = stmt.value
        else:
            continue
        for sub in ast.walk(value) if value is not None else ():
            if isinstance(sub, ast.Constant) and sub.value is not None and not isinstance(sub.value, bool):
                return True
            if isinstance(sub, ast.Call) or (isinstance(sub, ast.Name) and sub.id not in params):
                return True
    return False


def _param_names(args: ast.arguments) -> frozenset[str]:
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return frozenset(a.arg for a in (*named, *extra))


def _fingerprint(inst: InstanceV, depth: int = 0) -> object:
    """What an object holds, by identity, to tell whether a call changed it: its
    attributes, which lists and dicts among them were changed in place, and (two levels
    down) what the objects it holds hold.  Its own methods' stores (`self.cache = x`)
    do not count as writes (InstanceV.writes), so its state alone would not tell."""
    values = tuple(inst.attrs.values())
    held: list[object] = [inst.state(), tuple(inst.attrs), tuple(map(id, values))]
    for value in values:
        if isinstance(value, InstanceV):
            if value is not inst and depth < 2:
                held.append(_fingerprint(value, depth + 1))
        elif getattr(value, "changed_in_place", False):
            held.append(id(value))
    return tuple(held)


_PLAIN = (UnknownV, IntV, ConstV, FloatV, DTypeV, ArrayV, ExternalV, OpaqueV, SymShapeV)


def _plain(value: Value, depth: int = 0) -> bool:
    """Data that holds no object of the analysis (no instance, function, iterator):
    what a memoised call may hand to another caller as it is."""
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, TupleV) and depth < 4:
        return not value.is_list and all(_plain(item, depth + 1) for item in value.items)
    if isinstance(value, ExtObjectV) and depth < 4:
        return all(_plain(item, depth + 1) for item in (*value.args, *(v for _, v in value.kwargs)))
    return False


def _could_fail(default: ast.expr, param: str, func: FunctionV) -> bool:
    """A default that could lead to what a rule reports: an odd length (`seq_len=255`),
    a rate (`dropout=0.1`), a name (`impl="cudnn"`, `precision="bfloat16"`), a constant
    or object defined elsewhere (`seq_len=SEQ_LEN`, `cfg=TrainConfig()`), or None that
    the body replaces (`seq_len = seq_len or 255`; one it keeps, `mask=None`, stays
    None), a flag (`is_causal=False` beside a right window), a size.  0 and 1 decide no
    finding on their own."""
    if not isinstance(default, ast.Constant):
        return True
    value = default.value
    if value is None:
        # None fails lstm_ref's dropout check (JCD101) as a rate does, and the fp8 path's
        # fp8_params (JCD210: probe 40b), a `precision=None` under a bfloat16 context
        # (JCD103) and a padding mask's `q_seqlen=None` (JCD213: probe 137a, both where every
        # caller passes a value); an `argv=None` handed to a parse is the run's own
        # command line, the options' defaults (probe 127a: `main(["--config", "prod.yaml"])`)
        return param in func.module.facts.rebound(func.node) and _fallback_could_fail(func, param) or _none_sensitive(param) or "arg" in param.lower() and param in _parsed_parameters(func.node)
    name = param.lower()
    if isinstance(value, bool):
        # `causal=False` with a right window (JCD207), `fp8=True` (JCD210): probe 40b.  (Any
        # flag would cost every method with `deterministic=True` its module's call index.)
        return "causal" in name or "fp8" in name
    if isinstance(value, int):
        # an odd length, a head dim of 100, a window of 64 (both sides: JCD207)
        return value > 1 and (value % 8 != 0 or "window" in name)
    return isinstance(value, str) or (isinstance(value, float) and value != 0.0)


# parameter names whose None default a rule reports on (a rate, fp8 parameters, a matmul
# precision, sequence lengths)
_NONE_SENSITIVE = ("drop", "param", "fp8", "precision", "len")


def _none_sensitive(param: str) -> bool:
    return any(part in param.lower() for part in _NONE_SENSITIVE)


def _method_none_sensitive(param: str) -> bool:
    """A method's None default worth its module's call index: a precision or a sequence
    length (JCD103, JCD213); not a rate or parameters (`dropout_rng=None` on every flax
    `__call__` cost the editor's run 4 ms on linen/attention.py)."""
    lowered = param.lower()
    return "precision" in lowered or "len" in lowered


_PARSES = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args", "cli", "main"})
_ARGV_NAMES = frozenset({"argv", "args", "arguments", "cli_args", "command_line"})
_PARSED_PARAMETERS: dict[int, tuple[ast.AST, frozenset[str]]] = {}


def _parsed_parameters(node: ast.AST) -> frozenset[str]:
    """The parameters a function hands to a command-line parse as its argument list
    (`parser.parse_args(argv)`, `tyro.cli(Args, args=argv)`, `cmd.main(args)`), or to
    another function under the name (`main(argv)` in a wrapper: probe 128a)."""
    held = _PARSED_PARAMETERS.get(id(node))
    if held is not None and held[0] is node:
        return held[1]
    found: set[str] = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _PARSES:
            given = [*call.args[:2], *(k.value for k in call.keywords if k.arg in ("args", "argv"))]
            found.update(arg.id for arg in given if isinstance(arg, ast.Name))
        elif isinstance(call, ast.Call):
            found.update(arg.id for arg in (*call.args, *(k.value for k in call.keywords)) if isinstance(arg, ast.Name) and arg.id in _ARGV_NAMES)
    if len(_PARSED_PARAMETERS) > 4096:
        _PARSED_PARAMETERS.clear()
    _PARSED_PARAMETERS[id(node)] = (node, frozenset(found))
    return _PARSED_PARAMETERS[id(node)][1]


def _comprehension_state(fr: Frame) -> State:
    """The names a comprehension's body sees first: the enclosing function's, not a
    class body's (`[SEQ for _ in r]` in a class reads the module's SEQ)."""
    return {} if fr.is_class or fr.state is None else dict(fr.state)


def _abstract(func: FunctionV) -> bool:
    """A method meant to be overridden (`raise NotImplementedError` alone, or
    `@abstractmethod`): a subclass the analysis does not see may return from it.  (A
    function's `raise NotImplementedError("odd lengths are not supported")` is a guard
    that raises; one that a patch replaces is `_may_be_replaced`'s.)"""
    node = func.node
    if func.owner is None or isinstance(node, ast.Lambda):
        return False
    if any(getattr(d, "qualname", "").endswith("abstractmethod") for d in func.decorators):
        return True
    body = [stmt for stmt in node.body if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.dump(body[0])


_SWALLOWING_QUALNAMES = frozenset({"contextlib.suppress", "pytest.raises", "numpy.testing.assert_raises"})
# libraries whose context managers never swallow an exception (meshes, devices, precision, x64)
_NON_SWALLOWING_LIBRARIES = ("jax.", "flax.", "numpy.", "optax.", "equinox.", "haiku.", "ml_collections.", "contextlib.nullcontext", "contextlib.redirect", "threading.", "time.", "tempfile.", "builtins.open")


def _suppressing_maker(maker: Value | None) -> bool:
    """`quiet(ValueError)` with `from contextlib import suppress as quiet`."""
    return isinstance(maker, ExternalV) and maker.qualname in _SWALLOWING_QUALNAMES


def _never_swallows(value: Value, maker: Value | None) -> bool:
    """Is a context manager known to let the body's exceptions through: an object of the
    analysed code (its `__exit__` is read), a `@contextmanager` generator, a JAX / flax /
    NumPy one?  An ExitStack or anything we cannot see may swallow them."""
    if isinstance(value, InstanceV) or isinstance(getattr(maker, "func", None), FunctionV):
        return True
    named = maker if isinstance(maker, ExternalV) else value
    qualname = getattr(named, "qualname", "")
    return isinstance(qualname, str) and qualname.startswith(_NON_SWALLOWING_LIBRARIES) and "ExitStack" not in qualname


def _raises_object(value: Value | None) -> bool:
    """`pytest.raises(X)` (or `self.assertRaises(X)`) made earlier and entered now (`with
    expectation:`, `with self._expect_unsupported():`)."""
    return isinstance(value, jax_api.CallResultV) and value.qualname in jax_api.EXPECTS_RAISE


def _may_swallow(value: Value) -> bool:
    """Might a context manager of the analysed code swallow what its body raises?  A class
    whose `__exit__` returns something other than None or False, or a
    `@contextlib.contextmanager` generator that catches around its `yield`."""
    if _raises_object(value):
        return True
    if isinstance(value, InstanceV):
        exit_ = value.cls.lookup("__exit__")
        return isinstance(exit_, FunctionV) and any(
            isinstance(node, ast.Return) and node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value in (None, False))
            for node in ast.walk(exit_.node)
        )
    func = getattr(value, "func", None)  # (an OpaqueDecoratedV's function: the generator)
    if isinstance(func, FunctionV) and any(getattr(d, "qualname", "") == "contextlib.contextmanager" for d in func.decorators):
        # a yield inside a try (an except, or a finally that returns) or a with may be swallowed
        return any(isinstance(node, (ast.Try, ast.With)) and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for s in node.body for n in ast.walk(s)) for node in ast.walk(func.node))
    return False


_EXPECTING = frozenset({"raises", "assert_raises", *jax_api.TEST_CASE_EXPECTING})
_SUPPRESSING = _EXPECTING | {"suppress"}


def _keeps_the_error(handler: ast.ExceptHandler) -> bool:
    """`except E as e: last_error = e` (or `errors.append(e)`): a retry loop may raise it
    after the loop (probe 31a)."""
    name = handler.name
    if name is None:
        return False
    for stmt in handler.body:
        kept = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in ("append", "add", "extend"):
            kept = stmt.value
        if kept is not None and any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(kept)):
            return True
    return False


def _entered_contexts(body: list[ast.stmt], stack: str) -> list[ast.Call]:
    """The `stack.enter_context(cm)` calls among a with body's statements."""
    return [
        stmt.value for stmt in body
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "enter_context" and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id == stack and len(stmt.value.args) == 1
    ]


def _plain_handler(handler: ast.ExceptHandler) -> bool:
    """An `except` clause whose reading does not depend on where it runs: bare or builtin
    class names, and no logger-named call (`error`, `fatal`) or `if` in its body."""
    kind = handler.type
    names = kind.elts if isinstance(kind, ast.Tuple) else [kind] if kind is not None else []
    if not all(isinstance(n, ast.Name) and n.id in BUILTIN_EXCEPTIONS for n in names):
        return False
    return not any(isinstance(stmt, (ast.If, ast.With)) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, (ast.Name, ast.Attribute)) and name_of(stmt.value.func) in LOGGER_NAMES for stmt in handler.body)


def _readable_class_expr(kind: ast.expr) -> bool:
    """What an `except` clause or a `suppress(...)` names classes with, read without
    calling code of ours: names, attributes, tuples, subscripts, conditional expressions,
    `tuple([...])` (no other call, lambda or walrus)."""
    for node in ast.walk(kind):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in ("tuple", "list")):
            return False
        if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.comprehension)):
            return False
    return True


def _builtin_classes(value: Value, nested: bool = False) -> frozenset[str]:
    """The builtin exception classes a value holds (a class, or a flat tuple of them: a
    tuple inside makes `except` raise TypeError when it is matched)."""
    if isinstance(value, ExternalV) and value.qualname.startswith("builtins.") and value.qualname[9:] in BUILTIN_EXCEPTIONS:
        return frozenset({value.qualname[9:]})
    if isinstance(value, TupleV) and not nested and not any(isinstance(item, TupleV) for item in value.items):
        return frozenset[str]().union(*(_builtin_classes(item, True) for item in value.items))
    return frozenset()


def _expects_failure(node: ast.expr) -> bool:
    """`pytest.raises(...)`, `self.assertRaises(...)`: a test of a failure (of any class)."""
    return isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) and name_of(node.func) in _EXPECTING


def _is_suppress(node: ast.expr) -> bool:
    """`contextlib.suppress(...)`, `pytest.raises(...)`, `self.assertRaises(...)`: a body
    that may stop anywhere, and the code after it runs."""
    return isinstance(node, ast.Call) and ((isinstance(node.func, ast.Name) and node.func.id in _SUPPRESSING) or (isinstance(node.func, ast.Attribute) and node.func.attr in _SUPPRESSING))


def _is_compact(decorator: ast.expr) -> bool:
    """flax's `@nn.compact` (the method still runs as called)."""
    return (isinstance(decorator, ast.Attribute) and decorator.attr == "compact") or (isinstance(decorator, ast.Name) and decorator.id == "compact")


def _binds(call: ast.Call, params: ast.arguments, shift: int) -> bool:
    """Can the call's arguments bind to the parameters after the first `shift` (self)?
    A `*args` or `**kwargs` in the call may supply anything."""
    if any(k.arg is None for k in call.keywords) or any(isinstance(arg, ast.Starred) for arg in call.args):
        return True
    positional = [*params.posonlyargs, *params.args][shift:]
    if len(call.args) > len(positional) and params.vararg is None:
        return False
    given = {k.arg for k in call.keywords}
    if params.kwarg is None and not given <= {p.arg for p in (*positional, *params.kwonlyargs)}:
        return False
    required = positional[: len(positional) - len(params.defaults)]
    if any(i >= len(call.args) and param.arg not in given for i, param in enumerate(required)):
        return False
    return all(default is not None or param.arg in given for param, default in zip(params.kwonlyargs, params.kw_defaults))


def _defines(node: ast.ClassDef, name: str) -> bool:
    """Does the class body define (or assign) `name`?"""
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.name == name:
            return True
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        if any(isinstance(target, ast.Name) and target.id == name for target in targets):
            return True
    return False


def _passes(call: ast.Call, index: int, name: str, default: ast.expr | None = None, same_module: bool = True) -> bool:
    """May the call pass the parameter at `index` / called `name`?  A `**kwargs` or a
    `*args` may (`train(**cfg)`): then the default is not certainly what runs.  One that
    passes the default's own expression (`dtype=jnp.float32` over a `jnp.float32`
    default, in a file the analysis does not enter: probe 37a) passes the default; a bare
    name only in the default's own module (another module's `DTYPE` is its own)."""
    given = next((k.value for k in call.keywords if k.arg == name), None)
    if given is None and 0 <= index < len(call.args) and not any(isinstance(arg, ast.Starred) for arg in call.args[: index + 1]):
        given = call.args[index]
    same_expression = given is not None and default is not None and ast.dump(given) == ast.dump(default) and (same_module or not isinstance(given, ast.Name))
    if same_expression or (given is not None and default is not None and _same_dtype_spelling(given, default)):
        return False
    if any(k.arg == name or k.arg is None for k in call.keywords):
        return True
    if index < 0:
        return False  # a keyword-only parameter: only by its name
    positional = call.args
    if any(isinstance(arg, ast.Starred) for arg in positional[: index + 1]):
        return True
    return index < len(positional)


def _dtype_spelled(node: ast.expr) -> str | None:
    """The dtype a literal spells: `jnp.float32`, `np.float32`, `"float32"`,
    `jnp.dtype("float32")`; None for anything else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dtype" and len(node.args) == 1 and not node.keywords:
        return _dtype_spelled(node.args[0])
    text = node.attr if isinstance(node, ast.Attribute) else node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
    return text if text is not None and text in DTYPE_KINDS else None


def _same_dtype_spelling(given: ast.expr, default: ast.expr) -> bool:
    """`np.float32` passed over a `jnp.float32` default: the same dtype (probe 38a)."""
    spelled = _dtype_spelled(given)
    return spelled is not None and spelled == _dtype_spelled(default)


def _dim_pairs(first: Sequence[Value], now: Sequence[Value]) -> list[tuple[frozenset[Step], Why]]:
    """(the first call's provenance, this call's) of each argument length, none where
    no length differs in where it came from (a memo key ignores provenance).  The
    lengths that do not differ are kept: a result's length told by the argument it
    shares the most steps with must find its own (probe 77c: a sequence length told by
    a head dim's steps, both from one `reshape(*shape)`)."""
    pairs: list[tuple[frozenset[Step], Why]] = []
    for old, new in zip(first, now):
        if isinstance(old, ArrayV) and isinstance(new, ArrayV) and old.shape is not None and new.shape is not None and len(old.shape) == len(new.shape):
            pairs.extend((frozenset(a.why), b.why) for a, b in zip(old.shape, new.shape) if a.why)
        elif isinstance(old, IntV) and isinstance(new, IntV) and old.dim.why:
            pairs.append((frozenset(old.dim.why), new.dim.why))
    return pairs if any(old != frozenset(new) for old, new in pairs) else []


def _reattributed(result: Value, first: Sequence[Value], now: Sequence[Value], depth: int = 0, pairs: list[tuple[frozenset[Step], Why]] | None = None) -> Value:
    """A memoised result told by this call's arguments: a length the callee derived from
    the first call's argument says where this call's came from (`heads(x[:, ::2])` then
    `heads(h1)` of an array_split: the second finding cited the first's slice, probe
    47b)."""
    if pairs is None:
        pairs = _dim_pairs(first, now)
        if not pairs:
            return result
    if isinstance(result, ArrayV) and result.shape is not None:
        shape = tuple(_retold(d, pairs) for d in result.shape)
        return result if all(a is b for a, b in zip(shape, result.shape)) else ArrayV(shape, result.dtype, result.diff, result.why, result.name, result.stopped, result.weak)
    if isinstance(result, IntV):
        dim = _retold(result.dim, pairs)
        return result if dim is result.dim else IntV(dim)
    if isinstance(result, TupleV) and depth < 4:
        items = tuple(_reattributed(item, first, now, depth + 1, pairs) for item in result.items)
        return result if all(a is b for a, b in zip(items, result.items)) else TupleV(items, result.is_list, result.why, result.diff)
    return result


def _retold(dim: Dim, pairs: list[tuple[frozenset[Step], Why]]) -> Dim:
    """`dim` told by the argument length it shares the most steps with (steps such as the
    batch's `literal 2` are shared by several: probe 50a, where the second finding cited
    the first call's reshape)."""
    best, overlap = None, (0, False)
    own = frozenset(dim.why)
    for old, new in pairs:
        shared = (sum(1 for step in dim.why if step in old), old == own)  # (ties: its very steps)
        if shared > overlap:
            best, overlap = (old, new), shared
    if best is None:
        return dim
    old, new = best
    if old == frozenset(new):
        return dim
    return dim.replace_why(merge_why(new, tuple(step for step in dim.why if step not in old)))


def _maybe_a_project_module(base: str, path: str) -> bool:
    """A star import's module that may be the project's own: not the standard library's,
    and a file or package of that name beside the file or in a folder above it (an
    installed library's, `tqdm`, is none: probe 49a)."""
    top = base.partition(".")[0]
    if not top or top in sys.stdlib_module_names:
        return False
    return any(os.path.exists(os.path.join(folder, top + ".py")) or os.path.isdir(os.path.join(folder, top)) for folder in folders_above(os.path.abspath(path), 6))


def _may_know(inst: InstanceV) -> bool:
    """Can a `__getattr__` reading this object's state answer anything known?  Not where
    every attribute it holds is Unknown (MaxText's config built from yaml out of sight:
    running the hook for each of its reads grew maxtext's analysed calls by 29 %); an
    object holding nothing may still have a hook that answers constants."""
    held = [value for key, value in inst.attrs.items() if not key.startswith("\0")]
    return not held or any(value is not UNKNOWN for value in held)


# what code out of sight may call to run a model: a function, a model object
_MAY_RUN_A_MODEL = (FunctionV, BoundMethodV, PartialV, TransformV, InstanceV, ExtObjectV)


def _changed_by_unseen_code(value: Value, frozen: Callable[[ClassV], bool], depth: int = 0) -> None:
    """Code we cannot see was handed `value`: each dict or list it reaches may be changed
    in place (a dict inside the dict, a bound `cfg.update`, the dicts a callback closes
    over, an object holding one; probe 58a), and each object's attributes."""
    if depth > 4:
        return
    if isinstance(value, InstanceV):
        for held in list(value.attrs.values()):
            _changed_by_unseen_code(held, frozen, depth + 1)
        if not frozen(value.cls):
            value.forget()
        return
    mark_changed_in_place(value)
    if isinstance(value, DictV):
        for _, held in value.items:
            _changed_by_unseen_code(held, frozen, depth + 1)
    elif isinstance(value, TupleV):
        for held in value.items:
            _changed_by_unseen_code(held, frozen, depth + 1)
    elif isinstance(value, IterV) and value.is_list:
        _changed_by_unseen_code(value.element, frozen, depth + 1)  # (the one object each item stands for)
    elif isinstance(value, BoundMethodV):
        _changed_by_unseen_code(value.self_value, frozen, depth + 1)
    elif isinstance(value, PartialV):
        for held in (*value.args, *(v for _, v in value.kwargs)):
            _changed_by_unseen_code(held, frozen, depth + 1)
    elif isinstance(value, FunctionV):
        free = value.module.facts.names_used(value.node)
        for state in value.closure:
            for name, held in state.items():
                if name in free and isinstance(held, (DictV, TupleV, InstanceV)):
                    _changed_by_unseen_code(held, frozen, depth + 1)


def _arm_start(caller: Frame) -> int:
    """The birth number before which objects may keep their old values in a function
    `caller` calls now: those born before its innermost if/else arm, or before what made
    its own caller skip.  (Not in a loop, a try or a comprehension: a constructor called
    there makes its object before its __init__ runs, and helpers called in loop bodies
    wrote with certainty before this rule; only their direct writes join.)"""
    here = caller.made_since if caller.branch_depth > 0 and caller.made_since != _ALL_OLDER and not caller.main_arm else 0
    return max(here, caller.skip_before)


def _worth_entering(info: ModuleInfo) -> bool:
    """A root that is an importer (not gated) is analysed only if its code uses a name
    that leads to a watched call: the cheap scan cannot tell code from prose or an
    import that goes unused.  One that names no differentiation transform is a driver
    (project_set._drivers), entered through its uses of those names."""
    if info.entry == "full":
        return True
    used = info.facts.module_names()
    if info.entry == "differentiating" and not used & DIFFERENTIATION_NAMES:
        return False
    return info.entry_names is None or bool(used & info.entry_names)


def _entry_seeds(info: ModuleInfo) -> frozenset[str] | None:
    """The names through which an importer root's functions are entered: the
    differentiation transforms it names, or (a driver) the leading names it uses; a
    test file's forward-only tests too (`_tested_functions`)."""
    if info.entry == "driver":
        # (and the transforms it names: a test file that drives a module it takes whole
        # also differentiates in tests that use only fixtures: probe 61b)
        return None if info.entry_names is None else info.entry_names | DIFFERENTIATION_NAMES
    return DIFFERENTIATION_NAMES


def _functions_of(info: ModuleInfo) -> dict[str, FunctionNode]:
    """Top-level functions and methods (as Class.method) of a module, by name."""
    out: dict[str, FunctionNode] = {}
    for stmt in info.tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[stmt.name] = stmt
        elif isinstance(stmt, ast.ClassDef):
            for member in stmt.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{stmt.name}.{member.name}"] = member
                    out.setdefault(member.name, member)
    return out


def _unwrap_function(value: Value) -> FunctionV | None:
    seen = 0
    while seen < 8:
        seen += 1
        if isinstance(value, FunctionV):
            return value
        if isinstance(value, TransformV):
            value = value.func
        elif isinstance(value, PartialV):
            value = value.func
        else:
            return None
    return None


def _is_classvar(annotation: ast.expr | None) -> bool:
    text = ast.unparse(annotation) if annotation is not None else ""
    return "ClassVar" in text


def _stored_names(node: ast.AST) -> list[str]:
    out: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            out.append(sub.id)
        elif isinstance(sub, ast.MatchAs) and sub.name:
            out.append(sub.name)
        elif isinstance(sub, ast.MatchStar) and sub.name:
            out.append(sub.name)
        elif isinstance(sub, ast.MatchMapping) and sub.rest:
            out.append(sub.rest)
    return out


def _stored_names_block(body: Sequence[ast.stmt]) -> list[str]:
    out: list[str] = []
    for stmt in body:
        out.extend(_stored_names(stmt))
    return out


def _as_load(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.Name(target.id, ast.Load(), lineno=target.lineno, col_offset=target.col_offset)
    if isinstance(target, ast.Attribute):
        return ast.Attribute(target.value, target.attr, ast.Load(), lineno=target.lineno, col_offset=target.col_offset)
    if isinstance(target, ast.Subscript):
        return ast.Subscript(target.value, target.slice, ast.Load(), lineno=target.lineno, col_offset=target.col_offset)
    return target


# transforms that run the function they are given at the call and return its results
# (a vjp's pullback does not run it again): the function is handed to nobody
_RUN_THEIR_FUNCTION = frozenset({"vjp", "jvp", "linearize", "eval_shape", "filter_vjp", "filter_jvp", "filter_eval_shape"})


def _last_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _local_names(target: ast.expr) -> list[str | None]:
    """The names an assignment target binds, unpacking included; None for a part that
    is no name (an attribute, an item)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _local_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for elt in target.elts for name in _local_names(elt)]
    return [None]


def _runs_as_a_program(info: ModuleInfo) -> bool:
    """A script (a main guard, or a call at its top level), run on its own rather than
    imported: what it registers, its program registers."""
    for stmt in info.tree.body:
        if isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test):
            return True
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            return True
    return False


# what ends a pass of a loop early, or runs in it under a handler: an appending loop
# whose body holds one of these is not summed up (Interpreter._appending_loop)
_LEAVES_A_PASS = (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Try, ast.With, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Delete)
_MAX_HOLDER_SCAN = 4000  # values looked at for other holders of a list or dict changed in place (Interpreter.held_once)
_LENGTH_CHANGERS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "__iadd__", "__delitem__"})
# nothing evaluated a second time may bind or define
_NOT_REEVALUATED = (ast.NamedExpr, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Await, ast.Yield, ast.YieldFrom)
_LIBRARY_ROOTS = frozenset({"jnp", "np", "jax", "numpy", "lax", "math", "einops"})


# builtin classes whose one positional class subpattern matches the subject itself
_SELF_MATCHING = frozenset(f"builtins.{name}" for name in ("bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"))


def _self_matching(cls: Value) -> bool:
    return isinstance(cls, ExternalV) and cls.qualname in _SELF_MATCHING


_CONDITIONAL_IMPORTS: weakref.WeakKeyDictionary[ast.AST, frozenset[ast.stmt]] = weakref.WeakKeyDictionary()


def _conditional_imports(tree: ast.AST) -> frozenset[ast.stmt]:
    """The import statements under a module-level `if`, or in a module-level `try`'s
    `else` or handlers (through `try` bodies and `with` there), at any depth below it
    (cached per tree)."""
    found = _CONDITIONAL_IMPORTS.get(tree)
    if found is None:
        under: set[ast.stmt] = set()
        pending = list(tree.body) if isinstance(tree, ast.Module) else []
        while pending:
            stmt = pending.pop()
            if isinstance(stmt, ast.If):
                under.update(node for node in ast.walk(stmt) if isinstance(node, (ast.Import, ast.ImportFrom)))
            elif isinstance(stmt, ast.With):
                pending.extend(stmt.body)
            elif isinstance(stmt, ast.Try):
                pending.extend((*stmt.body, *stmt.finalbody))
                for arm in (stmt.orelse, *(handler.body for handler in stmt.handlers)):
                    under.update(node for inner in arm for node in ast.walk(inner) if isinstance(node, (ast.Import, ast.ImportFrom)))
        found = _CONDITIONAL_IMPORTS[tree] = frozenset(under)
    return found


def _reread_safely(expr: ast.expr) -> bool:
    """A name or an attribute chain over one (`cfg`, `self.cfg`, `Trainer.load`)."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name)


def _top_level_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The import statements a module certainly runs as it is imported: its top level,
    with the bodies of `try` (not its `else` or handlers: probe 94a) and `with` there;
    not an `if` arm (`if TYPE_CHECKING:`, a flag that is False: probe 93a), a function's
    or a class's body."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending = list(tree.body) if isinstance(tree, ast.Module) else []
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            found.append(stmt)
        elif isinstance(stmt, ast.With):
            pending.extend(stmt.body)
        elif isinstance(stmt, ast.Try):
            pending.extend((*stmt.body, *stmt.finalbody))  # (its `else` runs only if the body did not raise)
    return found


def _cached(func: FunctionV) -> bool:
    """`@functools.cache` / `@functools.lru_cache(...)` (bare or called): every call with
    the same arguments returns the very object the first one made (a singleton config
    factory), while the cache keeps it (`maxsize=0` keeps none: probe 94a)."""
    return any(getattr(deco, "qualname", None) in ("functools.cache", "functools.lru_cache") for deco in func.decorators) and _cache_size(func) != 0


def _cache_args_key(args: list[Value], kwargs: dict[str, Value]) -> object:
    return (tuple(arg.key() for arg in args), tuple(sorted((name, value.key()) for name, value in kwargs.items())))


def _cache_size(func: FunctionV) -> int | None:
    """`lru_cache(maxsize=k)`'s k (also positional), where it is a literal int; None for
    a cache without a small bound (`functools.cache`, `maxsize=None`, the default 128:
    evictions from it are not followed)."""
    for deco in func.decorators:
        if isinstance(deco, jax_api.ExtCallDecoratorV) and deco.qualname == "functools.lru_cache":
            given = deco.kwargs.get("maxsize", deco.args[0] if deco.args else None)
            ok, size = const_value(given) if given is not None else (False, None)
            if ok and isinstance(size, int) and not isinstance(size, bool) and size < 128:
                return max(size, 0)
    return None


def _plain_dict_display(node: ast.expr) -> bool:
    """`{"dropout": 0.1, "seq_len": n}`: string keys, values that are constants or names
    (evaluated again without running anything)."""
    return isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys) and all(isinstance(v, (ast.Constant, ast.Name)) for v in node.values)


def _one_append(expr: ast.expr) -> ast.Call | None:
    """`name.append(item)`: the call, else None."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "append" and isinstance(expr.func.value, ast.Name):
        if len(expr.args) == 1 and not expr.keywords and not isinstance(expr.args[0], ast.Starred):
            return expr
    return None


def _pure_library_call(call: ast.Call) -> bool:
    """`jnp.zeros(...)`, `np.asarray(...)`, `len(...)`, `int(...)`: a call that changes
    nothing, by the name it is conventionally reached under."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in ("len", "int", "float", "min", "max", "abs", "round", "tuple")
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(func, ast.Attribute) and isinstance(root, ast.Name) and root.id in _LIBRARY_ROOTS


def _immutable(value: Value, depth: int = 0) -> bool:
    """An array, a number, a string or a tuple of such: nothing a program changes in place."""
    if isinstance(value, (ArrayV, IntV, FloatV, ConstV)):
        return True
    return isinstance(value, TupleV) and not value.is_list and depth < 4 and all(_immutable(item, depth + 1) for item in value.items)


def _same_value(a: Value, b: Value) -> bool:
    return a is b or a.key() == b.key()


def _states_equal(a: State, b: State) -> bool:
    if a.keys() != b.keys():
        return False
    return all(_same_value(a[k], b[k]) for k in a)


_STMT_HANDLERS: dict[type, Callable[[Interpreter, ast.stmt, Frame], None]] = {
    ast.Assign: Interpreter.s_assign,  # type: ignore[dict-item]
    ast.AnnAssign: Interpreter.s_annassign,  # type: ignore[dict-item]
    ast.AugAssign: Interpreter.s_augassign,  # type: ignore[dict-item]
    ast.Expr: Interpreter.s_expr,  # type: ignore[dict-item]
    ast.Return: Interpreter.s_return,  # type: ignore[dict-item]
    ast.Raise: Interpreter.s_raise,  # type: ignore[dict-item]
    ast.Pass: Interpreter.s_pass,
    ast.Break: Interpreter.s_break,
    ast.Continue: Interpreter.s_continue,
    ast.If: Interpreter.s_if,  # type: ignore[dict-item]
    ast.Assert: Interpreter.s_assert,  # type: ignore[dict-item]
    ast.For: Interpreter.s_for,  # type: ignore[dict-item]
    ast.AsyncFor: Interpreter.s_for,  # type: ignore[dict-item]
    ast.While: Interpreter.s_while,  # type: ignore[dict-item]
    ast.With: Interpreter.s_with,  # type: ignore[dict-item]
    ast.AsyncWith: Interpreter.s_with,  # type: ignore[dict-item]
    ast.Try: Interpreter.s_try,  # type: ignore[dict-item]
    ast.Import: Interpreter.s_import,  # type: ignore[dict-item]
    ast.ImportFrom: Interpreter.s_importfrom,  # type: ignore[dict-item]
    ast.FunctionDef: Interpreter.s_functiondef,  # type: ignore[dict-item]
    ast.AsyncFunctionDef: Interpreter.s_functiondef,  # type: ignore[dict-item]
    ast.ClassDef: Interpreter.s_classdef,  # type: ignore[dict-item]
    ast.Delete: Interpreter.s_delete,  # type: ignore[dict-item]
    ast.Global: Interpreter.s_global,
    ast.Nonlocal: Interpreter.s_global,
    ast.Match: Interpreter.s_match,
    LazyDef: Interpreter.s_lazydef,  # type: ignore[dict-item]
}
if hasattr(ast, "TryStar"):
    _STMT_HANDLERS[ast.TryStar] = Interpreter.s_try  # type: ignore[attr-defined,assignment]

_EXPR_HANDLERS: dict[type, Callable[[Interpreter, ast.expr, Frame], Value]] = {
    ast.Constant: Interpreter.e_constant,  # type: ignore[dict-item]
    ast.Name: Interpreter.e_name,  # type: ignore[dict-item]
    ast.Attribute: Interpreter.e_attribute,  # type: ignore[dict-item]
    ast.Subscript: Interpreter.e_subscript,  # type: ignore[dict-item]
    ast.BinOp: Interpreter.e_binop,  # type: ignore[dict-item]
    ast.UnaryOp: Interpreter.e_unaryop,  # type: ignore[dict-item]
    ast.BoolOp: Interpreter.e_boolop,  # type: ignore[dict-item]
    ast.Compare: Interpreter.e_compare,  # type: ignore[dict-item]
    ast.IfExp: Interpreter.e_ifexp,  # type: ignore[dict-item]
    ast.Tuple: Interpreter.e_tuple,  # type: ignore[dict-item]
    ast.Set: Interpreter.e_set,  # type: ignore[dict-item]
    ast.List: Interpreter.e_tuple,  # type: ignore[dict-item]
    ast.Dict: Interpreter.e_dict,  # type: ignore[dict-item]
    ast.Lambda: Interpreter.e_lambda,  # type: ignore[dict-item]
    ast.NamedExpr: Interpreter.e_namedexpr,  # type: ignore[dict-item]
    ast.ListComp: Interpreter.e_comprehension,  # type: ignore[dict-item]
    ast.SetComp: Interpreter.e_comprehension,  # type: ignore[dict-item]
    ast.GeneratorExp: Interpreter.e_comprehension,  # type: ignore[dict-item]
    ast.DictComp: Interpreter.e_comprehension,  # type: ignore[dict-item]
    ast.JoinedStr: Interpreter.e_joinedstr,  # type: ignore[dict-item]
    ast.Starred: Interpreter.e_starred,  # type: ignore[dict-item]
    ast.Await: Interpreter.e_await,  # type: ignore[dict-item]
    ast.Yield: Interpreter.e_yield,  # type: ignore[dict-item]
    ast.YieldFrom: Interpreter.e_yieldfrom,  # type: ignore[dict-item]
    ast.Slice: Interpreter.e_slice,  # type: ignore[dict-item]
    ast.Call: Interpreter.e_call,  # type: ignore[dict-item]
}


# the JAX modules that hold the watched APIs: an import of them cannot fail where the rules apply
_API_MODULES = frozenset({"jax", "jax.nn", "jax.experimental", "jax.experimental.rnn", "jax._src.cudnn", "jax._src.cudnn.fused_attention_stablehlo"})


def _lookup_before_libraries(cls: ClassV, name: str, depth: int = 0) -> Value | None:
    """`name` as the class's bases give it, left to right and depth first, stopping at the
    first library base (`unittest.TestCase` has its own `setUp`, which shadows a mixin's
    listed after it: probe 34a)."""
    if name in cls.attrs:
        return cls.attrs[name]
    for base in cls.bases:
        if not isinstance(base, ClassV) or depth > 20:
            return None
        found = _lookup_before_libraries(base, name, depth + 1)
        if found is not None:
            return found
    return None


# the statements that may replace an API: assignments, calls, decorated definitions, with
_MAY_PATCH_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith)


class FunctionSpan(NamedTuple):
    """A function or class a patch may sit in: its lines, its name, whether it is a
    pytest fixture, an autouse one, a `@contextmanager`, or a class."""

    first: int
    last: int
    name: str
    fixture: bool
    autouse: bool
    context: bool = False
    is_class: bool = False
    is_stack: bool = False  # a `with ExitStack() as stack:` block or a `__main__` guard: a patch in it ends with it
    yields_at: int = 0  # a fixture's first `yield` line: what it patches after runs in teardown only


def function_span(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> FunctionSpan:
    last = node.end_lineno or node.lineno
    if isinstance(node, ast.ClassDef):
        return FunctionSpan(node.lineno, last, node.name, False, False, is_class=True)
    fixture = autouse = context = False
    for decorator in node.decorator_list:
        named = dotted_name(decorator.func if isinstance(decorator, ast.Call) else decorator) or ""
        if named.endswith("fixture"):
            fixture = True
            autouse = isinstance(decorator, ast.Call) and any(k.arg == "autouse" and isinstance(k.value, ast.Constant) and k.value.value is True for k in decorator.keywords)
        context = context or named.endswith("contextmanager")
    yields = [inner.lineno for stmt in statements(node.body) for inner in ast.walk(stmt) if isinstance(inner, (ast.Yield, ast.YieldFrom))] if fixture else []
    return FunctionSpan(node.lineno, last, node.name, fixture, autouse, context, yields_at=min(yields, default=0))


class PatchScope(NamedTuple):
    """Where a replacement of a watched API holds: lines `first`..`last` of `path` (of
    every module in its folder for a conftest.py: its fixtures run for those tests);
    `fixture`: a fixture that patches, for the tests that ask for it (every test of the
    module or folder where `autouse`); `installer`: a plain function that patches (an
    `install()`), on paths through a module of `path` or its importers that calls it
    (None at a module's top level: the whole module and its importers), or, where
    `context`, a `@contextmanager` that yields under the patch, in the body of each
    `with installer(...)` block; `internals`: the cuDNN module's internals, which every
    call runs through."""

    path: str
    first: int
    last: int
    internals: bool
    fixture: str | None = None
    autouse: bool = False
    installer: str | None = None
    lasting: bool = False
    context: bool = False
    set_up_class: str | None = None  # the test class whose setUp starts it (its subclasses inherit it)


# methods that run before each test of their class (a patch they start holds in it)
_SET_UP_METHODS = frozenset({"setUp", "setup_method", "setUpClass", "setup_class", "asyncSetUp"})
_PER_TEST_SET_UP = frozenset({"setUp", "setup_method", "asyncSetUp"})


def patch_scope(path: str, stmt: ast.stmt, spans: list[FunctionSpan], internals: bool) -> PatchScope:
    """A `with mock.patch(...)` holds in its body, a decorator in its function, a
    statement in a pytest fixture for the tests that ask for it (a `with` block that
    yields too), in a test class's setUp for the class, in a `@contextmanager` that
    yields under it for the `with` blocks that use it, one in another function wherever
    that function is called, one at the top level in the whole module (probe 34a)."""
    end = 1 << 30
    around = [span for span in spans if span.first <= stmt.lineno <= span.last]
    functions = [span for span in around if not span.is_class and not span.is_stack]
    inner = functions[-1] if functions else None
    stack = next((span for span in reversed(around) if span.is_stack), None)
    if stack is not None and (inner is None or stack.first > inner.first) and (_enters_a_context(stmt) or stack.name == "<main>"):
        # `stack.enter_context(mock.patch(...))` holds to the end of its `with` (probe 36a);
        # a patch a script's `__main__` block starts, in that block only (probe 37a)
        return PatchScope(path, stmt.lineno, stack.last, internals)
    if isinstance(stmt, (ast.With, ast.AsyncWith)) and inner is not None and _yields_inside(stmt):
        if inner.name.startswith("pytest_"):
            return PatchScope(path, 0, end, internals, lasting=True)  # a hookwrapper yields the test's run to the patch (probe 43a)
        if inner.fixture:
            return PatchScope(path, 0, end, internals, fixture=inner.name, autouse=inner.autouse)
        if inner.context:
            return PatchScope(path, 0, end, internals, installer=inner.name, context=True)
        if len(functions) == 1:
            # a generator suspended under the patch (`pytest.fixture(autouse=True)(_route)`,
            # `next(gen)`): the patch holds where it is made to run (probe 43a)
            return PatchScope(path, stmt.lineno, inner.last, internals, installer=inner.name, lasting=True)
    if isinstance(stmt, (ast.With, ast.AsyncWith, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return PatchScope(path, stmt.lineno, stmt.end_lineno or end, internals)
    fixture = next((span for span in reversed(functions) if span.fixture), None)
    if fixture is not None and fixture.yields_at and stmt.lineno > fixture.yields_at:
        return PatchScope(path, stmt.lineno, fixture.last, internals)  # after the yield: the test has run (probe 40a)
    if fixture is not None:
        return PatchScope(path, 0, end, internals, fixture=fixture.name, autouse=fixture.autouse)
    if inner is not None and inner.name in _SET_UP_METHODS:
        owner = next((span for span in reversed(around) if span.is_class and span.first < inner.first), None)
        if owner is not None:
            return PatchScope(path, owner.first, owner.last, internals, set_up_class=owner.name)
    if inner is not None and inner.name in ("setUpModule", "setup_module") and len(around) == 1:
        return PatchScope(path, 0, end, internals)
    if functions:
        return PatchScope(path, stmt.lineno, functions[-1].last, internals, installer=functions[0].name, lasting=True)
    return PatchScope(path, stmt.lineno, end, internals, lasting=True)


def _enters_a_context(stmt: ast.stmt) -> bool:
    """`stack.enter_context(...)` (or `x = stack.enter_context(...)`)."""
    call = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _ENTERS_CONTEXT


def _yields_inside(stmt: ast.With | ast.AsyncWith) -> bool:
    """Does the with block yield (outside nested definitions): a generator suspended
    with the patch in force?"""
    todo: list[ast.AST] = list(stmt.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False




def _patching_calls(stmt: ast.stmt) -> Iterator[ast.Call]:
    """The calls a statement makes that may patch: its own call, its decorators, its
    with items, or the value it assigns (`p = mock.patch.object(...)`)."""
    if isinstance(stmt, (ast.Expr, ast.Assign)) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Attribute) and call.func.attr in _ENTERS_CONTEXT and call.args and isinstance(call.args[0], ast.Call):
            call = call.args[0]  # `stack.enter_context(mock.patch(...))`, `self.enterContext(...)` (probe 34a)
        elif isinstance(call.func, ast.Attribute) and call.func.attr == "start" and isinstance(call.func.value, ast.Call):
            call = call.func.value  # `mock.patch(...).start()` (probe 36a)
        yield call
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield from (d for d in stmt.decorator_list if isinstance(d, ast.Call))
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        yield from (item.context_expr for item in stmt.items if isinstance(item.context_expr, ast.Call))


def _factory_patches(info: ModuleInfo, stmt: ast.stmt) -> Iterator[ast.Call]:
    """`with patched("jax.nn.dot_product_attention"):` where the module's `def patched(
    target): return mock.patch(target, fake)` makes the patch: that call, with the with
    item's arguments in place of the parameters it names (probe 42c)."""
    if not isinstance(stmt, (ast.With, ast.AsyncWith)):
        return
    for item in stmt.items:
        call = item.context_expr
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)) or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        factory = next((d for d in info.tree.body if isinstance(d, ast.FunctionDef) and d.name == call.func.id and not d.decorator_list), None)
        made = factory.body[-1].value if factory is not None and isinstance(factory.body[-1], ast.Return) else None
        if factory is None or not isinstance(made, ast.Call) or not (dotted_name(made.func) or "").endswith(("patch", "patch.object", "patch.multiple", "patch.dict")):
            continue
        params = [a.arg for a in (*factory.args.posonlyargs, *factory.args.args)]
        given: dict[str, ast.expr] = dict(zip(params, call.args))
        given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
        defaults = factory.args.defaults
        given.update((name, default) for name, default in zip(params[len(params) - len(defaults) :], defaults) if name not in given)
        kwonly = factory.args.kwonlyargs
        given.update((a.arg, d) for a, d in zip(kwonly, factory.args.kw_defaults) if d is not None and a.arg not in given)
        every = {*params, *(a.arg for a in kwonly)}
        yield ast.copy_location(_Substituted(given, every).visit(copy.deepcopy(made)), call)


class _Substituted(ast.NodeTransformer):
    """An expression with a function's parameters replaced by the arguments a call gives
    (`f"{mod}.{name}"` of `patched2("jax.nn", "relu")`); a parameter not given stays."""

    def __init__(self, given: Mapping[str, ast.expr], params: set[str]) -> None:
        self.given = given
        self.params = params

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.given.get(node.id, node) if node.id in self.params else node


ANY_ATTRIBUTE = "*"  # in a set of attribute names a class hook writes: names it computes


def _meta_reads(meta: Value | None) -> bool:
    """Does a metaclass of the analysed code answer its classes' attribute reads itself
    (`__getattribute__`, `__getattr__`, a property)?  Reads through an instance go
    to the class's own namespace, as Python's lookup does (probe 44a)."""
    from jax_cudnn_lint.shape_inference.jax_api import PropertyV  # (jax_api imports this module)

    if not isinstance(meta, ClassV):
        return False
    return any(isinstance(meta.lookup(hook), FunctionV) for hook in ("__getattribute__", "__getattr__")) or any(isinstance(member, PropertyV) for member in meta.attrs.values())


def _meta_writes(meta: Value | None) -> frozenset[str]:
    """The attributes a metaclass of the analysed code writes onto the classes it makes:
    into the namespace its `__new__` / `__init__` is given (`ns["T"] = 512`) or onto the
    class (`cls.T = 512`, `setattr(cls, "T", ...)`); ANY_ATTRIBUTE where it computes the
    name, makes the namespace (`__prepare__`) or stores its own way (`__setattr__`).  One
    that only records its classes in a registry writes none."""
    if not isinstance(meta, ClassV):
        return frozenset()
    if any(isinstance(meta.lookup(hook), FunctionV) for hook in ("__prepare__", "__setattr__")):
        return frozenset({ANY_ATTRIBUTE})
    found: set[str] = set()
    for hook in ("__new__", "__init__"):
        made = meta.lookup(hook)
        if isinstance(made, FunctionV) and not isinstance(made.node, ast.Lambda):
            params = [a.arg for a in (*made.node.args.posonlyargs, *made.node.args.args)]
            namespace = params[3] if len(params) > 3 else None
            own: set[str] = set(_stored_names_block(made.node.body)) | ({params[0]} if hook == "__init__" and params else set())
            if namespace is None and made.node.args.vararg is not None:
                return frozenset({ANY_ATTRIBUTE})  # `def __new__(mcs, *args)`: what it does with the namespace is not followed
            found |= _writes_onto(made.node, own, namespace)
    return frozenset(found)


def _set_name_writes(func: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """What a descriptor's `__set_name__(self, owner, name)` writes onto its owner class."""
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    return frozenset(_writes_onto(func, {params[1]} if len(params) > 1 else set(), None))


def _writes_onto(func: ast.FunctionDef | ast.AsyncFunctionDef, own: set[str], namespace: str | None) -> set[str]:
    """The attribute names a function stores on the names `own` (`cls.T = ...`,
    `setattr(cls, "T", ...)`, `type.__setattr__(cls, "T", ...)`) or as keys of the dict
    `namespace` (`ns["T"] = ...`); ANY_ATTRIBUTE for a name it computes, or where the
    namespace is used other than read or handed on as it is (`{**ns, "T": 512}`,
    `dict(ns, T=...)`, `ns |= {...}`, `d = ns`: probe 45a)."""
    found: set[str] = set()
    read_only = {"get", "items", "keys", "values", "copy", "__contains__", "__getitem__"}
    allowed: set[int] = set()  # the Name nodes of the namespace used as reads or passed on whole
    for node in ast.walk(func):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == namespace:
                key = target.slice
                found.add(key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ANY_ATTRIBUTE)
                allowed.add(id(target.value))
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in own:
                found.add(target.attr)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == namespace and isinstance(node.ctx, ast.Load):
            allowed.add(id(node.value))
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            allowed.update(id(c) for c in node.comparators if isinstance(c, ast.Name))
        if isinstance(node, ast.Call):
            called = node.func
            setter = isinstance(called, ast.Name) and called.id in ("setattr", "delattr") or isinstance(called, ast.Attribute) and called.attr in ("__setattr__", "__delattr__") and isinstance(called.value, ast.Name) and called.value.id in ("type", "object")
            if setter and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in own:
                named = node.args[1] if len(node.args) > 1 else None
                found.add(named.value if isinstance(named, ast.Constant) and isinstance(named.value, str) else ANY_ATTRIBUTE)
            elif isinstance(called, ast.Attribute) and isinstance(called.value, ast.Name) and called.value.id == namespace:
                allowed.add(id(called.value))
                if called.attr not in read_only:
                    found.add(ANY_ATTRIBUTE)  # `ns.update(...)`, `ns.setdefault(...)`
            elif isinstance(called, ast.Attribute) and called.attr in ("__new__", "__init__"):
                # `super().__new__(mcs, name, bases, ns)`, `super().__init__(name, bases, ns)`: handed on
                # as it is; a namespace built anew (`{k: ... for k, v in ns.items()}`) may hold anything
                allowed.update(id(a) for a in node.args if isinstance(a, ast.Name) and a.id == namespace)
                if len(node.args) >= 3 and not (isinstance(last := node.args[-1], ast.Name) and last.id == namespace):
                    found.add(ANY_ATTRIBUTE)
    if namespace is not None and any(isinstance(node, ast.Name) and node.id == namespace and id(node) not in allowed for node in ast.walk(func)):
        found.add(ANY_ATTRIBUTE)
    return found


def _may_leave_before(func: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> bool:
    """May the test stop before `line`: a `return`, a `raise`, or a call that skips or
    ends it (`pytest.skip(...)`, `pytest.xfail(...)`, `self.skipTest(...)`)?"""
    for node in ast.walk(func):
        if getattr(node, "lineno", line) >= line:
            continue
        if isinstance(node, (ast.Return, ast.Raise)):
            return True
        if isinstance(node, ast.Call) and (dotted_name(node.func) or "").rpartition(".")[2] in ("skip", "xfail", "skipTest", "importorskip", "fail", "exit"):
            return True
    return False


def _options_of(items: Sequence[Value]) -> list[object] | None:
    """Comparable stand-ins for a loop's options: constants, dtypes and library names
    (by name), functions (by definition); None where one is none of these."""
    found: list[object] = []
    for item in items:
        ok, constant = const_value(item)
        if ok:
            found.append(constant)
        elif isinstance(item, DTypeV):
            found.append(("dtype", item.name))
        elif isinstance(item, ExternalV):
            found.append(("external", item.qualname))  # `jnp.float32` before it is read as a dtype
        elif isinstance(item, FunctionV):
            found.append(("function", id(item.node)))
        elif isinstance(item, TupleV) and (inner := _options_of(item.items)) is not None:
            found.append(tuple(inner))  # a pair of `.items()`
        else:
            return None
    return found


# methods that enter a context manager for their object's lifetime: a patch passed in holds
_ENTERS_CONTEXT = frozenset({"enter_context", "enterContext", "enterClassContext", "enter_async_context"})


def _patch_targets(call: ast.Call) -> list[tuple[str | None, str | None, str]]:
    """What `call` replaces: _patch_target's one name, or each name that
    `mock.patch.multiple(obj, NAME=v, ...)` and `mock.patch.dict(obj.__dict__, {"NAME":
    v})` set (probe 34a); [] where none is known."""
    named = dotted_name(call.func) or ""
    args = call.args
    if named.endswith("patch.multiple") and args:
        names = [keyword.arg for keyword in call.keywords if keyword.arg is not None]
        target = args[0]
    elif named.endswith("patch.dict") and args and (namespace := dict_of(args[0])) is not None:  # `jax.nn.__dict__`, `vars(jax.nn)`
        names = [keyword.arg for keyword in call.keywords if keyword.arg is not None]
        if len(args) > 1 and isinstance(args[1], ast.Dict):
            names += [key.value for key in args[1].keys if isinstance(key, ast.Constant) and isinstance(key.value, str)]
        target = namespace
    else:
        found = _patch_target(call)
        return [found] if found[0] is not None or found[1] is not None else []
    if isinstance(target, ast.Constant) and isinstance(target.value, str):
        return [(None, target.value, name) for name in names]  # `patch.multiple("jax.nn", ...)`
    local = dotted_name(target)
    return [(local, None, name) for name in names] if local is not None else []


def _decorated_def(value: FunctionV, name: str) -> FunctionV | None:
    """The module's own `def name` that a decorator's wrapper closes over, where the
    name is bound to the wrapper (a nested def of another name)."""
    node = value.node
    if isinstance(node, ast.Lambda) or node.name == name or not name.startswith("test"):
        return None  # (a test: pytest calls it, and nothing in the analysed code does)
    for scope in value.closure:
        for local, held in scope.items():
            if isinstance(held, FunctionV) and not isinstance(held.node, ast.Lambda) and held.node.name == name and held.module is value.module and held.node in value.module.tree.body:
                return held if _calls_plainly(node, local) else None
    return None


def _calls_plainly(wrapper: ast.FunctionDef | ast.AsyncFunctionDef, local: str) -> bool:
    """Does the wrapper call `local(...)` as a statement of its own body, and do nothing
    around it that changes how the test runs: no `with` (a patch, a precision, an
    expectation), no `try`, no patching call (probe 41a: a decorator that runs the test
    under a mock of the attention), and no other statement that touches the arguments
    it passes (`kwargs["dropout"] = 0.0`: probe 21b in the regression sweep)?"""
    params = parameter_names(wrapper.args)
    calls = [stmt for stmt in wrapper.body if isinstance(stmt, (ast.Expr, ast.Return, ast.Assign)) and isinstance(call := stmt.value, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == local]
    for stmt in wrapper.body:
        if isinstance(stmt, (ast.With, ast.AsyncWith, ast.Try)) or _names_a_patch(stmt):
            return False
        if stmt not in calls and any(isinstance(node, ast.Name) and node.id in params for node in ast.walk(stmt)):
            return False
    return bool(calls)


def _names_a_patch(stmt: ast.stmt) -> bool:
    """A statement whose calls may patch (`mock.patch(...).start()`, `setattr(...)`,
    `monkeypatch.setattr(...)`, `jax.config.update(...)`), by their names."""
    return any(isinstance(node, ast.Call) and any(part in (dotted_name(node.func) or "") for part in ("patch", "setattr", "enter_context", "config.update")) for node in ast.walk(stmt))


_KEYED_BY_VALUE = (IntV, ConstV, FloatV, DTypeV, ArrayV, ExternalV, UnknownV, OpaqueV)


def _replaces_with_constants(args: Sequence[Value]) -> bool:
    """Is some value given (an entry of a dict given) one that carries no tangent?"""
    return any(not held.diff for given in args for held in ([v for _, v in given.items] if isinstance(given, DictV) else [given]))


def _distinct(events: list[CallEvent]) -> tuple[CallEvent, ...]:
    """A call's events, each object once: a call that reaches one helper twice replays the
    helper's memoised events twice, and a tree of such calls (`f(a) + f(a * 2)` at each of
    20 levels: probe 39b) doubled them at every level, 2**20 copies of one event."""
    seen: set[int] = set()
    return tuple(event for event in events if id(event) not in seen and not seen.add(id(event)))


def _names_handed_out(node: ast.AST) -> frozenset[str]:
    """The names a function's returns and yields mention, and those it stores into an
    attribute, a subscript or a global, or into a local that is handed out in turn
    (`step = jax.jit(f); return step`): its nested defs among them may run elsewhere.
    Statements only (nested defs' too), the values of these statements walked: a
    function's whole tree was 8 % of the corpus's analysis."""
    found: set[str] = set()
    local_flows: list[tuple[set[str], set[str]]] = []  # (local names assigned, names their value mentions)
    body = node.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
    for stmt in every_statement(body):
        value = stmt.value if isinstance(stmt, (ast.Return, ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)) else None
        if isinstance(stmt, (ast.Global, ast.Nonlocal)):
            found.update(stmt.names)  # (`nonlocal box; box = step`: the enclosing scope gets it)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(not _calls_here(decorator) for decorator in stmt.decorator_list):
            found.add(stmt.name)  # `@register` / `@REGISTRY.setdefault("k")`: a registry holds it (probe 40a)
        if value is None:
            continue
        mentioned: set[str] = set()
        keeps = False  # a call that may keep what it is given (`REGISTRY.append(step)`, `setattr(m,
        # "f", step)`: probe 40a); flax's `attention_fn=` is called by the layer, JAX's transforms call theirs
        layer_called: set[str] = set()  # `attention_fn=f`: the layer calls it
        consumed: set[int] = set()  # `jax.grad(loss)(p)`: loss runs here, only the result is returned (probe 47b)
        for inner in ast.walk(value):  # (breadth first: a call comes before its callee's name)
            if isinstance(inner, ast.Name):
                if id(inner) not in consumed:
                    mentioned.add(inner.id)
            elif isinstance(inner, ast.Call):
                if isinstance(inner.func, ast.Name):
                    consumed.add(id(inner.func))  # `run(256)`: the callee runs here, it is given to nobody (probe 55b)
                if _last_name(inner.func) in _RUN_THEIR_FUNCTION and inner.args and isinstance(inner.args[0], ast.Name):
                    consumed.add(id(inner.args[0]))  # `jax.vjp(loss, hp)`: loss runs here, its results are returned
                layer_called.update(k.value.id for k in inner.keywords if k.arg == "attention_fn" and isinstance(k.value, ast.Name))
                keeps = keeps or not _calls_here(inner.func) and bool(inner.args or inner.keywords)  # (`.result()` keeps nothing)
                if isinstance(inner.func, ast.Call) and _calls_here(inner.func.func):
                    consumed.update(id(arg) for arg in inner.func.args if isinstance(arg, ast.Name))
        if keeps:
            found.update(mentioned - layer_called)  # (every name of the statement: one walk, not one per call)
        if isinstance(stmt, ast.Return) or isinstance(value, (ast.Yield, ast.YieldFrom)):
            found.update(mentioned)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = [name for target in targets for name in _local_names(target)]
            if any(name is None for name in names):
                found.update(mentioned)  # (stored into an attribute, an item or a global)
            # `out, pullback = jax.vjp(loss, hp)`: unpacked into local names (probe 55b)
            local_flows.append(({name for name in names if name is not None}, mentioned - layer_called))
    grew = True
    while grew:
        grew = False
        for assigned, mentioned in local_flows:
            if assigned & found and not mentioned <= found:
                found |= mentioned
                grew = True
    return frozenset(found)


# the contexts _config_setting makes from updates (a finding says the update set it)
_SETTINGS_AS_CONTEXTS: weakref.WeakSet[ast.expr] = weakref.WeakSet()


def _config_setting(stmt: ast.stmt) -> ast.expr | None:
    """`jax.config.update("jax_default_matmul_precision", v)` (or "jax_enable_x64") as the
    context that sets the same: `jax.default_matmul_precision(v)`, `jax.enable_x64(v)`."""
    update = config_update(stmt)
    maker = {"jax_default_matmul_precision": "default_matmul_precision", "jax_enable_x64": "enable_x64"}.get(update[0]) if update is not None else None
    if update is None or maker is None:
        return None
    made = ast.fix_missing_locations(ast.copy_location(ast.Call(ast.Attribute(ast.Name("jax", ast.Load()), maker, ast.Load()), [update[1]], []), stmt))
    _SETTINGS_AS_CONTEXTS.add(made)
    return made


def _calls_here(callee: ast.expr) -> bool:
    """A callee that calls the functions it is given where it is called, or wraps them
    for the caller (JAX's transforms, `jax.eval_shape`, the builtins that map), by its
    last name: a function passed to it is not handed out by that alone."""
    target = callee.func if isinstance(callee, ast.Call) else callee  # `@jax.jit` / `@partial(jax.jit, ...)`
    last = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
    return last in FIXED_ARGUMENT_CALLERS and last != "partial" or last in _RUN_LATER_AS_GIVEN


# callers that run a function later with the arguments they are given, or none: a thread
# pool's `submit(f, "valid")`, `ExitStack.callback(f)`, pytest's `request.addfinalizer(f)`
# (probe 130a: a nested def they run is not handed on); and `eval_shape`
_RUN_LATER_AS_GIVEN = frozenset({"eval_shape", "submit", "callback", "addfinalizer", "add_done_callback"})


_MOCK_PATCHES = ("unittest.mock.patch", "mock.patch")


def _as_mock_patch(info: ModuleInfo, call: ast.Call) -> ast.Call:
    """A call of mock's patch under another name, written as `mock.patch...(...)`: `from
    unittest.mock import patch as p`, a module's `patch_alias = mock.patch` (probe 53a)."""
    named = dotted_name(call.func)
    if named is None or named == "patch" or named.split(".")[0] in ("mock", "mocker") or named.split(".")[0] not in info.facts.mock_names():
        return call
    full = imported_name(info.facts, named) or _module_alias(info, named)
    if full is None or not any(full == base or full.startswith(base + ".") for base in _MOCK_PATCHES):
        return call
    rest = full.split(".patch", 1)[1]
    func: ast.expr = ast.Attribute(ast.Name("mock", ast.Load()), "patch", ast.Load())
    for part in (p for p in rest.split(".") if p):
        func = ast.Attribute(func, part, ast.Load())
    return ast.copy_location(ast.Call(ast.copy_location(func, call.func), call.args, call.keywords), call)


def _module_alias(info: ModuleInfo, named: str) -> str | None:
    """`patch_alias = mock.patch` bound once at the module's top level: the full name."""
    first, _, rest = named.partition(".")
    bound = [stmt for stmt in info.tree.body if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == first for t in stmt.targets)]
    if len(bound) != 1 or (value := dotted_name(bound[0].value)) is None:
        return None
    full = imported_name(info.facts, value) or value
    return f"{full}.{rest}" if rest else full


def _may_be_mock_patch(info: ModuleInfo, named: str) -> bool:
    """May a call named `named` that takes a target not written as a string be mock's
    patch?  Not a method of an object (`self.patch(images)`, a ViT's patch embedding:
    probe 50a, where every attention of the model was taken for patched), nor a `patch`
    function the module defines (a patchify helper)."""
    if named.endswith(".patch"):
        # `mock.patch`, `unittest.mock.patch`, pytest-mock's `mocker.patch`: a receiver that
        # names the mock module (probe 52a: `emb.patch(x)` of a plain object was one)
        root = named.split(".", 1)[0]
        return root == "mocker" or root in info.facts.mock_names()
    return named != "patch" or not any(isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, LazyDef)) and stmt.name == "patch" for stmt in info.tree.body)


def _patch_target(call: ast.Call) -> tuple[str | None, str | None, str]:
    """(the patched object's dotted local name, None, NAME) of `setattr(obj, "NAME", v)`,
    `monkeypatch.setattr(...)` or `mock.patch.object(...)`; (None, the module's full
    name, NAME) for the dotted-string forms ("pkg.mod.NAME"); (None, None, "") else."""
    args = call.args
    named = dotted_name(call.func) or ""
    setattr_like = named == "setattr" or named.endswith((".setattr", "patch.object"))
    if setattr_like and len(args) >= 2:
        second = args[1]
        if isinstance(second, ast.Constant) and isinstance(second.value, str):
            return dotted_name(args[0]), None, second.value
    first = args[0] if args else None
    string_form = named.endswith(".setattr") or named == "patch" or named.endswith(".patch")
    if string_form and isinstance(first, ast.Constant) and isinstance(first.value, str) and "." in first.value:
        module, name = first.value.rsplit(".", 1)
        return None, module, name
    return None, None, ""


_MAY_PATCH = re.compile(r"setattr\(|patch(?:\.\w+)?\(|\b(?!self\b|cls\b)[A-Za-z_]\w*\.\w+\s*[-+*/|&]?=(?!=)|\]\s*[-+*/|&]?=(?!=)|\.(?:update|setdefault)\(")
# methods that change their object in place: called on another module's object, a patch
_IN_PLACE = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "append", "extend", "insert", "remove"})


def _defines_at_top(project: Project, info: ModuleInfo, name: str) -> bool:
    """Does the module bind `name` with a top-level def or class (a star import takes it)?"""
    project.load(info)
    return any(isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, LazyDef)) and stmt.name == name for stmt in info.tree.body)


def _container(node: ast.expr) -> ast.expr:
    """`CFG["a"]["b"]` -> `CFG`: the object a subscript store changes."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def _statements_with_patching_defs(info: ModuleInfo) -> Iterator[ast.stmt]:
    """Every statement of the module; a definition not parsed yet (a reached module's
    LazyDef) is parsed and walked only if its text may set another module's global."""
    for stmt in every_statement(info.tree.body):
        yield stmt
        if isinstance(stmt, LazyDef) and _MAY_PATCH.search(stmt.text):
            parsed = stmt.parse(info.path)
            if parsed is not None:
                yield from every_statement([parsed])
