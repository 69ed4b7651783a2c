"""Which files the command analyses (app/project_set.py), from the scan alone."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from conftest import LSTM_SNIPPET

from jax_cudnn_lint.discovery import (
    discover,
    mentions_differentiation,
    scan_file,
    scan_imports,
    top_level_definitions,
)
from jax_cudnn_lint.gate import might_matter
from jax_cudnn_lint.project_set import ProjectSet, project_set

ATTENTION = "import jax\n\ndef attend(q, k, v):\n    return jax.nn.dot_product_attention(q, k, v)\n"
TRAIN = "import jax\n{imports}\n\ndef step(p):\n    return jax.grad(loss)(p)\n"


def chosen_set(tmp_path: Path, files: dict[str, str]) -> tuple[ProjectSet, Callable[[Iterable[str]], list[str]]]:
    """Write `files` and select the project set; also a function that sorts paths
    relative to tmp_path."""
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    scanned = [scan_file(p) for p in discover([str(tmp_path)])]
    rel = lambda paths: sorted(str(Path(p).relative_to(tmp_path)) for p in paths)  # noqa: E731
    return project_set(scanned, str(tmp_path)), rel


def selected(tmp_path: Path, files: dict[str, str]) -> tuple[list[str], list[str]]:
    chosen, rel = chosen_set(tmp_path, files)
    return rel(chosen.entries), rel(chosen.reachable)


def test_reexporting_init_leads_only_through_the_names_it_takes_from_a_leading_module(
    tmp_path: Path,
) -> None:
    entries, reachable = selected(
        tmp_path,
        {
            "lib/__init__.py": "from .attention import attend\nfrom .tokens import Tokenizer\n",
            "lib/attention.py": ATTENTION,
            "lib/tokens.py": "class Tokenizer:\n    pass\n",
            "uses_tokenizer.py": TRAIN.format(imports="from lib import Tokenizer"),
            "uses_attention.py": TRAIN.format(imports="from lib import attend as att"),
            "uses_module.py": TRAIN.format(imports="import lib"),
        },
    )
    assert entries == ["lib/attention.py", "uses_attention.py", "uses_module.py"]
    assert "lib/tokens.py" in reachable and "uses_tokenizer.py" not in reachable


def test_a_registry_a_reexporting_init_assigns_leads_where_its_values_do(tmp_path: Path) -> None:
    # probe 50b: `MODELS = {"mem": MemoryReader}` in models/__init__.py, and train.py's
    # `MODELS[cfg.model](cfg)`; a table of other names and `__version__` lead nowhere
    entries, _ = selected(
        tmp_path,
        {
            "lib/__init__.py": (
                "from .attention import attend\nfrom .tokens import Tokenizer\n\n"
                "MODELS = {\n    'attend': attend,\n}\nALL_MODELS = {**MODELS}\nTOKENIZERS: dict = {'t': Tokenizer}\n__version__ = '1'\n"
            ),
            "lib/attention.py": ATTENTION,
            "lib/tokens.py": "class Tokenizer:\n    pass\n",
            "uses_registry.py": TRAIN.format(imports="from lib import MODELS"),
            "uses_merged.py": TRAIN.format(imports="from lib import ALL_MODELS"),
            "uses_tokenizers.py": TRAIN.format(imports="from lib import TOKENIZERS, __version__"),
        },
    )
    assert entries == ["lib/attention.py", "uses_merged.py", "uses_registry.py"]


def test_a_registry_whose_decorator_a_leading_module_uses_leads(tmp_path: Path) -> None:
    # probe 50b: `@register("vit")` in a module that leads fills registry.py's dict, which
    # a training script reads through get_model; a decorator of a module that leads
    # nowhere (`@timed`) does not make its module lead
    entries, _ = selected(
        tmp_path,
        {
            "registry.py": "_MODELS = {}\n\ndef register(name):\n    return lambda cls: _MODELS.setdefault(name, cls)\n\ndef get_model(name):\n    return _MODELS[name]\n",
            "timing.py": "def timed(f):\n    return f\n",
            "vit.py": "from registry import register\nfrom timing import timed\nimport jax\n\n@register('vit')\nclass ViT:\n    @timed\n    def __call__(self, q):\n        return jax.nn.dot_product_attention(q, q, q)\n",
            "train.py": TRAIN.format(imports="from registry import get_model"),
            "bench.py": TRAIN.format(imports="from timing import timed"),
        },
    )
    assert entries == ["train.py", "vit.py"]


def test_a_module_with_code_of_its_own_leads_through_all_its_names(tmp_path: Path) -> None:
    entries, _ = selected(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/attention.py": ATTENTION,
            "pkg/model.py": "from pkg.attention import attend\n\nclass Model:\n    pass\n",
            "pkg/__main__.py": "",
            "pkg/models/__init__.py": "from pkg.model import *\n\ndef build():\n    return 1\n",
            "train.py": TRAIN.format(imports="from pkg.models import build"),
            "eval.py": "from pkg.model import Model\n",  # does not differentiate
        },
    )
    assert entries == ["pkg/attention.py", "train.py"]


def test_star_reexport_of_a_module_with_code_leads_through_its_definitions(tmp_path: Path) -> None:
    entries, _ = selected(
        tmp_path,
        {
            "pkg/__init__.py": "from .layers import *\nfrom .other import helper\n",
            "pkg/layers.py": ATTENTION + "\nclass Block:\n    pass\n",
            "pkg/other.py": "def helper():\n    pass\n",
            "a.py": TRAIN.format(imports="from pkg import Block"),
            "b.py": TRAIN.format(imports="from pkg import helper"),
        },
    )
    assert entries == ["a.py", "pkg/layers.py"]


def test_imports_of_modelled_libraries_and_of_modules_inside_packages_do_not_resolve(
    tmp_path: Path,
) -> None:
    entries, _ = selected(
        tmp_path,
        {
            # a project folder named like a library the analysis models, and a module
            # named like a stdlib one inside a package: neither is what the import means
            "vendor/jax/__init__.py": "",
            "vendor/jax/nn.py": ATTENTION,
            "pkg/__init__.py": "",
            "pkg/math.py": ATTENTION,
            "train.py": TRAIN.format(imports="import math\nfrom jax import nn"),
        },
    )
    assert "train.py" not in entries


def test_differentiation_test_ignores_prose_and_pytorch() -> None:
    for code in (
        "jax.grad(f)",
        "from jax import grad\n",
        "from jax import (\n    vjp,\n)\n",
        "g = eqx.filter_value_and_grad(f)",
        "step = nnx.grad",
        "jax.jvp (f, x, t)",
    ):
        assert mentions_differentiation(code), code
    for prose in (
        "# compute the grad here\n",
        '"""Docs about the grad."""\n',
        "with torch.no_grad():\n",
        "x.requires_grad = True\n",
        "y = stop_gradient(x)\n",
        "use_grad = True\n",
        "model.gradient_checkpointing_enable()\n",
    ):
        assert not mentions_differentiation(prose), prose


def test_scan_helpers() -> None:
    assert top_level_definitions("def a():\n  def b(): pass\nclass C:\n    pass\n@d\nasync def e(): ...\n") == (
        ("a", "C", "e"),
        ("a", "e"),
    )
    refs = scan_imports("from a.b import (x as y,\n  z)\nfrom . import m as n\n")
    assert [(r.level, r.module, r.names, r.bound) for r in refs] == [
        (0, "a.b", ("x", "z"), ("y", "z")),
        (1, "", ("m",), ("n",)),
    ]


def test_gate_ignores_names_that_only_contain_the_watched_ones() -> None:
    assert not might_matter("fused_attention_modules = []\n")
    assert not might_matter("w = flax.linen.dot_product_attention_weights(q, k)\n")
    assert not might_matter("torch.nn.functional.scaled_dot_product_attention(q, k, v)\n")
    assert not might_matter('FLOPS = {"dot_product_attention_fwd_wrapper": count}\n')
    assert might_matter("from jax.nn import dot_product_attention as attend\n")
    assert might_matter("dot_product_attention")
    assert might_matter("from jax._src.cudnn.fused_attention_stablehlo import dot_product_attention\n")
    assert might_matter("w = nn.dot_product_attention_weights(q, k)\no = jax.nn.dot_product_attention(q, k, v)\n")


def test_importer_entries_carry_the_names_that_lead(tmp_path: Path) -> None:
    files = {
        "lib/__init__.py": "from .attention import attend\nfrom .tokens import Tokenizer\n",
        "lib/attention.py": ATTENTION,
        "lib/tokens.py": "class Tokenizer:\n    pass\n",
        "a.py": TRAIN.format(imports="from lib import attend as att, Tokenizer"),
        "b.py": TRAIN.format(imports="import lib.attention"),
    }
    selected(tmp_path, files)
    chosen = project_set([scan_file(p) for p in discover([str(tmp_path)])], str(tmp_path))
    names = {Path(p).name: n for p, n in chosen.importer_names.items()}
    assert names == {"a.py": frozenset({"att"}), "b.py": frozenset({"attend"})}


def test_analysis_enters_an_importer_only_if_its_code_uses_a_leading_name() -> None:
    import ast

    from jax_cudnn_lint.shape_inference import analyse

    model = ast.parse(ATTENTION)
    uses = ast.parse("import jax\nfrom model import attend\nstep = jax.grad(lambda q: attend(q, q, q).sum())\n")
    unused = ast.parse("import jax\nfrom model import attend\nstep = jax.grad(lambda x: x.sum())\n")
    prose = ast.parse('import jax\nfrom model import attend\n"""jax.grad of attend"""\nattend\n')
    trees = {"model.py": model, "uses.py": uses, "unused.py": unused, "prose.py": prose}
    names = frozenset({"attend"})
    result = analyse(trees, lambda name: False, importers={"uses.py": names, "unused.py": names, "prose.py": names})
    states = {info.path: info.state for info in result.project.roots}
    assert states == {"model.py": "done", "uses.py": "done", "unused.py": "new", "prose.py": "new"}


def test_fast_decoding_path_agrees_with_tokenize() -> None:
    import io
    import tokenize

    from jax_cudnn_lint.discovery import SourceError, decode_source

    def reference(data: bytes) -> str:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")

    samples = [
        b"x = 1\r\ny = 2\r\n",
        b"x = 1\ry = 2\r",
        "s = 'caf\u00e9'\n".encode(),
        b"\xef\xbb\xbfx = 1\n",
        b"# -*- coding: latin-1 -*-\ns = '\xe9'\n",
        b"#!/usr/bin/env python\n# coding=latin-1\ns = '\xe9'\n",
        b"x = 1\n# coding: latin-1 on line three does not count\n",
    ]
    for data in samples:
        assert decode_source(data) == reference(data), data
    for bad in (b"s = '\xe9'\n", b"\xef\xbb\xbf# coding: latin-1\n"):
        try:
            decode_source(bad)
        except SourceError:
            continue
        raise AssertionError(f"{bad!r} must not decode")


def components_of(tmp_path: Path, files: dict[str, str]) -> list[tuple[list[str], list[str]]]:
    chosen, rel = chosen_set(tmp_path, files)
    parts = [(rel(c.entries), rel(c.reachable)) for c in chosen.components]
    # every entry and every reachable file is in exactly one component
    assert sorted(e for es, _ in parts for e in es) == rel(chosen.entries)
    assert sorted(r for _, rs in parts for r in rs) == rel(chosen.reachable)
    return sorted(parts)


def test_entries_that_share_no_file_are_analysed_apart(tmp_path: Path) -> None:
    project = {
        "a/pkg_a/__init__.py": "",
        "a/pkg_a/attn.py": ATTENTION,
        "a/pkg_a/util.py": "WIDTH = 4\n",
        "a/train_a.py": TRAIN.format(imports="from pkg_a.attn import attend\nfrom pkg_a import util"),
        "b/pkg_b/__init__.py": "",
        "b/pkg_b/attn.py": ATTENTION + "from pkg_b import cfg\n",
        "b/pkg_b/cfg.py": "SEQ = 8\n",
        "lone.py": ATTENTION,
    }
    # (`from pkg import submodule` runs pkg/__init__.py too, which may rebind the name)
    assert components_of(tmp_path, project) == [
        (["a/pkg_a/attn.py", "a/train_a.py"], ["a/pkg_a/__init__.py", "a/pkg_a/util.py"]),
        (["b/pkg_b/attn.py"], ["b/pkg_b/__init__.py", "b/pkg_b/cfg.py"]),
        (["lone.py"], []),
    ]
    # one file that both reach joins them: each component knows every file it may need
    project["b/pkg_b/cfg.py"] = "from pkg_a.util import WIDTH\nSEQ = 8\n"
    joined = components_of(tmp_path, project)
    assert joined[0][0] == ["a/pkg_a/attn.py", "a/train_a.py", "b/pkg_b/attn.py"]
    assert "a/pkg_a/util.py" in joined[0][1] and joined[1] == (["lone.py"], [])


def test_standard_library_imports_never_resolve_to_project_files(tmp_path: Path) -> None:
    # scripts/ is no package, so a suffix match could take scripts/math.py for `math`
    entries, reachable = selected(
        tmp_path,
        {
            "scripts/math.py": ATTENTION,
            "scripts/threading.py": "x = 1\n",
            "train.py": TRAIN.format(imports="import math\nimport threading"),
            "local_train.py": TRAIN.format(imports="from scripts.math import attend"),
        },
    )
    assert entries == ["local_train.py", "scripts/math.py"]
    assert reachable == []


def test_components_run_inline_where_worker_processes_cannot_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jax_cudnn_lint import project_lint
    from jax_cudnn_lint.config import Config

    chosen, _ = chosen_set(tmp_path, {f"part{i}/rnn.py": LSTM_SNIPPET for i in range(3)})
    assert len(chosen.components) == 3
    texts = {path: Path(path).read_text(encoding="utf-8") for path in chosen.entries}

    def run(jobs: int) -> list[tuple[str, int, str]]:
        result = project_lint.lint_project_set(chosen, texts, Config(), str(tmp_path), jobs)
        return [(f.path, f.line, f.code) for f in result.findings]

    inline = run(1)
    assert [code for _, _, code in inline] == ["JCD101"] * 3
    assert run(2) == inline  # in worker processes

    class NoProcesses:  # a sandbox without /dev/shm
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise PermissionError("no semaphores here")

    monkeypatch.setattr(project_lint, "ProcessPoolExecutor", NoProcesses)
    assert run(2) == inline


def test_a_large_component_is_analysed_in_shards_with_the_same_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shards (each entry alone here) know every file their entries reach: the
    cross-module JCD201 of the lm project is found, and reported once though two
    shards find it, as without shards."""
    import shutil

    from jax_cudnn_lint import project_lint, project_set as project_set_module
    from jax_cudnn_lint.config import Config

    shutil.copytree(Path(__file__).parent / "fixtures" / "projects" / "lm_project", tmp_path / "lm")
    (tmp_path / "lm" / "probe.py").write_text(LSTM_SNIPPET + "from lm import model\n", encoding="utf-8")
    # a second training script: its shard finds the same JCD201 in model.py
    shutil.copy(tmp_path / "lm" / "train.py", tmp_path / "lm" / "train_again.py")

    def findings() -> tuple[int, list[tuple[str, int, str]]]:
        chosen, rel = chosen_set(tmp_path, {})
        texts = {path: Path(path).read_text(encoding="utf-8") for path in chosen.entries}
        result = project_lint.lint_project_set(chosen, texts, Config(), str(tmp_path / "lm"), 1)
        return len(chosen.components), [(rel([f.path])[0], f.line, f.code) for f in result.findings]

    whole = findings()
    monkeypatch.setattr(project_set_module, "SHARD_CHARS", 1)
    sharded = findings()
    assert whole[0] == 1 and sharded[0] == 4  # model.py, probe.py and both train scripts apart
    assert sharded[1] == whole[1]
    assert sorted(code for _, _, code in whole[1]) == ["JCD101", "JCD201"]


def test_scripts_that_call_training_functions_are_drivers(tmp_path: Path) -> None:
    trainer = "import jax\nfrom model import attend\n\nclass Trainer:\n    pass\n\ndef train(n):\n    return jax.grad(attend)(n)\n"
    chosen, rel = chosen_set(
        tmp_path,
        {
            "model.py": ATTENTION,
            "trainer.py": trainer,
            "main.py": "from trainer import train\ntrain(127)\n",  # a driver
            "cli.py": "import trainer\ntrainer.train(3)\n",  # the module whole: a driver
            "lib.py": "from trainer import train\n",  # imported by app.py: not a driver
            "app.py": "import lib\n",
            "test_trainer.py": "from trainer import Trainer\nTrainer()\n",  # a test taking a class only: not a driver
            "fit.py": "from trainer import Trainer\nTrainer()\n",  # a script taking a class: a driver
            "lib/__init__.py": "",
            "lib/sweeps.py": "from trainer import train\ntrain(3)\n",  # nothing imports it and it calls at its top level: a program (python -m lib.sweeps)
            "lib/tools.py": "from trainer import train\n\ndef sweep():\n    train(3)\n",  # a library module nothing imports: used from outside
            "lib/run.py": "from trainer import train\nif __name__ == '__main__':\n    train(3)\n",  # a program in a package
            "run_class.py": "from tools import Trainer\nTrainer()\n",  # through a package too
            "tools/test_tools.py": "from tools import Trainer\nTrainer()\n",  # (not a test)
            "tools/__init__.py": "from trainer import train, Trainer\n",  # a package init: runs on import
            "run_tools.py": "from tools import train\ntrain(255)\n",  # through the package: a driver
            "other_tools.py": "import tools\ntools.train(3)\n",  # the package whole, but it runs code over its folder: a program
            "other_tools2.py": "import tools\n\ndef go():\n    tools.train(3)\n",  # the package whole, a function of it called: a driver (probe 94d)
            "other_tools3.py": "import tools\n\ndef go():\n    return tools\n",  # the package whole, nothing of it called: not one
            "deep/__init__.py": "from deep.sub import train\n",  # two packages, the inner by `*`
            "deep/sub/__init__.py": "from trainer import *\n",
            "run_deep.py": "from deep import train\ntrain(255)\n",
            "stars/__init__.py": "from stars.sub import *\n",  # two packages, both by `*`
            "stars/sub/__init__.py": "from trainer import *\n",
            "run_stars.py": "from stars import train\ntrain(255)\n",
            # a program that a test imports for a helper: still a program (probe 100d)
            "run_main.py": "from trainer import train\n\ndef helper():\n    pass\n\nif __name__ == '__main__':\n    train(255)\n",
            "test_run_main.py": "from run_main import helper\nhelper()\n",
            # a library module with a demo under its guard, imported in its package: not one
            "lib/demo.py": "from trainer import train\n\ndef helper():\n    pass\n\nif __name__ == '__main__':\n    train(3)\n",
            "lib/uses_demo.py": "from lib.demo import helper\n",
            # a package's program (`python -m lib.main`) that only a test imports: still one (probe 138b)
            "lib/main.py": "from trainer import train\n\ndef main():\n    train(255)\n\nif __name__ == '__main__':\n    main()\n",
            "tests/test_main.py": "from lib.main import main\n",
            # a test that takes a program's command object (`runner.invoke(app, [...])`): it runs the program (probe 138b)
            "cli_app.py": "from trainer import train\n\napp = make_app(train)\n\nif __name__ == '__main__':\n    app()\n",
            "tests/test_cli_app.py": "from cli_app import app\n",
            # ... and of a program that trains itself, an entry (probe 139a: a typer app's `train` command)
            "cli_train.py": "import jax\nfrom model import attend\n\napp = make_app()\n\ndef go():\n    jax.grad(attend)\n\nif __name__ == '__main__':\n    app()\n",
            "tests/test_cli_train.py": "from cli_train import app\n",
        },
    )
    assert rel(chosen.drivers) == ["cli.py", "cli_app.py", "fit.py", "lib/main.py", "lib/run.py", "lib/sweeps.py", "main.py", "other_tools.py", "other_tools2.py", "run_class.py", "run_deep.py", "run_main.py", "run_stars.py", "run_tools.py", "test_run_main.py", "tests/test_cli_app.py", "tests/test_cli_train.py", "tests/test_main.py"]
    assert rel(chosen.entries) == ["cli.py", "cli_app.py", "cli_train.py", "fit.py", "lib/main.py", "lib/run.py", "lib/sweeps.py", "main.py", "model.py", "other_tools.py", "other_tools2.py", "run_class.py", "run_deep.py", "run_main.py", "run_stars.py", "run_tools.py", "test_run_main.py", "tests/test_cli_app.py", "tests/test_cli_train.py", "tests/test_main.py", "trainer.py"]


def test_forward_only_programs_beside_the_model_are_drivers(tmp_path: Path) -> None:
    """An eval or generate script that only runs the model forward: a float32 input or a
    float mask fails without a grad.  Only programs over the code in their own folder or
    below (the project's, from its scripts/ folder), outside packages (a library's own
    scripts import it from its root)."""
    run = "from {module} import attend\n\nif __name__ == '__main__':\n    attend(1, 2, 3)\n"
    chosen, rel = chosen_set(
        tmp_path,
        {
            "layers.py": ATTENTION,
            "generate.py": run.format(module="layers"),  # beside the model: a driver
            "src/mypkg/__init__.py": "",
            "src/mypkg/attn.py": ATTENTION,
            "src/eval.py": run.format(module="mypkg.attn"),  # over a package below it: a driver
            "scripts/eval.py": run.format(module="layers"),  # a project's scripts/ folder: over the project (probe 101d)
            "other/eval.py": run.format(module="layers"),  # the model is not below it
            "helpers.py": "from layers import attend\n\ndef f():\n    return attend(1, 2, 3)\n",  # no __main__: a module
            "lib/__init__.py": "",
            "lib/tool.py": run.format(module="lib.layers2"),  # a package's own program
            "lib/layers2.py": ATTENTION,
            "test_layers.py": run.format(module="layers"),  # a test calling a gated function: a driver
            "test_classes.py": "from layers import Attention\n\ndef test_it():\n    Attention()\n",  # a class: not one
        },
    )
    assert rel(chosen.drivers) == ["generate.py", "scripts/eval.py", "src/eval.py", "test_layers.py"]


def test_scripts_joining_a_model_and_a_training_step_are_drivers(tmp_path: Path) -> None:
    """`train_step(model, params, x)` in engine.py, which imports no model: the script that
    takes the model from model.py and the step from engine.py runs the training (probe 29b)."""
    engine = "import jax\n\ndef train_step(model, params, x):\n    return jax.grad(lambda p: model(p, x))(params)\n"
    chosen, rel = chosen_set(
        tmp_path,
        {
            "model.py": ATTENTION,
            "engine.py": engine,
            "train.py": "from engine import train_step\nfrom model import attend\ntrain_step(attend, 1, 2)\n",  # a driver
            "run.py": "import engine\nimport model\nengine.train_step(model.attend, 1, 2)\n",  # both modules whole: a driver (probe 32a)
            "eval.py": "from model import attend\nattend(1, 2, 3)\n",  # runs the model forward at its top level: a program (probe 33b)
            "helpers.py": "from model import attend\n\ndef f():\n    return attend(1, 2, 3)\n",  # no training step, no code of its own: not one
            "tests/test_engine.py": "import engine\nfrom model import attend\n\ndef test_step():\n    engine.train_step(attend, 1, 2)\n",
            "lib/__init__.py": "",
            "lib/helpers.py": "from engine import train_step\nfrom model import attend\n",  # a library module: not one
            "app.py": "import lib.helpers\n",
        },
    )
    assert rel(chosen.drivers) == ["eval.py", "run.py", "tests/test_engine.py", "train.py"]


def test_programs_running_a_module_that_joins_a_model_and_a_training_step_are_drivers(tmp_path: Path) -> None:
    """experiments/lm.py's `main()` passes the model and its length to trainer.fit; a
    launcher and a smoke test import it and run it (probe 93d): they drive the training.
    A test inside the joining module's own package is a library's test (keras' ops
    tests beside ops modules that take a backend and a layer): not one."""
    engine = "import jax\n\ndef fit(model, n):\n    return jax.grad(lambda p: model(p, n))(1.0)\n"
    experiment = "import engine\nimport model\n\n\ndef main():\n    return engine.fit(model.attend, 257)\n"
    chosen, rel = chosen_set(
        tmp_path,
        {
            "model.py": ATTENTION,
            "engine.py": engine,
            "experiments/__init__.py": "",
            "experiments/lm.py": experiment,
            "experiments/lm_test.py": "from experiments import lm\n\n\ndef test_lm():\n    lm.main()\n",  # beside it: not one
            "run.py": "from experiments import lm\n\nif __name__ == '__main__':\n    lm.main()\n",
            "tests/__init__.py": "",
            "tests/test_smoke.py": "from experiments import lm\n\n\ndef test_lm_smoke():\n    lm.main()\n",
        },
    )
    assert rel(chosen.drivers) == ["run.py", "tests/test_smoke.py"]


def test_scripts_taking_a_library_package_whole_are_drivers_where_they_call_its_functions(tmp_path: Path) -> None:
    """examples/train.py: `import tinylm`, then `tinylm.train(seq_len=255)`, or the model
    and `tinylm.make_train_step(...)` from a package that re-exports both (probe 94d).
    Not a script that only imports it, nor the package's own tests beside its modules."""
    trainer = "import jax\n\n\ndef make_train_step(model):\n    return jax.grad(model)\n"
    chosen, rel = chosen_set(
        tmp_path,
        {
            "src/tinylm/__init__.py": "from .attention import attend, train\nfrom .trainer import make_train_step\n",
            "src/tinylm/attention.py": ATTENTION + "\n\ndef train(seq_len):\n    return jax.grad(attend)(seq_len)\n",
            "src/tinylm/trainer.py": trainer,
            "src/tinylm/attention_test.py": "import tinylm\n\n\ndef test_train():\n    tinylm.train(seq_len=3)\n",  # the package's own: not one
            "examples/train.py": "import tinylm\n\nif __name__ == '__main__':\n    tinylm.train(seq_len=255)\n",
            "examples/joined.py": "import tinylm\n\nif __name__ == '__main__':\n    tinylm.make_train_step(tinylm.attend)(1)\n",
            "examples/version.py": "import tinylm\n\nif __name__ == '__main__':\n    print(tinylm)\n",  # calls nothing of it
        },
    )
    assert rel(chosen.drivers) == ["examples/joined.py", "examples/train.py"]


def test_programs_running_a_launcher_of_the_training_are_drivers(tmp_path: Path) -> None:
    """cli.py -> launch.py -> trainer.train: launch.py is imported, so not a program; the
    one that calls its functions is (probe 31a).  Not through a package's modules."""
    trainer = "import jax\nfrom model import attend\n\ndef train(n):\n    return jax.grad(attend)(n)\n"
    chosen, rel = chosen_set(
        tmp_path,
        {
            "model.py": ATTENTION,
            "trainer.py": trainer,
            "launch.py": "from trainer import train\n\ndef main():\n    train(255)\n",
            "cli.py": "from launch import main\nmain()\n",  # a driver one hop further
            "cli_whole.py": "import launch\nlaunch.main()\n",  # the launcher whole, run at the top level: a driver (probe 33a)
            "other.py": "import launch\n",  # takes no function of it
            "pkg/__init__.py": "",
            "pkg/launch.py": "from trainer import train\n\ndef main():\n    train(3)\n",
            "pkg_cli.py": "from pkg.launch import main\n",  # through a package's module: not followed
        },
    )
    assert rel(chosen.drivers) == ["cli.py", "cli_whole.py"]



def test_a_projects_tests_of_a_gated_class_are_drivers(tmp_path: Path) -> None:
    """`Attn()(q)` in tests/test_layer.py outside any package runs the class forward (probe
    33b); a library's own tests inside its package do not count (keras' layer tests)."""
    layer = "import jax\n\nclass Attn:\n    def __call__(self, q):\n        return jax.nn.dot_product_attention(q, q, q)\n"
    test = "from {module} import Attn\n\ndef test_attn():\n    Attn()(1)\n"
    chosen, rel = chosen_set(
        tmp_path,
        {
            "m/__init__.py": "",
            "m/layer.py": layer,
            "tests/test_layer.py": test.format(module="m.layer"),  # a driver
            "m/tests/__init__.py": "",
            "m/tests/test_inside.py": test.format(module="m.layer"),  # the package's own test: not one
            # the module taken whole (probe 56b: `import model`, then `model.reference(...)`)
            "tests/test_whole.py": "from m import layer\n\ndef test_attn():\n    layer.Attn()(1)\n",
            "m/tests/test_whole_inside.py": "from m import layer\n",
            # a test that differentiates in one test and runs forward in another: entered
            # through both (probe 56b: its forward-only reference test was never run)
            "tests/test_both.py": "import jax\nfrom m import layer\n\ndef test_fwd():\n    layer.Attn()(1)\n\ndef test_grad():\n    jax.grad(layer.Attn())(1.0)\n",
            # a conftest gives fixtures and is never run on its own (probe 61b: as a driver,
            # the tests lost its fixtures' values)
            "tests/conftest.py": "import pytest\nfrom m import layer\n\n@pytest.fixture\ndef attn():\n    return layer.Attn()\n",
        },
    )
    assert rel(chosen.drivers) == ["tests/test_both.py", "tests/test_layer.py", "tests/test_whole.py"]


def test_a_projects_test_through_a_helper_module_is_a_driver(tmp_path: Path) -> None:
    """tests/test_x.py takes `run_small` from tests/helpers.py, which calls the gated
    function with tiny shapes (probe 33b)."""
    chosen, rel = chosen_set(
        tmp_path,
        {
            "m/__init__.py": "",
            "m/attn.py": ATTENTION,
            "tests/helpers.py": "from m.attn import attend\n\ndef run_small():\n    return attend(1, 2, 3)\n",
            "tests/test_x.py": "from helpers import run_small\n\ndef test_run():\n    run_small()\n",  # a driver
            "tests/test_y.py": "import helpers\n",  # takes no function: not one
        },
    )
    assert rel(chosen.drivers) == ["tests/test_x.py"]


def test_a_literal_import_module_is_an_import(tmp_path: Path) -> None:
    """`importlib.import_module("models.encoder")` in a launcher that differentiates (probe
    96d): the launcher imports the model as `import models.encoder` would; a name built at
    run time may be any module of the package, each leading as `from models.m import *`
    would (probe 125d: `import_module(f"models.{config.model_name}")` in a train.py)."""
    launcher = "import importlib\nimport jax\n\n\ndef run():\n    mod = importlib.import_module({name})\n    return jax.grad(mod.attend)(1.0)\n"
    entries, _ = selected(
        tmp_path,
        {
            "models/__init__.py": "",
            "models/encoder.py": ATTENTION,
            "launch.py": launcher.format(name='"models.encoder"'),
            "launch_built.py": launcher.format(name='f"models.{NAME}"'),
            # relative to a package given (probe 102b)
            "launch_relative.py": launcher.format(name='".encoder", package="models"'),
            "launch_relative_positional.py": launcher.format(name='".encoder", "models"'),
        },
    )
    assert entries == ["launch.py", "launch_built.py", "launch_relative.py", "launch_relative_positional.py", "models/encoder.py"]


@pytest.mark.parametrize(
    "loader",
    ['importlib.import_module(f".vision.{NAME}", package="models")', 'importlib.import_module(f".vision.{NAME}", __name__)'],
)
def test_a_module_of_a_subpackage_chosen_by_a_built_relative_name_leads(tmp_path: Path, loader: str) -> None:
    """`import_module(f".models.{cfg.model}", package="vision")` (probe 126a): any module of
    the subpackage the literal part names, not of the package."""
    files = {
        "models/__init__.py": f"import importlib\nimport jax\n\n\ndef run():\n    return jax.grad({loader}.attend)(1.0)\n",
        "models/vision/__init__.py": "",
        "models/vision/encoder.py": ATTENTION,
        "models/text.py": "X = 1\n",
    }
    if "package=" in loader:
        files["launch.py"] = files.pop("models/__init__.py")
        files["models/__init__.py"] = ""
    entries, reachable = selected(tmp_path, files)
    assert entries == ["launch.py" if "package=" in loader else "models/__init__.py", "models/vision/encoder.py"]
    assert "models/text.py" not in reachable


def test_a_module_of_a_package_chosen_by_a_built_name_is_reachable(tmp_path: Path) -> None:
    """`importlib.import_module(f"configs.{name}")` in a driver (probe 100d): every module
    of the package may be the one, so each is reachable for the analysis, which reads the
    name where it is known; none of them leads anywhere by this import alone."""
    main = "import importlib\nfrom train import step\n\n\ndef run(name):\n    cfg = importlib.import_module({built}).get_config()\n    return step(cfg)\n\n\nif __name__ == '__main__':\n    run('long')\n"
    chosen, rel = chosen_set(
        tmp_path,
        {
            "model.py": ATTENTION,
            "train.py": "import jax\nfrom model import attend\n\n\ndef step(cfg):\n    return jax.grad(attend)(cfg.n)\n",
            "configs/__init__.py": "",
            "configs/long.py": "def get_config():\n    pass\n",
            "configs/short.py": "def get_config():\n    pass\n",
            "configs/sub/deep.py": "def get_config():\n    pass\n",
            "other/short.py": "def get_config():\n    pass\n",
            "main.py": main.format(built='f"configs.{name}"'),
            "main_plus.py": main.format(built='"configs." + name'),
        },
    )
    assert rel(chosen.drivers) == ["main.py", "main_plus.py"]
    assert rel(chosen.reachable) == ["configs/__init__.py", "configs/long.py", "configs/short.py"]
