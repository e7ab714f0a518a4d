"""The studio's core: the request rules, the model held in memory, one generation at a time.

- `check_request(text, ...)`: `generation.check_request` (the very checks of `generate_batch`, with
  its sentences), plus the theme (which `stickgen generate` checks when it writes), resolved into a `Job`:
  the cleaned prompt, the duration and the action timeline. So the API refuses what the CLI refuses,
  with the same sentence, before any work.
- `Studio`: the checkpoint and the text encoder, loaded once; one generation thread behind a bounded
  queue (`submit` and `submit_generate` raise `Busy` when it is full); `generate(job)` samples and
  writes a `Result`. Requests that queue up while one generates are sampled together, in one batch of
  the sampler (`generation.generate_requests`: each gets the motion it would get alone), as long as
  they share the clip length, steps, guidance and plan; a batch holds at most `batch` samples
  (`MAX_BATCH` by default; 1 samples one request at a time).

The text encoder is held for the life of the server and embeds each prompt into the persistent
embedding cache, where `generation.generate_motions` (which opens the encoder by name) then finds it:
so the sentence-transformers model is loaded once, at start-up, and a request costs model time only.
Everything that touches the model or the encoder's cache runs on the generation thread.

Decisions: the files are the CLI's, under its default names (the prompt as a slug): for one sample a
GIF, a PNG filmstrip, JSON, NPZ and BVH; for several, a captioned grid as GIF and PNG and numbered data
files, as `stickgen generate -n` writes them. A request writes the GIF (which the page shows) and each
sample's NPZ; the PNG strip, JSON, BVH and MP4 (with the `[mp4]` extra) are made from the NPZ on their
first download, so that a request does not pay for files nobody asks for. A random seed is drawn below
2**31, so that a browser (JavaScript numbers) shows it exactly.
"""

from __future__ import annotations

import importlib.util
import math
import re
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from stickgen.errors import StickgenError
from stickgen.generation import DEFAULT_PLAN
from stickgen.generation import check_request as generation_checks
from stickgen.ranges import DEFAULT_GUIDANCE, DEFAULT_STEPS, check_range
from stickgen.serve.results import Result, ResultStore

if TYPE_CHECKING:
    from stickgen.motion import Motion

MAX_SAMPLES = 64  # generate_batch's range of -n
RANDOM_SEEDS = 2**31
DEFAULT_QUEUE = 8  # requests that may wait while one generates
MAX_BATCH = 8  # samples drawn together from requests that waited
DATA_FORMATS = ("json", "npz", "bvh")
WARM_UP_PROMPT = "a person jumps"
GONE_SENTENCE = "That result is no longer kept; newer results have pushed it out."


@dataclass(frozen=True)
class Job:
    """A checked request: what `Studio.generate` needs, every value already valid."""

    prompt: str
    n: int
    seed: int
    seconds: float
    timeline: np.ndarray | None  # (frames,) action ids, −1 = free; None: the plan decides
    plan: str
    steps: int
    guidance: float
    camera: str | None  # a camera_track mode (underscores), or None for automatic
    theme: str
    warning: str | None  # the language warning of `stickgen generate`, or None
    # True: no length was asked for, and `seconds` is the one the prompt's words give; the generation
    # thread reads it again as `stickgen generate` does, by meaning (`Studio._settle`), before sampling.
    default_length: bool = False
    candidates: int | None = None  # motions drawn per one returned; None: `generation.candidates_for`


def check_request(
    text: str,
    *,
    n: int = 1,
    seed: int | None = 0,
    seconds: float | None = None,
    guidance: float = DEFAULT_GUIDANCE,
    steps: int = DEFAULT_STEPS,
    actions: str | None = None,
    plan: str = DEFAULT_PLAN,
    camera: str | None = None,
    environment: str | None = None,
    theme: str = "light",
    candidates: int | None = None,
) -> Job:
    """The `Job` of a request, or one `StickgenError` sentence: `generation.check_request`, the checks of
    `generate_batch`, then the theme.

    seed None draws a random seed (below 2**31). The options are those of `stickgen generate`.
    """
    from stickgen.render.draw import get_theme
    from stickgen.text import language_warning

    seed = secrets.randbelow(RANDOM_SEEDS) if seed is None else seed
    default_length = seconds is None and actions is None
    prompt, seconds, timeline = generation_checks(
        text, n, seed=seed, seconds=seconds, guidance=guidance, steps=steps, actions=actions, plan=plan,
        camera=camera, environment=environment, candidates=candidates,
    )  # fmt: skip
    get_theme(theme)
    return Job(
        prompt=prompt, n=n, seed=seed, seconds=seconds, timeline=timeline, plan=plan, steps=steps,
        guidance=float(guidance), camera=None if camera is None else camera.replace("-", "_"), theme=theme,
        warning=language_warning(text), default_length=default_length, candidates=candidates,
    )  # fmt: skip


STORY_SECONDS = 60.0  # the studio's longest story or continuation; `stickgen story` makes longer ones


def _close(close: list | None) -> dict[str, list]:
    """A reading's close calls (`generation.close_calls`) as the API gives them: `close`, the actions
    near the reading, every part's, in order; `close_for`, per part read as a close call, the action
    read and the actions near it (a chained reading's buttons replace that action's span)."""
    close = close or []
    return {
        "close": [other for _, others in close for other in others],
        "close_for": [{"action": action, "close": list(others)} for action, others in close],
    }


@dataclass(frozen=True)
class EditJob:
    """A checked change of an earlier result's sample, or a story: what `Studio.edit` needs.

    kind: "continue" (the clip, then `text` for `seconds`), "part" (the joints of `part` redone to
    follow `text` between `start` and `stop` seconds) or "story" (`segments`, no clip).
    """

    kind: str
    source: Path | None  # the sample's NPZ, for continue and part
    text: str
    seed: int
    steps: int
    guidance: float
    theme: str
    seconds: float | None = None
    part: str | None = None
    start: float | None = None
    stop: float | None = None
    segments: tuple[Any, ...] = ()
    actions: str | None = None  # continue and part: the new frames' actions, as a story line gives them


def check_edit(
    kind: str,
    *,
    source: Path | None = None,
    text: str | None = None,
    story: str | None = None,
    seconds: float | None = None,
    part: str | None = None,
    start: float | None = None,
    stop: float | None = None,
    seed: int | None = 0,
    steps: int = DEFAULT_STEPS,
    guidance: float = DEFAULT_GUIDANCE,
    theme: str = "light",
    actions: str | None = None,
) -> EditJob:
    """The `EditJob` of a request, or one `StickgenError` sentence, before any work. What needs the
    clip itself (a span inside it) is checked when the job runs, with the same sentences as `stickgen
    edit`."""
    from stickgen.editing import check_given_actions, parse_story, part_joints
    from stickgen.generation import MIN_SECONDS
    from stickgen.ranges import check_sampling, check_seed
    from stickgen.render.draw import get_theme
    from stickgen.text import check_prompt

    seed = secrets.randbelow(RANDOM_SEEDS) if seed is None else seed
    check_seed("seed", seed)
    check_sampling(steps, guidance)
    get_theme(theme)
    segments: tuple[Any, ...] = ()
    if kind == "story":
        segments = tuple(parse_story(story or "", "the story"))
        total = sum(segment.seconds for segment in segments)
        if total > STORY_SECONDS:
            raise StickgenError(
                f"The studio makes at most {STORY_SECONDS:g} s at a time (this story lasts {total:.0f} s); "
                "`stickgen story` makes longer ones."
            )
        text = ", then ".join(segment.text for segment in segments)
    else:
        text = check_prompt(text or "")
        if kind == "part":
            part_joints(part or "")
            for name, value in (("from", start), ("to", stop)):
                if value is not None:
                    check_range(name, value, 0.0, STORY_SECONDS)
        elif seconds is not None:
            check_range("seconds", seconds, MIN_SECONDS, STORY_SECONDS)
        if actions is not None:
            end = check_given_actions(actions, seconds if kind == "continue" else None)
            if kind == "continue" and end > STORY_SECONDS:
                raise StickgenError(
                    f"The studio makes at most {STORY_SECONDS:g} s at a time (these actions run to {end:g} "
                    "s); `stickgen generate --after` makes longer ones."
                )
    return EditJob(
        kind=kind, source=source, text=text, seed=seed, steps=steps, guidance=float(guidance), theme=theme,
        seconds=seconds, part=part, start=start, stop=stop, segments=segments,
        actions=None if kind == "story" else actions,
    )  # fmt: skip


class Busy(Exception):
    """The queue is full; `retry_after` is a guess, in whole seconds, of when a place frees up."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"The studio is busy with other requests; try again in {retry_after} s.")
        self.retry_after = retry_after


class Studio:
    """The model and the text encoder, held in memory, and the one thread that uses them.

    queue: how many requests may wait while one runs; one more is `Busy`. Call `start()` once (it warms
    the model up) and `close()` at the end (it waits for the running job and deletes the results).
    """

    def __init__(
        self,
        checkpoint: Any,
        *,
        name: str,
        store: ResultStore,
        queue: int = DEFAULT_QUEUE,
        batch: int = MAX_BATCH,
    ) -> None:
        from stickgen.text import TextEncoder

        self.checkpoint = checkpoint
        self.name = name
        self.store = store
        self.queue = check_range("--queue", queue, 0, 10_000)
        self.batch = check_range("--batch", batch, 1, MAX_SAMPLES)
        self.encoder = TextEncoder(checkpoint.encoder["name"])
        self.mp4 = importlib.util.find_spec("imageio_ffmpeg") is not None
        self.warnings: list[str] = []
        self._mean = checkpoint.norm_mean.cpu().numpy()
        self._std = checkpoint.norm_std.cpu().numpy()
        import torch

        # The generation thread runs the model with torch's usual number of threads (see `load`).
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="stickgen-generate", initializer=torch.set_num_threads,
            initargs=(torch.get_num_threads(),),
        )  # fmt: skip
        self._lock = threading.Lock()
        self._pending = 0  # submitted and not finished: the running job and those waiting
        self._waiting: list[tuple[Job, Future]] = []  # generate jobs not yet taken into a batch
        self._job_seconds = 1.0  # a running mean of job durations, for Retry-After

    @classmethod
    def load(
        cls, checkpoint: str | Path | None = None, *, device: str = "auto", queue: int = DEFAULT_QUEUE,
        store: ResultStore | None = None, batch: int = MAX_BATCH,
    ) -> Studio:  # fmt: skip
        """Load a checkpoint folder (the bundled model by default) onto `device`: auto, cpu or cuda."""
        import torch

        from stickgen.generation import default_checkpoint, load_generator_checkpoint

        folder = default_checkpoint() if checkpoint is None else Path(checkpoint)
        # Loaded with one torch thread: once the calling thread has run torch on several threads, its
        # idle OpenMP threads slow the generation thread's own (on 2 cores, sampling a 3 s clip took
        # 0.36 s on that thread instead of 0.16 s); a server's main thread runs no torch afterwards.
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            loaded = load_generator_checkpoint(folder, device)
        finally:
            torch.set_num_threads(threads)
        store = store if store is not None else ResultStore()
        return cls(loaded, name=folder.resolve().name, store=store, queue=queue, batch=batch)

    @property
    def device(self) -> str:
        """Where the model runs: "cpu" or "cuda:0"."""
        return str(next(self.checkpoint.model.parameters()).device)

    def start(self) -> None:
        """Load the text encoder and run one short generation, on the generation thread; wait for both."""
        self._executor.submit(self._warm_up).result()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Run `fn(*args)` on the generation thread after the jobs before it; `Busy` if the queue is full."""
        self._take_place()
        try:
            future = self._executor.submit(self._timed, fn, *args)
        except RuntimeError:  # shutting down
            self._finished(None)
            raise Busy(1) from None
        future.add_done_callback(self._finished)
        return future

    def submit_generate(self, job: Job) -> Future:
        """`generate(job)` on the generation thread, batched with the generate jobs waiting beside it;
        a Future of its `Result`. `Busy` if the queue is full; cancelling the Future before it runs
        drops the job."""
        self._take_place()
        future: Future = Future()
        future.add_done_callback(self._finished)
        with self._lock:
            self._waiting.append((job, future))
        try:
            self._executor.submit(self._run_batch)
        except RuntimeError:  # shutting down
            future.cancel()
            raise Busy(1) from None
        return future

    def status(self) -> dict[str, int]:
        """The queue as `/api/health` shows it."""
        with self._lock:
            pending = self._pending
        return {"running": min(pending, 1), "waiting": max(0, pending - 1), "capacity": self.queue}

    def generate(self, job: Job) -> Result:
        """Sample `job`, write its files into a new result, and register it (generation thread only)."""
        job = self._settle(job)
        return self._store_result(job, self._sample_many([job])[0])

    def _settle(self, job: Job) -> Job:
        """The job with the length `stickgen generate` gives its prompt when none was asked for: its
        actions read with the model's encoder (`generation.read_seconds`); generation thread only."""
        from stickgen.generation import read_seconds

        if not job.default_length:
            return job
        return replace(job, seconds=read_seconds(job.prompt, job.plan, self.encoder), default_length=False)

    def edit(self, job: EditJob) -> Result:
        """Continue or edit a result's sample, or tell a story, and store the result (generation thread)."""
        from stickgen.editing import (
            continue_motion,
            edit_motion,
            guessed_edit_reading,
            guessed_segment_readings,
            tell_story,
        )
        from stickgen.motion import load_motion

        options = {"checkpoint": self.checkpoint, "seed": job.seed, "steps": job.steps,
                   "guidance": job.guidance, "text_encoder": self.encoder}  # fmt: skip
        if job.kind == "story":
            motion = tell_story(job.segments, **options)
        else:
            try:
                clip = load_motion(job.source)
            except (OSError, StickgenError):
                raise StickgenError(GONE_SENTENCE) from None
            if job.kind == "continue":
                motion = continue_motion(clip, job.text, seconds=job.seconds, actions=job.actions, **options)
            else:
                motion = edit_motion(clip, job.text, part=job.part, start=job.start, stop=job.stop,
                                     actions=job.actions, **options)  # fmt: skip
        settings = Job(
            prompt=motion.texts[0] if motion.texts else job.text, n=1, seed=job.seed, seconds=motion.duration,
            timeline=None, plan=DEFAULT_PLAN, steps=job.steps, guidance=job.guidance, camera=None,
            theme=job.theme, warning=None,
        )  # fmt: skip
        # a story line or a continuation whose words name no action is read by meaning: said as
        # `stickgen story` says it, so that a misread line can be given its own "| ACTIONS"
        read = [{"actions": spec, "samples": [0], "segment": k, "text": text, **_close(near)}
                for k, text, spec, near in guessed_segment_readings(motion, DEFAULT_PLAN)]  # fmt: skip
        edit_read = guessed_edit_reading(motion, DEFAULT_PLAN)  # a part edit's, from its span's start
        if edit_read is not None:
            close = _close(motion.source["edited"].get("close"))
            read = [{"actions": edit_read, "samples": [0], **close}]
        return self._store_result(settings, [motion], read)

    def _run_batch(self) -> None:
        """Take the first waiting generate job and those that can share its batch; sample them together
        and answer each Future as soon as its files are written (generation thread)."""
        self._settle_waiting()
        with self._lock:
            # A job that came in meanwhile waits for its own turn (each submit_generate queues one).
            first = next((job for job, _ in self._waiting if not job.default_length), None)
            if first is None:
                return  # taken by an earlier batch
            key = _batch_key(first)
            batch: list[tuple[Job, Future]] = []
            rest: list[tuple[Job, Future]] = []
            samples = 0
            for job, future in self._waiting:
                fits = samples + job.n <= max(self.batch, first.n)
                if not job.default_length and _batch_key(job) == key and fits:
                    batch.append((job, future))
                    samples += job.n
                else:
                    rest.append((job, future))
            self._waiting = rest
        live = [(job, future) for job, future in batch if future.set_running_or_notify_cancel()]
        if not live:
            return
        start = time.perf_counter()
        try:
            sampled = self._sample_many([job for job, _ in live])
        except BaseException as exc:
            if len(live) == 1:
                live[0][1].set_exception(exc)
                return
            sampled = None  # one of them failed: run each alone, so only its own request sees it
        for k, (job, future) in enumerate(live):
            try:
                motions = sampled[k] if sampled is not None else self._sample_many([job])[0]
                future.set_result(self._store_result(job, motions))
            except BaseException as exc:
                future.set_exception(exc)
        seconds = (time.perf_counter() - start) / len(live)
        self._job_seconds = 0.8 * self._job_seconds + 0.2 * seconds

    def _settle_waiting(self) -> None:
        """Give each waiting job without a chosen length the one `generate` gives it (`_settle`, which
        uses the encoder, so outside the lock); a job whose reading fails gets the error at once."""
        with self._lock:
            unsettled = [job for job, _ in self._waiting if job.default_length]
        settled: dict[int, Job | BaseException] = {}
        for job in unsettled:
            try:
                settled[id(job)] = self._settle(job)
            except BaseException as exc:
                settled[id(job)] = exc
        with self._lock:
            waiting, failed = [], []
            for job, future in self._waiting:
                done = settled.get(id(job), job)
                if isinstance(done, BaseException):
                    failed.append((future, done))
                else:
                    waiting.append((done, future))
            self._waiting = waiting
        for future, exc in failed:
            if future.set_running_or_notify_cancel():
                future.set_exception(exc)

    def _store_result(self, job: Job, motions: list[Motion], read: list[dict] | None = None) -> Result:
        """Write the files of `job`'s sampled motions into a new result and register it; `read`: how
        a story's or continuation's segments were read (else the prompt's `guessed_readings`)."""
        from stickgen.generation import guessed_readings, timeline_spec
        from stickgen.labels import environment_name

        result_id, folder = self.store.new_folder()
        try:
            files, samples = self._write(motions, folder, job)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        # how a prompt whose words name no action was read, as `stickgen generate` says it on stderr
        if read is None:
            guessed = guessed_readings(motions, job.plan)
            read = [{"actions": spec, "samples": k, **_close(motions[k[0]].source.get("close"))}
                    for spec, k in guessed.items()]  # fmt: skip
        info = {
            "text": job.prompt, "seed": job.seed, "seconds": motions[0].duration,
            "frames": motions[0].num_frames, "n": job.n, "steps": job.steps, "guidance": job.guidance,
            "plan": job.plan, "camera": job.camera, "environment": environment_name(motions[0].environment),
            "theme": job.theme, "warning": job.warning,
            "actions": None if job.timeline is None else timeline_spec(job.timeline),
            "read_as": read or None,
            "files": files, "samples": samples,
        }  # fmt: skip
        names = tuple(sorted({*files.values(), *(name for s in samples for name in s.values())}))
        written = {name for name in names if (folder / name).is_file()}
        result = Result(id=result_id, folder=folder, names=names, info=info, written=written)
        self.store.add(result)
        return result

    def make_file(self, result: Result, name: str) -> bool:
        """Write a file the result offers but makes on its first download (PNG strip, MP4, a sample's JSON
        and BVH); False if the result was dropped."""
        from stickgen.motion import load_motion
        from stickgen.render import save, save_grid

        if name in result.written:
            return True
        info = result.info
        try:
            motions = [load_motion(result.folder / sample["npz"]) for sample in info["samples"]]
            own = [k for k, sample in enumerate(info["samples"]) if name in sample.values()]
            if own:  # a sample's data file
                save(motions[own[0]], result.folder / name)
            elif len(motions) == 1:
                save(motions[0], result.folder / name, theme=info["theme"], caption=info["text"])
            else:
                save_grid(motions, result.folder / name, captions=_grid_captions(info), theme=info["theme"])
        except (OSError, StickgenError):
            if self.store.get(result.id) is None:
                return False  # dropped from the store while this was drawn
            raise
        return self.store.wrote(result.id, name)

    def close(self) -> None:
        """Drop the waiting jobs, wait for the running one, delete the results."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        self.store.close()

    def _write(self, motions: list[Motion], folder: Path, job: Job) -> tuple[dict[str, str], list[dict]]:
        """Write the files the page needs at once, the GIF and each sample's NPZ (which the others are
        made from on their first download, `make_file`); returns the file names by format, of the result
        and of each sample: the CLI's files and names."""
        from stickgen.render import save, save_grid

        stem = slug(job.prompt)
        files = {"gif": f"{stem}.gif", "png": f"{stem}.png"}
        if len(motions) == 1:
            samples = [{fmt: f"{stem}.{fmt}" for fmt in DATA_FORMATS}]
            save(motions[0], folder / files["gif"], theme=job.theme, caption=job.prompt)
            files.update(samples[0])
        else:
            samples = [{fmt: f"{stem}-{k + 1}.{fmt}" for fmt in DATA_FORMATS} for k in range(len(motions))]
            captions = _grid_captions({"text": job.prompt, "seed": job.seed, "n": job.n})
            save_grid(motions, folder / files["gif"], captions=captions, theme=job.theme)
        for motion, sample in zip(motions, samples, strict=True):
            save(motion, folder / sample["npz"])
        if self.mp4:
            files["mp4"] = f"{stem}.mp4"
        return files, samples

    def _sample_many(self, jobs: list[Job]) -> list[list[Motion]]:
        """The motions of jobs that share a `_batch_key`, sampled in one batch."""
        from stickgen.generation import generate_requests, sample_requests
        from stickgen.synth.camera import camera_track

        # into the persistent cache, where generate_requests finds them
        self.encoder.encode(list(dict.fromkeys(job.prompt for job in jobs)))
        first = jobs[0]
        requests = [r for job in jobs for r in sample_requests(job.prompt, job.n, job.seed, job.timeline)]
        flat = generate_requests(
            self.checkpoint.model, requests, encoder=self.checkpoint.encoder["name"], mean=self._mean,
            std=self._std, seconds=first.seconds, plan=first.plan, steps=first.steps, guidance=first.guidance,
            candidates=first.candidates,
        )  # fmt: skip
        sampled, start = [], 0
        for job in jobs:  # each job's samples, one request each
            sampled.append([m for request in flat[start : start + job.n] for m in request])
            start += job.n
        for k, job in enumerate(jobs):
            if job.camera is not None:
                tracks = [camera_track(m.joints, job.camera, m.fps)[0] for m in sampled[k]]
                sampled[k] = [m.replace(camera=track) for m, track in zip(sampled[k], tracks, strict=True)]
        return sampled

    def _warm_up(self) -> None:
        from stickgen.embed_cache import EmbeddingCache

        # The encoder loads its model at the first text its cache lacks: a throwaway cache makes that
        # the warm-up prompt, now, whatever the persistent cache holds.
        persistent, scratch = self.encoder.cache, self.store.root / "warm-up-cache"
        self.encoder.cache = EmbeddingCache(scratch)
        self.encoder.encode([WARM_UP_PROMPT])
        self.encoder.cache.close()
        self.encoder.cache = persistent
        shutil.rmtree(scratch, ignore_errors=True)
        self._sample_many([check_request(WARM_UP_PROMPT, seconds=1.0, steps=2)])
        if persistent.get_many(self.encoder.identity.id, [WARM_UP_PROMPT])[0] is None:
            self.warnings.append(
                f"the embedding cache in {persistent.directory} cannot be written, so every request "
                "loads the text encoder again (seconds each)"
            )

    def _timed(self, fn: Callable[..., Any], *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args)
        finally:
            self._job_seconds = 0.8 * self._job_seconds + 0.2 * (time.perf_counter() - start)

    def _take_place(self) -> None:
        """Count one more pending job, or raise `Busy` when the queue is full."""
        with self._lock:
            if self._pending > self.queue:
                raise Busy(max(1, math.ceil(self._pending * self._job_seconds)))
            self._pending += 1

    def _finished(self, _: Future | None) -> None:
        with self._lock:
            self._pending -= 1


def _batch_key(job: Job) -> tuple[Any, ...]:
    """Jobs with equal keys can be sampled in one batch: same frames, steps, guidance, plan and
    candidates."""
    from stickgen.generation import FPS

    frames = len(job.timeline) if job.timeline is not None else max(1, int(round(job.seconds * FPS)))
    return frames, job.steps, job.guidance, job.plan, job.candidates


def slug(text: str) -> str:
    """The CLI's default file name stem for a prompt: "A person jumps!" → "a-person-jumps"."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "stickgen"


def _grid_captions(info: dict[str, Any]) -> list[str]:
    """The captions `stickgen generate -n` puts under the samples of a grid."""
    from stickgen.generation import sample_captions

    return sample_captions(info["text"], info["n"], info["seed"])
