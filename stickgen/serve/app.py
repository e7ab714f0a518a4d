"""The FastAPI app of `stickgen serve`: the page, the JSON API, and every error as one sentence.

Routes (the API is also described by the OpenAPI page at `/docs`, served offline):
- `GET /`: the studio page; `/static/...`: its CSS, JavaScript and icon.
- `GET /api/health`: `{"status": "ok", "model": NAME, ...}`; `GET /api/options`: the choices and
  ranges the page offers.
- `POST /api/generate`: a JSON request → the result's id, settings and file URLs.
- `GET /api/results/{id}/{name}`: one file of a result, with its content type.

Every answer that is not a success is JSON `{"detail": "one sentence"}`: 422 for a field the CLI
would refuse (the CLI's sentence), 413 for a body over 64 KiB, 404 for an unknown path, result or
file, 503 with `Retry-After` when the queue is full. A client's mistake is never a 500.

Guards: when the server listens on a loopback address, only requests naming a loopback host are
answered (a web page elsewhere cannot reach the studio by DNS rebinding); a cross-site form cannot
post JSON, as the API reads only `application/json` bodies; no CORS headers unless origins are given;
the page forbids every script, style and image from elsewhere (Content-Security-Policy).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from stickgen import __version__
from stickgen.editing import PARTS
from stickgen.errors import StickgenError
from stickgen.generation import CAMERA_CHOICES, DEFAULT_PLAN, MAX_SECONDS, MIN_SECONDS, PLANS
from stickgen.ranges import MAX_GUIDANCE, MAX_SEED, MAX_STEPS
from stickgen.serve.results import Result
from stickgen.serve.studio import (
    DEFAULT_GUIDANCE,
    DEFAULT_STEPS,
    MAX_SAMPLES,
    STORY_SECONDS,
    Busy,
    Studio,
    check_edit,
    check_request,
)

STATIC = Path(__file__).parent / "static"
MAX_BODY = 64 * 1024  # bytes of a request body
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
EXAMPLES = (
    "a person jumps",
    "a person jumps on the moon",
    "someone walks, then waves",
    "a person dances",
    "a person sits down",
    "a person kicks a ball",
)
MEDIA_TYPES = {
    ".gif": "image/gif",
    ".png": "image/png",
    ".mp4": "video/mp4",
    ".json": "application/json",
    ".npz": "application/octet-stream",
    ".bvh": "text/plain; charset=utf-8",
}
FORMATS = ("gif", "png", "json", "npz", "bvh")  # and "mp4" with the [mp4] extra
INLINE = (".gif", ".png", ".mp4", ".json")  # shown by a browser; the others are saved
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
    "media-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
DISCONNECT_POLL_S = 0.2
BODY_SHAPE = 'The request body must be a JSON object sent as application/json: {"text": "a person jumps"}.'
GONE = "There is no such result: results last until the server stops or newer ones push them out."


class GenerateRequest(BaseModel):
    """What to generate: only `text` is required; the rest are `stickgen generate`'s options."""

    model_config = ConfigDict(
        strict=True, extra="forbid", json_schema_extra={"examples": [{"text": "a person jumps", "seed": 0}]}
    )

    text: str = Field(description='What the figure does, e.g. "a person jumps" (1–1000 characters).')
    seed: int | None = Field(0, description="Noise seed, 0 to 2**63 − 1; null draws one (returned).")
    seconds: float | None = Field(None, description="Duration, 0.5–20 s; null: suited to the prompt.")
    n: int = Field(1, description=f"Samples, 1–{MAX_SAMPLES}; several make a captioned grid.")
    guidance: float = Field(DEFAULT_GUIDANCE, description="Classifier-free guidance scale, 0–20.")
    steps: int = Field(DEFAULT_STEPS, description="ODE steps, 1–200.")
    actions: str | None = Field(None, description='Per-frame action timeline, e.g. "walk:0-2,jump:2-3".')
    plan: str = Field(DEFAULT_PLAN, description=f"Timeline without actions: {', '.join(PLANS)}.")
    environment: str | None = Field(
        None, description="A place added to a prompt that names none (refused if it names another)."
    )
    candidates: int | None = Field(
        None, description="Motions drawn for each one returned, 1–16; null: as many as fit in 10 s of frames."
    )
    camera: str | None = Field(None, description=f"{', '.join(CAMERA_CHOICES)}; null: automatic.")
    theme: str = Field("light", description="light, dark, paper or blueprint.")


ACTIONS_FIELD = (
    'The actions instead of how the text reads, as a story line gives them after "|": names in order '
    '("sit_down", "walk, sit_down") or spans in seconds from {where} ("walk:0-2,sit_down:2-4").'
)


class _ChangeFields(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    seed: int | None = Field(0, description="Noise seed, 0 to 2**63 − 1; null draws one (returned).")
    guidance: float = Field(DEFAULT_GUIDANCE, description="Classifier-free guidance scale, 0–20.")
    steps: int = Field(DEFAULT_STEPS, description="ODE steps, 1–200.")
    theme: str = Field("light", description="light, dark, paper or blueprint.")


class ContinueRequest(_ChangeFields):
    """An earlier result's sample followed by new motion that starts where it ends."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"id": "RESULT_ID", "text": "a person sits down"}]}
    )

    id: str = Field(description="The result to continue.")
    sample: int = Field(1, description="Which of its samples, from 1.")
    text: str = Field(description="What the figure does next.")
    seconds: float | None = Field(
        None, description=f"How long the new motion lasts, up to {STORY_SECONDS:g} s."
    )
    actions: str | None = Field(None, description=ACTIONS_FIELD.format(where="the new motion's start"))


class EditRequest(_ChangeFields):
    """An earlier result's sample with the joints of one body part redone, everything else kept."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"id": "RESULT_ID", "text": "a person waves", "part": "upper"}]}
    )

    id: str = Field(description="The result to edit.")
    sample: int = Field(1, description="Which of its samples, from 1.")
    text: str = Field(description="What the part does.")
    part: str = Field(description="upper, lower, arms, legs, left_arm or right_arm.")
    start: float | None = Field(None, alias="from", description="Edit from this second (default: the start).")
    stop: float | None = Field(None, alias="to", description="Edit up to this second (default: the end).")
    actions: str | None = Field(None, description=ACTIONS_FIELD.format(where="the edited span's start"))


class StoryRequest(_ChangeFields):
    """One continuous clip of several segments, one a line: `SECONDS TEXT` or just `TEXT`."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"story": "3 a person walks forward\n2 a person jumps"}]}
    )

    story: str = Field(description=f"The segments, one a line; at most {STORY_SECONDS:g} s in all.")


BODIES: dict[str, type[BaseModel]] = {
    "/api/continue": ContinueRequest, "/api/edit": EditRequest, "/api/story": StoryRequest,
}  # fmt: skip


class CloseCall(BaseModel):
    """One part of a reading that was a close call: the action read and the actions near it."""

    action: str = Field(description="The action read for that part.")
    close: list[str] = Field(description="Actions near it, likeliest first.")


class Reading(BaseModel):
    """One reading of a prompt (or of a story's segment) by meaning, in the form `actions` takes (a
    story line's own "| ACTIONS"), and the samples that followed it."""

    actions: str = Field(description='The timeline followed, e.g. "stand_up:0-5,crouch:5-10".')
    samples: list[int] = Field(description="The samples (from 0) that followed it.")
    segment: int | None = Field(
        default=None, description="In a story or continuation: the segment read (from 1), in its own seconds."
    )
    text: str | None = Field(default=None, description="That segment's text.")
    close: list[str] = Field(
        default_factory=list, description="Actions the reading was a close call with, likeliest first."
    )
    close_for: list[CloseCall] = Field(
        default_factory=list,
        description="Per part read as a close call, in order: the action read and the actions near it.",
    )


class GenerateResponse(BaseModel):
    """A result: its settings as used, and the URLs of its files."""

    id: str = Field(description="A random token naming the result.")
    text: str = Field(description="The prompt as generated (cleaned; a place phrase added).")
    seed: int
    seconds: float
    frames: int
    n: int
    steps: int
    guidance: float
    plan: str
    camera: str | None
    environment: str = Field(description="The environment the motion is labelled with.")
    theme: str
    warning: str | None = Field(description="The CLI's language warning, or null.")
    actions: str | None = Field(description="The action timeline given with the request, or null.")
    read_as: list[Reading] | None = Field(
        description="How a prompt whose words name no action was read (a guess), or null."
    )
    files: dict[str, str] = Field(description="URL by format: the animation (a grid for n > 1) and more.")
    samples: list[dict[str, str]] = Field(description="Per sample, the URLs of its JSON, NPZ and BVH.")


class Problem(BaseModel):
    detail: str = Field(description="One sentence.")


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem, "description": text}
    for code, text in ((404, "Not found"), (413, "Body too large"), (422, "Refused input"), (503, "Busy"))
}


def create_app(
    studio: Studio, *, allowed_hosts: Sequence[str] | None = None, cors_origins: Sequence[str] = ()
) -> FastAPI:
    """The app around a started `studio`; closing the app (its lifespan) closes the studio.

    allowed_hosts: the host names requests may name (None: any); cors_origins: web origins allowed to
    call the API from their pages (none by default).
    """
    from contextlib import asynccontextmanager

    from fastapi_offline import FastAPIOffline

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        try:
            yield
        finally:
            await asyncio.to_thread(studio.close)

    app = FastAPIOffline(
        title="stickgen studio", version=__version__, lifespan=lifespan, redoc_url=None,
        static_url="/docs-assets", description="Text to animated stick figure: the API of `stickgen serve`.",
    )  # fmt: skip
    app.add_middleware(Guard, allowed_hosts=allowed_hosts, max_body=MAX_BODY)
    if cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST"],
            allow_headers=["Content-Type"],
        )  # fmt: skip
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    page = (STATIC / "index.html").read_text(encoding="utf-8")

    @app.exception_handler(RequestValidationError)
    async def refused_fields(request: Request, exc: RequestValidationError) -> JSONResponse:
        body = BODIES.get(request.url.path, GenerateRequest)
        return _problem(422, validation_sentence(exc.errors(), body))

    @app.exception_handler(StickgenError)
    async def refused_value(request: Request, exc: StickgenError) -> JSONResponse:
        return _problem(422, api_sentence(str(exc), BODIES.get(request.url.path, GenerateRequest)))

    @app.exception_handler(Busy)
    async def busy(_: Request, exc: Busy) -> JSONResponse:
        return _problem(503, str(exc), headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return _problem(exc.status_code, _http_sentence(request, exc), headers=exc.headers)

    @app.exception_handler(Exception)
    async def bug(_: Request, exc: Exception) -> JSONResponse:
        # Starlette re-raises the exception after this answer, so the server logs its traceback.
        return _problem(500, "The server failed on this request (a bug); its log has the details.")

    @app.get("/", include_in_schema=False)
    async def index() -> HTMLResponse:
        headers = {"Content-Security-Policy": PAGE_POLICY, "Cache-Control": "no-cache"}
        return HTMLResponse(page, headers=headers)

    @app.get("/api/health", summary="The server is up: the model, device and queue")
    async def health() -> dict[str, Any]:
        return {
            "status": "ok", "model": studio.name, "device": studio.device,
            "encoder": studio.checkpoint.encoder["name"], "version": __version__, "queue": studio.status(),
            "results": len(studio.store), "formats": [*FORMATS, *(["mp4"] if studio.mp4 else [])],
        }  # fmt: skip

    @app.get("/api/options", summary="The choices and ranges of the generate fields, for a form")
    async def options() -> dict[str, Any]:
        from stickgen.labels import ENVIRONMENT_NAMES
        from stickgen.render import THEMES

        return {
            "examples": list(EXAMPLES), "environments": list(ENVIRONMENT_NAMES),
            "cameras": [c.replace("_", "-") for c in CAMERA_CHOICES], "themes": list(THEMES),
            "plans": list(PLANS), "mp4": studio.mp4, "parts": list(PARTS),
            "limits": {
                "n": [1, MAX_SAMPLES], "seconds": [MIN_SECONDS, MAX_SECONDS], "steps": [1, MAX_STEPS],
                "guidance": [0, MAX_GUIDANCE], "seed": [0, MAX_SEED],
            },
            "defaults": GenerateRequest(text="-").model_dump(exclude={"text"}),
        }  # fmt: skip

    @app.post(
        "/api/generate", response_model=GenerateResponse, responses=ERRORS,
        summary="Turn a sentence into an animated stick figure",
    )  # fmt: skip
    async def generate(body: GenerateRequest, request: Request) -> Any:
        job = check_request(**body.model_dump())
        result = await _wait(request, studio.submit_generate(job))
        if result is None:
            return Response(status_code=499)  # the client has gone; nobody reads this
        return _answer(result)

    def source(result_id: str, sample: int) -> Path:
        result = studio.store.get(result_id)
        if result is None:
            raise HTTPException(404, GONE)
        samples = result.info["samples"]
        if not 1 <= sample <= len(samples):
            raise StickgenError(f"sample must be from 1 to {len(samples)}, not {sample}.")
        return result.folder / samples[sample - 1]["npz"]

    async def change(request: Request, job: Any) -> Any:
        result = await _wait(request, studio.submit(studio.edit, job))
        if result is None:
            return Response(status_code=499)
        return _answer(result)

    async def change_result(request: Request, kind: str, body: ContinueRequest | EditRequest) -> Any:
        fields = body.model_dump(exclude={"id", "sample"})
        return await change(request, check_edit(kind, source=source(body.id, body.sample), **fields))

    @app.post(
        "/api/continue", response_model=GenerateResponse, responses=ERRORS,
        summary="Continue an earlier result: its motion, then new motion for the text",
    )  # fmt: skip
    async def continue_result(body: ContinueRequest, request: Request) -> Any:
        return await change_result(request, "continue", body)

    @app.post(
        "/api/edit", response_model=GenerateResponse, responses=ERRORS,
        summary="Redo one body part of an earlier result to follow the text; the rest is kept",
    )  # fmt: skip
    async def edit_result(body: EditRequest, request: Request) -> Any:
        return await change_result(request, "part", body)

    @app.post(
        "/api/story", response_model=GenerateResponse, responses=ERRORS,
        summary="Tell a story: one continuous clip, each line a segment",
    )  # fmt: skip
    async def story(body: StoryRequest, request: Request) -> Any:
        return await change(request, check_edit("story", **body.model_dump()))

    @app.get(
        "/api/results/{result_id}/{name}", responses=ERRORS, response_class=Response,
        summary="One file of a result (GIF, PNG, MP4, JSON, NPZ or BVH)",
    )  # fmt: skip
    async def result_file(result_id: str, name: str, request: Request) -> Response:
        result = studio.store.get(result_id)
        if result is None or name not in result.names:
            raise HTTPException(404, GONE)
        if name not in result.written:
            made = await _wait(request, studio.submit(studio.make_file, result, name))
            if made is None:
                return Response(status_code=499)
            if not made:
                raise HTTPException(404, GONE)
        return _file_response(result.folder / name)

    return app


async def _wait(request: Request, future: Future) -> Any:
    """The result of a job submitted to the studio; None if the client left first (a job not yet
    started is then dropped, a running one finishes and its result is kept)."""
    waiting = asyncio.wrap_future(future)
    while True:
        done, _ = await asyncio.wait({waiting}, timeout=DISCONNECT_POLL_S)
        if done:
            return waiting.result()
        if await request.is_disconnected():
            future.cancel()
            return None


def _answer(result: Result) -> dict[str, Any]:
    base = f"/api/results/{result.id}/"
    info = dict(result.info)
    info["files"] = {fmt: base + name for fmt, name in info["files"].items()}
    info["samples"] = [{fmt: base + name for fmt, name in s.items()} for s in info["samples"]]
    return {"id": result.id, **info}


def _file_response(path: Path) -> Response:
    """Stream a result file, opened now so that a file dropped a moment ago is a 404, not a 500."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise HTTPException(404, GONE) from None
    size = os.fstat(handle.fileno()).st_size

    def chunks() -> Iterator[bytes]:
        with handle:
            while block := handle.read(1 << 16):
                yield block

    disposition = "inline" if path.suffix in INLINE else "attachment"
    headers = {
        "Content-Length": str(size),
        "Content-Disposition": f'{disposition}; filename="{path.name}"',
        "Cache-Control": "private, max-age=86400, immutable",
    }
    return StreamingResponse(chunks(), media_type=MEDIA_TYPES[path.suffix], headers=headers)


def _problem(status: int, sentence: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": sentence}, status_code=status, headers=headers)


def _http_sentence(request: Request, exc: HTTPException) -> str:
    if isinstance(exc.detail, str) and exc.detail.endswith("."):
        return exc.detail  # already a sentence of ours
    if exc.status_code == 404:
        return f"There is nothing at {request.url.path}; the page is at / and the API is described at /docs."
    if exc.status_code == 405:
        return f"{request.method} is not allowed on {request.url.path}; /docs lists the methods."
    return f"The request was refused ({exc.status_code}: {exc.detail})."


_EXPECTED = {
    "string_type": "a string",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
}


def validation_sentence(errors: Sequence[Any], body: type[BaseModel] | None = None) -> str:
    """One sentence for pydantic's errors about a request body of model `body` (default: a generate
    request); the first error is the one told."""
    body = body or GenerateRequest
    error = errors[0]
    field = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
    kind = error.get("type", "")
    if kind == "json_invalid":
        return "The request body is not valid JSON."
    if kind == "extra_forbidden":
        names = [info.alias or name for name, info in body.model_fields.items()]
        return f"Unknown field {field!r}; the fields are: {', '.join(names)}."
    if kind == "missing" and field:
        return f"The field {field!r} is required."
    if not field or kind in ("missing", "model_attributes_type", "dict_type", "model_type"):
        return BODY_SHAPE
    if kind in _EXPECTED:
        return f"{field} must be {_EXPECTED[kind]}, not {_json_type(error.get('input'))}."
    return f"{field}: {error.get('msg', 'invalid value')}."


def api_sentence(sentence: str, body: type[BaseModel]) -> str:
    """`sentence` with the command-line options it names ("--seed must be …", "-n must be …") written as
    the request's own fields ("seed must be …"); an option the request has no field for stays."""
    fields = {info.alias or key for key, info in body.model_fields.items()}

    def field(match: re.Match[str]) -> str:
        name = match.group(1).replace("-", "_")
        return name if name in fields else match.group(0)

    return re.sub(r"(?<![\w-])--?([a-z][a-z-]*[a-z]|[a-z])(?![\w-])", field, sentence)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {json.dumps(value)}"
    if isinstance(value, str):
        return f"the string {json.dumps(value[:40])}"
    return "a list" if isinstance(value, list) else "an object"


class Guard:
    """ASGI middleware: the Host check, the body cap, and headers that keep browsers careful.

    The body (at most `max_body` bytes) is read here, before the app, so that a body too large is a 413
    however it is sent (with a Content-Length or in chunks).
    """

    def __init__(self, app: Any, *, allowed_hosts: Sequence[str] | None, max_body: int) -> None:
        self.app = app
        self.allowed = None if allowed_hosts is None else {h.lower().strip("[]") for h in allowed_hosts}
        self.max_body = max_body

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = _host_name(headers.get("host", ""))
        if self.allowed is not None and host not in self.allowed:
            shown = " or ".join(sorted(self.allowed))
            await _send_problem(send, 400, f"This server answers requests for {shown} only, not {host!r}.")
            return
        too_large = f"The request body is over the limit of {self.max_body // 1024} KiB."
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await _send_problem(send, 413, too_large)
            return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await _send_problem(send, 413, too_large)
                return
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if replayed:
                return await receive()  # from now on: the disconnect, when it comes
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def careful_send(message: dict) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                ]
            await send(message)

        await self.app(scope, replay, careful_send)


def _host_name(host: str) -> str:
    """The host name of a Host header, without its port: "localhost:8000" → "localhost"."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


async def _send_problem(send: Any, status: int, sentence: str) -> None:
    body = json.dumps({"detail": sentence}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
