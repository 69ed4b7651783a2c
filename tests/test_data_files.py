"""Configs read from the project's JSON, YAML and TOML files (shape_inference/data_files.py):
asked to (`--read-data-configs`, `read-data-configs = true`), the command reads the one
file a known path names and keys its cache on it; the flake8 plugin, which sees one file,
reads none (probe 125b)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from conftest import write
from jax_cudnn_lint.cli import main
from jax_cudnn_lint.discovery import scan_file
from jax_cudnn_lint.flake8_plugin import JcdChecker

MODEL = (
    "import jax\nimport jax.numpy as jnp\n\n\n"
    "def loss(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32).sum()\n\n\n"
    "def train(seq):\n    q = jax.ShapeDtypeStruct((1, seq, 2, 64), jnp.bfloat16)\n    return jax.eval_shape(jax.grad(loss), q)\n"
)
READERS = {
    "json": ("configs/lm.json", '{"model": {"seq_len": SEQ}}\n', "import json\n", "    with open({path!r}) as f:\n        cfg = json.load(f)\n"),
    "yaml": ("configs/lm.yaml", "model:\n  seq_len: SEQ  # tokens\n", "import yaml\n", "    cfg = yaml.safe_load(open({path!r}))\n"),
    "toml": ("configs/lm.toml", "[model]\nseq_len = SEQ\n", "import tomllib\n", "    with open({path!r}, 'rb') as f:\n        cfg = tomllib.load(f)\n"),
    "omegaconf": ("configs/lm.yaml", "model:\n  seq_len: SEQ\n", "from omegaconf import OmegaConf\n", "    cfg = OmegaConf.load({path!r})\n"),
    "json_text": ("configs/lm.json", '{"model": {"seq_len": SEQ}}\n', "import json\nimport os\n", "    cfg = json.loads(open(os.path.join('configs', 'lm.json')).read())\n"),
}


def project(kind: str, seq: int, script: str = "train.py") -> dict[str, str]:
    path, data, imports, read = READERS[kind]
    return {
        "model.py": MODEL,
        path: data.replace("SEQ", str(seq)),
        script: (
            f"{imports}\nfrom model import train\n\n\ndef main():\n{read.format(path=path)}    return train(cfg['model']['seq_len'])\n\n\n"
            "if __name__ == '__main__':\n    main()\n"
        ),
    }


def lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, *options: str) -> list[str]:
    monkeypatch.chdir(tmp_path)
    main(["--exit-zero", "-j1", "--read-data-configs", *(options or ("--no-cache",)), "."])
    return [line for line in capsys.readouterr().out.splitlines() if "JCD" in line]


def assert_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, files: dict[str, str], seq: int) -> None:
    """The project written, its one finding is the JCD201 of the length the config holds."""
    write(tmp_path, files)
    got = lines(tmp_path, monkeypatch, capsys)
    assert len(got) == 1 and "JCD201" in got[0] and f"T = S = {seq}" in got[0]


@pytest.mark.parametrize("kind", list(READERS))
@pytest.mark.parametrize(("seq", "found"), [(257, True), (256, False)])
def test_a_length_read_from_a_data_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, kind: str, seq: int, found: bool) -> None:
    write(tmp_path, project(kind, seq))
    got = lines(tmp_path, monkeypatch, capsys)
    if found:
        assert len(got) == 1 and got[0].startswith("model.py:6:") and "JCD201" in got[0] and f"T = S = {seq}" in got[0]
    else:
        assert got == []


def test_a_script_in_a_folder_reads_the_file_from_the_folder_above(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    files = project("json", 129, "scripts/train.py")
    files["scripts/train.py"] = "import sys\n\nsys.path.insert(0, '.')\n" + files["scripts/train.py"]
    assert_reported(tmp_path, monkeypatch, capsys, files, 129)


@pytest.mark.parametrize(
    "other",
    [
        {"scripts/configs/lm.json": '{"model": {"seq_len": 128}}\n'},  # two copies: which one runs depends on the working directory
        {"prepare.py": "import json\n\njson.dump({'model': {'seq_len': 128}}, open('configs/lm.json', 'w'))\n"},  # the program writes it
        {"prepare.py": "import pathlib\n\npathlib.Path('configs/lm.json').write_text('{}')\n"},
        # probe 127a: writes whose file the text does not name, anywhere in the project
        {"tools/prepare.py": "import json\n\nCONFIG = 'configs/lm.json'\n\n\ndef save(obj, path):\n    with open(path, 'w') as f:\n        json.dump(obj, f)\n"},
        {"tools/prepare.py": "import shutil\n\n\ndef promote(src, dst):\n    shutil.copy(src, dst)\n"},
        {"tools/prepare.py": "import pathlib\n\ntarget = pathlib.Path('configs') / 'lm.json'\ntarget.write_text('{}')\n"},
        {"launch.py": "import os\nimport runpy\n\nos.chdir('experiments/e1')\nrunpy.run_path('../../scripts/train.py')\n"},
        {"tools/prepare.py": "import json\n\nCONFIG_PATH = 'configs/lm.json'\njson.dump({}, open(CONFIG_PATH, 'w'))\n"},
        {"tools/prepare.py": "import subprocess\n\n\ndef use(preset):\n    subprocess.run(['cp', preset, 'configs/lm.json'], check=True)\n"},  # (probe 128a)
        # probe 129b: a path chosen at run time, a temporary file moved on, a mode or flags
        # not spelled, an edit in place, a numpy writer, a run in another folder
        {"tools/prepare.py": "PATHS = {'config': 'configs/lm.json'}\n\n\ndef save(text):\n    open(PATHS.get('config', 'backup.json'), 'w').write(text)\n"},
        {"tools/prepare.py": "import pathlib\nimport tempfile\n\n\ndef save(text, target):\n    with tempfile.NamedTemporaryFile('w', delete=False) as tmp:\n        tmp.write(text)\n    pathlib.Path(tmp.name).replace(target)\n"},
        {"tools/prepare.py": "import os\n\n\ndef save(path, text):\n    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)\n    with os.fdopen(fd, 'w') as f:\n        f.write(text)\n"},
        {"tools/prepare.py": "def save(path, text, mode):\n    with open(path, mode) as f:\n        f.write(text)\n"},
        {"tools/prepare.py": "import fileinput\n\nfor line in fileinput.input('configs/lm.json', inplace=True):\n    print(line.replace('129', '128'), end='')\n"},
        {"tools/prepare.py": "import numpy as np\n\nnp.savetxt('configs/lm.json', np.zeros(1))\n"},
        {"launch.py": "import subprocess\nimport sys\n\nsubprocess.run([sys.executable, '../scripts/train.py'], cwd='experiments')\n"},
        # probe 131b: open under another name or handed on, a command given a constant, a
        # shell script or a notebook of the project
        {"tools/prepare.py": "from io import open as io_open\n\nCONFIG = 'configs/other.json'\n\n\ndef save(path, text):\n    io_open(path, 'w').write(text)\n"},
        {"tools/prepare.py": "import functools\n\nwriter = functools.partial(open, mode='w')\n"},
        {"tools/prepare.py": "import subprocess\n\nCONFIG_PATH = 'configs/lm.json'\n\n\ndef use(preset):\n    subprocess.run(['cp', preset, CONFIG_PATH], check=True)\n"},
        {"run.sh": "#!/bin/sh\npython make_config.py > configs/lm.json\npython scripts/train.py\n"},
        # probe 132a: writes not spelled as a write of a named file
        {"tools/prepare.py": "import io\n\nCONFIG = 'configs/lm.json'\nio.FileIO(CONFIG, 'w').write(b'{}')\n"},
        {"tools/prepare.py": "import logging\n\nlogging.getLogger().addHandler(logging.FileHandler('configs/lm.json', mode='w'))\n"},
        {"tools/prepare.py": "import numpy as np\n\nnp.zeros(1).tofile('configs/lm.json')\n"},
        {"tools/prepare.py": "def patch(path):\n    with open(path, 'rb+') as f:\n        f.write(b'{}')\n"},
        {"tools/prepare.py": "import os\n\n\ndef swap(tmp, link):\n    os.renames(tmp, link)\n"},
        {"tools/prepare.py": "def stream(path, *args):\n    return open(path, *args)\n"},
        {"tools/prepare.py": "import tarfile\n\ntarfile.open('configs.tar').extractall('.')\n"},
        {"tools/prepare.py": "from pathlib import Path\n\np = Path('configs') / 'lm.json'\ngetattr(p, 'write_text')('{}')\n"},
        {"tools/prepare.py": "import subprocess\n\nsubprocess.run(['git', 'apply', 'configs.patch'], check=True)\n"},
        {"run.sh": "#!/bin/sh\ncd experiments && python ../scripts/train.py\n"},
        {"notebooks/export.ipynb": '{"cells": [{"cell_type": "code", "source": ["open(\\"configs/lm.json\\", \\"w\\").write(cfg)"]}]}'},
    ],
)
def test_a_data_file_that_is_not_certain_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, other: dict[str, str]) -> None:
    files = project("json", 129, "scripts/train.py")
    imports = "import prepare  # noqa: F401\n" if "prepare.py" in other else ""
    files["scripts/train.py"] = f"import sys\n\nsys.path.insert(0, '.')\n{imports}" + files["scripts/train.py"]
    write(tmp_path, {**files, **other})
    assert lines(tmp_path, monkeypatch, capsys) == []


def test_a_project_that_writes_other_files_by_name_still_reads_its_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    files = project("json", 129)
    files["report.py"] = "import json\nimport os\n\n\ndef save(workdir, metrics):\n    with open(os.path.join(workdir, 'metrics.json'), 'w') as f:\n        json.dump(metrics, f)\n    open(f'{workdir}/log.txt', 'a').write('done')\n"
    assert_reported(tmp_path, monkeypatch, capsys, files, 129)


def test_a_link_to_a_file_the_project_writes_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Probe 128a: configs/lm.json links to presets/run.json, which a step writes by name."""
    files = project("json", 129)
    files["presets/run.json"] = files.pop("configs/lm.json")
    files["prepare.py"] = "import json\n\njson.dump({'model': {'seq_len': 128}}, open('presets/run.json', 'w'))\n"
    write(tmp_path, files)
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "lm.json").symlink_to(tmp_path / "presets" / "run.json")
    assert lines(tmp_path, monkeypatch, capsys) == []


def test_a_loader_that_falls_back_when_the_path_does_not_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Probe 128b: `if not os.path.exists(path): path = os.path.join(CONFIG_DIR, path + ".json")`;
    the file the analysis reads exists."""
    files = project("json", 129)
    files["train.py"] = "import os\n" + files["train.py"].replace(
        "    with open('configs/lm.json') as f:", "    path = 'configs/lm.json'\n    if not os.path.exists(path):\n        path = os.path.join('configs', path + '.json')\n    with open(path) as f:"
    )
    assert_reported(tmp_path, monkeypatch, capsys, files, 129)


def test_the_cache_is_keyed_on_the_data_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    write(tmp_path, project("yaml", 257))
    first = lines(tmp_path, monkeypatch, capsys, "--format", "text")
    assert len(first) == 1 and "T = S = 257" in first[0]
    write(tmp_path, {"configs/lm.yaml": "model:\n  seq_len: 256\n"})
    assert lines(tmp_path, monkeypatch, capsys, "--format", "text") == []
    write(tmp_path, {"configs/lm.yaml": "model:\n  seq_len: 129\n"})
    again = lines(tmp_path, monkeypatch, capsys, "--format", "text")
    assert len(again) == 1 and "T = S = 129" in again[0]


def test_the_scan_names_the_data_files_a_file_may_read(tmp_path: Path) -> None:
    write(tmp_path, {**project("toml", 129, "scripts/train.py"), "scripts/other.json": "{}", "big.json": "[" + "0, " * 200_000 + "0]"})
    scanned = scan_file(str(tmp_path / "scripts/train.py"), data_configs=True)
    assert [Path(path).relative_to(tmp_path).as_posix() for path, _ in scanned.data_files] == ["configs/lm.toml"]
    write(tmp_path, {"scripts/train.py": "import json\n\nDATA = json.load(open('big.json'))\n"})
    assert scan_file(str(tmp_path / "scripts/train.py"), data_configs=True).data_files == ()  # (a dataset, not a config)
    assert scan_file(str(tmp_path / "scripts/train.py")).data_names == frozenset()  # (not asked)


def test_the_flake8_plugin_reads_no_data_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = project("json", 129)
    files["train.py"] = files["train.py"].replace("from model import train\n", "") + "\n\n" + MODEL.split("\n\n\n", 1)[1]
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    source = (tmp_path / "train.py").read_text(encoding="utf-8")
    found = list(JcdChecker(ast.parse(source), source.splitlines(keepends=True), "train.py").run())
    assert not [f for f in found if "JCD201" in f[2]]


@pytest.mark.parametrize(("loader", "found"), [("yaml.SafeLoader", True), ("yaml.FullLoader", True), ("yaml.BaseLoader", False), ("EnvLoader", False), (None, False)])
def test_yaml_load_reads_as_safe_load_only_with_a_loader_that_resolves_as_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, loader: str | None, found: bool) -> None:
    """BaseLoader reads every scalar as a string; a loader of the code's own may resolve
    scalars its way; PyYAML 6 refuses a load without one."""
    files = project("yaml", 129)
    given = f", Loader={loader}" if loader else ""
    files["train.py"] = files["train.py"].replace("yaml.safe_load(open('configs/lm.yaml'))", f"yaml.load(open('configs/lm.yaml'){given})")
    files["train.py"] = files["train.py"].replace("from model import train\n", "from model import train\n\n\nclass EnvLoader(yaml.SafeLoader):\n    pass\n")
    write(tmp_path, files)
    assert len(lines(tmp_path, monkeypatch, capsys)) == (1 if found else 0)


@pytest.mark.parametrize(
    "path",
    [
        "os.path.join(os.path.dirname(os.path.abspath(__file__)), 'configs', 'lm.json')",
        "os.path.join(os.path.dirname(__file__), 'configs/lm.json')",
        "os.path.join(os.path.dirname(os.path.realpath(__file__)), 'configs', 'lm.json')",
    ],
)
def test_a_data_file_beside_the_module_by_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, path: str) -> None:
    """Probe 126a: the config found from `__file__`, wherever the run starts."""
    files = project("json", 129)
    files["train.py"] = "import os\n" + files["train.py"].replace("open('configs/lm.json')", f"open({path})")
    assert_reported(tmp_path, monkeypatch, capsys, files, 129)


def test_a_yaml_file_of_aliases_is_read_in_bounded_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Nine aliases of the level below in each of nine levels: 387 million values if walked."""
    levels = ["a0: &a0 [129, 129, 129, 129, 129, 129, 129, 129, 129]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    files = project("yaml", 129)
    files["configs/lm.yaml"] = "\n".join(levels) + "\nmodel:\n  seq_len: 129\n"
    write(tmp_path, files)
    assert lines(tmp_path, monkeypatch, capsys) == []  # (the whole file is unknown: too many values)


def test_a_config_folder_named_by_a_module_constant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Probe 130b: `HERE = dirname(abspath(__file__))`, `CONFIG_DIR = join(HERE, "configs")`,
    then `open(join(CONFIG_DIR, "lm.json"))`."""
    files = project("json", 129)
    files["train.py"] = (
        "import os\n\nHERE = os.path.dirname(os.path.abspath(__file__))\nCONFIG_DIR = os.path.join(HERE, 'configs')\n"
        + files["train.py"].replace("open('configs/lm.json')", "open(os.path.join(CONFIG_DIR, 'lm.json'))")
    )
    assert_reported(tmp_path, monkeypatch, capsys, files, 129)


@pytest.mark.parametrize(
    "reads",
    [
        "yaml.safe_load((Path(__file__).parent / 'configs' / 'lm.yaml').read_text())",
        "yaml.safe_load(open(Path(__file__).resolve().parent / 'configs' / 'lm.yaml'))",
        "yaml.safe_load(CONFIG_DIR.joinpath('lm.yaml').open())",
        "yaml.safe_load(open(str(CONFIG_DIR / 'lm.yaml')))",
        "yaml.safe_load(Path('configs/lm.yaml').read_text(encoding='utf-8'))",
    ],
)
def test_a_config_named_by_pathlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, reads: str) -> None:
    files = project("yaml", 129)
    files["train.py"] = "from pathlib import Path\n\nCONFIG_DIR = Path(__file__).parent / 'configs'\n" + files["train.py"].replace(
        "yaml.safe_load(open('configs/lm.yaml'))", reads
    )
    assert_reported(tmp_path, monkeypatch, capsys, files, 129)


def test_a_path_from_the_working_directory_is_not_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    files = project("yaml", 129)
    files["train.py"] = "from pathlib import Path\n" + files["train.py"].replace("yaml.safe_load(open('configs/lm.yaml'))", "yaml.safe_load((Path.cwd() / 'configs' / 'lm.yaml').read_text())")
    write(tmp_path, files)
    assert lines(tmp_path, monkeypatch, capsys) == []


def test_a_config_folder_built_in_another_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Probe 131a: `CONFIG_DIR = os.path.join(ROOT, "configs")` in paths.py, the file name
    joined to it in train.py."""
    files = project("json", 129)
    files["paths.py"] = "import os\n\nROOT = os.path.dirname(os.path.abspath(__file__))\nCONFIG_DIR = os.path.join(ROOT, 'configs')\n"
    files["train.py"] = "import os\n\nfrom paths import CONFIG_DIR\n" + files["train.py"].replace("open('configs/lm.json')", "open(os.path.join(CONFIG_DIR, 'lm.json'))")
    assert_reported(tmp_path, monkeypatch, capsys, files, 129)


@pytest.mark.parametrize("asked", ["no", "option", "pyproject"])
def test_data_configs_are_read_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, asked: str) -> None:
    """Off by default: probes 132a and 133a found a config on disk that the documented run
    rewrites first (a Dockerfile's COPY, a dvc stage, a Makefile rule) in ways no scan sees."""
    files = project("json", 129)
    if asked == "pyproject":
        files["pyproject.toml"] = "[tool.jax-cudnn-lint]\nread-data-configs = true\n"
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    main(["--exit-zero", "-j1", "--no-cache", *(["--read-data-configs"] if asked == "option" else []), "."])
    got = [line for line in capsys.readouterr().out.splitlines() if "JCD" in line]
    assert len(got) == (0 if asked == "no" else 1)
