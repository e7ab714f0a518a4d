"""A persistent on-disk cache of text embeddings, keyed by (encoder id, text).

Embeddings are computed once per encoder and text and then read back in milliseconds, which is what
lets `stickgen generate` skip importing sentence-transformers for a prompt it has seen before, and
lets a dataset's texts be embedded once for all training runs.

The store is one SQLite file, `embeddings.sqlite`, in the cache directory:

- `$STICKGEN_CACHE_DIR` if set, else `$XDG_CACHE_HOME/stickgen`, else `~/.cache/stickgen`.
- WAL journal mode and a busy timeout make concurrent readers and writers from several processes
  safe: a writer waits for the lock instead of failing, and readers never see half a batch.
- Vectors are stored as little-endian float32 bytes with their dimension.

A cache must never stop generation. A file that is not a readable SQLite database is moved aside to
`embeddings.corrupt.sqlite` (replacing any earlier one, so at most one bad copy is kept for
inspection) and a fresh cache is created, with a `RuntimeWarning`. A directory that cannot be written
at all turns the cache off for this process, also with a warning: every lookup misses, nothing is
stored.
"""

from __future__ import annotations

import os
import sqlite3
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

CACHE_DIR_ENV = "STICKGEN_CACHE_DIR"
DB_NAME = "embeddings.sqlite"
CORRUPT_NAME = "embeddings.corrupt.sqlite"
BUSY_TIMEOUT_S = 60.0
# Stay under SQLite's historical limit of 999 bound parameters per statement.
_QUERY_CHUNK = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    encoder_id TEXT NOT NULL,
    text TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (encoder_id, text)
) WITHOUT ROWID
"""


def default_cache_dir() -> Path:
    """The user's stickgen cache directory (not created): env override, then XDG, then ~/.cache."""
    if os.environ.get(CACHE_DIR_ENV):
        return Path(os.environ[CACHE_DIR_ENV]).expanduser()
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]).expanduser() / "stickgen"
    return Path.home() / ".cache" / "stickgen"


class EmbeddingCache:
    """Persistent map (encoder id, text) -> float32 vector in `directory/embeddings.sqlite`.

    The database is opened lazily on first use, so constructing a cache costs nothing. One instance
    holds one connection; use one instance per process (connections are not shared across forks).
    """

    def __init__(self, directory: str | os.PathLike | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self._conn: sqlite3.Connection | None = None
        self._disabled = False

    @property
    def path(self) -> Path:
        """The SQLite file."""
        return self.directory / DB_NAME

    def get_many(self, encoder_id: str, texts: Sequence[str]) -> list[np.ndarray | None]:
        """Look up `texts`; return one float32 vector (D,) per text, or None where it is not cached."""
        conn = self._connection()
        if conn is None or not texts:
            return [None] * len(texts)
        unique = list(dict.fromkeys(texts))
        found: dict[str, np.ndarray] = {}
        try:
            for start in range(0, len(unique), _QUERY_CHUNK):
                chunk = unique[start : start + _QUERY_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT text, dim, vector FROM embeddings WHERE encoder_id = ? AND text IN ({marks})",
                    [encoder_id, *chunk],
                ).fetchall()
                for text, dim, blob in rows:
                    vector = np.frombuffer(blob, dtype="<f4")
                    if vector.shape == (dim,):
                        found[text] = vector.astype(np.float32)
        except sqlite3.DatabaseError as e:
            self._recover(e)
            return [None] * len(texts)
        return [found.get(text) for text in texts]

    def put_many(self, encoder_id: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store `vectors` (N, D) for `texts` (N) in one transaction, replacing earlier entries."""
        vectors = np.asarray(vectors, dtype="<f4")
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(f"put_many needs vectors of shape ({len(texts)}, D), got {vectors.shape}")
        conn = self._connection()
        if conn is None or not texts:
            return
        dim = vectors.shape[1]
        rows = [
            (encoder_id, text, dim, vector.tobytes()) for text, vector in zip(texts, vectors, strict=True)
        ]
        try:
            with conn:
                conn.executemany(
                    "INSERT OR REPLACE INTO embeddings (encoder_id, text, dim, vector) VALUES (?, ?, ?, ?)",
                    rows,
                )
        except sqlite3.DatabaseError as e:
            self._recover(e)

    def __len__(self) -> int:
        """Number of cached vectors, over all encoders."""
        conn = self._connection()
        if conn is None:
            return 0
        return conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]

    def close(self) -> None:
        """Close the connection; the next call reopens it."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is not None or self._disabled:
            return self._conn
        try:
            self._conn = self._open()
        except sqlite3.DatabaseError as e:
            if self._is_corruption(e):
                self._move_aside(e)
                try:
                    self._conn = self._open()
                except sqlite3.Error as e2:
                    self._disable(e2)
            else:
                self._disable(e)
        except OSError as e:
            self._disable(e)
        return self._conn

    def _open(self) -> sqlite3.Connection:
        self.directory.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            # Switching to WAL takes an exclusive lock; with several processes opening a fresh file at
            # once, SQLite may report it busy without waiting, so the busy timeout alone is not enough.
            _retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA synchronous = NORMAL")
            _retry_busy(lambda: conn.execute(_SCHEMA))
            conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        conn.isolation_level = "DEFERRED"
        return conn

    @staticmethod
    def _is_corruption(error: sqlite3.Error) -> bool:
        message = str(error).lower()
        return "not a database" in message or "malformed" in message or "corrupt" in message

    def _recover(self, error: sqlite3.DatabaseError) -> None:
        """A query failed: move a corrupt file aside (next call recreates it), else turn caching off."""
        self.close()
        if self._is_corruption(error):
            self._move_aside(error)
        else:
            self._disable(error)

    def _move_aside(self, error: sqlite3.Error) -> None:
        aside = self.directory / CORRUPT_NAME
        try:
            os.replace(self.path, aside)
        except FileNotFoundError:
            pass  # another process moved it first
        for suffix in ("-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        warnings.warn(
            f"The embedding cache {self.path} was unreadable ({error}); it was moved to {aside} "
            "and a new empty cache is used.",
            RuntimeWarning,
            stacklevel=3,
        )

    def _disable(self, error: Exception) -> None:
        self._disabled = True
        warnings.warn(
            f"The embedding cache {self.path} cannot be used ({error}); embeddings are not cached "
            f"in this run (set {CACHE_DIR_ENV} to a writable folder).",
            RuntimeWarning,
            stacklevel=3,
        )


def _retry_busy(statement: Callable[[], object], attempts: int = 200) -> None:
    """Run `statement()`, retrying while SQLite says the database is locked (about 10 s at most)."""
    for attempt in range(attempts):
        try:
            statement()
            return
        except sqlite3.OperationalError as e:
            busy = "locked" in str(e) or "busy" in str(e)
            if not busy or attempt == attempts - 1:
                raise
            time.sleep(0.05)
