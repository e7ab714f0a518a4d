"""Running an import: items read in parallel chunks, resumable, assembled into one dataset folder.

The source's items (files, or clip ids) are cut into chunks of `CHUNK` in a fixed order. A worker
reads a chunk and writes `.import/part-NNNNN.npz` (its clips, in the shard format) and then
`.import/part-NNNNN.json` (what happened to each item): the json marks the part as done. Rerunning
the same command skips the done parts (`.import/job.json` records the request; another request for
the same folder is refused). When every part is done the parts with clips become the shards, the
splits and statistics are written, then `import_report.json`, `import_report.md` and, last, the
manifest. A folder without a manifest is visibly unfinished, so an interrupted or failed import never
leaves something that reads as a dataset; an import that yields no clip at all removes its work and
says why.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from stickgen import __version__
from stickgen.dataset import (
    SPLITS,
    finalize_dataset,
    read_shard,
    shard_arrays,
    shard_path,
    split_indices,
    write_npz,
)
from stickgen.errors import StickgenError
from stickgen.files import atomic_write_text, portable_path
from stickgen.importers.clips import ClipOptions, RawClip, Skip, motions_from_raw
from stickgen.ranges import check_seed
from stickgen.workers import worker_pool

WORK = ".import"
CHUNK = 64  # items per part
REPORT = "import_report"


class Source(Protocol):
    """What an importer provides: its items in a fixed order, and the raw clips of one item."""

    format: str

    def items(self, src: Path) -> list[str]:
        """Item names (paths relative to `src`, or clip ids), sorted; StickgenError if there are none."""

    def read(self, src: Path, item: str) -> tuple[list[RawClip], list[str]]:
        """The raw clips of one item and warnings; StickgenError (one sentence) to skip the item."""

    def describe(self) -> dict[str, Any]:
        """The source's options, for the manifest and the resume check."""


@dataclass
class ImportResult:
    path: Path
    report: dict[str, Any]


def import_dataset(
    source: Source,
    src: str | Path,
    out: str | Path,
    *,
    options: ClipOptions | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ImportResult:
    """Import `src` into the dataset folder `out` (or finish an interrupted import into it).

    progress: called as progress(done, total) with item counts, once at the start and after each part.
    """
    src, out = Path(src), Path(out)
    options = options or ClipOptions()
    if not src.exists():
        raise StickgenError(f"No such file or folder: {src}.")
    if workers is not None and workers < 1:
        raise StickgenError(f"--workers must be at least 1; got {workers}.")
    check_seed("--seed", seed)
    if out.exists() and not out.is_dir():
        raise StickgenError(f"{out} is a file, not a dataset folder.")
    work = out / WORK
    job = {
        "format": source.format,
        "src": str(src.resolve()),
        "source": source.describe(),
        "clips": asdict(options),
        "seed": seed,
        "stickgen_version": __version__,
    }
    job = json.loads(json.dumps(job))
    if (out / "manifest.json").exists():
        # The same import run again once it has finished is done, as `data synth` run again is.
        finished = _finished(out, job, seed, len(source.items(src)))
        if finished is None:
            raise StickgenError(
                f"{out} already holds a finished dataset of something else; choose another folder."
            )
        if progress:
            progress(finished.report["items"], finished.report["items"])
        return finished
    if (work / "job.json").exists():
        try:
            existing = json.loads((work / "job.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            existing = None
        if existing != job:
            raise StickgenError(
                f"{out} holds an unfinished import of something else; choose another folder or delete it."
            )
    elif out.exists() and any(out.iterdir()):
        raise StickgenError(f"{out} is not empty and is not an import in progress; choose another folder.")
    created = not out.exists()
    items = source.items(src)
    try:
        work.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StickgenError(f"Cannot write the dataset folder {out}: {e.strerror or e}.") from None
    atomic_write_text(work / "job.json", json.dumps(job, indent=1, sort_keys=True) + "\n")

    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
    todo = [k for k in range(len(chunks)) if not _part(work, k, ".json").exists()]
    done = sum(len(chunks[k]) for k in range(len(chunks)) if k not in set(todo))
    if progress:
        progress(done, len(items))
    jobs = [(source, str(src), str(work), k, chunks[k], options) for k in todo]
    workers = min(workers or os.cpu_count() or 1, max(len(jobs), 1))
    if workers == 1:
        for j in jobs:
            done += _read_part(j)
            if progress:
                progress(done, len(items))
    elif jobs:
        with worker_pool(workers) as pool:
            for n in pool.imap_unordered(_read_part, jobs):
                done += n
                if progress:
                    progress(done, len(items))
    return _assemble(out, work, len(chunks), job, seed, remove_on_failure=created)


def _part(work: Path, k: int, suffix: str) -> Path:
    return work / f"part-{k:05d}{suffix}"


def _read_part(job: tuple) -> int:
    """Worker: read one chunk of items, write its part; returns the number of items read."""
    source, src, work, k, items, options = job
    motions, entries = [], []
    for item in items:
        entries.append(_read_item(source, Path(src), item, options, motions))
    if motions:
        write_npz(_part(Path(work), k, ".npz"), shard_arrays(motions))
    atomic_write_text(
        _part(Path(work), k, ".json"), json.dumps({"items": entries, "clips": len(motions)}, sort_keys=True)
    )
    return len(items)


def _read_item(source: Source, src: Path, item: str, options: ClipOptions, motions: list) -> dict:
    """Read one item into `motions`; its report entry. Never raises for a bad file."""
    try:
        raws, warnings = source.read(src, item)
    except StickgenError as e:
        return {"item": item, "skipped": _sentence(e)}
    except Exception as e:  # noqa: BLE001 - an import never stops for one bad file; the report says why
        return {"item": item, "skipped": f"could not be read ({type(e).__name__}: {e})"}
    entry: dict[str, Any] = {"item": item, "clips": 0, "frames": 0, "views": {}, "mirrored": 0,
                             "unlabelled": 0, "skipped_parts": [], "warnings": warnings}  # fmt: skip
    for raw in raws:
        try:
            clips, notes = motions_from_raw(raw, options)
        except Skip as e:
            entry["skipped_parts"].append(
                {"part": raw.source.get("part", raw.group), "skipped": _sentence(e)}
            )
            continue
        except Exception as e:  # noqa: BLE001 - as above
            entry["skipped_parts"].append(
                {"part": raw.source.get("part", raw.group), "skipped": _sentence(e)}
            )
            continue
        motions.extend(clips)
        entry["clips"] += len(clips)
        entry["frames"] += sum(m.num_frames for m in clips)
        for v in notes["views"]:
            entry["views"][v] = entry["views"].get(v, 0) + 1
        entry["mirrored"] += int(notes["mirrored"])
        entry["unlabelled"] += int(not notes["labelled"])
    if entry["clips"] == 0:
        reasons = [p["skipped"] for p in entry["skipped_parts"]]
        return {"item": item, "skipped": reasons[0] if reasons else "holds no clips", "warnings": warnings}
    return entry


def _sentence(e: Exception) -> str:
    text = str(e).strip()
    return text[:-1] if text.endswith(".") else text


def _assemble(out: Path, work: Path, num_parts: int, job: dict, seed: int, *, remove_on_failure: bool):
    """Turn the done parts into the dataset: shards, splits, stats, the report, then the manifest."""
    job = {**job, "src": portable_path(job["src"])}  # the dataset's files hold no machine paths
    parts = [json.loads(_part(work, k, ".json").read_text(encoding="utf-8")) for k in range(num_parts)]
    entries = [entry for part in parts for entry in part["items"]]
    report = build_report(entries, job)
    with_clips = [k for k in range(num_parts) if _part(work, k, ".npz").exists()]
    already = sorted((out / "shards").glob("*.npz")) if (out / "shards").exists() else []
    if not with_clips and not already:
        first = next((e for e in entries if "skipped" in e), None)
        shutil.rmtree(work, ignore_errors=True)
        if remove_on_failure:
            shutil.rmtree(out, ignore_errors=True)
        else:
            try:
                out.rmdir()
            except OSError:
                pass
        detail = f" (first: {first['item']}: {first['skipped']})" if first else ""
        raise StickgenError(
            f"No clip could be imported from {job['src']}: {len(entries)} of {len(entries)} items were "
            f"skipped{detail}."
        )
    # Parts with clips become shards 0, 1, ... in part order; a rerun after an interruption here
    # finds some already moved.
    clip_parts = [k for k, part in enumerate(parts) if part["clips"]]
    for index, k in enumerate(clip_parts):
        if _part(work, k, ".npz").exists():
            shard_path(out, index).parent.mkdir(parents=True, exist_ok=True)
            os.replace(_part(work, k, ".npz"), shard_path(out, index))
    metas_by_shard = [read_shard(shard_path(out, i))["meta"] for i in range(len(clip_parts))]
    metas = [m for shard in metas_by_shard for m in shard]
    splits = splits_for(metas, seed)
    atomic_write_text(out / f"{REPORT}.json", json.dumps(report, indent=1, sort_keys=True) + "\n")
    atomic_write_text(out / f"{REPORT}.md", report_markdown(report))
    shutil.rmtree(work, ignore_errors=True)
    source = _manifest_source(job)
    largest = max(len(shard) for shard in metas_by_shard)  # shards hold a part each, so sizes vary
    path = finalize_dataset(out, source=source, seed=seed, shard_size=largest, splits=splits)
    return ImportResult(path, report)


def _manifest_source(job: dict) -> dict[str, Any]:
    """What the manifest of the dataset an import `job` makes says of its source."""
    return {"importer": job["format"], "src": job["src"], "options": {**job["source"], **job["clips"]},
            "stickgen_version": job["stickgen_version"]}  # fmt: skip


def _finished(out: Path, job: dict, seed: int, items: int) -> ImportResult | None:
    """The result of the finished import at `out` if it is this `job` with this `seed` (its source
    folder named as the dataset names it, by its last part, and holding as many `items`), else None."""
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        report = json.loads((out / f"{REPORT}.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    named = _manifest_source({**job, "src": portable_path(job["src"])})
    if manifest.get("source") != named or manifest.get("seed") != seed or report.get("items") != items:
        return None
    return ImportResult(out, report)


def splits_for(metas: list[dict], seed: int) -> dict[str, np.ndarray]:
    """Train / val / test clip indices: the source's split where a clip has one; otherwise whole
    groups (every window and span of one source clip) are split by the seed, so no source clip is
    in two splits."""
    groups = sorted({m.get("group", "") for m in metas if m.get("split") not in SPLITS})
    group_split = {}
    if groups:
        for name, idx in split_indices(len(groups), seed).items():
            for i in idx:
                group_split[groups[i]] = name
    assigned = [m["split"] if m.get("split") in SPLITS else group_split[m.get("group", "")] for m in metas]
    return {s: np.array([i for i, a in enumerate(assigned) if a == s], dtype=np.int64) for s in SPLITS}


def build_report(entries: list[dict], job: dict) -> dict[str, Any]:
    """The import report: counts, views, and every skipped item or part with its reason."""
    imported = [e for e in entries if "skipped" not in e]
    views: collections.Counter = collections.Counter()
    for e in imported:
        views.update(e["views"])
    skipped = [{"item": e["item"], "reason": e["skipped"]} for e in entries if "skipped" in e]
    skipped += [
        {"item": f"{e['item']} ({p['part']})", "reason": p["skipped"]}
        for e in imported
        for p in e["skipped_parts"]
    ]
    frames = sum(e["frames"] for e in imported)
    return {
        "format": job["format"],
        "src": job["src"],
        "items": len(entries),
        "items_imported": len(imported),
        "items_skipped": len(entries) - len(imported),
        "clips": sum(e["clips"] for e in imported),
        "frames": frames,
        "hours": round(frames / 25.0 / 3600.0, 4),
        "views": dict(sorted(views.items())),
        "mirrored_clips": sum(e["mirrored"] for e in imported),
        "clips_without_action": sum(e["unlabelled"] for e in imported),
        "skipped": skipped,
        "warnings": [{"item": e["item"], "warning": w} for e in entries for w in e.get("warnings", [])],
    }


def report_markdown(report: dict[str, Any]) -> str:
    """The report as a short Markdown page (the json has the same facts)."""
    lines = [
        f"# Import report: {report['format']}",
        "",
        f"- source: `{report['src']}`",
        f"- items: {report['items']} ({report['items_imported']} imported, "
        f"{report['items_skipped']} skipped)",
        f"- clips: {report['clips']}, frames: {report['frames']} ({report['hours']:.2f} h at 25 fps)",
        f"- views: {', '.join(f'{k} {v}' for k, v in report['views'].items()) or 'none'}",
        f"- clips mirrored to put left limbs on the left: {report['mirrored_clips']}",
        "- clips whose descriptions name none of the 60 actions (action −1): "
        f"{report['clips_without_action']}",
        "",
    ]
    if report["skipped"]:
        lines += ["## Skipped", "", "| item | reason |", "|---|---|"]
        lines += [f"| `{s['item']}` | {s['reason']} |" for s in report["skipped"]]
        lines.append("")
    if report["warnings"]:
        lines += ["## Warnings", ""] + [f"- `{w['item']}`: {w['warning']}" for w in report["warnings"]] + [""]
    return "\n".join(lines)


def summary_lines(report: dict[str, Any], limit: int = 5) -> list[str]:
    """A few lines for the terminal: the counts and the most common reasons for skipping."""
    lines = [
        f"{report['clips']} clips ({report['hours']:.2f} h) from {report['items_imported']} of "
        f"{report['items']} items; {report['items_skipped']} skipped."
    ]
    reasons = collections.Counter(s["reason"] for s in report["skipped"])
    for reason, n in reasons.most_common(limit):
        example = next(s["item"] for s in report["skipped"] if s["reason"] == reason)
        lines.append(f"  skipped {n}× {reason} (e.g. {example})")
    if len(reasons) > limit:
        lines.append(f"  ... and {len(reasons) - limit} other reasons (see {REPORT}.md)")
    return lines
