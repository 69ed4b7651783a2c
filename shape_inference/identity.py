"""A table keyed by objects' identity that keeps its keys alive.

`id(obj)` is unique only among objects alive at the same time.  A table keyed by
`id(obj)` that outlives `obj` hands `obj`'s entry to whatever later object is allocated
at the same address.  That happened: a module's lazily parsed definition was freed after
its first use, a later placeholder of another module reused its address and took its
value, and the README example lost its finding on some runs and not others.  Each entry
here holds its key, so no key's address can be reused while the table lives.
"""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class IdentityTable(Generic[K, V]):
    """`dict` semantics by `is`, for keys (AST nodes, values) that hash by content or not at all."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[int, tuple[K, V]] = {}

    def get(self, key: K) -> V | None:
        entry = self._entries.get(id(key))
        return None if entry is None else entry[1]

    def __contains__(self, key: K) -> bool:
        return id(key) in self._entries

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[id(key)] = (key, value)

    def __len__(self) -> int:
        return len(self._entries)
