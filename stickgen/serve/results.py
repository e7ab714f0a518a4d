"""The results of a studio session: files in one temporary folder, capped in count and in size.

Each result is a folder named by its id, a random token (`secrets.token_urlsafe`, 128 bits), and a
table of the file names it may hold. A file is found through that table, never through a path a
client wrote, so `../`, an unknown id or an unknown name is simply not there. When the count or the
total size passes its cap, the oldest results are deleted (the newest one always stays). `close()`
deletes the whole folder; the server calls it at shutdown.

Thread-safe: results are added by the generation thread and read by the request handlers.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_RESULTS = 200
MAX_BYTES = 512 * 2**20


@dataclass
class Result:
    """One answered request: its id, folder, the files by name, and what the client is told about it.

    names: every file name the result offers, written or not (an MP4 is made on its first download);
    written: the names already on disk; info: the JSON fields of the answer (prompt, seed, seconds...).
    """

    id: str
    folder: Path
    names: tuple[str, ...]
    info: dict[str, Any]
    written: set[str] = field(default_factory=set)
    size: int = 0


class ResultStore:
    """Result folders under one temporary folder, the oldest dropped past `max_results` or `max_bytes`."""

    def __init__(
        self, *, max_results: int = MAX_RESULTS, max_bytes: int = MAX_BYTES, parent: Path | None = None
    ) -> None:
        self.max_results = max_results
        self.max_bytes = max_bytes
        self.root = Path(tempfile.mkdtemp(prefix="stickgen-serve-", dir=parent))
        self._results: OrderedDict[str, Result] = OrderedDict()
        self._lock = threading.Lock()

    def new_folder(self) -> tuple[str, Path]:
        """A fresh random id and its empty folder (not yet a result: see `add`)."""
        result_id = secrets.token_urlsafe(16)
        folder = self.root / result_id
        folder.mkdir()
        return result_id, folder

    def add(self, result: Result) -> None:
        """Register a result whose `written` files are in its folder; drop the oldest past the caps."""
        with self._lock:
            result.size = sum((result.folder / name).stat().st_size for name in result.written)
            self._results[result.id] = result
            self._enforce_caps()

    def wrote(self, result_id: str, name: str) -> bool:
        """Record a file made later (an MP4); False when the result was dropped meanwhile."""
        with self._lock:
            result = self._results.get(result_id)
            if result is None:
                return False
            path = result.folder / name
            if name not in result.written and path.is_file():
                result.written.add(name)
                result.size += path.stat().st_size
            self._enforce_caps()
            return result_id in self._results

    def get(self, result_id: str) -> Result | None:
        """The result with this id, or None (unknown, dropped, or not an id at all)."""
        with self._lock:
            return self._results.get(result_id)

    def __len__(self) -> int:
        with self._lock:
            return len(self._results)

    @property
    def total_bytes(self) -> int:
        """The size of all files kept."""
        with self._lock:
            return sum(r.size for r in self._results.values())

    def close(self) -> None:
        """Delete every result and the folder itself."""
        with self._lock:
            self._results.clear()
            shutil.rmtree(self.root, ignore_errors=True)

    def _enforce_caps(self) -> None:
        total = sum(r.size for r in self._results.values())
        while len(self._results) > 1 and (len(self._results) > self.max_results or total > self.max_bytes):
            _, oldest = self._results.popitem(last=False)
            total -= oldest.size
            shutil.rmtree(oldest.folder, ignore_errors=True)
