"""Version and target gates: which JAX release, GPU and cuDNN a rule is judged for.

Every gate reads the run's `Config`:

* `Config.jax_version_tuple`: the installed JAX (package metadata, never `import jax`)
  or `--jax-version`.  **None (JAX not installed, nothing given) means the newest
  behaviour the catalog knows**: JAX at the catalog's HEAD, after 0.11.0.  A check that
  is fixed there (FA-20) or was removed (NN-6) is then not reported; a check that only
  newer releases have is.
* `Config.gpu_capability` (default sm90) and `Config.cudnn_tuple` (default 9.10): the
  target that JAX's three cuDNN probes would answer for (catalog, section 5).

The version boundaries are the catalog's "introduced" column (first tag that contains
the commit); they are kept here, one place, so the rule pages can cite them.
"""

from __future__ import annotations

from jax_cudnn_lint.config import Config

Version = tuple[int, ...]

# jax.nn.dot_product_attention(implementation="cudnn") exists since 0.4.31.
NN_CUDNN_SINCE: Version = (0, 4, 31)
# The newest release the catalog covers; HEAD (unreleased) is after it.
NEWEST_RELEASE: Version = (0, 11, 0)
# The batching rule of PR #39451 (fixes FA-20), in the first release after 0.11.0: it
# batches an unbatched operand, so an unbatched bias/mask of shape (B, 1, T, S) now meets
# FA-21's reshape (seen on JAX 0.11.2 with an H200; benchmarks/RESULTS.md).
VMAP_BATCHES_UNBATCHED: Version = (0, 11, 1)


def jax_version(config: Config) -> Version | None:
    return config.jax_version_tuple


def since(config: Config, first: Version) -> bool:
    """The behaviour introduced in `first` is present (unknown version: yes, newest)."""
    version = config.jax_version_tuple
    return version is None or version >= first


def before(config: Config, fixed: Version) -> bool:
    """The version is known and older than `fixed` (unknown version: no, newest)."""
    version = config.jax_version_tuple
    return version is not None and version < fixed


def within(config: Config, first: Version, last: Version) -> bool:
    """first <= version <= last, for behaviour that was later removed (unknown: no)."""
    version = config.jax_version_tuple
    return version is not None and first <= version[: len(last)] <= last


def render_version(version: Version | None) -> str:
    if version is None:
        return "the newest JAX (version unknown)"
    return "JAX " + ".".join(str(p) for p in version)


def cc_text(config: Config) -> str:
    major, minor = config.gpu_capability
    return f"{major}.{minor}"


def cudnn_text(config: Config) -> str:
    parts = config.cudnn_tuple
    return ".".join(str(p) for p in parts[:2]) if len(parts) >= 2 else ".".join(str(p) for p in parts)


def target_phrase(config: Config) -> str:
    """'sm90 (compute capability 9.0), cuDNN 9.10, JAX 0.10.2': the target of a verdict."""
    major, minor = config.gpu_capability
    return f"sm{major}{minor} (compute capability {major}.{minor}), cuDNN {cudnn_text(config)}, {render_version(config.jax_version_tuple)}"


def cc_at_least(config: Config, major: int, minor: int) -> bool:
    return config.gpu_capability >= (major, minor)


def cc_equal(config: Config, major: int, minor: int) -> bool:
    return config.gpu_capability == (major, minor)


def cudnn_at_least(config: Config, major: int, minor: int) -> bool:
    parts = tuple(config.cudnn_tuple) + (0, 0)
    return (parts[0], parts[1]) >= (major, minor)


def head_dim_max(config: Config) -> tuple[int, str] | None:
    """FA-14: the largest head dim JAX lets through to cuDNN (non-fp8), and why.

    None before 0.4.29 (no such check in that form).  History (catalog FA-14):
    0.4.29-0.4.38: 128; 0.5.0: 256 if cuDNN >= 9.5 and cc >= 9.0; 0.5.1-0.7.x: 256 only
    if cc == 9.0 and cuDNN >= 9.5; 0.8.0-0.8.1: 256 iff cc == 9.0; 0.8.2+: 256 iff cc >= 9.0.
    """
    version = config.jax_version_tuple
    cc = cc_text(config)
    if version is not None and version < (0, 4, 29):
        return None
    if version is not None and version < (0, 5, 0):
        return 128, "JAX < 0.5.0 allows head dims up to 128 on every GPU"
    if version is not None and version < (0, 5, 1):
        if cudnn_at_least(config, 9, 5) and cc_at_least(config, 9, 0):
            return 256, f"JAX 0.5.0 allows 256 with cuDNN >= 9.5 on compute capability >= 9.0 (target {cc})"
        return 128, f"JAX 0.5.0 allows 256 only with cuDNN >= 9.5 on compute capability >= 9.0 (target {cc}, cuDNN {cudnn_text(config)})"
    if version is not None and version < (0, 8, 0):
        if cc_equal(config, 9, 0) and cudnn_at_least(config, 9, 5):
            return 256, f"JAX 0.5.1-0.7.x allows 256 on compute capability 9.0 exactly with cuDNN >= 9.5 (target {cc})"
        return 128, f"JAX 0.5.1-0.7.x allows 256 only on compute capability 9.0 exactly with cuDNN >= 9.5 (target {cc}, cuDNN {cudnn_text(config)})"
    if version is not None and version < (0, 8, 2):
        if cc_equal(config, 9, 0):
            return 256, f"JAX 0.8.0-0.8.1 allows 256 on compute capability 9.0 exactly (target {cc})"
        return 128, f"JAX 0.8.0-0.8.1 allows 256 only on compute capability 9.0 exactly (target {cc})"
    if cc_at_least(config, 9, 0):
        return 256, f"JAX >= 0.8.2 allows 256 on compute capability >= 9.0 (target {cc})"
    return 128, f"JAX >= 0.8.2 allows 256 only on compute capability >= 9.0, Hopper or newer (target {cc})"


def head_dim_message(config: Config, h_max: int, head_dim: str, t: str | None, s: str | None) -> str | None:
    """JAX's exact FA-14 message for this version, or None where it cannot be rendered."""
    version = config.jax_version_tuple
    if version is not None and version < (0, 5, 0):
        if t is None or s is None:
            return None
        return f"Unsupported sequence length Q {t}, KV {s} and head dim {head_dim}."
    if version is not None and version < (0, 6, 2):
        return f"The head dim must be <= {h_max} and a mutiple of 8, but got {head_dim}."
    return f"The head dim must be <= {h_max} and a multiple of 8, but got {head_dim}."
