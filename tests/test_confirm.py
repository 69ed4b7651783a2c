"""run_confirm end to end: child processes, crashes, hangs, the cache, Ctrl-C, progress.

One main run (module fixture) pays `import jax` in as few children as the crashes allow;
the runner's bookkeeping (cache misses, Ctrl-C) is tested with a fake child.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jax_cudnn_lint.confirm import main, run_confirm
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.kernels import repro as R
from jax_cudnn_lint.kernels import runner
from jax_cudnn_lint.kernels.cache import CACHE_FORMAT, VerdictCache, cache_dir

pytest.importorskip("jax")

ENV_KEYS = {"jax", "jaxlib", "cudnn", "device", "target"}


def jcd201(t: int, *, bias: bool = False) -> dict[str, Any]:
    return R.attention_repro(
        code="JCD201",
        expect=R.odd_seqlen_expect(t, t),
        query=[1, t, 2, 64],
        bias=[1, 2, t, t] if bias else None,
        differentiated=True,
        shrunk=["batch", "heads"],
    )


def jcd101(dropout: float) -> dict[str, Any]:
    return R.lstm_repro(
        code="JCD101",
        expect=R.expect_message("NotImplementedError", R.LSTM_REF_DROPOUT_MESSAGE),
        batch=2,
        seq_len=5,
        input_size=3,
        hidden_size=4,
        dropout=dropout,
        differentiated=True,
        shrunk=["batch"],
    )


def hook(api: str) -> dict[str, Any]:
    return {
        "schema": R.SCHEMA,
        "code": "JCD999",
        "api": api,
        "differentiated": False,
        "arrays": {},
        "kwargs": {},
        "expect": {"exception": "RuntimeError", "message_regex": ""},
    }


def finding(repro: dict[str, Any] | None, line: int, code: str = "JCD201") -> Finding:
    return Finding(code, "train.py", line, 4, "msg", repro=repro)


@pytest.fixture(scope="module")
def isolated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache directory shared by the main run and the cache test, and the test hooks."""
    mp = pytest.MonkeyPatch()
    cache_home = tmp_path_factory.mktemp("confirm-cache")
    mp.setenv(R.TEST_HOOKS_ENV, "1")
    yield cache_home
    mp.undo()


MAIN = [
    finding(jcd201(511), 10),  # 0 confirmed
    finding(jcd201(7, bias=True), 11),  # 1 confirmed
    finding(hook("test.segfault"), 12, "JCD999"),  # 2 the child dies
    finding(jcd201(512), 13),  # 3 refuted (in a fresh child)
    finding(hook("test.exit"), 14, "JCD999"),  # 4 the child exits
    finding(jcd101(0.5), 15, "JCD101"),  # 5 confirmed by execution
    finding(None, 16),  # 6 no repro
    finding({**jcd201(7), "api": "jax.nn.relu"}, 17),  # 7 malformed
    finding(jcd101(0.0), 18, "JCD101"),  # 8 refuted: lstm_ref runs
]


@pytest.fixture(scope="module")
def main_run(isolated: Path) -> tuple[list[dict[str, Any]], str, int]:
    starts = 0
    real_start = runner.start_child

    def counting(backend: str, startup_timeout: float) -> runner.ChildProcess:
        nonlocal starts
        starts += 1
        return real_start(backend, startup_timeout)

    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(isolated))
    mp.setattr(runner, "start_child", counting)
    err = io.StringIO()
    mp.setattr("sys.stderr", err)
    try:
        results = run_confirm(MAIN, timeout=60.0, progress=True)
    finally:
        mp.undo()
    return results, err.getvalue(), starts


def test_one_verdict_per_finding_in_order(main_run: tuple[list[dict[str, Any]], str, int]) -> None:
    results, _, starts = main_run
    assert [r["verdict"] for r in results] == [
        "confirmed",
        "confirmed",
        "inconclusive",
        "refuted",
        "inconclusive",
        "confirmed",
        "inconclusive",
        "inconclusive",
        "refuted",
    ]
    assert starts == 3  # the first child, then one after each crash
    for r in results:
        assert set(r) >= {"verdict", "detail", "backend", "environment"}
        assert set(r["environment"]) == ENV_KEYS
        assert r["cached"] is False


def test_jcd201_confirmed_by_the_trace_backend(
    main_run: tuple[list[dict[str, Any]], str, int],
) -> None:
    results, _, _ = main_run
    first = results[0]
    assert first["backend"] == "trace"  # auto on a host without CUDA
    assert "NotImplementedError: Unsupported sequence length Q 511, KV 511." in first["detail"]
    assert "padded_dot_product_attention) traces clean" in first["detail"]
    env = first["environment"]
    assert env["cudnn"] == "9.10"
    assert env["target"]["gpu"] == "sm90" and env["target"]["emulated"] is True
    import jax

    assert env["jax"] == jax.__version__
    assert "Q 7, KV 7." in results[1]["detail"]
    assert results[3]["detail"].startswith("ran clean tracing for sm90 with cuDNN 9.10")


def test_lstm_verdicts_come_from_execution(
    main_run: tuple[list[dict[str, Any]], str, int],
) -> None:
    results, _, _ = main_run
    assert results[5]["backend"] == "execute"
    assert R.LSTM_REF_DROPOUT_MESSAGE in results[5]["detail"]
    assert results[8]["backend"] == "execute"


def test_crashes_cost_one_verdict(main_run: tuple[list[dict[str, Any]], str, int]) -> None:
    results, _, _ = main_run
    assert "killed by SIGSEGV" in results[2]["detail"]
    assert "exited with status 3" in results[4]["detail"]


def test_no_repro_and_malformed(main_run: tuple[list[dict[str, Any]], str, int]) -> None:
    results, _, _ = main_run
    assert results[6]["detail"].startswith("no repro (a value was not resolved, or an argument the repro schema cannot carry")
    assert results[7]["detail"].startswith("malformed repro: api must be one of")


def test_progress_lines_when_not_a_terminal(
    main_run: tuple[list[dict[str, Any]], str, int],
) -> None:
    _, err, _ = main_run
    lines = err.splitlines()
    assert len(lines) == len(MAIN)
    assert "confirm 9/9: " in lines[-1]
    assert any(line.endswith("JCD201 train.py:10: confirmed") for line in lines)


def test_second_run_is_served_from_the_cache(
    main_run: tuple[list[dict[str, Any]], str, int],
    isolated: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    results, _, _ = main_run
    monkeypatch.setenv("XDG_CACHE_HOME", str(isolated))  # conftest gives each test its own

    def no_child(backend: str, startup_timeout: float) -> runner.ChildProcess:
        raise AssertionError("a child was started although every verdict is cached")

    monkeypatch.setattr(runner, "start_child", no_child)
    decided = [f for f, r in zip(MAIN, results) if r["verdict"] in ("confirmed", "refuted")]
    again = run_confirm(decided, timeout=60.0)
    want = [r for r in results if r["verdict"] in ("confirmed", "refuted")]
    assert [a["verdict"] for a in again] == [w["verdict"] for w in want]
    assert [a["detail"] for a in again] == [w["detail"] for w in want]
    assert all(a["cached"] for a in again)
    assert cache_dir() == isolated / "jax-cudnn-lint" / "confirm"
    files = sorted(cache_dir().glob("*.json"))
    assert len(files) == len(decided)
    assert not list(cache_dir().glob("*.tmp"))  # atomic writes leave nothing behind
    # A different target is a different key.
    with pytest.raises(AssertionError, match="a child was started"):
        run_confirm(decided[:1], gpu="sm80")


def test_hang_times_out_and_the_rest_still_runs(isolated: Path) -> None:
    results = run_confirm(
        [finding(hook("test.hang"), 1, "JCD999"), finding(jcd201(9), 2)],
        timeout=3.0,
        use_cache=False,
    )
    assert results[0]["verdict"] == "inconclusive"
    assert "timed out after 3 s" in results[0]["detail"]
    assert "the child was killed" in results[0]["detail"]
    assert results[1]["verdict"] == "confirmed", results[1]["detail"]


_PARENT = """
import json, os, sys
from jax_cudnn_lint.kernels import runner
child = runner.ChildProcess(os.environ, 300)
print(child.proc.pid, flush=True)
child.run(1, {"op": "run", "id": 1, "repro": json.loads(sys.argv[1]), "backend": "trace", "target": {"gpu": "sm90", "cudnn": "9.10"}}, 600)
"""


@pytest.mark.skipif(not hasattr(os, "getppid") or sys.platform == "win32", reason="POSIX parents")
def test_a_child_whose_parent_is_killed_exits(isolated: Path) -> None:
    # the child runs in its own session, out of reach of the parent's group: a parent
    # killed outright (SIGKILL, a cancelled CI job) must not leave it spinning on a hung
    # repro (a killed test run left one running for an hour)
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, json.dumps(hook("test.hang"))],
        stdout=subprocess.PIPE, text=True, env={**os.environ, R.TEST_HOOKS_ENV: "1"},
    )
    assert parent.stdout is not None
    child_pid = int(parent.stdout.readline())
    time.sleep(1.0)  # (the hang has begun)
    os.kill(child_pid, 0)  # alive while its parent is
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(child_pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(child_pid, 9)
    pytest.fail("the child outlived its parent by 20 s")


def test_command_line(isolated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "repros.json"
    path.write_text(json.dumps([jcd201(7), jcd201(8)]), encoding="utf-8")
    code = main([str(path), "--backend", "trace", "--gpu", "sm100", "--no-cache", "--json"])
    verdicts = json.loads(capsys.readouterr().out)
    assert [v["verdict"] for v in verdicts] == ["confirmed", "refuted"]
    assert verdicts[0]["environment"]["target"]["gpu"] == "sm100"
    assert code == 1  # not everything confirmed
    assert main([str(path), "--gpu", "h100"]) == 2


def test_command_line_confirms_a_report_for_its_targets(isolated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # probe 39a: a report linted for sm80 was confirmed for sm90, and one linted for another
    # JAX release was refuted by the installed one without a word
    report = {
        "targets": {"jax_version": "0.4.30", "gpu": "sm100", "cudnn": "9.10"},
        "findings": [{"code": "JCD201", "path": "a.py", "line": n, "repro": jcd201(t)} for n, t in ((1, 7), (2, 8))],
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    main([str(path), "--backend", "trace", "--no-cache", "--json"])
    verdicts = json.loads(capsys.readouterr().out)
    assert [v["verdict"] for v in verdicts] == ["confirmed", "inconclusive"]
    assert {v["environment"]["target"]["gpu"] for v in verdicts} == {"sm100"}
    assert "the code targets JAX 0.4.30" in verdicts[0]["detail"]
    assert verdicts[1]["detail"].startswith("refuted with the installed JAX ")


def test_a_refutation_by_another_jax_release_is_inconclusive() -> None:
    refuted = {"verdict": "refuted", "detail": "no exception"}
    assert runner.for_target_version(refuted, "0.10.2", "0.10.2") == refuted
    assert runner.for_target_version(refuted, "0.10.2", None) == refuted
    other = runner.for_target_version(refuted, "0.10.2", "0.8.1")
    assert other["verdict"] == "inconclusive" and "the code targets JAX 0.8.1" in other["detail"]
    assert runner.for_target_version(refuted, "0.10.2.dev1", "0.10.2")["verdict"] == "refuted"


# ------------------------------------------------------------------ the runner, with a fake child


class FakeProcess:
    def poll(self) -> int | None:
        return None


class FakeChild:
    """Answers like a child; raises KeyboardInterrupt on request number `interrupt_at`."""

    runs: list[dict[str, Any]]

    def __init__(self, interrupt_at: int | None = None) -> None:
        self.proc = FakeProcess()
        self.runs = []
        self.interrupt_at = interrupt_at
        self.killed = False
        self.closed = False

    def run(self, ident: int, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.interrupt_at is not None and len(self.runs) == self.interrupt_at:
            raise KeyboardInterrupt
        self.runs.append(request)
        return {
            "op": "verdict",
            "id": ident,
            "verdict": "confirmed",
            "detail": f"fake {ident}",
            "backend": "trace",
            "environment": {
                "jax": "x",
                "jaxlib": "x",
                "cudnn": None,
                "device": "fake",
                "target": {},
            },
        }

    def kill(self) -> None:
        self.killed = True

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "jax-cudnn-lint" / "confirm"


def test_no_cache_neither_reads_nor_writes(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    children: list[FakeChild] = []

    def start(backend: str, startup_timeout: float) -> FakeChild:
        children.append(FakeChild())
        return children[-1]

    monkeypatch.setattr(runner, "start_child", start)
    findings = [finding(jcd201(7), 1), finding(jcd201(9), 2)]
    run_confirm(findings)  # fills the cache
    assert len(children) == 1 and len(children[0].runs) == 2 and children[0].closed
    assert len(list(fresh_cache.glob("*.json"))) == 2
    results = run_confirm(findings, use_cache=False)
    assert len(children) == 2 and len(children[1].runs) == 2
    assert not any(r["cached"] for r in results)
    results = run_confirm(findings)
    assert len(children) == 2 and all(r["cached"] for r in results)


def test_ctrl_c_keeps_what_was_obtained(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    child = FakeChild(interrupt_at=1)
    monkeypatch.setattr(runner, "start_child", lambda backend, startup_timeout: child)
    findings = [finding(jcd201(7), 1), finding(jcd201(9), 2), finding(jcd201(11), 3)]
    results = run_confirm(findings)
    assert [r["verdict"] for r in results] == ["confirmed", "inconclusive", "inconclusive"]
    assert results[1]["detail"] == "not run: interrupted (Ctrl-C)"
    assert child.killed
    assert len(list(fresh_cache.glob("*.json"))) == 1  # the first verdict is kept
    assert run_confirm(findings[:1])[0]["cached"]


def test_a_child_that_cannot_start(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def start(backend: str, startup_timeout: float) -> FakeChild:
        raise runner.ChildFailure("cannot start JAX: ImportError: no jaxlib")

    monkeypatch.setattr(runner, "start_child", start)
    results = run_confirm([finding(jcd201(7), 1), finding(jcd201(9), 2)])
    assert all(r["verdict"] == "inconclusive" for r in results)
    assert all("failed to start: cannot start JAX" in r["detail"] for r in results)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="backend"):
        run_confirm([], backend="gpu")
    with pytest.raises(ValueError, match="unknown GPU target"):
        run_confirm([], gpu="h100")
    with pytest.raises(ValueError, match="timeout"):
        run_confirm([], timeout=0)
    assert run_confirm([]) == []


def test_cache_files_are_checked(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    result = {"verdict": "confirmed", "detail": "d", "backend": "trace", "environment": {}}
    assert cache.put("k", result)
    assert cache.get("k") == result
    assert not cache.put("i", {**result, "verdict": "inconclusive"})  # never cached
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    assert cache.get("bad") is None
    (tmp_path / "old.json").write_text(json.dumps({"format": "other", "result": result}))
    assert cache.get("old") is None
    assert json.loads((tmp_path / "k.json").read_text())["format"] == CACHE_FORMAT
    assert sorted(os.listdir(tmp_path)) == ["bad.json", "k.json", "old.json"]


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal() -> None:
    stream = Tty()
    bar = runner.Progress(3, True, stream)
    for i in range(3):
        bar.update(f"JCD201 a.py:{i}", "confirmed")
    text = stream.getvalue()
    assert text.count("\r") == 3 and text.endswith("\n")
    assert "[########################] 3/3" in text
    single = Tty()
    runner.Progress(1, True, single).update("x", "refuted")
    assert single.getvalue() == "confirm 1/1: x: refuted\n"  # one repro: a plain line
    quiet = Tty()
    runner.Progress(3, False, quiet).update("x", "refuted")
    assert quiet.getvalue() == ""


def test_memory_cap_without_cuda() -> None:
    import subprocess
    import sys

    code = (
        "from jax_cudnn_lint.kernels.child import limit_memory\n"
        "assert limit_memory(True) is None\n"
        "assert limit_memory(False) is not None\n"
        "try:\n"
        "    block = bytearray(1024 * 2**20)\n"
        "except MemoryError:\n"
        "    print('capped')\n"
    )
    env = {**os.environ, "JCD_CONFIRM_MEMORY_MB": "256"}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "capped"


def _copy_package(dest: Path) -> None:
    """This package as a plain folder under dest, whatever way it is installed here."""
    import importlib.util
    import shutil

    import jax_cudnn_lint

    for name in ["", ".lint_rules", ".shape_inference", ".kernels", ".rule_pages"]:
        spec = importlib.util.find_spec("jax_cudnn_lint" + name)
        assert spec is not None and spec.submodule_search_locations, name
        src = Path(next(iter(spec.submodule_search_locations)))
        target = dest / "jax_cudnn_lint" / name.lstrip(".")
        target.mkdir(parents=True, exist_ok=True)
        for item in src.iterdir():
            if item.is_file() and item.suffix in {".py", ".md", ".typed"}:
                shutil.copy2(item, target / item.name)
    assert (dest / "jax_cudnn_lint" / "kernels" / "child.py").is_file(), jax_cudnn_lint


def test_child_finds_packages_installed_on_pythonpath(tmp_path: Path) -> None:
    """jax and this package reachable only through PYTHONPATH (`pip install --target`):
    the isolated child must still import them (it failed to start on a GPU host so)."""
    import importlib.util
    import subprocess
    import venv

    jax_spec = importlib.util.find_spec("jax")
    assert jax_spec is not None and jax_spec.origin
    site = Path(jax_spec.origin).parent.parent
    _copy_package(tmp_path / "target")
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(tmp_path / "bare")
    bare_python = tmp_path / "bare" / ("Scripts" if os.name == "nt" else "bin") / "python"
    (tmp_path / "repro.json").write_text(json.dumps(jcd101(0.5)), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "target"), str(site)])}
    proc = subprocess.run(
        [
            str(bare_python),
            "-m",
            "jax_cudnn_lint.confirm",
            "--backend",
            "trace",
            "--no-cache",
            "--json",
            str(tmp_path / "repro.json"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (verdict,) = json.loads(proc.stdout)
    assert verdict["verdict"] == "confirmed", verdict["detail"]


def test_isolation_puts_back_no_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PYTHONPATH of `.`, `src` or the working folder itself is the project's: left out."""
    monkeypatch.chdir(tmp_path)
    elsewhere = tmp_path.parent / "site-elsewhere"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([".", "src", str(tmp_path), str(elsewhere)]))
    kept = runner.isolation_dropped_paths()
    assert str(elsewhere) in kept
    assert not {".", "src", str(tmp_path)} & set(kept)
