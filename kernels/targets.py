"""The GPU and cuDNN a trace emulates: `--gpu sm90 --cudnn 9.10`.

JAX's probes compare compute capabilities as "major.minor" strings and cuDNN versions as
the integer cuDNN reports (major*10000 + minor*100 + patch for cuDNN 9: 9.10 -> 91000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

DEFAULT_GPU = "sm90"
DEFAULT_CUDNN = "9.10"

_SM_DIGITS_RE = re.compile(r"^\d{2,3}[af]?$")  # "90", "103", "90a", "100f" once "sm" is gone
_CC_RE = re.compile(r"^(\d+)\.(\d+)$")
_CUDNN_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")


@dataclass(frozen=True)
class Target:
    """A GPU generation and a cuDNN release."""

    gpu: str  # canonical "sm90"
    cc_major: int
    cc_minor: int
    cudnn: str  # as given, "9.10"
    cudnn_version: int  # 91000

    @property
    def compute_capability(self) -> str:
        return f"{self.cc_major}.{self.cc_minor}"

    def cc_at_least(self, capability: str) -> bool:
        """`check_compute_capability(c)`: target >= c."""
        return (self.cc_major, self.cc_minor) >= _parse_cc(capability)

    def cc_equal(self, capability: str) -> bool:
        """`is_cuda_compute_capability_equal(c)`: target == c."""
        return (self.cc_major, self.cc_minor) == _parse_cc(capability)

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "compute_capability": self.compute_capability,
            "cudnn": self.cudnn,
            "cudnn_version": self.cudnn_version,
        }


def _parse_cc(capability: str) -> tuple[int, int]:
    m = _CC_RE.match(str(capability).strip())
    if not m:
        raise ValueError(f"not a compute capability: {capability!r} (expected like '9.0')")
    return int(m.group(1)), int(m.group(2))


def parse_gpu(gpu: str) -> tuple[int, int]:
    """'sm90' / 'sm_90' / '9.0' / '90' / 'sm103' / 'sm90a' / 'sm100f' (an architecture's
    feature set, the same chip) -> compute capability (major, minor).

    The one reader of a GPU spelling: the command, the plugin and confirm all call it."""
    cleaned = gpu.strip().lower().replace("sm_", "").replace("sm", "")
    found: tuple[int, int] | None = None
    if _CC_RE.match(cleaned):
        found = _parse_cc(cleaned)
    elif _SM_DIGITS_RE.match(cleaned):
        digits = cleaned.rstrip("af")
        found = int(digits[:-1]), int(digits[-1])
    # NVIDIA's compute capabilities run from 3.x to 12.x: `800` or `10` is a typo (probe 40a)
    if found is None or not 3 <= found[0] <= 15:
        raise ValueError(
            f"unknown GPU target {gpu!r}: use an SM name such as sm80, sm90, sm100, sm103"
            " (or a compute capability such as 9.0)"
        )
    return found


def parse_cudnn(cudnn: str) -> int:
    """'9.10' -> 91000, '9.10.2' -> 91002, '8.9.4' -> 8904 (cuDNN 8 used major*1000)."""
    m = _CUDNN_RE.match(cudnn.strip())
    if not m:
        raise ValueError(f"unknown cuDNN version {cudnn!r}: use major.minor such as 9.10")
    major, minor, patch = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if minor > 99 or patch > 99:
        raise ValueError(f"unknown cuDNN version {cudnn!r}")
    if major < 9:
        return major * 1000 + minor * 100 + patch
    return major * 10000 + minor * 100 + patch


def format_cudnn(version: int) -> str:
    """91000 -> '9.10.0' (the inverse of `parse_cudnn`)."""
    if version >= 90000:
        major, rest = divmod(version, 10000)
    else:
        major, rest = divmod(version, 1000)
    minor, patch = divmod(rest, 100)
    return f"{major}.{minor}.{patch}"


def make_target(gpu: str = DEFAULT_GPU, cudnn: str = DEFAULT_CUDNN) -> Target:
    major, minor = parse_gpu(gpu)
    return Target(
        gpu=f"sm{major}{minor}",
        cc_major=major,
        cc_minor=minor,
        cudnn=cudnn.strip(),
        cudnn_version=parse_cudnn(cudnn),
    )


def target_from_json(obj: Any) -> Target:
    """The inverse of `Target.to_json` (also accepts just {"gpu", "cudnn"})."""
    if not isinstance(obj, dict):
        raise TypeError(f"a target must be an object, got {obj!r}")
    fields = cast("dict[str, object]", obj)
    gpu = fields.get("gpu", DEFAULT_GPU)
    cudnn = fields.get("cudnn", DEFAULT_CUDNN)
    if not isinstance(gpu, str) or not isinstance(cudnn, str):
        raise TypeError(f"bad target {obj!r}")
    return make_target(gpu, cudnn)
