"""Fetch a corpus of real JAX code (over a million lines of .py) for the benchmarks.

The corpus lives outside the repository, in a cache folder:

    --dir DIR  >  $JCD_CORPUS_DIR  >  ~/.cache/jax-cudnn-lint/corpus

Each package is fetched with pip, never installed and never imported:

    pip download --no-deps --only-binary=:all: --python-version 3.12 -d DIR/archives NAME==VER

with a fallback to the sdist (``--no-binary=:all:``) where the package ships no wheel.
Only the ``.py`` files of each archive are unpacked, into ``DIR/src/<name>/``; a
manifest (``DIR/manifest.json``) records version, file and line counts.

Versions are pinned (``PACKAGES`` below) so that every clone measures the same code;
``--latest`` ignores the pins.  Run:

    python benchmarks/corpus.py                 # fetch what is missing, print the table
    python benchmarks/corpus.py --only jax,flax # a subset
    python benchmarks/corpus.py --list          # print the table of what is there

Other benchmarks import ``corpus_dir``, ``package_dir`` and ``py_files`` from here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

DEFAULT_DIR = Path("~/.cache/jax-cudnn-lint/corpus").expanduser()


@dataclass(frozen=True)
class Package:
    name: str  # the PyPI name
    version: str  # the pin
    why: str


# Pinned so that numbers are comparable across runs and machines.  Not on PyPI (so not
# here): t5x, big_vision, flaxformer (GitHub only); the PyPI "scenic" is an unrelated
# project.  transformers is pinned to the last 4.x: 5.0 removed the Flax models.
PACKAGES: tuple[Package, ...] = (
    Package("jax", "0.10.2", "the API itself; the cuDNN attention wrapper"),
    Package("jaxlib", "0.10.2", "Python parts of jaxlib (wheel for this platform)"),
    Package("numpy", "2.4.6", "large non-JAX baseline, gate misses"),
    Package("flax", "0.12.12", "linen/nnx attention, dot_product_attention lookalikes"),
    Package("optax", "0.2.8", "gradients everywhere"),
    Package("equinox", "0.13.8", "eqx.nn.MultiheadAttention, filter_grad"),
    Package("dm-haiku", "0.0.17", "hk.MultiHeadAttention, LSTM"),
    Package("maxtext", "0.2.5", "LLM training: cuDNN attention paths"),
    Package("gemma", "4.0.1", "Gemma model code"),
    Package("easydel", "0.3.0", "many attention implementations"),
    Package("transformers", "4.57.6", "Flax models (modeling_flax_*.py)"),
    Package("penzai", "0.2.5", "attention in a research toolkit"),
    Package("levanter", "1.1", "named-tensor LLM training"),
    Package("praxis", "1.4.0", "Pax layers"),
    Package("paxml", "1.4.0", "Pax experiments"),
    Package("jraph", "0.0.6.dev0", "graph nets"),
    Package("chex", "0.1.92", "testing helpers"),
    Package("orbax-checkpoint", "0.12.8", "checkpointing, no attention"),
    Package("distrax", "0.1.9", "distributions"),
    Package("trax", "1.4.1", "LSTM and attention layers"),
    Package("keras", "3.15.1", "JAX backend calls jax.nn.dot_product_attention"),
    Package("diffrax", "0.7.2", "differential equations, heavy autodiff"),
    Package("rlax", "0.1.9", "RL building blocks"),
    Package("brax", "0.14.2", "physics, training loops"),
)

NOT_ON_PYPI = ("t5x", "big_vision", "flaxformer")


def corpus_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Where the corpus lives: --dir, else $JCD_CORPUS_DIR, else the user cache."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get("JCD_CORPUS_DIR")
    if env:
        return Path(env).expanduser().resolve()
    return DEFAULT_DIR


def package_dir(name: str, root: Path | None = None) -> Path:
    return (root or corpus_dir()) / "src" / name


def py_files(names: Iterable[str] | None = None, root: Path | None = None) -> list[Path]:
    """Every unpacked .py file of the named packages (all present packages if None)."""
    base = (root or corpus_dir()) / "src"
    if names is None:
        dirs = sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
    else:
        dirs = [base / n for n in names]
    out: list[Path] = []
    for d in dirs:
        if not d.is_dir():
            raise SystemExit(
                f"corpus package {d.name!r} missing under {base}: "
                f"run `python benchmarks/corpus.py --only {d.name}`"
            )
        out.extend(sorted(d.rglob("*.py")))
    return out


def count_lines(files: Iterable[Path]) -> tuple[int, int]:
    n_files = n_lines = 0
    for f in files:
        n_files += 1
        n_lines += f.read_bytes().count(b"\n")
    return n_files, n_lines


def _safe_member(name: str) -> PurePosixPath | None:
    """A .py member path that cannot escape the target folder, else None."""
    path = PurePosixPath(name)
    if path.suffix != ".py" or path.is_absolute() or ".." in path.parts:
        return None
    return path


def _unpack(archive: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    if archive.suffix == ".whl" or archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                rel = _safe_member(info.filename)
                if rel is None or info.is_dir():
                    continue
                dest = target.joinpath(*rel.parts)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(zf.read(info))
        return
    with tarfile.open(archive) as tf:
        for member in tf.getmembers():
            rel = _safe_member(member.name)
            if rel is None or not member.isfile():
                continue
            extracted = tf.extractfile(member)
            if extracted is None:
                continue
            dest = target.joinpath(*rel.parts)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(extracted.read())


def _archive_for(pkg: Package, version: str | None, archives: Path) -> Path | None:
    """The downloaded archive of pkg in archives, if any (names are normalised by pip)."""
    stem = pkg.name.replace("-", "_").lower()
    for path in sorted(archives.iterdir()) if archives.is_dir() else []:
        low = path.name.lower()
        dist = low.split("-", 1)[0].replace(".", "_")
        if dist == stem and (version is None or f"-{version}".lower() in low):
            return path
    return None


def _pip_download(spec: str, archives: Path) -> tuple[bool, str]:
    base = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(archives),
    ]
    wheel = base + ["--only-binary=:all:", "--python-version", "3.12", spec]
    proc = subprocess.run(wheel, capture_output=True, text=True, check=False)
    if proc.returncode == 0:
        return True, "wheel"
    sdist = base + ["--no-binary=:all:", spec]
    proc2 = subprocess.run(sdist, capture_output=True, text=True, check=False)
    if proc2.returncode == 0:
        return True, "sdist"
    return False, (proc.stderr.strip().splitlines() or ["?"])[-1] + " | " + (
        proc2.stderr.strip().splitlines() or ["?"]
    )[-1]


def fetch(packages: Iterable[Package], root: Path, latest: bool, force: bool) -> dict[str, dict]:
    archives = root / "archives"
    archives.mkdir(parents=True, exist_ok=True)
    manifest_path = root / "manifest.json"
    manifest: dict[str, dict] = {}
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text())
    for pkg in packages:
        version = None if latest else pkg.version
        src = package_dir(pkg.name, root)
        entry = manifest.get(pkg.name)
        if not force and entry and src.is_dir() and (latest or entry.get("version") == pkg.version):
            continue
        archive = None if force else _archive_for(pkg, version, archives)
        kind = "cached"
        if archive is None:
            spec = pkg.name if latest else f"{pkg.name}=={pkg.version}"
            ok, kind = _pip_download(spec, archives)
            if not ok:
                print(f"  {pkg.name}: download failed: {kind}", file=sys.stderr)
                manifest[pkg.name] = {"error": kind}
                continue
            archive = _archive_for(pkg, version, archives)
            if archive is None:
                print(f"  {pkg.name}: pip succeeded but no archive found", file=sys.stderr)
                continue
        if src.exists():
            _rmtree(src)
        _unpack(archive, src)
        n_files, n_lines = count_lines(src.rglob("*.py"))
        got_version = archive.name.split("-")[1]
        manifest[pkg.name] = {
            "version": got_version,
            "archive": archive.name,
            "kind": kind,
            "files": n_files,
            "lines": n_lines,
        }
        print(f"  fetched {pkg.name} {got_version} ({archive.name})", file=sys.stderr)
        manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True))
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True))
    return manifest


def _rmtree(path: Path) -> None:
    for child in sorted(path.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if child.is_dir() and not child.is_symlink():
            child.rmdir()
        else:
            child.unlink()
    path.rmdir()


def table(manifest: dict[str, dict], names: Iterable[str]) -> Iterator[str]:
    total_files = total_lines = 0
    yield f"{'package':<18} {'version':<12} {'files':>7} {'lines':>10}"
    for name in names:
        entry = manifest.get(name)
        if not entry or "error" in entry:
            why = entry["error"] if entry else "not fetched"
            yield f"{name:<18} {'-':<12} {'-':>7} {'-':>10}  ({why})"
            continue
        total_files += entry["files"]
        total_lines += entry["lines"]
        yield f"{name:<18} {entry['version']:<12} {entry['files']:>7} {entry['lines']:>10,}"
    yield f"{'total':<18} {'':<12} {total_files:>7} {total_lines:>10,}"
    yield f"not on PyPI (skipped): {', '.join(NOT_ON_PYPI)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--dir", help="corpus folder (default $JCD_CORPUS_DIR or ~/.cache/jax-cudnn-lint/corpus)"
    )
    parser.add_argument("--only", help="comma-separated PyPI names")
    parser.add_argument("--latest", action="store_true", help="ignore the version pins")
    parser.add_argument("--force", action="store_true", help="download and unpack again")
    parser.add_argument("--list", action="store_true", help="only print the table")
    args = parser.parse_args(argv)
    root = corpus_dir(args.dir)
    wanted = PACKAGES
    if args.only:
        names = {n.strip() for n in args.only.split(",") if n.strip()}
        unknown = names - {p.name for p in PACKAGES}
        wanted = tuple(p for p in PACKAGES if p.name in names) + tuple(
            Package(n, "", "ad hoc") for n in sorted(unknown)
        )
        if unknown:
            print(f"not in the pinned table (fetching latest): {sorted(unknown)}", file=sys.stderr)
    if args.list:
        path = root / "manifest.json"
        manifest = json.loads(path.read_text()) if path.is_file() else {}
    else:
        print(f"corpus folder: {root}", file=sys.stderr)
        manifest = fetch(wanted, root, args.latest, args.force)
        ad_hoc = [p for p in wanted if not p.version]
        if ad_hoc:
            fetch(ad_hoc, root, True, args.force)
            manifest = json.loads((root / "manifest.json").read_text())
    for line in table(manifest, [p.name for p in wanted]):
        print(line)
    failed = [p.name for p in wanted if "error" in manifest.get(p.name, {"error": 1})]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
