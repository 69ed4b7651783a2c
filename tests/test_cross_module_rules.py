"""Rules whose evidence spans two modules of a project: the attention call in one file,
the transform that decides the failure in another (probe 23a: a vmapped function
imported from the module that defines it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import write
from jax_cudnn_lint.cli import main

ATTN = """\
import jax


def attend(q, k, v):
    return jax.nn.dot_product_attention(q, k, v, implementation="cudnn")
"""

MAIN = """\
import jax
import jax.numpy as jnp

from attn import attend


def run():
    q = jnp.zeros((8, 2, 16, 4, 64), jnp.bfloat16)
    m = jnp.zeros((2, 64, 4, 64), jnp.bfloat16)
    return jax.vmap(attend, in_axes=({axes}))(q, m, m)


if __name__ == "__main__":
    run()
"""


def lint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, axes: str) -> list[str]:
    write(tmp_path, {"attn.py": ATTN, "main.py": MAIN.format(axes=axes)})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    return [line for line in capsys.readouterr().out.splitlines() if "JCD" in line]


def test_vmap_of_an_imported_function_is_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    lines = lint(tmp_path, monkeypatch, capsys, "0, None, None")
    assert len(lines) == 1
    assert lines[0].startswith("attn.py:5:12: JCD209 cuDNN attention under jax.vmap (main.py:10)")


def test_vmap_of_an_imported_function_batching_every_operand_is_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    batched = MAIN.replace("m = jnp.zeros((2, 64, 4, 64)", "m = jnp.zeros((8, 2, 64, 4, 64)")
    write(tmp_path, {"attn.py": ATTN, "main.py": batched.format(axes="0, 0, 0")})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    assert "JCD209" not in capsys.readouterr().out


WRAPPERS = """\
import jax
import jax.numpy as jnp

{imports}


def per_example(x, memory):
    return {call}(x, memory, memory)


def run():
    x = jnp.zeros((8, 2, 16, 4, 64), jnp.bfloat16)
    m = jnp.zeros({memory}, jnp.bfloat16)
    return jax.vmap(per_example, in_axes=(0, {memory_axis}))(x, m)


if __name__ == "__main__":
    run()
"""


@pytest.mark.parametrize(
    ("imports", "call", "memory", "memory_axis", "found"),
    [
        ("from attn import attend", "attend", "(2, 64, 4, 64)", "None", True),
        ("import attn as layers", "layers.attend", "(2, 64, 4, 64)", "None", True),  # through the module's name
        ("import attn as layers", "layers.attend", "(8, 2, 64, 4, 64)", "0", False),
        ("import attn as L", "L.attend", "(2, 64, 4, 64)", "None", True),  # (a module's alias spelled as a class is: probe 157b's r03)
        ("from attn import attend as sdpa", "sdpa", "(2, 64, 4, 64)", "None", True),  # (the function by another name)
        ("from attn import attend as sdpa", "sdpa", "(8, 2, 64, 4, 64)", "0", False),
    ],
)
def test_a_mapped_function_calling_the_attention_of_another_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, imports: str, call: str, memory: str, memory_axis: str, found: bool) -> None:
    # the mapped function in main.py, the attention one call below in attn.py: the key and
    # value shared by every example fail the batching rule (JAX <= 0.11.0)
    write(tmp_path, {"attn.py": ATTN, "main.py": WRAPPERS.format(imports=imports, call=call, memory=memory, memory_axis=memory_axis)})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "--jax-version", "0.10.2", "."])
    lines = [line for line in capsys.readouterr().out.splitlines() if "JCD209" in line]
    assert [line.split(" (")[0] for line in lines] == (["attn.py:5:12: JCD209 cuDNN attention under jax.vmap"] if found else [])
    if found:
        assert "(main.py:14)" in lines[0]


DECODER = """\
import attn


def decode(x, keys, values):
    h = x * 2
    return attn.attend(h, keys, values)
"""

ENCODER_DECODER = """\
import jax.numpy as jnp

import attn
from . import norms
from .attn_helpers import residual


def decode(x, memory):
    h = x + residual(x, x)
    h = norms.layer_norm(h)
    h = h + attn.attend(h, memory, memory)
    return h
"""

RESIDUAL = """\
import attn


def residual(x, memory):
    out = attn.attend(x, memory, memory)
    return out.reshape(out.shape) * 0.5
"""

NORMS = """\
import jax
import jax.numpy as jnp


def layer_norm(x):
    x32 = x.astype(jnp.float32)
    return ((x32 - x32.mean(-1, keepdims=True)) * jax.lax.rsqrt(x32.var(-1, keepdims=True) + 1e-6)).astype(x.dtype)
"""


@pytest.mark.parametrize(("memory", "memory_axis", "found"), [("(2, 64, 4, 64)", "None", True), ("(8, 2, 64, 4, 64)", "0", False)])
def test_a_decoder_whose_cross_attention_query_went_through_helpers_of_two_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, memory: str, memory_axis: str, found: bool
) -> None:
    # probe 157b's r05: self-attention through a helper imported by its own name, a layer
    # norm of another module whose reductions are methods, then the cross-attention on a
    # memory the vmap shares; the query's batching is read through each helper in its file
    files = {"attn.py": ATTN, "dec/__init__.py": "", "dec/model.py": ENCODER_DECODER, "dec/attn_helpers.py": RESIDUAL, "dec/norms.py": NORMS}
    files["main.py"] = WRAPPERS.format(imports="from dec import model", call="model.decode", memory=memory, memory_axis=memory_axis).replace("(x, memory, memory)", "(x, memory)")
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "--jax-version", "0.10.2", "."])
    lines = [line for line in capsys.readouterr().out.splitlines() if "JCD209" in line]
    assert [line.split(": query")[0] for line in lines] == (["attn.py:5:12: JCD209 cuDNN attention under jax.vmap (main.py:14)"] if found else [])


READER = """\
import jax


class Reader:
    def __init__(self, memory):
        self.memory = memory

    def read(self, q):
        return jax.nn.dot_product_attention(q, self.memory, self.memory, implementation="cudnn")
"""

READ_SHARED = """\
import jax
import jax.numpy as jnp

from reader import Reader


def per_example(reader, q):
    {store}return reader.read(q)


def run():
    reader = Reader(jnp.zeros((2, 64, 4, 64), jnp.bfloat16))
    return jax.vmap(lambda q: per_example(reader, q))(jnp.zeros((8, 2, 16, 4, 64), jnp.bfloat16))


if __name__ == "__main__":
    run()
"""


@pytest.mark.parametrize(
    ("store", "found"),
    [
        ("", True),
        ("reader.memory = q\n    ", False),
        ("vars(reader).update(memory=q)\n    ", False),  # (probe 160a)
        ("reader.__dict__['memory'] = q\n    ", False),
    ],
)
def test_a_method_of_an_object_from_outside_reading_its_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, store: str, found: bool) -> None:
    # probe 159b: `self` is an object from outside the mapped function, its field every
    # example's; unless a module of the chain stores the field as it runs (here main.py,
    # the field read in reader.py)
    write(tmp_path, {"reader.py": READER, "main.py": READ_SHARED.format(store=store)})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "--jax-version", "0.10.2", "."])
    lines = [line for line in capsys.readouterr().out.splitlines() if "JCD209" in line]
    assert [line.split(": query")[0] for line in lines] == (["reader.py:9:16: JCD209 cuDNN attention under jax.vmap (main.py:13)"] if found else [])


@pytest.mark.parametrize(("memory", "memory_axis", "found"), [("(2, 64, 4, 64)", "None", True), ("(8, 2, 64, 4, 64)", "0", False)])
def test_calls_through_a_third_module_down_to_the_attention(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, memory: str, memory_axis: str, found: bool) -> None:
    # probe 157b: the mapped function in main.py, its model's decode in model.py, the
    # attention in attn.py; each call read in its own file
    write(tmp_path, {"attn.py": ATTN, "model.py": DECODER, "main.py": WRAPPERS.format(imports="import model", call="model.decode", memory=memory, memory_axis=memory_axis)})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "--jax-version", "0.10.2", "."])
    lines = [line for line in capsys.readouterr().out.splitlines() if "JCD209" in line]
    assert [line.split(": query")[0] for line in lines] == (["attn.py:5:12: JCD209 cuDNN attention under jax.vmap (main.py:14)"] if found else [])


HEADS = """\
import jax.numpy as jnp


def project(x):
    y = x * 2
    return y


def normalize(x):
    x32 = x.astype(jnp.float32)
    return ((x32 - x32.mean(-1, keepdims=True)) / (x32.std(-1, keepdims=True) + 1e-6)).astype(x.dtype)
"""

QUERY_FROM_A_HELPER = """\
import jax
import jax.numpy as jnp

import attn
{imports}


def per_example(x, memory):
    return attn.attend({helper}(x), memory, memory)


def run():
    x = jnp.zeros((8, 2, 16, 4, 64), jnp.bfloat16)
    m = jnp.zeros((2, 64, 4, 64), jnp.bfloat16)
    return jax.vmap(per_example, in_axes=(0, None))(x, m)


if __name__ == "__main__":
    run()
"""


@pytest.mark.parametrize(
    ("imports", "helper", "found"),
    [
        ("import heads", "heads.project", True),
        ("import heads as H", "H.project", True),
        ("from pkg import heads", "heads.project", True),  # (pkg/heads.py)
        ("import heads\nheads = None", "heads.project", False),  # (bound twice: not judged)
        ("from heads import project", "project", True),  # (the helper imported by its own name)
        ("from heads import project as lift", "lift", True),
        ("from pkg.heads import project", "project", True),
        ("from heads import project\nproject = None", "project", False),
        ("import heads", "heads.normalize", True),  # (reductions as methods of a batched value)
        ("from heads import normalize", "normalize", True),
    ],
)
def test_a_query_from_a_helper_of_another_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, imports: str, helper: str, found: bool) -> None:
    # probe 157b: what another module's helper returns, read in that module
    files = {"attn.py": ATTN, "main.py": QUERY_FROM_A_HELPER.format(imports=imports, helper=helper)}
    files.update({"pkg/__init__.py": "", "pkg/heads.py": HEADS} if "pkg" in imports else {"heads.py": HEADS})
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "--jax-version", "0.10.2", "."])
    lines = [line for line in capsys.readouterr().out.splitlines() if "JCD209" in line]
    assert [line.split(" (")[0] for line in lines] == (["attn.py:5:12: JCD209 cuDNN attention under jax.vmap"] if found else [])


CONSTS = """\
{all_line}VOCAB = 32000
SEQ = 511
"""

MODEL = """\
import jax
import jax.numpy as jnp

SEQ = 512
from consts import *  # noqa: E402,F403


def loss(x):
    y = x[:, :SEQ]
    return jax.nn.dot_product_attention(y, y, y, implementation="cudnn").astype(jnp.float32).sum()


def train():
    return jax.grad(loss)(jnp.zeros((2, 600, 4, 64), jnp.bfloat16))
"""


@pytest.mark.parametrize(("all_line", "found"), [('__all__ = ["VOCAB"]\n', False), ("", True), ("__all__ = EXPORTED\n", False)])
def test_a_star_import_binds_what_all_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, all_line: str, found: bool) -> None:
    """`from consts import *` binds only what `__all__` lists (an `__all__` the analysis
    cannot read may bind SEQ or not); without one, every public name."""
    write(tmp_path, {"consts.py": CONSTS.format(all_line=all_line), "model.py": MODEL})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    assert ("model.py:10:12: JCD201" in capsys.readouterr().out) is found


def test_a_global_another_module_overrides_through_globals_is_uncertain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """`globals().update(_OVERRIDES)` in settings.py: `from settings import SEQ` may get either."""
    settings = "SEQ = 511\n_OVERRIDES = {'SEQ': 512}\nglobals().update(_OVERRIDES)\n"
    train = MODEL.replace("SEQ = 512\nfrom consts import *  # noqa: E402,F403\n", "from settings import SEQ\n")
    write(tmp_path, {"settings.py": settings, "model.py": train})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    assert "JCD201" not in capsys.readouterr().out
    write(tmp_path, {"settings.py": "SEQ = 511\n"})
    main(["--no-cache", "--exit-zero", "-j1", "."])
    assert "JCD201" in capsys.readouterr().out


LINEN_MODEL = """\
import flax.linen as nn
import jax
import jax.numpy as jnp


class Attn(nn.Module):
    @nn.compact
    def __call__(self, x):
        q = nn.DenseGeneral((4, 64), dtype=jnp.bfloat16)(x)
        return jax.nn.dot_product_attention(q, q, q, implementation="cudnn")
"""
ENGINE = """\
import jax


def train_step(model, params, x):
    return jax.grad(lambda p: model.apply(p, x).astype("float32").sum())(params)
"""
TRAIN = """\
import jax
import jax.numpy as jnp

from engine import train_step
from model import Attn

model = Attn()
x = jnp.zeros((2, {T}, 256), jnp.bfloat16)
params = model.init(jax.random.PRNGKey(0), x)
grads = train_step(model, params, x)
"""


def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, files: dict[str, str]) -> list[list[str]]:
    """Write `files`, run the command over the folder: each finding's place and code."""
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    return [line.split(" ")[:2] for line in capsys.readouterr().out.splitlines() if "JCD" in line]


@pytest.mark.parametrize(("T", "found"), [(255, True), (256, False)])
def test_a_script_joining_a_model_and_a_training_step_of_other_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, T: int, found: bool) -> None:
    # engine.py differentiates a model it is handed and imports none: train.py joins them (probe 29b)
    found_at = places(tmp_path, monkeypatch, capsys, {"model.py": LINEN_MODEL, "engine.py": ENGINE, "train.py": TRAIN.format(T=T)})
    assert found_at == ([["model.py:10:16:", "JCD201"]] if found else [])


@pytest.mark.parametrize(("T", "found"), [(255, True), (256, False)])
def test_a_program_launching_the_training_through_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, T: int, found: bool) -> None:
    # cli.py -> launch.main() -> eval_shape(train_step, x): the length is born in launch.py,
    # which cli.py imports, so only cli.py is a program (probe 31a)
    train = "import jax\n\n\ndef loss(x):\n    return jax.nn.dot_product_attention(x, x, x, implementation='cudnn').sum()\n\n\ndef train_step(x):\n    return jax.grad(loss)(x)\n"
    launch = f"import jax\nimport jax.numpy as jnp\n\nfrom train import train_step\n\n\ndef main():\n    x = jnp.zeros((2, {T}, 4, 64), jnp.bfloat16)\n    return jax.eval_shape(train_step, x)\n"
    found_at = places(tmp_path, monkeypatch, capsys, {"train.py": train, "launch.py": launch, "cli.py": "from launch import main\n\nmain()\n"})
    assert found_at == ([["train.py:5:12:", "JCD201"]] if found else [])


@pytest.mark.parametrize(("patch", "found"), [("monkeypatch.setattr(jax.nn, 'dot_product_attention', fake)", False), ("monkeypatch.setattr('jax.nn.dot_product_attention', fake)", False), ("monkeypatch.setattr(jax.numpy, 'dot', fake)", True)])
def test_a_test_replacing_the_jax_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, patch: str, found: bool) -> None:
    # the test mocks jax.nn.dot_product_attention: the wrapper's float32 call never reaches
    # JAX (probe 32c, from a real project's tests); another function's patch changes nothing
    wrapper = "import jax\n\n\ndef attend(q, k, v):\n    return jax.nn.dot_product_attention(q, k, v, implementation='cudnn')\n"
    test = f"import jax\nimport jax.numpy as jnp\n\nfrom wrapper import attend\n\n\ndef test_it(monkeypatch):\n    fake = lambda *a, **k: a[0]\n    {patch}\n    q = jnp.zeros((2, 16, 4, 8), jnp.float32)\n    attend(q, q, q)\n"
    found_at = places(tmp_path, monkeypatch, capsys, {"wrapper.py": wrapper, "tests/test_wrapper.py": test})
    assert found_at == ([["wrapper.py:5:12:", "JCD203"]] if found else [])


LAYER_WITH_DEFAULT = "import jax\nimport jax.numpy as jnp\n\n\ndef attention(q, compute_dtype=jnp.float32):\n    q = q.astype(compute_dtype)\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
STEP = "import jax\nimport jax.numpy as jnp\n{imports}\n\n\ndef step(q):\n    return jax.grad(lambda q: {call}.astype(jnp.float32).sum())(q)\n"


@pytest.mark.parametrize("dtype", ["jnp.bfloat16", ""])
@pytest.mark.parametrize(
    "layout",
    [
        "intermediate",  # train.py -> model.py -> layers.py: model.py is only reached (probe 32b)
        "library",  # model.py -> layers.py, no train.py: model.py is neither analysed nor reached (34a)
        "library attribute",  # ...calling `layers.attention(...)` after `import layers` (36a)
        "package attribute",  # `import mylib; mylib.attention(...)`, re-exported by the package
        "same-named submodule",  # `from mylib import attention`, mylib/attention.py beside it
    ],
)
def test_a_default_every_caller_overrides_through_other_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, layout: str, dtype: str) -> None:
    # float32 by default: reported unless the only caller passes bf16
    override = f", compute_dtype={dtype}" if dtype else ""
    if layout in ("intermediate", "library", "library attribute"):
        files = {
            "layers.py": LAYER_WITH_DEFAULT,
            "model.py": f"import jax.numpy as jnp\nfrom layers import attention\n\n\ndef forward(q):\n    return attention(q{override})\n",
        }
        if layout == "library attribute":
            files["model.py"] = f"import jax.numpy as jnp\n\nimport layers\n\n\ndef forward(q):\n    return layers.attention(q{override})\n"
        if layout == "intermediate":
            files["train.py"] = STEP.format(imports="from model import forward", call="forward(q)")
        place = "layers.py:7:12:"
    else:
        module = "ops" if layout == "package attribute" else "attention"
        imports, call = ("import mylib", "mylib.attention") if layout == "package attribute" else ("from mylib import attention", "attention")
        files = {
            f"mylib/{module}.py": LAYER_WITH_DEFAULT,
            "mylib/__init__.py": f"from mylib.{module} import attention\n",
            "train.py": STEP.format(imports=imports, call=f"{call}(q{override})"),
        }
        place = f"mylib/{module}.py:7:12:"
    found_at = places(tmp_path, monkeypatch, capsys, files)
    assert found_at == ([] if dtype else [[place, "JCD203"]])


@pytest.mark.parametrize(
    ("main", "found"),
    [
        ("    return jax.grad(model.train_step)(W, X, seq_len=1024)\n", False),
        ("    return jax.value_and_grad(model.train_step)(W, X, 1024)\n", False),
        ("    step = jax.jit(model.train_step, static_argnames='seq_len')\n    step(W, X, seq_len=1024)\n    return step(W, X, seq_len=1024)\n", False),
        ("    step = jax.jit(model.train_step, static_argnames='seq_len')\n    step(W, X, seq_len=1024)\n    return step(W, X)\n", True),  # one call keeps it
    ],
)
def test_a_default_overridden_through_a_transform_of_a_module_attribute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, main: str, found: bool) -> None:
    # probe 39c: `jax.grad(model.train_step)(..., seq_len=1024)` and `step = jax.jit(model.
    # train_step)` then `step(...)` are calls of train_step, as with `from model import`
    model = (
        "import jax\nimport jax.numpy as jnp\n\n\ndef train_step(w, x, seq_len=1023):\n"
        "    q = (x[:, :seq_len] @ w).reshape(x.shape[0], seq_len, 4, 64)\n"
        "    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32).mean()\n"
    )
    train = (
        "import jax\nimport jax.numpy as jnp\n\nimport model\n\nW = jnp.zeros((256, 256), jnp.bfloat16)\nX = jnp.zeros((2, 2048, 256), jnp.bfloat16)\n\n\n"
        f"def main():\n{main}\n\nif __name__ == '__main__':\n    main()\n"
    )
    found_at = places(tmp_path, monkeypatch, capsys, {"model.py": model, "train.py": train})
    assert [code for _, code in found_at] == (["JCD202"] if found else [])


@pytest.mark.parametrize("caller", ["model.py", "layers.py"])
def test_a_caller_passing_its_own_constant_named_as_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, caller: str) -> None:
    # probe 38a: model.py's DTYPE (bf16) is not layers.py's (float32), though both spell
    # `DTYPE`; a caller in layers.py passes the default itself.  (Known miss: model.py
    # passing its own DTYPE that is also float32 counts as overriding: silent.)
    layers = "import jax\nimport jax.numpy as jnp\n\nDTYPE = jnp.float32\n\n\ndef attention(q, compute_dtype=DTYPE):\n    q = q.astype(compute_dtype)\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
    forward = "\n\ndef forward(q):\n    return attention(q, compute_dtype=DTYPE)\n"
    model = "import jax.numpy as jnp\nfrom layers import attention\n\nDTYPE = jnp.bfloat16\n" + (forward if caller == "model.py" else "")
    found_at = places(tmp_path, monkeypatch, capsys, {"layers.py": layers + (forward if caller == "layers.py" else ""), "model.py": model})
    assert found_at == ([] if caller == "model.py" else [["layers.py:9:12:", "JCD203"]])


@pytest.mark.parametrize("patched", [True, False])
def test_a_test_swapping_the_cudnn_modules_internals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, patched: bool) -> None:
    # JAX's own batcher test replaces the cuDNN primitive's wrapper with a mock: the vmap
    # over axis 1 never reaches the batching rule there (probe 32c, jax-ml/jax PR 38495)
    swap = "    fused_attention_stablehlo._dot_product_attention_fwd_p_wrapper = object()\n" if patched else ""
    test = (
        "from functools import partial\n\nimport jax\nimport jax.numpy as jnp\nfrom jax._src.cudnn import fused_attention_stablehlo\n\n\n"
        f"def test_vmap():\n{swap}    q = jnp.zeros((2, 5, 4, 16, 32), jnp.float16)\n"
        "    jax.vmap(partial(jax.nn.dot_product_attention, implementation='cudnn'), in_axes=1)(q, q, q)\n"
    )
    found_at = places(tmp_path, monkeypatch, capsys, {"test_batcher.py": test})
    assert found_at == ([] if patched else [["test_batcher.py:10:5:", "JCD209"]])


@pytest.mark.parametrize(
    ("model_import", "test_body", "found"),
    [
        ("import jax", "    with mock.patch('jax.nn.dot_product_attention', fake):\n        attend(q)", False),
        ("import jax", "    with mock.patch('jax.nn.dot_product_attention', fake):\n        pass\n    attend(q)", True),  # after the block
        ("import jax", "    with mock.patch('jax.nn.dot_product_attention', wraps=jax.nn.dot_product_attention):\n        attend(q)", True),  # calls JAX
        ("from jax.nn import dot_product_attention", "    with mock.patch('jax.nn.dot_product_attention', fake):\n        attend(q)", True),  # bound before
        ("import jax", "    monkeypatch.setattr(jax.nn, 'dot_product_attention', fake)\n    attend(q)", False),
        ("import jax", "    attend(q)", False),  # the autouse fixture below patches for the module
        ("import jax", "    attend(q)  # no autouse", True),  # a fixture the test does not ask for (probe 34a)
        ("import jax", "    attend(q)  # asks", False),  # ...and one it asks for
    ],
)
def test_where_a_replacement_of_the_jax_function_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, model_import: str, test_body: str, found: bool) -> None:
    # probe 33a: a patch holds inside its `with` block, not after it; a `wraps=` mock and a
    # name imported before the patch still call JAX; a fixture's patch holds for the module
    call = "jax.nn.dot_product_attention" if model_import == "import jax" else "dot_product_attention"
    model = f"{model_import}\n\n\ndef attend(q):\n    return {call}(q, q, q, implementation='cudnn')\n"
    marker = "(autouse=True)" if test_body == "    attend(q)" else ""
    fixture = f"\n\n@pytest.fixture{marker}\ndef cpu(monkeypatch):\n    monkeypatch.setattr(jax.nn, 'dot_product_attention', fake)\n" if test_body.startswith("    attend(q)") else ""
    asks = ", cpu" if test_body.endswith("# asks") else ""
    test = (
        "from unittest import mock\n\nimport jax\nimport jax.numpy as jnp\nimport pytest\n\nfrom model import attend\n\nfake = lambda q, k, v, **kw: q\n"
        f"{fixture}\n\ndef test_it(monkeypatch{asks}):\n    q = jnp.zeros((2, 16, 4, 64), jnp.float32)\n{test_body}\n"
    )
    found_at = places(tmp_path, monkeypatch, capsys, {"model.py": model, "test_model.py": test})
    assert [code for _, code in found_at] == (["JCD203"] if found else [])


def test_a_mock_in_one_experiment_leaves_the_others_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # a tree of experiments: exp_b's test mocks the JAX function; exp_a's training and
    # exp_b's own training do not run through that test (probe 33b)
    model = "import jax\n\n\ndef attn(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
    train = "import jax\nimport jax.numpy as jnp\n\nfrom model import attn\n\nif __name__ == '__main__':\n    q = jnp.zeros((2, {T}, 4, 64), jnp.bfloat16)\n    jax.grad(lambda q: attn(q).astype(jnp.float32).sum())(q)\n"
    test = "from unittest import mock\n\nimport jax.numpy as jnp\n\nfrom model import attn\n\n\ndef test_cpu():\n    with mock.patch('jax.nn.dot_product_attention', side_effect=lambda q, k, v, **kw: q):\n        attn(jnp.zeros((2, 7, 4, 64), jnp.float32))\n"
    files = {"exp_a/model.py": model, "exp_a/train.py": train.format(T=127), "exp_b/model.py": model, "exp_b/train.py": train.format(T=255), "exp_b/test_model.py": test}
    found_at = places(tmp_path, monkeypatch, capsys, files)
    assert found_at == [["exp_a/model.py:5:12:", "JCD201"], ["exp_b/model.py:5:12:", "JCD201"]]


def test_a_test_running_a_gated_function_forward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # a GQA head mismatch fails forward: the test is the only caller (probe 29b)
    test = "import jax.numpy as jnp\n\nfrom attn import attend\n\n\ndef test_fwd():\n    q = jnp.zeros((2, 16, {nq}, 64), jnp.bfloat16)\n    kv = jnp.zeros((2, 16, 4, 64), jnp.bfloat16)\n    assert attend(q, kv, kv).shape == q.shape\n"
    for nq, found in ((6, True), (8, False)):
        found_at = places(tmp_path, monkeypatch, capsys, {"attn.py": ATTN, "tests/test_attn.py": test.format(nq=nq)})
        assert found_at == ([["attn.py:5:12:", "JCD206"]] if found else [])


@pytest.mark.parametrize(
    ("imported", "prefix", "test_path"),
    [
        ("from layers import mha, mha_loss", "", "test_layers.py"),
        # `import layers`, then `layers.mha(...)` (probe 56b: a reference test of lstm_ref with
        # a config's dropout beside a grad test was never run)
        ("import layers", "layers.", "tests/test_layers.py"),
    ],
)
def test_a_grad_test_does_not_hide_the_forward_tests_beside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, imported: str, prefix: str, test_path: str) -> None:
    # the file differentiates, so it is entered through its differentiating functions;
    # its tests calling an imported function forward are entered too (probe 30a)
    layers = "import jax\nimport jax.numpy as jnp\n\n\ndef mha(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation=\"cudnn\")\n\n\ndef mha_loss(q):\n    return mha(q).astype(jnp.float32).sum()\n"
    tests = "import jax\nimport jax.numpy as jnp\n\n{imported}\n\n\ndef test_grad_even():\n    jax.grad({p}mha_loss)(jnp.zeros((2, 16, 2, 64), jnp.bfloat16))\n\n\ndef test_forward():\n    {p}mha(jnp.zeros((2, 16, 2, 64), jnp.{dtype}))\n"
    for dtype, found in (("float32", True), ("bfloat16", False)):
        found_at = places(tmp_path, monkeypatch, capsys, {"layers.py": layers, test_path: tests.format(imported=imported, p=prefix, dtype=dtype)})
        assert found_at == ([["layers.py:6:12:", "JCD203"]] if found else [])


ATTEND_MODEL = "import jax\n\n\ndef attend(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"


def codes_under_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, test_code: str) -> list[str]:
    """The codes the command reports for ATTEND_MODEL with a test module of `test_code`
    (after imports, a `fake` attention and a float32 `Q`): JCD203 where the call reaches JAX."""
    test = (
        "import contextlib\nimport unittest\nfrom unittest import mock\n\nimport jax\nimport jax.numpy as jnp\nimport pytest\n\nfrom model import attend\n\n"
        f"fake = lambda q, k, v, **kw: q\nQ = jnp.zeros((2, 16, 4, 64), jnp.float32)\n\n\n{test_code}"
    )
    return [code for _, code in places(tmp_path, monkeypatch, capsys, {"model.py": ATTEND_MODEL, "test_model.py": test})]


PATCH = "mock.patch('jax.nn.dot_product_attention', fake)"


@pytest.mark.parametrize(
    ("test_code", "found"),
    [
        (f"def test_it():\n    with contextlib.ExitStack() as stack:\n        stack.enter_context({PATCH})\n        attend(Q)\n", False),
        (f"def test_it():\n    with contextlib.ExitStack() as stack:\n        stack.enter_context({PATCH})\n    attend(Q)\n", True),  # after it (36a)
        (f"class T(unittest.TestCase):\n    def setUp(self):\n        with contextlib.ExitStack() as stack:\n            stack.enter_context({PATCH})\n            self.addCleanup(stack.pop_all().close)\n\n    def test_it(self):\n        attend(Q)\n", False),  # handed on by pop_all (38b)
        ("def test_it():\n    with mock.patch.multiple(jax.nn, dot_product_attention=fake):\n        attend(Q)\n", False),
        ("def test_it():\n    with mock.patch.dict(jax.nn.__dict__, {'dot_product_attention': fake}):\n        attend(Q)\n", False),
        ("def test_it():\n    with mock.patch.dict(jax.nn.__dict__, {'relu': fake}):\n        attend(Q)\n", True),  # another name
        ("def test_it():\n    with mock.patch.dict(vars(jax.nn), {'dot_product_attention': fake}):\n        attend(Q)\n", False),
        (f"{PATCH}.start()\n\n\ndef test_it():\n    attend(Q)\n", False),  # started at the module's top (36a)
        ("def test_it():\n    with mock.patch('model.jax.nn.dot_product_attention', fake):\n        attend(Q)\n", False),  # through model's `jax`
        ("import model\n\n\ndef test_it():\n    with mock.patch.object(model.jax.nn, 'dot_product_attention', fake):\n        attend(Q)\n", False),  # (37a)
        ("TARGET = 'jax.nn.dot_product_attention'\n\n\ndef test_it():\n    with mock.patch(TARGET, fake):\n        attend(Q)\n", False),  # a constant
        ("def test_it():\n    target = 'jax.nn.dot_product_attention'\n    with mock.patch(target, fake):\n        attend(Q)\n", False),  # a test's local (38b)
        ("MOD = 'jax.nn'\n\n\ndef test_it():\n    with mock.patch(f'{MOD}.dot_product_attention', fake):\n        attend(Q)\n", False),  # built at run time
        ("MOD = 'jax.nn'\n\n\ndef test_it():\n    with mock.patch(MOD + '.dot_product_attention', fake):\n        attend(Q)\n", False),
        ("MOD = 'jax.nn'\n\n\ndef test_it():\n    with mock.patch('.'.join([MOD, 'dot_product_attention']), fake):\n        attend(Q)\n", False),
        ("MOD = 'jax.nn'\n\n\ndef test_it():\n    with mock.patch('%s.dot_product_attention' % MOD, fake):\n        attend(Q)\n", False),
        ("MOD = 'jax.nn'\n\n\ndef test_it():\n    with mock.patch(f'{MOD}.relu', fake):\n        attend(Q)\n", True),  # another name
        ("MOD = 'jax.nn'\n\n\ndef test_it():\n    with mock.patch(f'{MOD}.dot_product_attention', fake):\n        pass\n    attend(Q)\n", True),  # after it
        ("PARTS = ['jax.nn', 'dot_product_attention']\n\n\ndef test_it():\n    with mock.patch('.'.join(PARTS), fake):\n        attend(Q)\n", False),  # (40a)
        ("def test_it():\n    with mock.patch('%s.%s' % ('jax.nn', 'dot_product_attention'), fake):\n        attend(Q)\n", False),
        ("NAME = 'dot_product_attention'\n\n\ndef test_it():\n    with mock.patch(f'jax.nn.{NAME}', fake):\n        attend(Q)\n", False),
        ("def test_it():\n    with mock.patch('jax.nn.' + 'dot_product_' + 'attention', fake):\n        attend(Q)\n", False),
        ("MOD = 'jax.image'\n\n\ndef test_it():\n    with mock.patch(f'{MOD}.dot_product_attention', fake, create=True):\n        attend(Q)\n", True),  # another module's name
        ("def test_it():\n    with mock.patch('{}.dot_product_attention'.format('jax.image'), fake, create=True):\n        attend(Q)\n", True),
        ("def test_it():\n    target = 'jax.nn.dot_product_attention'\n    with mock.patch(target, fake):\n        pass\n    target = 'jax.nn.relu'\n    with mock.patch(target, fake):\n        attend(Q)\n", True),  # rebound
        ("def test_a():\n    target = 'jax.nn.dot_product_attention'\n\n\ndef test_it():\n    target = 'jax.nn.relu'\n    with mock.patch(target, fake):\n        attend(Q)\n", True),  # another test's local
        ("MOD = 'jax.image'\nMOD = 'jax.nn'\n\n\ndef test_it():\n    with mock.patch(f'{MOD}.dot_product_attention', fake):\n        attend(Q)\n", False),  # the module ends with jax.nn (41a)
        ("MOD = 'jax.nn'\nMOD = 'jax.image'\n\n\ndef test_it():\n    with mock.patch(f'{MOD}.dot_product_attention', fake, create=True):\n        attend(Q)\n", True),
        ("MOD = 'jax.image'\nif Q is None:\n    MOD = 'jax.nn'\n\n\ndef test_it():\n    with mock.patch(f'{MOD}.dot_product_attention', fake, create=True):\n        attend(Q)\n", False),  # unknown: the last name
        (f"if __name__ == '__main__':\n    {PATCH}.start()\n\n\ndef test_it():\n    attend(Q)\n", True),  # not under pytest
        (f"class Mixin:\n    def setUp(self):\n        self.enterContext({PATCH})\n\n\nclass T(unittest.TestCase, Mixin):\n    def test_it(self):\n        attend(Q)\n", True),  # shadowed
        (f"class Mixin:\n    def setUp(self):\n        self.enterContext({PATCH})\n\n\nclass Base(unittest.TestCase):\n    pass\n\n\nclass T(Base, Mixin):\n    def test_it(self):\n        attend(Q)\n", True),  # (38a)
        (f"class Base(unittest.TestCase):\n    def setUp(self):\n        self.enterContext({PATCH})\n\n\nclass T(Base):\n    setUp = unittest.TestCase.setUp\n\n    def test_it(self):\n        attend(Q)\n", True),
        (f"class Base(unittest.TestCase):\n    def setUp(self):\n        self.enterContext({PATCH})\n\n\nclass T(Base):\n    @classmethod\n    def setUpClass(cls):\n        pass\n\n    def test_it(self):\n        attend(Q)\n", False),
        (f"@pytest.fixture(autouse=True)\ndef xla():\n    with {PATCH}:\n        yield\n\n\ndef test_it():\n    attend(Q)\n", False),
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n\n\ndef test_it():\n    attend(Q)\n", True),  # not asked for
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n\n\ndef test_it(request):\n    request.getfixturevalue('xla')\n    attend(Q)\n", False),  # asked for at run time (38b)
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n\n\ndef test_it(request):\n    attend(Q)\n    request.getfixturevalue('xla')\n", True),  # asked for after the call (40a)
        (f"@pytest.fixture\ndef xla():\n    yield\n    {PATCH}.start()\n\n\ndef test_it(xla):\n    attend(Q)\n", True),  # patched in teardown
        (f"@pytest.fixture\ndef xla():\n    {PATCH}.start()\n    yield\n\n\ndef test_it(xla):\n    attend(Q)\n", False),  # patched before the yield
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n\n\npytestmark = pytest.mark.usefixtures('xla')\n\n\ndef test_it():\n    attend(Q)\n", False),
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n\n\nclass TestIt:\n    pytestmark = [pytest.mark.usefixtures('xla')]\n\n    def test_it(self):\n        attend(Q)\n", False),
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n\n\nclass TestIt:\n    pytestmark = [pytest.mark.usefixtures('xla')]\n\n\ndef test_it():\n    attend(Q)\n", True),  # another class's mark
        (f"@contextlib.contextmanager\ndef xla_mode():\n    with {PATCH}:\n        yield\n\n\ndef test_it():\n    with xla_mode():\n        attend(Q)\n", False),
        (f"@contextlib.contextmanager\ndef xla_mode():\n    with {PATCH}:\n        yield\n\n\ndef test_it():\n    with xla_mode():\n        pass\n    attend(Q)\n", True),
        (f"class T(unittest.TestCase):\n    def setUp(self):\n        self.enterContext({PATCH})\n\n    def test_it(self):\n        attend(Q)\n", False),
        (f"class T(unittest.TestCase):\n    def setUp(self):\n        p = {PATCH}\n        p.start()\n        self.addCleanup(p.stop)\n\n    def test_it(self):\n        attend(Q)\n", False),
        (f"class T(unittest.TestCase):\n    def setUp(self):\n        self.enterContext({PATCH})\n\n\nclass U(unittest.TestCase):\n    def test_it(self):\n        attend(Q)\n", True),  # another class
        (f"class Base(unittest.TestCase):\n    def setUp(self):\n        self.enterContext({PATCH})\n\n\nclass T(Base):\n    def test_it(self):\n        attend(Q)\n", False),  # inherited (36a)
        (f"class Base(unittest.TestCase):\n    def setUp(self):\n        self.enterContext({PATCH})\n\n\nclass T(Base):\n    def setUp(self):\n        pass\n\n    def test_it(self):\n        attend(Q)\n", True),  # overridden
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n\n\n@pytest.fixture\ndef model(xla):\n    return attend\n\n\ndef test_it(model):\n    model(Q)\n", False),  # through a fixture
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n\n\n@pytest.fixture(autouse=True)\ndef routed(xla):\n    yield\n\n\ndef test_it():\n    attend(Q)\n", False),  # an autouse fixture asks for it (43a)
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n\n\ndef _route(request, name='xla'):\n    request.getfixturevalue(name)\n\n\ndef test_it(request):\n    _route(request)\n    attend(Q)\n", False),  # a helper's default (43a)
    ],
)
def test_other_forms_of_a_patch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, test_code: str, found: bool) -> None:
    # probe 34a: an ExitStack, patch.multiple, patch.dict of the module's namespace, a
    # fixture or @contextmanager that yields inside the patch, a unittest setUp
    assert codes_under_test(tmp_path, monkeypatch, capsys, test_code) == (["JCD203"] if found else [])


@pytest.mark.parametrize(
    ("target", "found", "imported"),
    [
        ("'jax.nn.dot_product_attention'", False, "from tests.consts import ATTENTION"),
        ("'jax.nn.relu'", True, "from tests.consts import ATTENTION"),
        ("f'{MODULE}.dot_product_attention'", False, "from tests.consts import ATTENTION"),  # built there (40a)
        ("'jax.nn.dot_product_attention'", False, "from tests import consts\nATTENTION = consts.ATTENTION"),
    ],
)
def test_a_patch_target_imported_from_a_project_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, target: str, found: bool, imported: str) -> None:
    # probe 38b: the target string is a constant of the test suite's own helper module
    model = ATTEND_MODEL
    consts = f"MODULE = 'jax.nn'\nATTENTION = {target}\n"
    test = (
        f"from unittest import mock\n\nimport jax.numpy as jnp\n\nfrom model import attend\n{imported}\n\n\n"
        "def test_it():\n    with mock.patch(ATTENTION, lambda q, k, v, **kw: q):\n        attend(jnp.zeros((2, 16, 4, 64), jnp.float32))\n"
    )
    found_at = places(tmp_path, monkeypatch, capsys, {"model.py": model, "tests/__init__.py": "", "tests/consts.py": consts, "tests/test_model.py": test})
    assert [code for _, code in found_at] == (["JCD203"] if found else [])


ATTENTION_TARGET = "'jax.nn.dot_product_attention'"


@pytest.mark.parametrize(
    ("test_code", "found"),
    [
        (f"class TestIt:\n    TARGET = {ATTENTION_TARGET}\n\n    def test_it(self):\n        with mock.patch(self.TARGET, fake):\n            attend(Q)\n", False),
        ("class TestIt:\n    TARGET = 'jax.nn.relu'\n\n    def test_it(self):\n        with mock.patch(self.TARGET, fake):\n            attend(Q)\n", True),
        (f"class TestIt:\n    TARGET = {ATTENTION_TARGET}\n\n    def test_it(self):\n        with mock.patch(type(self).TARGET, fake):\n            attend(Q)\n", False),
        (f"class TestIt:\n    TARGET = {ATTENTION_TARGET}\n\n    def test_it(self):\n        with mock.patch(TestIt.TARGET, fake):\n            attend(Q)\n", False),
        (f"class Base:\n    TARGET = {ATTENTION_TARGET}\n\n\nclass TestIt(Base):\n    def test_it(self):\n        with mock.patch(self.TARGET, fake):\n            attend(Q)\n", False),  # a base's
        # a subclass binds it again: `self.TARGET` of the base's method is not known, and
        # not known may be the attention (silent)
        (f"class Base:\n    TARGET = 'jax.nn.relu'\n\n    def test_it(self):\n        with mock.patch(self.TARGET, fake):\n            attend(Q)\n\n\nclass TestIt(Base):\n    TARGET = {ATTENTION_TARGET}\n", False),
        ("MODULE, NAME = 'jax.nn', 'dot_product_attention'\n\n\ndef test_it():\n    with mock.patch(f'{MODULE}.{NAME}', fake):\n        attend(Q)\n", False),  # unpacked
        (f"TARGETS = ['jax.nn.relu', {ATTENTION_TARGET}]\n\n\ndef test_it():\n    with mock.patch(TARGETS[1], fake):\n        attend(Q)\n", False),
        (f"TARGETS = ['jax.nn.relu', {ATTENTION_TARGET}]\n\n\ndef test_it():\n    with mock.patch(TARGETS[0], fake):\n        attend(Q)\n", True),
        ("@pytest.mark.parametrize('target', ['jax.nn.dot_product_attention'])\ndef test_it(target):\n    with mock.patch(target, fake):\n        attend(Q)\n", False),  # a row: any API
        ("def patched(target):\n    return mock.patch(target, fake)\n\n\ndef test_it():\n    with patched('jax.nn.dot_product_attention'):\n        attend(Q)\n", False),  # a factory
        ("def patched(target):\n    return mock.patch(target, fake)\n\n\ndef test_it():\n    with patched('jax.nn.relu'):\n        attend(Q)\n", True),
        ("def patched(mod, name='dot_product_attention'):\n    return mock.patch(f'{mod}.{name}', fake)\n\n\ndef test_it():\n    with patched('jax.nn'):\n        attend(Q)\n", False),
        # a helper that starts a patch of a target not known: not taken to hold wherever it is called
        ("def start(target):\n    mock.patch(target, fake).start()\n\n\ndef test_it():\n    start('jax.nn.relu')\n    attend(Q)\n", True),
        # read where they would otherwise be taken for any API (the sweep of probe 41a's cases)
        ("def test_it():\n    with mock.patch(t := 'jax.nn.relu', fake):\n        attend(Q)\n", True),
        ("BASE = ['jax', 'image']\n\n\ndef test_it():\n    with mock.patch('.'.join(BASE + ['dot_product_attention']), fake, create=True):\n        attend(Q)\n", True),
        ("def test_it():\n    with mock.patch('jax.nn.dot_product_attention'.replace('nn', 'image'), fake, create=True):\n        attend(Q)\n", True),
        ("PARTS = ('jax.image', 'dot_product_attention')\n\n\ndef test_it():\n    with mock.patch('{}.{}'.format(*PARTS), fake, create=True):\n        attend(Q)\n", True),
        ("PARTS = ('jax.nn', 'dot_product_attention')\n\n\ndef test_it():\n    with mock.patch('{}.{}'.format(*PARTS), fake):\n        attend(Q)\n", False),
        # a row's or a helper's parameter read as each value it is given (probe 43a)
        ("@pytest.mark.parametrize('target', ['jax.nn.relu', pytest.param('jax.numpy.tanh', id='tanh')])\ndef test_it(target):\n    with mock.patch(target, fake):\n        attend(Q)\n", True),
        # the relu row runs the call unpatched: reported (44a); every row patching it: not
        ("@pytest.mark.parametrize('n, target', [(1, 'jax.nn.relu'), (2, 'jax.nn.dot_product_attention')])\ndef test_it(n, target):\n    with mock.patch(target, fake):\n        attend(Q)\n", True),
        ("@pytest.mark.parametrize('n, target', [(1, 'jax.nn.dot_product_attention'), (2, 'jax.nn.dot_product_attention')])\ndef test_it(n, target):\n    with mock.patch(target, fake):\n        attend(Q)\n", False),
        ("@contextlib.contextmanager\ndef routed(target):\n    with mock.patch(target, fake):\n        yield\n\n\ndef test_it():\n    with routed('jax.numpy.tanh'):\n        attend(Q)\n", True),
        ("@contextlib.contextmanager\ndef routed(target='jax.nn.dot_product_attention'):\n    with mock.patch(target, fake):\n        yield\n\n\ndef test_it():\n    with routed():\n        attend(Q)\n", False),
        # two calls with two targets: each patches in its own `with`, which the patch's scope
        # does not tell apart, so the call is taken as maybe patched (silent; probe 45a's sweep)
        ("@contextlib.contextmanager\ndef routed(target):\n    with mock.patch(target, fake):\n        yield\n\n\ndef test_it():\n    with routed('jax.nn.dot_product_attention'):\n        attend(Q)\n\n\ndef test_other():\n    with routed('jax.numpy.tanh'):\n        pass\n", False),
        # a row the test skips before the patch may be the only unpatched one
        ("@pytest.mark.parametrize('target', ['jax.nn.dot_product_attention', 'jax.nn.relu'])\ndef test_it(target):\n    if target.endswith('relu'):\n        pytest.skip('attention only')\n    with mock.patch(target, fake):\n        attend(Q)\n", False),
        # an object's attribute of a name not known: the object is no JAX module
        ("def test_it(monkeypatch):\n    for key in ('indent', 'sort_keys'):\n        monkeypatch.setattr(pytest, key, 1)\n    attend(Q)\n", True),
    ],
)
def test_patch_targets_read_through_classes_rows_and_factories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, test_code: str, found: bool) -> None:
    # probe 42c: `self.TARGET`, `TARGETS[1]`, unpacked names and patch factories were not
    # read; a target from a parameter or a row may be any API
    assert codes_under_test(tmp_path, monkeypatch, capsys, test_code) == (["JCD203"] if found else [])


@pytest.mark.parametrize("inside", [False, True])
@pytest.mark.parametrize(("name", "found"), [("ATTENTION", False), ("OTHER", True)])
def test_a_patch_target_star_imported_from_a_project_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, name: str, found: bool, inside: bool) -> None:
    # a name not read would be taken for any API (silent): OTHER is found only where read;
    # imported at the top with a star, or by name in the test's body
    model = ATTEND_MODEL
    top, local = ("", f"    from tests.consts import {name}\n") if inside else ("from tests.consts import *\n", "")
    test = (
        f"from unittest import mock\n\nimport jax.numpy as jnp\n\nfrom model import attend\n{top}\n\n"
        f"def test_it():\n{local}    with mock.patch({name}, lambda *a, **kw: a[0]):\n        attend(jnp.zeros((2, 16, 4, 64), jnp.float32))\n"
    )
    files = {"model.py": model, "tests/__init__.py": "", "tests/consts.py": "ATTENTION = 'jax.nn.dot_product_attention'\nOTHER = 'jax.nn.relu'\n", "tests/test_model.py": test}
    assert [code for _, code in places(tmp_path, monkeypatch, capsys, files)] == (["JCD203"] if found else [])


LSTM_MODULE = (
    "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import rnn\n\n"
    "jax.config.update('jax_default_matmul_precision', 'bfloat16')\n\nI, H = 4, 8\n\n\n"
    "def run():\n    x = jnp.zeros((2, 3, I))\n    h = jnp.zeros((1, 2, H))\n"
    "    w = jnp.zeros((rnn.get_num_params_in_lstm(I, H, 1, False),))\n"
    "    return rnn.lstm(x, h, h, w, jnp.array([3, 2], jnp.int32), I, H, 1, 0.0, False)\n"
)


@pytest.mark.parametrize(
    ("caller", "found"),
    [
        ("import jax\n\nimport lstm_mod\n\n\ndef main():\n    with jax.default_matmul_precision('float32'):\n        return lstm_mod.run()\n", False),
        ("import jax\n\nfrom lstm_mod import run\n\n\ndef main():\n    with jax.default_matmul_precision('float32'):\n        return jax.eval_shape(run)\n", False),
        ("import jax\n\nimport lstm_mod\n\n\ndef main():\n    with jax.default_matmul_precision('bfloat16'):\n        return lstm_mod.run()\n", True),
        ("import jax\n\nimport lstm_mod\n\n\ndef main():\n    with jax.default_matmul_precision('float32'):\n        lstm_mod.run()\n    return lstm_mod.run()\n", True),  # one call outside
        ("import lstm_mod\n\n\ndef main():\n    return lstm_mod.run()\n", True),
        # a partial made under the context runs where it is called, after it (probe 43a)
        ("import functools\n\nimport jax\n\nimport lstm_mod\n\n\ndef main():\n    with jax.default_matmul_precision('float32'):\n        run = functools.partial(lstm_mod.run)\n    return run()\n", True),
    ],
)
def test_a_precision_context_every_caller_in_other_files_enters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, caller: str, found: bool) -> None:
    # probe 42c: the module sets bfloat16 for its LSTM; every call of run() from other
    # files runs under float32 (JCD103 was reported on run()'s own analysis)
    found_at = places(tmp_path, monkeypatch, capsys, {"lstm_mod.py": LSTM_MODULE, "caller.py": caller})
    assert [code for _, code in found_at] == (["JCD103"] if found else [])


@pytest.mark.parametrize("own_main", ["    run(1024)\n", "    pass\n"])
def test_a_program_that_imports_a_module_with_its_own_main(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, own_main: str) -> None:
    # probe 44b: finetune.py's own `__main__` resolved `attend` (a lazy import) in one arm
    # of its main guard; the join made it unknown for script.py's run(1023)
    files = {
        "pkg/__init__.py": "",
        "pkg/layers.py": "import jax\n\n\ndef attend(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n",
        "pkg/finetune.py": (
            "import jax\nimport jax.numpy as jnp\n\nfrom pkg.layers import attend\n\n\ndef loss_fn(q):\n    return attend(q).astype(jnp.float32).sum()\n\n\n"
            f"def run(seq_len):\n    q = jnp.zeros((2, seq_len, 1, 64), jnp.bfloat16)\n    return jax.eval_shape(jax.grad(loss_fn), q)\n\n\nif __name__ == '__main__':\n{own_main}"
        ),
        "script.py": "from pkg.finetune import run\n\nrun(1023)\n",
    }
    assert places(tmp_path, monkeypatch, capsys, files) == [["pkg/layers.py:5:12:", "JCD201"]]


@pytest.mark.parametrize(("policy", "found"), [(True, False), (False, True)])
def test_a_haiku_policy_set_in_another_file_makes_parameter_dtypes_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, policy: bool, found: bool) -> None:
    # hk.get_parameter is float32 by default (probe 42a); the training script's policy may
    # cast it, whichever file the analysis reads first
    model = (
        "import haiku as hk\nimport jax\nimport jax.numpy as jnp\n\n\nclass Block(hk.Module):\n    def __call__(self, x):\n"
        "        cls = hk.get_parameter('cls', (1, 1, x.shape[-1]), init=jnp.zeros)\n"
        "        x = jnp.concatenate([jnp.broadcast_to(cls, (x.shape[0], 1, x.shape[-1])), x], axis=1)\n"
        "        q = x.reshape(x.shape[0], x.shape[1], 2, 16)\n        return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
    )
    setting = "hk.mixed_precision.set_policy(Block, jmp.get_policy('params=bfloat16,compute=bfloat16,output=bfloat16'))\n" if policy else ""
    train = (
        f"import haiku as hk\nimport jax\nimport jax.numpy as jnp\nimport jmp\n\nfrom model import Block\n\n{setting}\n\n"
        "def main():\n    f = hk.transform(lambda x: Block()(x))\n    x = jnp.zeros((2, 255, 32), jnp.bfloat16)\n    return f.apply(f.init(jax.random.PRNGKey(0), x), None, x)\n"
    )
    found_at = places(tmp_path, monkeypatch, capsys, {"model.py": model, "train.py": train})
    assert [code for _, code in found_at] == (["JCD203"] if found else [])


@pytest.mark.parametrize(
    ("conftest", "found"),
    [
        (f"{PATCH}.start()\n", False),  # the conftest's top level: every test of its folder
        (f"def pytest_configure(config):\n    {PATCH}.start()\n", False),  # a hook pytest runs
        (f"def _install():\n    {PATCH}.start()\n\n\ndef pytest_configure(config):\n    _install()\n", False),  # what a hook calls
        (f"@pytest.fixture(autouse=True)\ndef xla():\n    with {PATCH}:\n        yield\n", False),
        (f"def helper():\n    with {PATCH}:\n        pass\n", True),  # a helper nobody calls (probe 42c)
        (f"def unstarted():\n    return {PATCH}\n", True),
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        pass\n    yield\n", True),  # left before the yield
        (f"@pytest.fixture\ndef xla():\n    with {PATCH}:\n        yield\n", True),  # asked for by no test
        # a hook calling a method that patches, a fixture made by a call, a hookwrapper (probe 43a)
        (f"class Router:\n    def install(self):\n        {PATCH}.start()\n\n\ndef pytest_configure(config):\n    Router().install()\n", False),
        (f"class Router:\n    def __init__(self):\n        {PATCH}.start()\n\n\ndef pytest_configure(config):\n    Router()\n", False),  # (44a)
        (f"def _route():\n    with {PATCH}:\n        yield\n\n\nroute = pytest.fixture(autouse=True)(_route)\n", False),
        (f"@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_call(item):\n    with {PATCH}:\n        yield\n", False),
    ],
)
def test_where_a_conftest_patch_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, conftest: str, found: bool) -> None:
    # probe 42c: any patch in a conftest.py silenced every test of its folder
    model = ATTEND_MODEL
    header = "from unittest import mock\n\nimport jax\nimport pytest\n\nfake = lambda q, k, v, **kw: q\n\n\n"
    test = "import jax.numpy as jnp\n\nfrom model import attend\n\n\ndef test_it():\n    attend(jnp.zeros((2, 16, 4, 64), jnp.float32))\n"
    found_at = places(tmp_path, monkeypatch, capsys, {"model.py": model, "tests/conftest.py": header + conftest, "tests/test_model.py": test})
    assert [code for _, code in found_at] == (["JCD203"] if found else [])


@pytest.mark.parametrize("configure", ["helper.configure(128)\n", ""])
def test_a_global_another_module_rebinds_with_a_global_statement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, configure: str) -> None:
    # probe 35b: `helper.configure(128)` sets helper.SEQ through `global`; the read after
    # it is unknown (before: the odd placeholder was reported); with no call of the setter
    # the placeholder is what runs (probe 38a)
    helper = "SEQ = 127\n\n\ndef configure(n):\n    global SEQ\n    SEQ = n\n"
    run = (
        "import jax\nimport jax.numpy as jnp\n\nimport helper\n\n"
        f"{configure}q = jnp.zeros((1, helper.SEQ, 2, 64), jnp.bfloat16)\n"
        "jax.grad(lambda q: jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32).sum())(q)\n"
    )
    found_at = places(tmp_path, monkeypatch, capsys, {"helper.py": helper, "run.py": run})
    assert [code for _, code in found_at] == ([] if configure else ["JCD201"])


@pytest.mark.parametrize(("length", "found"), [(33, True), (32, False)])
def test_a_package_attribute_served_by_its_module_getattr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, length: int, found: bool) -> None:
    # PEP 562: `pkg.attention` comes from pkg/__init__.py's `__getattr__` (probe 36b)
    init = "def __getattr__(name):\n    if name == 'attention':\n        from pkg.ops import attention\n        return attention\n    raise AttributeError(name)\n"
    ops = "import jax\n\n\ndef attention(q, k, v):\n    return jax.nn.dot_product_attention(q, k, v, implementation='cudnn')\n"
    train = (
        "import jax\nimport jax.numpy as jnp\n\nimport pkg\n\n\ndef main():\n"
        f"    q = jnp.zeros((2, {length}, 4, 64), jnp.bfloat16)\n"
        "    jax.grad(lambda q: pkg.attention(q, q, q).astype(jnp.float32).sum())(q)\n\n\nif __name__ == '__main__':\n    main()\n"
    )
    found_at = places(tmp_path, monkeypatch, capsys, {"pkg/__init__.py": init, "pkg/ops.py": ops, "train.py": train})
    assert found_at == ([["pkg/ops.py:5:12:", "JCD201"]] if found else [])


@pytest.mark.parametrize("dtype", ["jnp.bfloat16", "", "jnp.float32", "'float32'"])
def test_a_call_default_every_outside_caller_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, dtype: str) -> None:
    # probe 36a: `Attn()(x, dtype=bf16)` in a model.py that is neither analysed nor reached
    layers = "import jax\nimport jax.numpy as jnp\n\n\nclass Attn:\n    def __call__(self, x, dtype=jnp.float32):\n        q = x.astype(dtype)\n        return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
    override = f", dtype={dtype}" if dtype else ""
    model = f"import jax.numpy as jnp\n\nfrom layers import Attn\n\n\ndef forward(x):\n    return Attn()(x{override})\n"
    found_at = places(tmp_path, monkeypatch, capsys, {"layers.py": layers, "model.py": model})
    # passing the default's own expression, or its dtype spelled otherwise, passes the default (37a, 38a)
    assert found_at == ([] if dtype == "jnp.bfloat16" else [["layers.py:8:16:", "JCD203"]])


NOTEBOOK = (
    "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import rnn\n\nI, H = 4, 8\n"
    "x = jnp.zeros((2, 3, I))\nh = jnp.zeros((1, 2, H))\nw = jnp.zeros((rnn.get_num_params_in_lstm(I, H, 1, False),))\n"
    "{before}"
    "y = rnn.lstm(x, h, h, w, {lengths}, I, H, 1, 0.0, False{precision})\n"
    "{after}"
)


@pytest.mark.parametrize(
    ("before", "after", "lengths", "precision", "found"),
    [
        ("", "jax.config.update('jax_default_matmul_precision', 'bfloat16')\n", "jnp.array([3, 2], jnp.int32)", "", []),
        ("jax.config.update('jax_default_matmul_precision', 'bfloat16')\n", "", "jnp.array([3, 2], jnp.int32)", "", ["JCD103"]),
        ("", "jax.config.update('jax_enable_x64', True)\n", "jnp.array([3, 2])", ", precision='highest'", []),
        ("jax.config.update('jax_enable_x64', True)\n", "", "jnp.array([3, 2])", ", precision='highest'", ["JCD102"]),
    ],
)
def test_a_module_update_below_a_call_of_its_body(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, before: str, after: str, lengths: str, precision: str, found: list[str]) -> None:
    # probe 47c: a notebook's cell that sets bfloat16 matmuls (or x64) after its LSTM ran;
    # the body's own calls see the flags as the body had set them by then
    source = NOTEBOOK.format(before=before, after=after, lengths=lengths, precision=precision)
    assert [code for _, code in places(tmp_path, monkeypatch, capsys, {"notebook.py": source})] == found


def project_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> list[str]:
    """The command's finding lines over the project written in tmp_path."""
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    return [line for line in capsys.readouterr().out.splitlines() if "JCD" in line]


def test_a_model_picked_from_a_registry_in_a_package_init(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Probe 50b: `MODELS = {...}` in models/__init__.py beside its re-exports, and a
    training script that looks the class up by the config's name.  The scan took the
    __init__ for a pure re-export, so MODELS led nowhere and the model was not analysed."""
    write(
        tmp_path,
        {
            "proj/__init__.py": "",
            "proj/models/__init__.py": "from .reader import Reader\nfrom .plain import Plain\n\nMODELS = {\n    'reader': Reader,\n    'plain': Plain,\n}\n",
            "proj/models/plain.py": "class Plain:\n    def __call__(self, x):\n        return x\n",
            "proj/models/reader.py": (
                "import jax\nimport jax.numpy as jnp\n\n\nclass Reader:\n    def __call__(self, x):\n"
                "        q = x.reshape(x.shape[0], x.shape[1], 4, 64).astype(jnp.bfloat16)\n"
                "        return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32)\n"
            ),
            "train.py": (
                "import jax\nimport jax.numpy as jnp\n\nfrom proj.models import MODELS\n\nNAME = 'reader'\n\n\n"
                "def loss(x):\n    return MODELS[NAME]()(x).sum()\n\n\n"
                "if __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros((2, 255, 256)))\n"
            ),
        },
    )
    lines = project_lines(tmp_path, monkeypatch, capsys)
    assert len(lines) == 1 and lines[0].startswith("proj/models/reader.py:8:16: JCD201") and "T = S = 255" in lines[0]


def test_a_model_registered_by_a_decorator_in_a_module_the_package_imports_for_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Probe 50b: `@register("vit_cls")` in models/vit.py fills models/registry.py's dict;
    models/__init__.py imports vit only for that, and the training script builds the
    model by name through `get_model`.  Neither the scan (registry.py leads nowhere by
    its imports) nor the analysis (vit.py and its classes run when first used) saw it."""
    write(
        tmp_path,
        {
            "models/__init__.py": "from . import vit  # noqa: F401 (registers the models)\nfrom .registry import get_model\n",
            "models/registry.py": "_MODELS = {}\n\n\ndef register(name):\n    def wrap(cls):\n        _MODELS[name] = cls\n        return cls\n    return wrap\n\n\ndef get_model(name, **kwargs):\n    return _MODELS[name](**kwargs)\n",
            "models/layers.py": (
                "import jax\nimport jax.numpy as jnp\n\n\ndef attend(x):\n"
                "    q = x.reshape(x.shape[0], x.shape[1], 4, 64).astype(jnp.bfloat16)\n"
                "    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32)\n"
            ),
            "models/vit.py": (
                "import jax.numpy as jnp\n\nfrom models.layers import attend\nfrom models.registry import register\n\n\n"
                "@register('vit_cls')\nclass ViTWithClassToken:\n    def __call__(self, patches):\n"
                "        return attend(jnp.concatenate([patches[:, :1], patches], axis=1))\n\n\n"
                "@register('vit_gap')\nclass ViTPooled:\n    def __call__(self, patches):\n        return attend(patches)\n"
            ),
            "train.py": (
                "import jax\nimport jax.numpy as jnp\n\nfrom models import get_model\n\n\n"
                "def loss(name, patches):\n    return get_model(name)(patches).sum()\n\n\n"
                "if __name__ == '__main__':\n    jax.grad(loss, argnums=1)('vit_cls', jnp.zeros((2, 196, 256)))\n"
            ),
        },
    )
    lines = project_lines(tmp_path, monkeypatch, capsys)
    assert len(lines) == 1 and lines[0].startswith("models/layers.py:7:12: JCD201") and "T = S = 197" in lines[0]


@pytest.mark.parametrize(
    ("init", "script_imports", "registered"),
    [
        ("from . import attn  # noqa: F401 (fills the registry)\n", "import pkg  # noqa: F401\nfrom pkg.reg import REGISTRY\n", True),
        ("from . import attn  # noqa: F401\n", "from pkg.reg import REGISTRY\n", False),
        ("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from . import attn  # noqa: F401\n", "import pkg  # noqa: F401\nfrom pkg.reg import REGISTRY\n", False),
        # the __init__ runs (the script takes REGISTRY from it): its `if` as it is decided
        ("from .reg import REGISTRY  # noqa: F401\n\nFUSED = False\n\nif FUSED:\n    from . import attn  # noqa: F401\n", "from pkg import REGISTRY\n", False),
        ("from .reg import REGISTRY  # noqa: F401\n\nFUSED = True\n\nif FUSED:\n    from . import attn  # noqa: F401\n", "from pkg import REGISTRY\n", True),
        ("from .reg import REGISTRY  # noqa: F401\n\n\ndef enable():\n    from . import attn  # noqa: F401\n\n\nenable()\n", "from pkg import REGISTRY\n", True),
        # probe 94a: a try's `else` after an import that may fail, a main arm (never run on
        # import), and version and platform tests every GPU host passes
        ("try:\n    import fused_kernels_not_installed  # noqa: F401\nexcept ImportError:\n    pass\nelse:\n    from . import attn  # noqa: F401\n", "import pkg  # noqa: F401\nfrom pkg.reg import REGISTRY\n", False),
        ("from .reg import REGISTRY  # noqa: F401\n\ntry:\n    import fused_kernels_not_installed  # noqa: F401\nexcept ImportError:\n    pass\nelse:\n    from . import attn  # noqa: F401\n", "from pkg import REGISTRY\n", False),
        ("from .reg import REGISTRY  # noqa: F401\n\nif __name__ == '__main__':\n    from . import attn  # noqa: F401\n", "from pkg import REGISTRY\n", False),
        ("import sys\n\nfrom .reg import REGISTRY  # noqa: F401\n\nif sys.version_info >= (3, 10) and sys.platform.startswith('linux'):\n    from . import attn  # noqa: F401\n", "from pkg import REGISTRY\n", True),
        # a part of the version: the slice and .minor every Python from 3.10 on passes; a
        # test 3.10 fails and 3.11 passes is not decided
        ("import sys\n\nfrom .reg import REGISTRY  # noqa: F401\n\nif sys.version_info[:2] >= (3, 8):\n    from . import attn  # noqa: F401\n", "from pkg import REGISTRY\n", True),
        ("import sys\n\nfrom .reg import REGISTRY  # noqa: F401\n\nif sys.version_info.minor >= 9:\n    from . import attn  # noqa: F401\n", "from pkg import REGISTRY\n", True),
        ("import sys\n\nfrom .reg import REGISTRY  # noqa: F401\n\nif sys.version_info[:2] > (3, 10):\n    from . import attn  # noqa: F401\n", "from pkg import REGISTRY\n", False),
    ],
)
def test_a_function_registered_by_a_module_only_the_imported_packages_init_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, init: str, script_imports: str, registered: bool
) -> None:
    """Probe 92d: `import pkg` runs pkg/__init__.py, whose `from . import attn` registers
    the cuDNN attention; the script reads the registry from pkg.reg and never names attn.
    The analysis does not run pkg/__init__ (nothing of it is used), so the registration
    counted only where a module it ran imported attn.  Without `import pkg`, or with the
    import under an `if` that is not taken (probe 93a), Python never runs attn and the
    lookup is a KeyError: nothing to report; an import in a function the __init__ calls
    registers (probe 93a).  Where the analysis never runs the __init__, only the imports it
    certainly runs count (not one under an `if`, taken or not: a miss left)."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": init,
            "pkg/reg.py": "REGISTRY = {}\n\n\ndef register(name):\n    def deco(fn):\n        REGISTRY[name] = fn\n        return fn\n    return deco\n",
            "pkg/attn.py": (
                "import jax\n\nfrom .reg import register\n\n\n@register('cudnn')\ndef mha(q, k, v):\n"
                "    return jax.nn.dot_product_attention(q, k, v, implementation='cudnn')\n"
            ),
            "train.py": (
                "import jax\nimport jax.numpy as jnp\n\n" + script_imports + "\n\n"
                "def loss(q):\n    return REGISTRY['cudnn'](q, q, q).astype(jnp.float32).sum()\n\n\n"
                "if __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros((1, 255, 2, 64), jnp.bfloat16))\n"
            ),
        },
    )
    lines = project_lines(tmp_path, monkeypatch, capsys)
    if registered:
        assert len(lines) == 1 and lines[0].startswith("pkg/attn.py:8:12: JCD201") and "T = S = 255" in lines[0]
    else:
        assert lines == []


@pytest.mark.parametrize("spelling", ["import pkg.k", "import pkg.k as k", "from pkg import k"])
def test_a_submodule_imported_by_its_dotted_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, spelling: str) -> None:
    """Probe 96d: `import pkg.k` binds `pkg` and reads `pkg.k.attend` through the package
    __init__, which the project set had left out (it only linked pkg/k.py)."""
    call = "k.attend" if spelling != "import pkg.k" else "pkg.k.attend"
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/k.py": "import jax\n\n\ndef attend(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n",
            "main.py": (
                f"import jax\nimport jax.numpy as jnp\n\n{spelling}\n\n\n"
                f"def train():\n    q = jax.ShapeDtypeStruct((1, 7, 2, 64), jnp.bfloat16)\n"
                f"    return jax.eval_shape(jax.grad(lambda q: {call}(q).astype(jnp.float32).sum()), q)\n\n\n"
                "if __name__ == '__main__':\n    train()\n"
            ),
        },
    )
    lines = project_lines(tmp_path, monkeypatch, capsys)
    assert len(lines) == 1 and lines[0].startswith("pkg/k.py:5:12: JCD201") and "T = S = 7" in lines[0]


@pytest.mark.parametrize(("experiment", "imported_by", "found"), [("long", "test", "T = S = 129"), ("short", "test", None), ("long", "none", "T = S = 129")])
def test_an_experiment_config_chosen_by_a_built_module_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, experiment: str, imported_by: str, found: str | None) -> None:
    """Probe 100d: main.py runs `importlib.import_module(f"configs.{name}")` for the
    experiment its `__main__` block names; the config module was not in the project set,
    and a test importing main.py for a helper made main.py no program."""
    files = {
        "configs/__init__.py": "",
        "configs/long.py": "import dataclasses\n\n\n@dataclasses.dataclass\nclass Config:\n    seq_len: int = 129\n\n\ndef get_config():\n    return Config()\n",
        "configs/short.py": "import dataclasses\n\n\n@dataclasses.dataclass\nclass Config:\n    seq_len: int = 128\n\n\ndef get_config():\n    return Config()\n",
        "train.py": (
            "import jax\nimport jax.numpy as jnp\n\n\ndef loss(q):\n"
            "    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32).sum()\n\n\n"
            "def train(cfg):\n    q = jax.ShapeDtypeStruct((1, cfg.seq_len, 2, 64), jnp.bfloat16)\n    return jax.eval_shape(jax.grad(loss), q)\n"
        ),
        "main.py": (
            "import importlib\n\nimport train\n\n\ndef describe(cfg):\n    return str(cfg)\n\n\n"
            "def run(name):\n    cfg = importlib.import_module(f'configs.{name}').get_config()\n    return train.train(cfg)\n\n\n"
            f"if __name__ == '__main__':\n    run({experiment!r})\n"
        ),
    }
    if imported_by == "test":
        files["tests/test_main.py"] = "import sys\n\nsys.path.insert(0, '.')\nfrom main import describe  # noqa: E402\n\n\ndef test_describe():\n    assert describe(1) == '1'\n"
    write(tmp_path, files)
    lines = project_lines(tmp_path, monkeypatch, capsys)
    if found is None:
        assert lines == []
    else:
        assert len(lines) == 1 and lines[0].startswith("train.py:6:") and "JCD201" in lines[0] and found in lines[0]


@pytest.mark.parametrize(("model_name", "found"), [("with_cls", "T = S = 129"), ("pooled", None)])
def test_a_model_module_chosen_by_a_built_name_from_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, model_name: str, found: str | None) -> None:
    """Probe 125d (big_vision's train.py): `importlib.import_module(f"models.{config.model_name}")`
    loads the model; the driver was no entry, as the modules such a name reaches led
    nowhere through it."""
    attend = "    return jax.nn.dot_product_attention(x, x, x, implementation='cudnn').astype(jnp.float32).sum()\n"
    write(
        tmp_path,
        {
            "models/__init__.py": "",
            "models/with_cls.py": "import jax\nimport jax.numpy as jnp\n\n\ndef loss(x):\n    x = jnp.concatenate([x[:, :1], x], axis=1)\n" + attend,
            "models/pooled.py": "import jax\nimport jax.numpy as jnp\n\n\ndef loss(x):\n" + attend,
            "configs.py": f"import types\n\n\ndef get_config():\n    return types.SimpleNamespace(model_name={model_name!r}, seq=128)\n",
            "train.py": (
                "import importlib\n\nimport jax\nimport jax.numpy as jnp\n\nimport configs\n\n\n"
                "def main():\n    config = configs.get_config()\n    model = importlib.import_module(f'models.{config.model_name}')\n"
                "    x = jax.ShapeDtypeStruct((1, config.seq, 2, 64), jnp.bfloat16)\n    return jax.eval_shape(jax.grad(model.loss), x)\n\n\n"
                "if __name__ == '__main__':\n    main()\n"
            ),
        },
    )
    lines = project_lines(tmp_path, monkeypatch, capsys)
    if found is None:
        assert lines == []
    else:
        assert len(lines) == 1 and lines[0].startswith("models/with_cls.py:7:") and "JCD201" in lines[0] and found in lines[0]


@pytest.mark.parametrize(("sweep", "found"), [(True, False), (False, True)])
def test_a_command_line_another_module_sets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, sweep: bool, found: bool) -> None:
    """Probe 131b: sweep.py sets `sys.argv = ["train.py", "--seq", "128"]` and calls
    train.main(); train's parse read its defaults."""
    files = {
        "train.py": (
            "import argparse\n\nimport jax\nimport jax.numpy as jnp\n\n\n"
            "def main():\n    p = argparse.ArgumentParser()\n    p.add_argument('--seq', type=int, default=127)\n    args = p.parse_args()\n"
            "    q = jax.ShapeDtypeStruct((1, args.seq, 2, 64), jnp.bfloat16)\n"
            "    return jax.eval_shape(jax.grad(lambda q: jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32).sum()), q)\n\n\n"
            "if __name__ == '__main__':\n    main()\n"
        ),
    }
    if sweep:
        files["sweep.py"] = "import sys\n\nimport train\n\nfor seq in (128, 256):\n    sys.argv = ['train.py', '--seq', str(seq)]\n    train.main()\n"
    write(tmp_path, files)
    lines = project_lines(tmp_path, monkeypatch, capsys)
    assert (len(lines) == 1 and "T = S = 127" in lines[0]) if found else lines == []


@pytest.mark.parametrize(
    "loader",
    [
        'importlib.import_module(".attn", __name__)',
        'importlib.import_module(_LAZY[name], __name__)',
        'importlib.import_module(f".{_LAZY[name][1:]}", package=__name__)',
        "importlib.import_module(_LAZY[name], __package__)",
    ],
)
@pytest.mark.parametrize(("spelling", "call"), [("import pkg", "pkg.attend"), ("from pkg import attend", "attend")])
def test_a_package_that_loads_its_modules_lazily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, loader: str, spelling: str, call: str) -> None:
    """Probe 107d: a package's `__getattr__` (PEP 562) imports the module that defines a
    name when an importer first reads it; the module was not in the project set, and
    `__name__` as the package was not read."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": (
                'import importlib\n\n_LAZY = {"attend": ".attn"}\n\n\n'
                f"def __getattr__(name):\n    if name in _LAZY:\n        return getattr({loader}, name)\n    raise AttributeError(name)\n"
            ),
            "pkg/attn.py": "import jax\n\n\ndef attend(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n",
            "main.py": (
                f"import jax\nimport jax.numpy as jnp\n\n{spelling}\n\n\n"
                "def train():\n    q = jax.ShapeDtypeStruct((1, 7, 2, 64), jnp.bfloat16)\n"
                f"    return jax.eval_shape(jax.grad(lambda q: {call}(q).astype(jnp.float32).sum()), q)\n\n\n"
                "if __name__ == '__main__':\n    train()\n"
            ),
        },
    )
    lines = project_lines(tmp_path, monkeypatch, capsys)
    assert len(lines) == 1 and lines[0].startswith("pkg/attn.py:5:12: JCD201") and "T = S = 7" in lines[0]


@pytest.mark.parametrize("init", [True, False])
@pytest.mark.parametrize(("spelling", "call"), [("from src.model import attn", "attn"), ("from src import model", "model.attn"), ("import src.model as m", "m.attn")])
def test_a_package_named_src_imported_from_the_repository_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, init: bool, spelling: str, call: str) -> None:
    """Probe 101d: scripts/train.py says `from src.model import attn` (run from the root,
    src/ is a package, or a namespace one); the analysis names src/'s modules as a src/
    layout installs them (`model`), so `src.model` found nothing."""
    files = {
        "src/model.py": "import jax\n\n\ndef attn(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n",
        "scripts/train.py": (
            f"import jax\nimport jax.numpy as jnp\n\n{spelling}\n\n\n"
            f"def loss(q):\n    return {call}(q).astype(jnp.float32).sum()\n\n\n"
            "if __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros((1, 127, 2, 16), jnp.bfloat16))\n"
        ),
    }
    if init:
        files["src/__init__.py"] = ""
    write(tmp_path, files)
    lines = project_lines(tmp_path, monkeypatch, capsys)
    assert len(lines) == 1 and lines[0].startswith("src/model.py:5:12: JCD201") and "T = S = 127" in lines[0]


@pytest.mark.parametrize("together", [False, True])
def test_projects_linted_together_each_read_their_own_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, together: bool) -> None:
    """Probe 101d: a/scripts/train.py says `import settings` (a/settings.py, the project
    run from a/); linted beside b/, which has a settings.py too, the name matched two
    files and the finding a/ gives alone was lost."""
    train = (
        "import jax\nimport jax.numpy as jnp\n\nimport settings\n\n\n"
        "def loss(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32).sum()\n\n\n"
        "if __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros((1, settings.SEQ, 2, 16), jnp.bfloat16))\n"
    )
    write(tmp_path, {"a/settings.py": "SEQ = 127\n", "a/scripts/train.py": train, "b/settings.py": "SEQ = 63\n", "b/scripts/train.py": train, "c/settings.py": "SEQ = 64\n"})
    if not together:
        monkeypatch.chdir(tmp_path)
        main(["--no-cache", "--exit-zero", "-j1", "a"])
        alone = [line for line in capsys.readouterr().out.splitlines() if "JCD" in line]
        main(["--no-cache", "--exit-zero", "-j1", "b"])
        lines = alone + [line for line in capsys.readouterr().out.splitlines() if "JCD" in line]
    else:
        lines = project_lines(tmp_path, monkeypatch, capsys)
    assert [(line.split(":")[0], "T = S = 127" in line or "T = S = 63" in line) for line in lines] == [("a/scripts/train.py", True), ("b/scripts/train.py", True)]
    assert "T = S = 127" in lines[0] and "T = S = 63" in lines[1]


@pytest.mark.parametrize("init", [True, False])
@pytest.mark.parametrize(("root_impl", "src_impl", "found"), [("cudnn", "xla", None), ("xla", "cudnn", "src/model.py:5:12: JCD201")])
def test_a_script_in_src_reads_the_module_beside_it_not_the_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, init: bool, root_impl: str, src_impl: str, found: str | None) -> None:
    """Probe 102b: src/train.py, a script, says `from model import attn`: run as `python
    src/train.py` that is src/model.py; the analysis named it `model` as a src/ layout
    installs it, as it named the root's model.py, and read the root's."""
    attn = "import jax\n\n\ndef attn(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='{impl}')\n"
    files = {
        "model.py": attn.format(impl=root_impl),
        "src/model.py": attn.format(impl=src_impl),
        "src/train.py": (
            "import jax\nimport jax.numpy as jnp\nfrom model import attn\n\n\n"
            "def train(seq_len=101):\n    spec = jax.ShapeDtypeStruct((1, seq_len, 4, 64), jnp.bfloat16)\n"
            "    return jax.eval_shape(jax.grad(lambda q: attn(q).astype(jnp.float32).sum()), spec)\n\n\n"
            "if __name__ == '__main__':\n    train()\n"
        ),
    }
    if init:
        files["src/__init__.py"] = ""
    write(tmp_path, files)
    lines = project_lines(tmp_path, monkeypatch, capsys)
    assert [line[: len(found)] for line in lines] == ([found] if found else [])


FROZEN_PROBE = """\
import flax.linen as nn
import jax
import jax.numpy as jnp

from trainer import fit

X = jnp.zeros((2, 129, 64), jnp.bfloat16)


class Encoder(nn.Module):
    @nn.compact
    def __call__(self, x):
        q = nn.DenseGeneral((4, 64), dtype=jnp.bfloat16, name="q")(x)
        return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").mean()


def probe_loss(params, x):
    return Encoder().apply({"params": jax.lax.stop_gradient(params)}, x)


def finetune_loss(params, x):
    return Encoder().apply({"params": params}, x)


def main():
    params = Encoder().init(jax.random.key(0), X)["params"]
    jax.grad(probe_loss)(params, X)
    FINETUNE
"""


@pytest.mark.parametrize(("finetune", "reported"), [("pass", False), ("fit(finetune_loss, params, X)", True)])
def test_a_frozen_probe_silences_its_programs_forward_paths_unless_code_out_of_sight_may_train(finetune: str, reported: bool) -> None:
    # the init at 129 is a forward path of a program whose grad leaves the encoder frozen
    # (probe 59b: JCD202 there); handed to a trainer out of sight, the loss may train it
    # (probe 60a: the warning was lost)
    from jax_cudnn_lint.config import Config
    from jax_cudnn_lint.engine import lint_source

    found = lint_source(FROZEN_PROBE.replace("FINETUNE", finetune), "probe.py", Config(select=("JCD",), jax_version="0.10.2"))
    assert [f.code for f in found] == (["JCD202"] if reported else [])


def test_a_test_module_driving_a_model_keeps_its_grad_tests_on_conftest_fixtures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # probe 61b: tests/test_grad.py takes `model` whole (a driver) and differentiates in a
    # test whose model and length come from conftest fixtures; the conftest is no driver
    files = {
        "model.py": "import jax\nimport jax.numpy as jnp\n\n\nclass Attention:\n    def __call__(self, x):\n        q = x.reshape(1, x.shape[0], 4, 16).astype(jnp.bfloat16)\n        return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n",
        "tests/conftest.py": "import pytest\n\nimport model\n\n\n@pytest.fixture\ndef net():\n    return model.Attention()\n\n\n@pytest.fixture(params=[16, 33])\ndef seq_len(request):\n    return request.param\n",
        "tests/test_grad.py": "import jax\nimport jax.numpy as jnp\n\nimport model\n\n\ndef test_grad_runs(net, seq_len):\n    x = jnp.zeros((seq_len, 64))\n    jax.grad(lambda x: net(x).astype(jnp.float32).sum())(x)\n\n\ndef test_forward_odd():\n    model.Attention()(jnp.zeros((31, 64)))\n",
    }
    assert places(tmp_path, monkeypatch, capsys, files) == [["model.py:8:16:", "JCD201"]]


@pytest.mark.parametrize("imports_model", [True, False])
def test_a_grad_test_whose_model_comes_only_from_a_conftest_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, imports_model: bool) -> None:
    # probe 108d: the test names nothing of the model's module (or imports it unused): its
    # conftest's fixture builds the model, so the test leads to it as the conftest does
    files = {
        "model.py": "import jax\nimport jax.numpy as jnp\n\n\nclass Attention:\n    def __call__(self, x):\n        q = x.reshape(1, x.shape[0], 4, 16).astype(jnp.bfloat16)\n        return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n",
        "tests/conftest.py": "import pytest\n\nfrom model import Attention\n\n\n@pytest.fixture\ndef net():\n    return Attention()\n",
        "tests/test_grad.py": ("from model import Attention  # noqa: F401\n" if imports_model else "")
        + "import jax\nimport jax.numpy as jnp\n\n\ndef test_grad_runs(net):\n    x = jnp.zeros((33, 64))\n    jax.grad(lambda x: net(x).astype(jnp.float32).sum())(x)\n",
    }
    assert places(tmp_path, monkeypatch, capsys, files) == [["model.py:8:16:", "JCD201"]]


@pytest.mark.parametrize(("override", "found"), [("seq_len + 1", "T = S = 65"), ("seq_len + seq_len % 2", None)])
def test_a_fixture_overriding_the_parametrized_fixture_it_requests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, override: str, found: str | None) -> None:
    # probe 109a: tests/train/conftest.py's `seq_len(seq_len)` takes the parent conftest's
    # parametrized seq_len; it resolved to itself (applied three times) and its params
    # never reached the batch fixture that requests it
    files = {
        "model.py": "import jax\nimport jax.numpy as jnp\n\n\ndef loss(x):\n    q = x.astype(jnp.bfloat16)\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32).sum()\n",
        "tests/conftest.py": (
            "import jax.numpy as jnp\nimport pytest\n\n\n@pytest.fixture(params=[64, 128])\ndef seq_len(request):\n    return request.param\n\n\n"
            "@pytest.fixture\ndef batch(seq_len):\n    return jnp.zeros((1, seq_len, 2, 64))\n"
        ),
        "tests/train/conftest.py": f"import pytest\n\n\n@pytest.fixture\ndef seq_len(seq_len):\n    return {override}\n",
        "tests/train/test_grad.py": "import jax\n\nfrom model import loss\n\n\ndef test_grad(batch):\n    jax.grad(loss)(batch)\n",
    }
    write(tmp_path, files)
    lines = project_lines(tmp_path, monkeypatch, capsys)
    if found is None:
        assert lines == []
    else:
        assert len(lines) == 1 and lines[0].startswith("model.py:7:") and "JCD201" in lines[0] and found in lines[0], lines


@pytest.mark.parametrize(
    ("where", "forcing", "found"),
    [
        ("tests/conftest.py", 'jax.config.update("jax_platforms", "cpu")', False),
        ("tests/conftest.py", 'os.environ["JAX_PLATFORMS"] = "cpu"', False),
        ("tests/test_grad.py", 'jax.config.update("jax_platforms", "cpu")', False),
        ("tests/conftest.py", 'jax.config.update("jax_enable_x64", True)', True),
        ("main.py", 'jax.config.update("jax_platforms", "cpu")', True),  # a program beside the tests: not theirs
        ("tests/conftest.py", 'jax.config.update("jax_platforms", "cpu,gpu")', False),  # the first platform is the default (probe 110a)
        ("tests/conftest.py", 'jax.config.update("jax_platforms", "gpu,cpu")', True),
        # forced after importing the package, which may have started the backends (probe 110a)
        ("tests/test_grad.py", 'import pkg\njax.config.update("jax_platforms", "cpu")', True),
    ],
)
def test_tests_whose_conftest_forces_the_cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, where: str, forcing: str, found: bool) -> None:
    # probe 109b: the package picks "cudnn" if jax.default_backend() == "gpu"; the test
    # suite forces the CPU in its conftest (or its module), so under pytest it is None
    files = {
        "pkg/__init__.py": (
            "import jax\nimport jax.numpy as jnp\n\n\ndef impl():\n    return 'cudnn' if jax.default_backend() == 'gpu' else None\n\n\n"
            "def loss(x):\n    q = x.astype(jnp.bfloat16)\n    return jax.nn.dot_product_attention(q, q, q, implementation=impl()).astype(jnp.float32).sum()\n"
        ),
        "tests/conftest.py": "",
        "tests/test_grad.py": "import jax\nimport jax.numpy as jnp\n\nfrom pkg import loss\n\n\ndef test_grad():\n    jax.grad(loss)(jnp.zeros((1, 7, 2, 64)))\n",
        "main.py": "",
    }
    # (the environment counts where it is set before JAX is imported; the config after)
    prelude = f"import os\n\n{forcing}\n\nimport jax\n\n" if forcing.startswith("os.") else f"import jax\n\n{forcing}\n\n"
    files[where] = prelude + files[where]
    write(tmp_path, files)
    lines = project_lines(tmp_path, monkeypatch, capsys)
    assert bool(lines) == found, lines


@pytest.mark.parametrize(
    ("beside", "found"),
    [
        ("pass", True),  # a driver: entered through the leading names it takes
        # a known miss (probe 109b): a file that differentiates is entered through its
        # transforms only; entering it through its leading names too cost keras' tests
        # 2.3x the analysed calls on the corpus for no finding (session 30, reverted)
        ("jax.eval_shape(jax.grad(lambda q: q.astype(jnp.float32).sum()), q)", False),
    ],
)
def test_a_differentiating_file_that_also_calls_a_training_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, beside: str, found: bool) -> None:
    files = {
        "attnlib/__init__.py": (
            "import jax\nimport jax.numpy as jnp\n\n\ndef train_step(q, impl='cudnn'):\n"
            "    def loss(q):\n        return jax.nn.dot_product_attention(q, q, q, implementation=impl).astype(jnp.float32).sum()\n"
            "    return jax.grad(loss)(q)\n"
        ),
        "c.py": (
            "import jax\nimport jax.numpy as jnp\n\nfrom attnlib import train_step\n\n\n"
            f"def even():\n    q = jnp.zeros((2, 8, 4, 64), jnp.bfloat16)\n    {beside}\n\n\n"
            "def odd():\n    jax.eval_shape(train_step, jnp.zeros((2, 7, 4, 64), jnp.bfloat16))\n"
        ),
    }
    write(tmp_path, files)
    lines = project_lines(tmp_path, monkeypatch, capsys)
    if not found:
        assert lines == []
        return
    assert len(lines) == 1 and lines[0].startswith("attnlib/__init__.py:7:") and "T = S = 7" in lines[0], lines


STORED_ENC = """\
import jax
import jax.numpy as jnp


def features(w, x):
    q = jnp.einsum("bpd,dnh->bpnh", x, w)
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn")
"""

STORED_FINETUNE = """\
import jax.numpy as jnp
import jax

import enc


def loss(w, x):
    return enc.features(w, x).astype(jnp.float32).sum()


full_grad = jax.grad(loss)
"""

STORED_RUN = """\
import jax
import jax.numpy as jnp

import enc
{import_line}

W = jnp.zeros((32, 4, 8), jnp.bfloat16)
X = jnp.zeros((2, 49, 32), jnp.bfloat16)


def frozen_probe(w, x):
    return enc.features(jax.lax.stop_gradient(w), x).astype(jnp.float32).sum()


def train_probe():
    return jax.grad(frozen_probe)(W, X)


def finetune_all():
    {local_import}return {call}(W, X)
"""


@pytest.mark.parametrize(
    ("import_line", "local_import", "call"),
    [
        ("import finetune", "", "finetune.full_grad"),
        ("from finetune import full_grad", "", "full_grad"),
        ("", "import finetune\n    ", "finetune.full_grad"),
    ],
)
def test_a_differentiation_stored_in_another_module_enters_its_callers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, import_line: str, local_import: str, call: str
) -> None:
    """`finetune.full_grad(...)` of a module-level `full_grad = jax.grad(loss)`, beside a
    frozen probe that names jax.grad itself: the file's functions that call the stored
    transform are entered too (probe 66a: the finetune path was never analysed)."""
    run = STORED_RUN.format(import_line=import_line, local_import=local_import, call=call)
    write(tmp_path, {"enc.py": STORED_ENC, "finetune.py": STORED_FINETUNE, "run.py": run})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    out = capsys.readouterr().out
    assert "enc.py:7:12: JCD201" in out, out


GETATTR_CONFIG = 'class Config:\n    def __getattr__(self, name):\n        return {"length": 255}[name]\n'
OVERRIDES = (
    "import json\n\n\ndef apply(config, values):\n    for key, value in values.items():\n        vars(config)[key] = value\n\n\n"
    "def apply_by_setattr(config, path):\n    with open(path) as handle:\n        values = json.load(handle)\n"
    "    for key, value in values.items():\n        setattr(config, key, value)\n"
)
GETATTR_TRAIN = """\
import jax
import jax.numpy as jnp

from cfg import Config
from overrides import apply, apply_by_setattr


def loss(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32).sum()


def main():
    config = Config()
    {override}
    q = jnp.zeros((2, config.length, 4, 64), jnp.bfloat16)
    return jax.grad(loss)(q)


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize(("override", "found"), [("pass", True), ('apply(config, {"length": 256})', False), ('apply_by_setattr(config, "overrides.json")', False)])
def test_a_getattr_config_written_through_vars_in_another_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, override: str, found: bool) -> None:
    # the class's `__getattr__` answers a read the object lacks, unless code stored
    # attributes on it it does not spell: `vars(config)[key] = value` or `setattr(config,
    # key, value)` over a file's keys, in another module
    write(tmp_path, {"cfg.py": GETATTR_CONFIG, "overrides.py": OVERRIDES, "train.py": GETATTR_TRAIN.format(override=override)})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    assert ("JCD201" in capsys.readouterr().out) is found


CONFIG_FILE = """\
import ml_collections

SIZES = {"tiny": dict(seq_len=127), "small": dict(seq_len=256)}


def get_config(config_string="small"):
    config = ml_collections.ConfigDict()
    config.heads = 4
    config.update(SIZES[config_string])
    return config
"""
CONFIG_FILE_TRAIN = """\
import jax
import jax.numpy as jnp
from absl import app, flags
from ml_collections import config_flags

config_flags.DEFINE_config_file("config", {default!r}, "the training configuration")


def loss(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32).sum()


def main(argv):
    config = flags.FLAGS.config
    q = jnp.zeros((2, config.seq_len, config.heads, 64), jnp.bfloat16)
    return jax.grad(loss)(q)


if __name__ == "__main__":
    app.run(main)
"""


@pytest.mark.parametrize(
    ("default", "train", "configs", "found"),
    [
        ("configs/lm.py:tiny", "train.py", ("configs/lm.py",), True),
        ("configs/lm.py:small", "train.py", ("configs/lm.py",), False),
        ("configs/lm.py", "train.py", ("configs/lm.py",), False),
        ("configs/missing.py:tiny", "train.py", ("configs/lm.py",), False),
        ("configs/lm.py:tiny", "scripts/train.py", ("configs/lm.py",), True),  # run from the repository's root
        ("configs/lm.py:tiny", "scripts/train.py", ("configs/lm.py", "scripts/configs/lm.py"), False),  # which one depends on the working directory
        ("configs/lm.py:tiny", "a/b/c/d/train.py", ("configs/lm.py",), True),
        ("configs/lm.py:tiny", "a/b/c/d/train.py", ("a/configs/lm.py", "configs/lm.py"), False),  # (a stale copy: probe 119a)
    ],
)
def test_a_config_file_flags_default_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, default: str, train: str, configs: tuple[str, ...], found: bool) -> None:
    # absl loads DEFINE_config_file's default file at parse time and calls its
    # get_config, with the part after ":" (probe 118c); no module imports that file
    files = {train: CONFIG_FILE_TRAIN.format(default=default), configs[0]: CONFIG_FILE}
    files.update(dict.fromkeys(configs[1:], CONFIG_FILE.replace('"tiny": dict(seq_len=127)', '"tiny": dict(seq_len=128)')))
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    assert ("JCD201" in capsys.readouterr().out) is found


IMPORTED_CONFIG_TRAIN = """\
import argparse
import importlib

import jax
import jax.numpy as jnp


def loss(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32).sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default={default!r})
    cfg = importlib.import_module(parser.parse_args().config)
    return jax.grad(loss)(jnp.zeros((2, cfg.SEQ_LEN, 2, 64), jnp.bfloat16))


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize(("default", "found"), [("configs.base", True), ("configs.even", False)])
def test_a_config_module_loaded_by_the_name_an_option_defaults_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, default: str, found: bool) -> None:
    # `import_module(args.config)` with `default="configs.base"`: the module is the
    # project's (probe 122d), though no import statement names it
    write(tmp_path, {"train.py": IMPORTED_CONFIG_TRAIN.format(default=default), "configs/__init__.py": "", "configs/base.py": "SEQ_LEN = 77\n", "configs/even.py": "SEQ_LEN = 64\n"})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    assert ("JCD201" in capsys.readouterr().out) is found


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
def test_two_repositories_whatever_their_order_and_pyproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, order: tuple[str, str]) -> None:
    # a pyproject.toml in the first path named the root for both, and the second's files,
    # outside it, lost their package names (probe 122d)
    vit = "import jax\nimport jax.numpy as jnp\n\n\ndef attend(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
    train = "import jax\nimport jax.numpy as jnp\nfrom vit.model import attend\n\n\ndef loss(q):\n    return attend(q).astype(jnp.float32).sum()\n\n\nif __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros((2, 197, 2, 64), jnp.bfloat16))\n"
    write(tmp_path, {"a/pyproject.toml": "[project]\nname = 'a'\n", "a/model.py": "x = 1\n", "b/vit/__init__.py": "", "b/vit/model.py": vit, "b/model.py": "y = 2\n", "b/train.py": train})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", *order])
    assert "b/vit/model.py" in capsys.readouterr().out


def test_a_config_module_loaded_by_name_from_a_nested_experiment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # `import_module("configs.base")` in exp_a/train.py loads exp_a/configs/base.py (the
    # script's folder is first on sys.path), not the root's (probe 123a)
    files = {
        "configs/__init__.py": "", "configs/base.py": "SEQ_LEN = 77\n",
        "exp_a/configs/__init__.py": "", "exp_a/configs/base.py": "SEQ_LEN = 64\n",
        "exp_a/train.py": IMPORTED_CONFIG_TRAIN.format(default="configs.base"),
    }
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    assert "JCD201" not in capsys.readouterr().out


def test_a_config_module_loaded_by_name_after_sys_path_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # `sys.path.insert(0, "experiments")` before `import_module("configs.base")`: which
    # file loads is not known (probe 124b: the root's stale configs/base.py was read)
    train = IMPORTED_CONFIG_TRAIN.format(default="configs.base").replace(
        "import importlib\n", "import importlib\nimport os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'experiments'))\n"
    )
    files = {
        "configs/__init__.py": "", "configs/base.py": "SEQ_LEN = 77\n",
        "experiments/configs/__init__.py": "", "experiments/configs/base.py": "SEQ_LEN = 64\n",
        "train.py": train,
    }
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    assert "JCD201" not in capsys.readouterr().out


def test_a_package_program_that_a_test_imports_still_runs_its_main(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Probe 138b: `python -m lm.train` runs main(255); the test that imports it runs
    main(256).  The module is a program of its own still, so its main's
    run is analysed."""
    write(
        tmp_path,
        {
            "lm/__init__.py": "",
            "lm/attn.py": ATTN,
            "lm/steps.py": "import jax\n\nfrom lm.attn import attend\n\n\ndef run_steps(q, steps):\n    for _ in range(steps):\n        jax.grad(lambda q: attend(q, q, q).sum())(q)\n",
            "lm/train.py": (
                "import jax.numpy as jnp\n\nfrom lm.steps import run_steps\n\n\n"
                "def main(seq):\n    run_steps(jnp.zeros((1, seq, 2, 64), jnp.bfloat16), 2)\n\n\n"
                "if __name__ == '__main__':\n    main(255)\n"
            ),
            "tests/__init__.py": "",
            "tests/test_train.py": "from lm.train import main\n\n\ndef test_main():\n    main(256)\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    lines = [line for line in capsys.readouterr().out.splitlines() if "JCD" in line]
    assert len(lines) == 1 and lines[0].startswith("lm/attn.py:5:12: JCD201")


def test_a_test_that_invokes_a_programs_typer_app_runs_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Probe 138b: `runner.invoke(app, ["--seq-len", seq_len])` in a test, parametrized
    with "127", runs the command of lm/cli.py at 127; the app's own run (`app()`) takes
    its default, 256."""
    write(
        tmp_path,
        {
            "lm/__init__.py": "",
            "lm/attn.py": ATTN,
            "lm/steps.py": "import jax\n\nfrom lm.attn import attend\n\n\ndef train(q):\n    return jax.grad(lambda q: attend(q, q, q).sum())(q)\n",
            "lm/cli.py": (
                "from typing import Annotated\n\nimport jax.numpy as jnp\nimport typer\n\nfrom lm.steps import train\n\napp = typer.Typer()\n\n\n"
                "@app.command()\ndef main(seq_len: Annotated[int, typer.Option('--seq-len', '-s')] = 256):\n"
                "    train(jnp.zeros((1, seq_len, 2, 64), jnp.bfloat16))\n\n\nif __name__ == '__main__':\n    app()\n"
            ),
            "tests/__init__.py": "",
            "tests/test_cli.py": (
                "import pytest\nfrom typer.testing import CliRunner\n\nfrom lm.cli import app\n\nrunner = CliRunner()\n\n\n"
                "@pytest.mark.parametrize('seq_len', ['64', '127'])\ndef test_cli(seq_len):\n    assert runner.invoke(app, ['--seq-len', seq_len]).exit_code == 0\n"
            ),
        },
    )
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    lines = [line for line in capsys.readouterr().out.splitlines() if "JCD" in line]
    assert len(lines) == 1 and lines[0].startswith("lm/attn.py:5:12: JCD201"), lines
    assert "T = S = 127 (given in the argument list at test_cli.py:11)" in lines[0], lines[0]


LINES_TRAIN = """\
import jax
import jax.numpy as jnp
from mt.model import block
SHARED = jnp.zeros((2, 16, 4, 64), jnp.bfloat16)
def per_example(x, memory):
    # an XLA read of shared prototypes, on the line where model.py calls the cuDNN attend
    summary = attend(x, SHARED, SHARED)
    return block(x, memory) + summary


def attend(q, k, v):
    logits = jnp.einsum("btnh,bsnh->bnts", q, k)
    return jnp.einsum("bnts,bsnh->btnh", jax.nn.softmax(logits, axis=-1), v)


def main():
    x = jnp.zeros((3, 2, 16, 4, 64), jnp.bfloat16)
    return jax.vmap(per_example)(x, x)


if __name__ == "__main__":
    main()
"""
LINES_MODEL = '''\
"""Model blocks."""

from mt.layers import attend


def cross(q, memory):
    return attend(q, memory, memory)


def block(x, memory):
    return x + cross(x, memory)
'''


def test_a_call_at_the_same_line_of_another_module_is_not_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # probe 150a: train.py:7's XLA attend(x, SHARED, SHARED) was taken for model.py:7's call
    # into the cuDNN attend (the mapped function's calls were matched by line alone)
    write(tmp_path, {"train.py": LINES_TRAIN, "mt/__init__.py": "", "mt/model.py": LINES_MODEL, "mt/layers.py": ATTN})
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "--jax-version", "0.10.2", "."])
    assert "JCD209" not in capsys.readouterr().out
