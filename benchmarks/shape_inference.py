"""How much of real attention code the analysis resolves, and what it costs.

    python benchmarks/shape_inference.py
    python benchmarks/shape_inference.py --packages flax,equinox --repeat 5

For the attention-bearing files (those that pass the gate) of maxtext, gemma,
easydel, flax, equinox and dm-haiku (corpus: benchmarks/corpus.py):

* resolution: every call site whose target the analysis resolves to
  ``jax.nn.dot_product_attention`` or ``fused_attention_stablehlo.dot_product_attention``
  (directly, through aliases, ``functools.partial`` or ``attention_fn=`` values), and
  how many of those have T and S resolved: exact value known, or at least the parity
  (all that JCD201/JCD202 need).  A site counts as resolved if any evaluation of it
  resolved.  For context: the syntactic calls named ``*dot_product_attention`` in the
  same files (these include flax/nnx/haiku lookalikes that never reach cuDNN).
  The events come from ``shape_inference.analyse`` in project mode (gated files are
  the entry modules, the package's other files load on demand, as the command does),
  read by ``lint_rules.attention_call.read_attention``.
* cost: ``engine.lint_tree`` per gated file (rules included) against ``ast.parse`` of
  the same text, both measured here (best of --repeat), per thousand lines, and the
  ratio.  Target: analysis within 3x of parsing.  Project mode is timed too (it parses
  the modules it loads on demand, so its time includes some parsing).
"""

from __future__ import annotations

import argparse
import ast
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from common import machine_header
from corpus import corpus_dir, package_dir
from jax_cudnn_lint import engine
from jax_cudnn_lint.config import Config
from jax_cudnn_lint.lint_rules.attention_call import read_attention
from jax_cudnn_lint.lint_rules.targets import watch
from jax_cudnn_lint.shape_inference import analyse

DEFAULT_PACKAGES = "maxtext,gemma,easydel,flax,equinox,dm-haiku"


@dataclass
class Site:
    path: str
    line: int
    exact: bool = False
    parity: bool = False
    cudnn: bool = False
    generic_only: bool = True


@dataclass
class PackageResult:
    name: str
    files: int = 0
    gated: int = 0
    gated_lines: int = 0
    syntactic: int = 0
    sites: dict[tuple[str, int, int], Site] = field(default_factory=dict)
    parse_s: float = 0.0
    lint_s: float = 0.0
    project_s: float = 0.0
    lazy_loaded: int = 0
    errors: list[str] = field(default_factory=list)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _syntactic_calls(tree: ast.Module) -> int:
    n = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            n += name.endswith("dot_product_attention")
    return n


def measure(name: str, root: Path, repeat: int) -> PackageResult:
    res = PackageResult(name)
    base = package_dir(name, root)
    texts: dict[str, str] = {}
    others: dict[str, Path] = {}
    for path in sorted(base.rglob("*.py")):
        res.files += 1
        text = _read(path)
        if text is None:
            continue
        if engine.might_matter(text):
            texts[str(path)] = text
        else:
            others[str(path)] = path
    config = Config()
    trees: dict[str, ast.Module] = {}
    for path, text in texts.items():
        try:
            tree = ast.parse(text, path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        trees[path] = tree
        res.gated += 1
        res.gated_lines += text.count("\n")
        res.syntactic += _syntactic_calls(tree)
        res.parse_s += _best(lambda t=text, p=path: ast.parse(t, p), repeat)
        best = float("inf")
        for _ in range(repeat):
            fresh = ast.parse(text, path)
            start = time.perf_counter()
            try:
                engine.lint_tree(fresh, path, config)
            except Exception as exc:  # noqa: BLE001 - report, go on
                res.errors.append(f"{path}: {type(exc).__name__}: {exc}")
                break
            best = min(best, time.perf_counter() - start)
        if best != float("inf"):
            res.lint_s += best

    loaded: list[str] = []

    def parser_for(p: Path) -> Callable[[], ast.Module | None]:
        def load() -> ast.Module | None:
            loaded.append(str(p))
            text = _read(p)
            if text is None:
                return None
            try:
                return ast.parse(text, str(p))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None

        return load

    lazy = {path: parser_for(p) for path, p in others.items()}
    start = time.perf_counter()
    try:
        analysis = analyse(dict(trees), watch, root=str(base), lazy=lazy)
    except Exception as exc:  # noqa: BLE001
        res.errors.append(f"project analysis: {type(exc).__name__}: {exc}")
        return res
    res.project_s = time.perf_counter() - start
    res.lazy_loaded = len(set(loaded))
    for event in analysis.events:
        call = read_attention(event)
        if call is None:
            continue
        node = event.node
        key = (event.module.path, node.lineno, node.col_offset)
        site = res.sites.setdefault(key, Site(event.module.path, node.lineno))
        site.cudnn |= call.is_cudnn
        site.generic_only &= event.generic
        if call.T is not None and call.S is not None:
            site.exact |= call.T.value is not None and call.S.value is not None
            site.parity |= call.T.parity() is not None and call.S.parity() is not None
    return res


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f} %)" if b else "0/0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--packages", default=DEFAULT_PACKAGES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", help="corpus folder")
    parser.add_argument("--sites", action="store_true", help="list every resolved site")
    args = parser.parse_args(argv)
    root = corpus_dir(args.dir)
    print(machine_header())
    results = [measure(n.strip(), root, args.repeat) for n in args.packages.split(",") if n]
    print(
        f"{'package':<10} {'files':>6} {'gated':>6} {'klines':>7} {'named':>6} "
        f"{'sites':>6} {'T,S exact':>14} {'T,S parity':>14} {'parse':>8} {'lint':>8} "
        f"{'ratio':>6} {'project':>8} {'lazy':>5}"
    )
    tot = PackageResult("total")
    for r in results:
        n_sites = len(r.sites)
        exact = sum(s.exact for s in r.sites.values())
        parity = sum(s.parity for s in r.sites.values())
        ratio = r.lint_s / r.parse_s if r.parse_s else 0.0
        print(
            f"{r.name:<10} {r.files:>6} {r.gated:>6} {r.gated_lines / 1000:>7.1f} "
            f"{r.syntactic:>6} {n_sites:>6} {_pct(exact, n_sites):>14} "
            f"{_pct(parity, n_sites):>14} {r.parse_s:>7.2f}s {r.lint_s:>7.2f}s "
            f"{ratio:>6.2f} {r.project_s:>7.2f}s {r.lazy_loaded:>5}"
        )
        for e in r.errors:
            print(f"  ERROR {e}")
        tot.files += r.files
        tot.gated += r.gated
        tot.gated_lines += r.gated_lines
        tot.syntactic += r.syntactic
        tot.sites.update({(r.name, *k): v for k, v in r.sites.items()})  # type: ignore[misc]
        tot.parse_s += r.parse_s
        tot.lint_s += r.lint_s
        tot.project_s += r.project_s
        tot.lazy_loaded += r.lazy_loaded
    n_sites = len(tot.sites)
    exact = sum(s.exact for s in tot.sites.values())
    parity = sum(s.parity for s in tot.sites.values())
    ratio = tot.lint_s / tot.parse_s if tot.parse_s else 0.0
    kl = max(tot.gated_lines / 1000, 1e-9)
    print(
        f"{'total':<10} {tot.files:>6} {tot.gated:>6} {kl:>7.1f} {tot.syntactic:>6} "
        f"{n_sites:>6} {_pct(exact, n_sites):>14} {_pct(parity, n_sites):>14} "
        f"{tot.parse_s:>7.2f}s {tot.lint_s:>7.2f}s {ratio:>6.2f} {tot.project_s:>7.2f}s "
        f"{tot.lazy_loaded:>5}"
    )
    print(
        f"per thousand lines: ast.parse {1000 * tot.parse_s / kl:.1f} ms, analysis (lint_tree) "
        f"{1000 * tot.lint_s / kl:.1f} ms: ratio {ratio:.2f} (target <= 3) "
        f"[{'met' if ratio <= 3 else 'NOT met'}]"
    )
    cudnn = [s for s in tot.sites.values() if s.cudnn]
    print(
        f"sites that reach cuDNN (implementation='cudnn' resolved, or the fused API): "
        f"{len(cudnn)}; with T,S parity: {sum(s.parity for s in cudnn)}"
    )
    if args.sites:
        for s in sorted(tot.sites.values(), key=lambda s: (s.path, s.line)):
            print(
                f"  {s.path}:{s.line} cudnn={s.cudnn} exact={s.exact} parity={s.parity} "
                f"generic_only={s.generic_only}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
