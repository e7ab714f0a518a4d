"""Atomic file writing: nothing half-written is ever left at the destination.

Every writer in stickgen goes through `atomic_path`: it yields a temporary path in the destination's
folder (so the final rename stays on one filesystem), and renames it onto the destination only when
the block finishes without an exception. On error the temporary file is removed. `atomic_folder` does
the same for a folder of files (a checkpoint, an evaluator). `portable_path` is how written files
record paths: never as an absolute path of the machine that wrote them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from stickgen.errors import StickgenError


def umask() -> int:
    """The process's file-creation mask (reading it means setting it, so set it straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


# The folders this process made for its outputs (`make_folder`), so that a command that fails or is
# interrupted can take away those it left empty (`remove_made_folders`).
_MADE: list[Path] = []
_LONGEST_NAME = 255  # bytes in one file name on the usual Linux, macOS and Windows file systems


def make_folder(folder: Path) -> None:
    """`folder.mkdir(parents=True, exist_ok=True)`, remembering each folder it makes."""
    missing = []
    for parent in [folder, *folder.parents]:
        if parent.exists():
            break
        missing.append(parent)
    folder.mkdir(parents=True, exist_ok=True)
    _MADE.extend(reversed(missing))


def remove_made_folders() -> None:
    """Remove the folders `make_folder` made that are still empty, deepest first (after a failure)."""
    for folder in reversed(_MADE):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only an empty folder goes
    _MADE.clear()


def check_not_folder(path: str | os.PathLike) -> Path:
    """Return `path` as a Path unless it is an existing folder (an output file was meant)."""
    path = Path(path)
    if len(os.fsencode(path.name)) > _LONGEST_NAME:
        raise StickgenError(f"The file name {path.name[:40]}… is too long ({len(path.name)} characters).")
    try:
        is_dir = path.is_dir()
    except OSError as e:
        raise StickgenError(f"Cannot use the output {path}: {e.strerror or e}.") from None
    if is_dir:
        raise StickgenError(f"The output {path} is a folder; give the name of a file to write.")
    return path


def check_writable(path: str | os.PathLike) -> Path:
    """Return `path` as a Path if its folder exists (or can be made) and takes new files, else raise.

    The folder is tried with a real (removed) temporary file: some folders that exist and look
    writable take no new files (/proc, a read-only mount), which only creating one shows.
    """
    path = check_not_folder(path)
    os.unlink(_temporary_file(path, prefix=".stickgen-", suffix=".tmp"))
    return path


def _temporary_file(path: Path, *, prefix: str, suffix: str) -> Path:
    """A new empty file in `path`'s folder (made if missing); one sentence if the folder takes none."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        make_folder(folder)
    except OSError as e:
        raise StickgenError(f"Cannot create the output folder {folder}: {e.strerror or e}.") from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    except OSError as e:
        reason = "it takes no new files" if e.errno == errno.ENOENT else (e.strerror or str(e)).lower()
        raise StickgenError(f"Cannot write files in the folder {folder}: {reason}.") from None
    os.close(fd)
    return Path(tmp)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside `path`; on success rename it to `path`, on failure delete it.

    The temporary name keeps the destination's suffix, so writers that pick a format by suffix
    (imageio, numpy) behave as they would for the real name.
    """
    path = check_not_folder(path)
    # The temporary name adds about 15 characters: a name near the limit keeps its stem's start only.
    stem = path.stem[: max(1, _LONGEST_NAME - 40 - len(path.suffix))]
    tmp_path = _temporary_file(path, prefix=f".{stem}.", suffix=f".tmp{path.suffix}")
    # mkstemp makes the file private (0600); give the result the mode a plain open() would.
    os.chmod(tmp_path, 0o666 & ~umask())
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write `data` to `path` atomically and return the path."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write UTF-8 `text` to `path` atomically and return the path."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def check_folder_for(folder: str | os.PathLike, *, marker: str, kind: str, starts: str = "") -> Path:
    """`folder` as a Path if a `kind` may be written there: it is missing, empty, or holds the file
    `marker` (beginning with `starts`, when given): an earlier folder of this kind. Any other folder is
    refused, never overwritten. Commands call it before long work, not only at the end."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise StickgenError(f"Cannot save the {kind} to {folder}: it is a file, and a {kind} is a folder.")
    if folder.is_dir() and any(folder.iterdir()) and not _begins(folder / marker, starts):
        raise StickgenError(f"Folder {folder} exists and is not a stickgen {kind}; choose another folder.")
    return folder


def _begins(path: Path, text: str) -> bool:
    """Whether `path` is a file that starts with `text` (any file, for "")."""
    try:
        return path.is_file() and (not text or path.read_text(encoding="utf-8").startswith(text))
    except (OSError, UnicodeDecodeError):
        return False


@contextlib.contextmanager
def atomic_folder(folder: str | os.PathLike, *, marker: str, kind: str) -> Iterator[Path]:
    """Yield an empty temporary folder beside `folder`; on success it replaces `folder`.

    An existing `folder` is kept until the new one is in place, so a failure at any point leaves
    either the old folder or the new one, never a mixture. `marker` is a file every folder of this
    `kind` holds ("config.json"): an existing, non-empty folder without it is refused, so another
    folder is never overwritten.
    """
    folder = check_folder_for(folder, marker=marker, kind=kind)
    try:
        make_folder(folder.parent)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name[:200]}.", suffix=".tmp", dir=folder.parent))
        os.chmod(tmp, 0o777 & ~umask())  # mkdtemp makes it private; give it a plain folder's mode
    except OSError as e:
        raise StickgenError(f"Cannot write the {kind} folder {folder}: {e.strerror or e}.") from None
    try:
        yield tmp
        if folder.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{folder.name[:200]}.", suffix=".old", dir=folder.parent))
            os.replace(folder, old)  # onto the empty placeholder folder
            try:
                os.replace(tmp, folder)
            except BaseException:
                os.replace(old, folder)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def portable_path(path: str | os.PathLike) -> str:
    """How a file stickgen writes records a path: as given when relative, else relative to the working
    folder when inside it, else by its name alone.

    Model cards, reports, manifests and run configs travel to other machines: an absolute path of the
    machine that made them would tell a reader nothing (and shows its folders), so none is recorded.
    """
    path = Path(path)
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.name


def bundled_asset(name: str, marker: str) -> Path:
    """A folder shipped with stickgen (`assets/NAME`): inside the installed package, or in the source
    tree. `marker` is a file the folder must hold; a missing asset is one `StickgenError` sentence."""
    here = Path(__file__).resolve().parent
    for folder in (here / "assets" / name, here.parent / "assets" / name):
        if (folder / marker).is_file():
            return folder
    raise StickgenError(f"The bundled {name} is missing from this installation; reinstall stickgen.")
