"""One run over a folder of experiments, each a script beside its own `model.py`.

Python puts a script's own folder first on sys.path, so `from model import attend` in
`exp1/train.py` means `exp1/model.py`, whatever other `model.py` files the tree holds
(flax/examples, a research repo with one folder per experiment).  Each experiment must
give in one run over the tree what it gives alone, whether the tree is named as one
folder or as several paths, and programs that define the same absl flag each keep their
own default.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from conftest import write
from jax_cudnn_lint.cli import main

MODEL = """\
import jax
import jax.numpy as jnp


def attend(x):
    q = x.reshape(x.shape[0], x.shape[1], 4, 64).astype(jnp.bfloat16)
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn")
"""

TRAIN = """\
import jax
import jax.numpy as jnp

from model import attend


def loss(x):
    return attend(x).astype(jnp.float32).sum()


if __name__ == "__main__":
    jax.grad(loss)(jnp.zeros((2, {seq}, 256)))
"""

FLAG_DEFS = """\
from absl import flags

SEQ_LEN = flags.DEFINE_integer("seq_len", {seq}, "tokens")
"""

FLAG_TRAIN = """\
import jax
import jax.numpy as jnp

import flagdefs
import model


def loss(x):
    return model.attend(x).astype(jnp.float32).sum()


def main():
    jax.grad(loss)(jnp.zeros((2, flagdefs.SEQ_LEN.value, 256)))


if __name__ == "__main__":
    main()
"""

EXPERIMENTS = {
    # an odd length: the one finding of the run
    "exp1/model.py": MODEL,
    "exp1/train.py": TRAIN.format(seq=511),
    # the same names, an even length
    "exp2/model.py": MODEL,
    "exp2/train.py": TRAIN.format(seq=512),
    # a model.py that is no attention at all
    "exp3/model.py": "def attend(x):\n    return x * 2\n",
    "exp3/train.py": TRAIN.format(seq=255),
    # absl flags of the same name, one program each: 1023 is found, 1024 is not
    "flags_odd/model.py": MODEL,
    "flags_odd/flagdefs.py": FLAG_DEFS.format(seq=1023),
    "flags_odd/train.py": FLAG_TRAIN,
    "flags_even/model.py": MODEL,
    "flags_even/flagdefs.py": FLAG_DEFS.format(seq=1024),
    "flags_even/train.py": FLAG_TRAIN,
}
EXPECTED = [("exp1/model.py", "JCD201"), ("flags_odd/model.py", "JCD201")]


def findings(capsys: Any, *args: str) -> list[tuple[str, str]]:
    main(["--no-cache", "--exit-zero", "-j1", *args])
    out = capsys.readouterr().out
    pairs = []
    for line in out.splitlines():
        path, _, rest = line.partition(":")
        code = rest.split(": ", 1)[1].split()[0] if ": " in rest else ""
        pairs.append((path.replace(os.sep, "/"), code))
    return sorted(pairs)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, dict(EXPERIMENTS))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_one_run_over_the_tree_finds_what_each_experiment_alone_finds(tree: Path, capsys: Any) -> None:
    assert findings(capsys, ".") == EXPECTED
    assert findings(capsys, "exp1") == [("exp1/model.py", "JCD201")]
    assert findings(capsys, "flags_odd") == [("flags_odd/model.py", "JCD201")]


def test_folders_named_one_by_one_share_one_root(tree: Path, capsys: Any) -> None:
    # the root is the folder that holds every path, not the first path
    assert findings(capsys, "exp2", "exp3", "exp1", "flags_even", "flags_odd") == EXPECTED


def test_a_module_inside_a_package_imports_absolutely(tree: Path, capsys: Any) -> None:
    # pkg/ is a package: its train.py's `from model import attend` is the top-level
    # model.py (even), not the odd one beside it
    write(tree, {
        "model.py": MODEL,
        "pkg/__init__.py": "",
        "pkg/model.py": MODEL,
        "pkg/train.py": TRAIN.format(seq=8).replace("if __name__", "def run():\n    jax.grad(loss)(jnp.zeros((2, 127, 256)))\n\n\nif __name__"),
        "run.py": "import jax\nimport jax.numpy as jnp\nfrom pkg.train import loss\n\njax.grad(loss)(jnp.zeros((2, 64, 256)))\n",
    })
    got = findings(capsys, ".")
    assert ("pkg/model.py", "JCD201") not in got
    assert ("model.py", "JCD201") in got


def test_a_name_the_import_root_has_is_not_taken_for_a_sibling(tree: Path, capsys: Any) -> None:
    # exp/common.py (no __init__.py: imported as exp.common from the root) reads the root's
    # model.py, the name the project itself has, not exp/model.py beside it
    write(tree, {
        "model.py": "SEQ_LEN = 512\n",
        "exp/model.py": "SEQ_LEN = 129\n",
        "exp/common.py": MODEL + "\n\nfrom model import SEQ_LEN\n\n\ndef loss(x):\n    return attend(jnp.zeros((2, SEQ_LEN, 256)) + x).astype(jnp.float32).sum()\n",
        "run.py": "import jax\nimport jax.numpy as jnp\nfrom exp.common import loss\n\njax.grad(loss)(jnp.zeros(()))\n",
    })
    assert not [pair for pair in findings(capsys, ".") if pair[0].startswith("exp/common")]


def test_a_package_wins_over_a_module_of_the_same_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    write(tmp_path, {
        "model/__init__.py": "SEQ_LEN = 512\n",
        "model.py": "SEQ_LEN = 129\n",  # a leftover: Python imports the package
        "train.py": MODEL + "\n\nfrom model import SEQ_LEN\n\n\ndef loss(x):\n    return attend(jnp.zeros((2, SEQ_LEN, 256)) + x).astype(jnp.float32).sum()\n\n\nif __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros(()))\n",
    })
    monkeypatch.chdir(tmp_path)
    assert findings(capsys, ".") == []
    write(tmp_path, {"model/__init__.py": "SEQ_LEN = 127\n"})
    assert findings(capsys, ".") == [("train.py", "JCD201")]


def test_a_script_imports_from_its_own_folder_even_where_the_root_has_the_name(tree: Path, capsys: Any) -> None:
    # `python exp/ablate.py`: its folder is sys.path[0], so `from model import` is exp/model.py
    write(tree, {
        "model.py": "SEQ_LEN = 512\n",
        "exp/model.py": "SEQ_LEN = 129\n",
        "exp/ablate.py": MODEL + "\n\nfrom model import SEQ_LEN\n\n\ndef loss(x):\n    return attend(jnp.zeros((2, SEQ_LEN, 256)) + x).astype(jnp.float32).sum()\n\n\nif __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros(()))\n",
    })
    assert ("exp/ablate.py", "JCD201") in findings(capsys, ".")


def test_a_package_module_imports_from_above_its_outermost_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # two projects linted at once: proj_a/pkg/train.py's `from model import` is proj_a/model.py
    files: dict[str, str | bytes] = {}
    for name, seq in (("proj_a", 129), ("proj_b", 512)):
        files[f"{name}/model.py"] = f"SEQ_LEN = {seq}\n"
        files[f"{name}/pkg/__init__.py"] = ""
        files[f"{name}/pkg/train.py"] = MODEL + "\n\nfrom model import SEQ_LEN\n\n\ndef loss(x):\n    return attend(jnp.zeros((2, SEQ_LEN, 256)) + x).astype(jnp.float32).sum()\n"
        files[f"{name}/run.py"] = "import jax\nimport jax.numpy as jnp\nfrom pkg.train import loss\n\nif __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros(()))\n"
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    assert findings(capsys, "proj_a") == [("proj_a/pkg/train.py", "JCD201")]
    assert findings(capsys, "proj_a", "proj_b") == [("proj_a/pkg/train.py", "JCD201")]


def test_a_test_file_imports_from_its_own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # pytest puts tests/ (no __init__.py) first on sys.path: tests/config.py, not the root's
    test = MODEL + "\n\nfrom config import SEQ_LEN\n\n\ndef test_grad():\n    jax.grad(lambda x: attend(jnp.zeros((2, SEQ_LEN, 256)) + x).astype(jnp.float32).sum())(jnp.zeros(()))\n"
    write(tmp_path, {"config.py": "SEQ_LEN = 127\n", "tests/config.py": "SEQ_LEN = 128\n", "tests/test_model.py": test})
    monkeypatch.chdir(tmp_path)
    assert findings(capsys, ".") == []
    write(tmp_path, {"tests/config.py": "SEQ_LEN = 255\n"})
    assert findings(capsys, ".") == [("tests/test_model.py", "JCD201")]


def test_a_test_file_in_a_tests_package_imports_from_above_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # tests/ is a package: pytest puts exp_a/ (the first folder above it that is none) on
    # sys.path, so `import model` is exp_a/model.py, not exp_b's (probe 26a)
    test = "import jax\nimport jax.numpy as jnp\n\nimport model\n\n\ndef test_grad():\n    jax.grad(lambda x: model.attend(x).astype(jnp.float32).sum())(jnp.zeros((2, 77, 256)))\n"
    write(tmp_path, {"exp_a/model.py": MODEL, "exp_a/tests/__init__.py": "", "exp_a/tests/test_model.py": test, "exp_b/model.py": MODEL})
    monkeypatch.chdir(tmp_path)
    assert findings(capsys, ".") == [("exp_a/model.py", "JCD201")]


def test_a_package_elsewhere_does_not_shadow_a_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # src/model/ is imported as `model` too (a src/ layout), but from another folder than
    # the root's model.py: train.py at the root reads the root's (Python: sys.path order)
    write(tmp_path, {
        "model.py": "SEQ_LEN = 127\n",
        "src/model/__init__.py": "SEQ_LEN = 128\n",
        "train.py": MODEL + "\n\nfrom model import SEQ_LEN\n\n\ndef loss(x):\n    return attend(jnp.zeros((2, SEQ_LEN, 256)) + x).astype(jnp.float32).sum()\n\n\nif __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros(()))\n",
    })
    monkeypatch.chdir(tmp_path)
    assert findings(capsys, ".") == [("train.py", "JCD201")]


def test_a_plain_module_reads_its_projects_module_when_two_projects_are_linted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # proj/exp/common.py (no __init__.py) is imported as exp.common by proj/run.py: its
    # `from model import` is proj/model.py (the outermost folder that has one), not exp/'s
    files: dict[str, str | bytes] = {}
    for name in ("proj_a", "proj_b"):
        files[f"{name}/model.py"] = "SEQ_LEN = 512\n"
        files[f"{name}/exp/model.py"] = "SEQ_LEN = 129\n"
        files[f"{name}/exp/common.py"] = MODEL + "\n\nfrom model import SEQ_LEN\n\n\ndef loss(x):\n    return attend(jnp.zeros((2, SEQ_LEN, 256)) + x).astype(jnp.float32).sum()\n"
        files[f"{name}/run.py"] = "import jax\nimport jax.numpy as jnp\nfrom exp.common import loss\n\nif __name__ == '__main__':\n    jax.grad(loss)(jnp.zeros(()))\n"
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    assert findings(capsys, "proj_a") == []
    assert findings(capsys, "proj_a", "proj_b") == []
    assert findings(capsys, ".") == []


def test_a_test_imports_through_its_experiments_conftest_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # exp_*/conftest.py makes pytest put exp_*/ on sys.path: `from kernels.flash import
    # attend` in exp_*/tests/ is that experiment's kernels/, though both name it so (probe 31b)
    test = "import jax\nimport jax.numpy as jnp\n\nfrom kernels.flash import attend\n\n\ndef test_grad():\n    jax.grad(lambda x: attend(jnp.zeros((2, {T}, 256)) + x).astype(jnp.float32).sum())(jnp.zeros(()))\n"
    files = {}
    for exp, T in (("exp_a", 256), ("exp_b", 255)):
        files.update({f"{exp}/conftest.py": "", f"{exp}/kernels/__init__.py": "", f"{exp}/kernels/flash.py": MODEL, f"{exp}/tests/test_flash.py": test.format(T=T)})
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    assert findings(capsys, ".") == [("exp_b/kernels/flash.py", "JCD201")]
    assert findings(capsys, "exp_b") == [("exp_b/kernels/flash.py", "JCD201")]
