"""`stickgen serve` through the real app: generation, files, refusals, the queue, guards and shutdown.

The studio holds the bundled model; requests use few ODE steps where the motion itself does not matter.
"""

import inspect
import io
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason='stickgen serve needs the [serve] extra: pip install "stickgen[serve]"')

from fastapi.testclient import TestClient  # noqa: E402
from PIL import Image  # noqa: E402

from stickgen.bvh import parse_bvh  # noqa: E402
from stickgen.errors import StickgenError  # noqa: E402
from stickgen.generation import (  # noqa: E402
    TYPICAL_SECONDS,
    default_checkpoint,
    default_seconds,
    generate_batch,
    parse_action_timeline,
)
from stickgen.labels import action_id  # noqa: E402
from stickgen.motion import load_motion, motion_from_json  # noqa: E402
from stickgen.serve import server  # noqa: E402
from stickgen.serve.app import (  # noqa: E402
    LOOPBACK_HOSTS,
    MAX_BODY,
    EditRequest,
    GenerateRequest,
    api_sentence,
    create_app,
)
from stickgen.serve.results import Result, ResultStore  # noqa: E402
from stickgen.serve.studio import DEFAULT_GUIDANCE, DEFAULT_STEPS, MAX_SAMPLES, Studio  # noqa: E402

QUICK = {"steps": 4}


@pytest.fixture(scope="module")
def studio():
    studio = Studio.load(device="cpu", queue=2)
    studio.start()
    yield studio
    studio.close()


@pytest.fixture(scope="module")
def client(studio):
    # No `with`: the app's lifespan would close the studio the other tests share.
    return TestClient(create_app(studio), raise_server_exceptions=False)


def gif_frames(data: bytes) -> list[int]:
    """The frame durations (ms) of a GIF."""
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "GIF"
        durations = []
        for k in range(image.n_frames):
            image.seek(k)
            durations.append(image.info["duration"])
    return durations


def assert_one_sentence(response, status: int | tuple[int, ...] = 422) -> str:
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status_code in statuses, response.text
    assert response.headers["content-type"].startswith("application/json")
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail.endswith(".") and "\n" not in detail, detail
    assert "Traceback" not in detail
    return detail


def test_health_names_the_loaded_model(client):
    health = client.get("/api/health").json()
    assert health["status"] == "ok"
    assert health["model"] == default_checkpoint().name
    assert health["queue"] == {"running": 0, "waiting": 0, "capacity": 2}


def test_generate_round_trip_gives_a_gif_of_the_requested_duration(client):
    response = client.post(
        "/api/generate", json={"text": "a person jumps", "seconds": 2.0, "seed": 3, **QUICK}
    )
    assert response.status_code == 200, response.text
    result = response.json()
    assert (result["seconds"], result["frames"], result["seed"], result["n"]) == (2.0, 50, 3, 1)
    assert set(result["files"]) >= {"gif", "png", "json", "npz", "bvh"}
    gif = client.get(result["files"]["gif"])
    assert gif.status_code == 200 and gif.headers["content-type"] == "image/gif"
    durations = gif_frames(gif.content)
    assert sum(durations) == 2000 and len(durations) > 10


def test_candidates_are_an_option_of_the_api_as_of_generate(client, tmp_path):
    body = {"text": "a person jumps", "seconds": 1.0, "seed": 4, "candidates": 2, **QUICK}
    result = client.post("/api/generate", json=body).json()
    (tmp_path / "clip.npz").write_bytes(client.get(result["files"]["npz"]).content)
    served = load_motion(tmp_path / "clip.npz")
    alone = generate_batch("a person jumps", seconds=1.0, seed=4, candidates=2, **QUICK)[0]
    assert served.source["candidates"] == 2
    np.testing.assert_allclose(served.joints, alone.joints, atol=1e-4)


def test_without_seconds_a_prompt_gets_the_length_generate_gives_it(client):
    """The words of this prompt name no action and give 3 s; read by meaning it is a celebration,
    whose clips take longer: the studio, like `stickgen generate`, makes it that long."""
    text = "a crowd goes wild as the player scores"
    assert default_seconds(text) == 3.0
    result = client.post("/api/generate", json={"text": text, **QUICK}).json()
    assert result["frames"] == round(TYPICAL_SECONDS["celebrate"] * 25) > 3 * 25
    assert len(generate_batch(text, steps=1)[0].joints) == result["frames"]


def test_a_guessed_reading_is_in_the_answer_as_the_actions_that_correct_it(client):
    """As `stickgen generate` says on stderr: a prompt whose words name no action is read by meaning."""
    text = "a crowd goes wild as the player scores"
    result = client.post("/api/generate", json={"text": text, "seed": 1, **QUICK}).json()
    assert "read_as" in result, result
    [read] = result["read_as"]
    assert read["samples"] == [0] and read["actions"].startswith("celebrate:0-")
    given = client.post("/api/generate", json={"text": text, "seed": 1, "actions": read["actions"], **QUICK})
    assert given.json()["read_as"] is None and given.json()["frames"] == result["frames"]
    assert given.json()["actions"] == read["actions"] and result["actions"] is None  # as given, or null
    named = client.post("/api/generate", json={"text": "a person jumps", "seconds": 1.0, **QUICK}).json()
    assert named["read_as"] is None


def test_a_chained_readings_close_calls_say_which_action_each_is_about(client):
    # the second part alone reads as a stretch; in posture order stand_up, a close call with it
    text = "a man drops into an armchair, then straightens up out of it"
    [read] = client.post("/api/generate", json={"text": text, **QUICK}).json()["read_as"]
    assert [span.split(":")[0] for span in read["actions"].split(",")] == ["sit_down", "stand_up"]
    assert read["close_for"] == [{"action": "stand_up", "close": read["close"]}]
    assert read["close"][0] == "stretch"
    one = client.post("/api/generate", json={"text": "a woman flops onto the bed", **QUICK}).json()
    assert one["read_as"][0]["close_for"] == [{"action": "sit_down", "close": ["lie_down"]}]


def test_a_length_that_cannot_be_read_fails_its_request_and_not_the_queue(studio, monkeypatch):
    import stickgen.generation
    from stickgen.serve.studio import check_request

    def unreadable(*args, **kwargs):
        raise StickgenError("The prompt could not be read.")

    monkeypatch.setattr(stickgen.generation, "read_actions", unreadable)
    future = studio.submit_generate(check_request("a crowd goes wild", **QUICK))
    with pytest.raises(StickgenError, match="could not be read"):
        future.result(timeout=60)  # answered, not left waiting
    timed = check_request("a crowd goes wild", seconds=1.0, actions="cheer:0-1", **QUICK)  # reads nothing
    assert studio.submit_generate(timed).result(timeout=60).info["frames"] == 25
    assert studio.status() == {"running": 0, "waiting": 0, "capacity": studio.queue}


def test_every_format_is_served_with_its_content_type(client, tmp_path):
    result = client.post("/api/generate", json={"text": "a person waves", "seconds": 1.0, **QUICK}).json()
    files = result["files"]
    expected = {
        "gif": "image/gif", "png": "image/png", "json": "application/json",
        "npz": "application/octet-stream", "bvh": "text/plain; charset=utf-8", "mp4": "video/mp4",
    }  # fmt: skip
    for fmt, url in files.items():
        response = client.get(url)
        assert response.status_code == 200, (fmt, response.text)
        assert response.headers["content-type"] == expected[fmt]
        assert url.endswith(f"/a-person-waves.{fmt}")
        assert 'filename="a-person-waves.' in response.headers["content-disposition"]
        (tmp_path / f"clip.{fmt}").write_bytes(response.content)
    from_json = motion_from_json(json.loads((tmp_path / "clip.json").read_text()))
    from_npz = load_motion(tmp_path / "clip.npz")
    assert from_json.num_frames == from_npz.num_frames == 25
    np.testing.assert_allclose(from_json.joints, from_npz.joints, atol=1e-6)
    assert parse_bvh((tmp_path / "clip.bvh").read_text()).num_frames == 25
    with Image.open(tmp_path / "clip.png") as strip:
        assert strip.format == "PNG" and strip.width > strip.height
    if "mp4" in files:  # with the [mp4] extra, made at its first download
        assert (tmp_path / "clip.mp4").read_bytes()[4:8] == b"ftyp"


def test_several_samples_make_a_grid_and_numbered_data_files(client):
    result = client.post(
        "/api/generate", json={"text": "a person dances", "n": 2, "seconds": 1.0, **QUICK}
    ).json()
    assert set(result["files"]) - {"mp4"} == {"gif", "png"}
    assert [sorted(s) for s in result["samples"]] == [["bvh", "json", "npz"]] * 2
    assert result["samples"][1]["npz"].endswith("/a-person-dances-2.npz")
    grid = client.get(result["files"]["gif"])
    with Image.open(io.BytesIO(grid.content)) as image:
        assert image.width >= 2 * image.height  # two cells side by side


def test_same_seed_same_motion_and_a_random_seed_is_returned(client, tmp_path):
    def joints(body):
        result = client.post(
            "/api/generate", json={"text": "a person kicks", "seconds": 1.0, **QUICK, **body}
        )
        path = tmp_path / f"{result.json()['id']}.npz"
        path.write_bytes(client.get(result.json()["files"]["npz"]).content)
        return result.json()["seed"], load_motion(path).joints

    seed, drawn = joints({"seed": None})
    assert 0 <= seed < 2**31
    again_seed, again = joints({"seed": seed})
    assert again_seed == seed
    np.testing.assert_array_equal(drawn, again)


BAD_BODIES = {
    "empty text": {"text": ""},
    "blank text": {"text": "   "},
    "5000 characters": {"text": "a person jumps " * 334},
    "no letters": {"text": "!!! ???"},
    "seconds 0": {"text": "a person jumps", "seconds": 0},
    "seconds 1000": {"text": "a person jumps", "seconds": 1000},
    "n 0": {"text": "a person jumps", "n": 0},
    "n 100": {"text": "a person jumps", "n": 100},
    "unknown environment": {"text": "a person jumps", "environment": "jupiter"},
    "actions mixed": {"text": "a person jumps", "actions": "walk, jump:0-1"},
    "actions unknown": {"text": "a person jumps", "actions": "fly:0-2"},
    "actions overlap": {"text": "a person jumps", "actions": "walk:0-2,jump:1-3"},
    "actions after seconds": {"text": "a person jumps", "actions": "jump:0-5", "seconds": 3},
    "actions empty": {"text": "a person jumps", "actions": ","},
    "steps 0": {"text": "a person jumps", "steps": 0},
    "guidance 25": {"text": "a person jumps", "guidance": 25},
    "seed negative": {"text": "a person jumps", "seed": -1},
    "seed too large": {"text": "a person jumps", "seed": 2**63},
    "unknown camera": {"text": "a person jumps", "camera": "drone"},
    "unknown theme": {"text": "a person jumps", "theme": "neon"},
    "unknown plan": {"text": "a person jumps", "plan": "maybe"},
    "candidates 0": {"text": "a person jumps", "candidates": 0},
    "candidates 17": {"text": "a person jumps", "candidates": 17},
    "text a number": {"text": 5},
    "n a string": {"text": "a person jumps", "n": "2"},
    "n a fraction": {"text": "a person jumps", "n": 1.5},
    "n a boolean": {"text": "a person jumps", "n": True},
    "seconds a string": {"text": "a person jumps", "seconds": "3"},
    "text missing": {"seed": 1},
    "unknown field": {"text": "a person jumps", "speed": 2},
    "a list": ["a person jumps"],
}


@pytest.mark.parametrize("body", BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_bad_fields_get_a_4xx_with_one_sentence(client, body):
    assert_one_sentence(client.post("/api/generate", json=body))


@pytest.mark.parametrize(
    ("content", "headers", "status"),
    [
        ('{"text": "a person', {"Content-Type": "application/json"}, 422),  # not JSON
        ('{"text": "a person jumps", "seconds": NaN}', {"Content-Type": "application/json"}, 422),
        ('{"text": "a person jumps"}', {"Content-Type": "text/plain"}, 422),  # a cross-site form
        ("", {"Content-Type": "application/json"}, 422),
        (b"{" + b" " * (10 * 2**20) + b"}", {"Content-Type": "application/json"}, 413),  # 10 MB
    ],
    ids=["invalid JSON", "NaN", "text/plain", "no body", "10 MB"],
)
def test_malformed_bodies_get_a_4xx_with_one_sentence(client, content, headers, status):
    assert_one_sentence(client.post("/api/generate", content=content, headers=headers), status)


def test_a_body_over_the_cap_sent_in_chunks_is_refused(client):
    chunks = (b" " * 16384 for _ in range(MAX_BODY // 16384 + 2))
    response = client.post("/api/generate", content=chunks, headers={"Content-Type": "application/json"})
    assert "KiB" in assert_one_sentence(response, 413)


CLI_REFUSALS = [
    {"text": ""},
    {"text": "x" * 5000},
    {"text": "a person jumps", "environment": "jupiter"},
    {"text": "a person jumps", "n": 65},
    {"text": "a person jumps", "steps": 201},
    {"text": "a person jumps", "guidance": -1.0},
    {"text": "a person jumps", "seed": -5},
    {"text": "a person jumps", "seed": 2**63 - 1, "n": 2},  # sample 2 would need seed 2**63
    {"text": "a person jumps", "plan": "maybe"},
    {"text": "a person jumps", "camera": "drone"},
    {"text": "a person jumps", "seconds": 0.1},
    {"text": "a person jumps", "actions": "walk:0-2,jump:1-3"},
    {"text": "a person jumps", "actions": "jump:0-25"},
    {"text": "a person jumps", "actions": "jump:0-4", "seconds": 3.0},
]


@pytest.mark.parametrize("body", CLI_REFUSALS)
def test_the_api_refuses_what_the_cli_refuses_with_the_same_sentence(client, body):
    fields = dict(body)
    with pytest.raises(StickgenError) as refused:
        generate_batch(fields.pop("text"), **fields)  # refused before the model loads
    detail = assert_one_sentence(client.post("/api/generate", json=body))
    assert detail == api_sentence(str(refused.value), GenerateRequest)
    # in the request's words: its fields, not the command line's options
    option = re.search(r"(?<![\w-])--?(n|seed|steps|guidance|seconds|actions|plan|camera)\b", detail)
    assert option is None, detail


def test_api_sentences_name_the_requests_fields():
    assert api_sentence("-n must be between 1 and 64, not 65.", GenerateRequest) == (
        "n must be between 1 and 64, not 65."
    )
    assert api_sentence("--seed must be a whole number, not -1.", GenerateRequest).startswith("seed must")
    assert api_sentence("--from must come before --to.", EditRequest) == "from must come before to."
    # an option the request lacks, and words with hyphens, stay as they are
    assert api_sentence("--device cuda was asked for.", GenerateRequest) == "--device cuda was asked for."
    assert api_sentence("a zoom-in at x-n.", GenerateRequest) == "a zoom-in at x-n."


def test_the_api_defaults_are_generate_batchs():
    parameters = inspect.signature(generate_batch).parameters
    assert parameters["guidance"].default == DEFAULT_GUIDANCE
    assert parameters["steps"].default == DEFAULT_STEPS
    assert parameters["plan"].default == server_default_plan()
    with pytest.raises(StickgenError, match="between 1 and 64"):
        generate_batch("a person jumps", MAX_SAMPLES + 1)


def server_default_plan() -> str:
    from stickgen.serve.app import GenerateRequest

    return GenerateRequest.model_fields["plan"].default


def test_file_urls_never_leave_the_results(client, studio):
    result = client.post("/api/generate", json={"text": "a person bows", "seconds": 1.0, **QUICK}).json()
    gif = result["files"]["gif"]
    result_id = result["id"]
    for url in [
        f"/api/results/{result_id}/..%2F..%2F..%2Fetc%2Fpasswd",
        f"/api/results/{result_id}/%2e%2e%2fresults.py",
        f"/api/results/{result_id}/..",
        "/api/results/..%2F..%2F/etc",
        f"/api/results/{'A' * 22}/a-person-bows.gif",  # an id nobody was given
        f"/api/results/{result_id}/a-person-jumps.gif",  # a name this result does not hold
        f"/api/results/{result_id}/warm-up-cache",
        gif.replace(result_id, result_id[:-1]),
    ]:
        response = client.get(url)
        assert_one_sentence(response, 404)
    assert client.get(gif).status_code == 200


def test_a_raw_path_with_dot_segments_gets_404(studio):
    with server.running(studio) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port)) as sock:
            path = b"/api/results/../../../../etc/passwd"
            sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
    assert answer.startswith(b"HTTP/1.1 404") and b"root:" not in answer


def test_only_loopback_host_names_are_answered_on_loopback(studio):
    guarded = TestClient(create_app(studio, allowed_hosts=LOOPBACK_HOSTS))
    assert guarded.get("/api/health", headers={"Host": "localhost:8000"}).status_code == 200
    assert guarded.get("/api/health", headers={"Host": "127.0.0.1"}).status_code == 200
    assert guarded.get("/api/health", headers={"Host": "[::1]:8000"}).status_code == 200
    assert_one_sentence(guarded.get("/api/health", headers={"Host": "attacker.example"}), 400)


def test_no_cors_unless_asked_for(studio, client):
    origin = {"Origin": "http://elsewhere.example"}
    assert "access-control-allow-origin" not in client.get("/api/health", headers=origin).headers
    allowed = TestClient(create_app(studio, cors_origins=["http://elsewhere.example"]))
    answer = allowed.get("/api/health", headers=origin)
    assert answer.headers["access-control-allow-origin"] == origin["Origin"]


def test_the_page_and_the_api_docs_use_only_the_apps_own_assets(client):
    page = client.get("/")
    assert page.status_code == 200 and "default-src 'none'" in page.headers["content-security-policy"]
    for name in ("/static/studio.js", "/static/studio.css"):
        assert not re.search(r"https?://", client.get(name).text), name
    for html in (page.text, client.get("/docs").text):
        links = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", html)
        assert links
        for link in links:
            assert link.startswith("/"), link
            assert client.get(link).status_code == 200, link
    assert client.get("/openapi.json").json()["paths"].keys() >= {"/api/generate", "/api/health"}


def test_a_full_queue_answers_503_with_retry_after(client, studio):
    release = threading.Event()
    blockers = [studio.submit(release.wait, 30) for _ in range(1 + studio.queue)]  # one runs, the rest wait
    try:
        response = client.post("/api/generate", json={"text": "a person jumps", **QUICK})
        assert "busy" in assert_one_sentence(response, 503)
        assert int(response.headers["retry-after"]) >= 1
    finally:
        release.set()
    for blocker in blockers:
        blocker.result(timeout=30)
    assert (
        client.post("/api/generate", json={"text": "a person jumps", "seconds": 1.0, **QUICK}).status_code
        == 200
    )


def test_a_client_that_leaves_does_not_disturb_the_others(studio):
    release = threading.Event()
    blocker = studio.submit(release.wait, 30)
    try:
        with server.running(studio) as url:
            port = int(url.rsplit(":", 1)[1].strip("/"))
            body = json.dumps({"text": "a person leaves early", **QUICK}).encode()
            request = (
                b"POST /api/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode() + body
            )  # fmt: skip
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.sendall(request)
                deadline = time.monotonic() + 10
                while studio.status()["waiting"] == 0 and time.monotonic() < deadline:
                    time.sleep(0.02)
                assert studio.status()["waiting"] == 1  # queued behind the blocker
            deadline = time.monotonic() + 10  # the client has gone: its job is dropped before it runs
            while studio.status()["waiting"] and time.monotonic() < deadline:
                time.sleep(0.02)
            assert studio.status() == {"running": 1, "waiting": 0, "capacity": studio.queue}
            release.set()
            blocker.result(timeout=30)
            import httpx

            answer = httpx.post(
                url + "api/generate", json={"text": "a person stays", "seconds": 1.0, **QUICK}
            )
            assert answer.status_code == 200
            assert httpx.get(url + answer.json()["files"]["gif"].lstrip("/")).status_code == 200
    finally:
        release.set()


def test_results_are_capped_in_count_and_size_and_removed_at_close(tmp_path):
    store = ResultStore(max_results=3, max_bytes=10_000, parent=tmp_path)

    def add(size: int) -> Result:
        result_id, folder = store.new_folder()
        (folder / "clip.gif").write_bytes(b"x" * size)
        result = Result(id=result_id, folder=folder, names=("clip.gif",), info={}, written={"clip.gif"})
        store.add(result)
        return result

    first, *rest = [add(100) for _ in range(4)]
    assert store.get(first.id) is None and not first.folder.exists()
    assert len(store) == 3 and all(store.get(r.id) is r for r in rest)
    big = add(9_950)  # pushes the total over 10,000 bytes: the oldest go until it fits
    assert store.get(big.id) is big and len(store) == 1 and store.total_bytes == 9_950
    assert add(20_000) and len(store) == 1  # the newest result always stays
    assert store.get("../" + big.id) is None
    store.close()
    assert not store.root.exists()


def test_a_port_in_use_is_one_sentence():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(StickgenError, match=f"Port {port} on 127.0.0.1 is in use"):
            server.open_socket("127.0.0.1", port)


def test_only_loopback_is_local():
    with server.open_socket("127.0.0.1", 0) as sock:  # bound, never listening
        assert server.is_loopback(sock) and server.url_of(sock).startswith("http://127.0.0.1:")
    with server.open_socket("0.0.0.0", 0) as sock:
        assert not server.is_loopback(sock)
    assert "anyone who can reach this address can use this machine's CPU" in server.exposed_warning("0.0.0.0")


def run_cli(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_without_the_extra_the_command_says_what_to_install():
    result = run_cli(
        "import sys; import stickgen.serve.server as s; s.NEEDED = ('fastapi', 'no_such_module_here');"
        "sys.argv = ['stickgen', 'serve']; from stickgen.cli import main; main()"
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        "stickgen: error: stickgen serve needs no_such_module_here; "
        'install them with pip install "stickgen[serve]".'
    )


def test_importing_the_serve_package_loads_no_web_framework_and_no_lower_layer_imports_it():
    heavy = "('fastapi', 'uvicorn', 'torch')"
    result = run_cli(f"import sys, stickgen.serve; print([m for m in {heavy} if m in sys.modules])")
    assert result.stdout.strip() == "[]"
    package = Path(__file__).resolve().parents[1] / "stickgen"
    for path in package.rglob("*.py"):
        if "serve" not in path.relative_to(package).parts and path.name != "cli.py":
            assert "stickgen.serve" not in path.read_text(), path


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_the_command_serves_and_shuts_down_cleanly(stop):
    import httpx

    process = subprocess.Popen(
        [sys.executable, "-m", "stickgen", "serve", "--port", "0", "--device", "cpu"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_as_in_a_terminal,
    )  # fmt: skip
    try:
        url = process.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url), process.stderr.read()
        result = httpx.post(
            url + "api/generate", json={"text": "a person jumps", "seconds": 1.0, **QUICK}
        ).json()
        assert httpx.get(url + result["files"]["gif"].lstrip("/")).status_code == 200
        process.send_signal(stop)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill() if process.poll() is None else None
    assert "Traceback" not in stderr
    folder = Path(re.search(r"results in (\S+) until it stops", stderr).group(1))
    assert not folder.exists()
    assert process.returncode == (130 if stop == signal.SIGINT else -signal.SIGTERM)


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child: Ctrl-C does what it does in a terminal, even when these tests were started in the
    background by a shell, which makes its children ignore SIGINT (and Python then installs no handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_requests_that_wait_together_are_sampled_in_one_batch_each_as_it_would_be_alone(studio, monkeypatch):
    from stickgen import generation
    from stickgen.serve.studio import check_request

    batches = []
    real = generation.generate_requests

    def counted(model, requests, **settings):
        batches.append(len(requests))
        return real(model, requests, **settings)

    monkeypatch.setattr(generation, "generate_requests", counted)
    monkeypatch.setattr(studio, "queue", 3)
    release = threading.Event()
    blocker = studio.submit(release.wait, 30)
    try:
        jobs = [check_request(text, seed=seed, seconds=1.0, **QUICK)
                for text, seed in (("a person jumps", 1), ("a person waves", 2))]  # fmt: skip
        other = check_request("a person jumps", seed=1, seconds=2.0, **QUICK)  # another length: its own batch
        futures = [studio.submit_generate(job) for job in (*jobs, other)]
    finally:
        release.set()
    blocker.result(timeout=30)
    results = [future.result(timeout=60) for future in futures]
    assert batches == [2, 1]
    for job, result in zip((*jobs, other), results, strict=True):
        alone = studio.submit(studio.generate, job).result(timeout=60)
        joints = [load_motion(r.folder / r.info["samples"][0]["npz"]).joints for r in (result, alone)]
        np.testing.assert_allclose(joints[0], joints[1], atol=1e-4)
    assert batches == [2, 1, 1, 1, 1]
    assert studio.status() == {"running": 0, "waiting": 0, "capacity": studio.queue}


# --- continue, edit a part, tell a story (issue 16 in the studio) -----------------------------------


@pytest.fixture(scope="module")
def walk(client):
    answer = client.post("/api/generate", json={"text": "a person walks forward", "seconds": 2.0, **QUICK})
    assert answer.status_code == 200, answer.text
    return answer.json()


def result_motion(client, answer, sample: int = 0):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.npz"
        path.write_bytes(client.get(answer["samples"][sample]["npz"]).content)
        return load_motion(path)


def test_a_result_continues_from_where_it_ends(client, walk):
    answer = client.post(
        "/api/continue", json={"id": walk["id"], "text": "a person jumps", "seconds": 1.5, **QUICK}
    )
    assert answer.status_code == 200, answer.text
    before, after = result_motion(client, walk), result_motion(client, answer.json())
    assert after.num_frames == before.num_frames + round(1.5 * 25)
    np.testing.assert_allclose(
        after.joints[: before.num_frames], before.joints, atol=1e-3
    )  # kept within 1 mm
    assert answer.json()["text"].endswith("then a person jumps")
    assert gif_frames(client.get(answer.json()["files"]["gif"]).content)


def test_a_grids_second_sample_is_the_one_continued_when_asked(client):
    grid = client.post("/api/generate", json={"text": "a person waves", "seconds": 1.5, "n": 2, **QUICK})
    assert grid.status_code == 200, grid.text
    body = {"id": grid.json()["id"], "text": "a person jumps", "seconds": 1.0, "sample": 2, **QUICK}
    answer = client.post("/api/continue", json=body)
    assert answer.status_code == 200, answer.text
    first, second = result_motion(client, grid.json(), 0), result_motion(client, grid.json(), 1)
    after = result_motion(client, answer.json())
    np.testing.assert_allclose(after.joints[: second.num_frames], second.joints, atol=1e-3)
    assert np.abs(after.joints[: first.num_frames] - first.joints).max() > 0.01


def test_a_part_of_a_result_is_redone_and_the_rest_kept(client, walk):
    from stickgen.editing import part_joints

    body = {"id": walk["id"], "text": "a person waves", "part": "arms", "from": 0.5, "to": 1.5, **QUICK}
    answer = client.post("/api/edit", json=body)
    assert answer.status_code == 200, answer.text
    before, after = result_motion(client, walk), result_motion(client, answer.json())
    assert after.num_frames == before.num_frames
    kept = [j for j in range(16) if j not in part_joints("arms")]
    np.testing.assert_allclose(after.joints[:, kept], before.joints[:, kept], atol=1e-3)
    np.testing.assert_allclose(after.joints[:10], before.joints[:10], atol=1e-3)  # before "from": untouched


def test_a_story_is_one_clip_of_its_segments(client):
    answer = client.post(
        "/api/story", json={"story": "# two parts\n1.5 a person walks\n1 a person jumps\n", **QUICK}
    )
    assert answer.status_code == 200, answer.text
    motion = result_motion(client, answer.json())
    assert abs(motion.duration - 2.5) < 0.1
    assert answer.json()["text"] == "a person walks, then a person jumps"
    assert answer.json()["read_as"] is None  # their words name their actions


def test_a_continuation_and_an_edit_take_actions_and_say_a_guessed_reading(client, walk):
    text = "she keeps her hands busy"  # its words name no action: read by meaning, a guess
    for path, fields in (("/api/continue", {"seconds": 1.0}), ("/api/edit", {"part": "arms", "from": 0.5})):
        guessed = client.post(path, json={"id": walk["id"], "text": text, **fields, **QUICK})
        assert guessed.status_code == 200, guessed.text
        [read] = guessed.json()["read_as"]
        assert read["samples"] == [0] and parse_action_timeline(read["actions"], 25.0) is not None
        given = client.post(path, json={"id": walk["id"], "text": text, "actions": "wave", **fields, **QUICK})
        assert given.status_code == 200, given.text
        assert given.json()["read_as"] is None
        assert (result_motion(client, given.json()).actions[-10:] == action_id("wave")).all()


def test_a_story_says_how_it_read_a_line_and_takes_the_lines_own_actions(client):
    # as `stickgen story` says it on stderr: the line whose words name no action, read by meaning
    story = "1.5 a person walks\n2 she lowers herself onto a bench\n"
    answer = client.post("/api/story", json={"story": story, **QUICK})
    assert answer.status_code == 200, answer.text
    [read] = answer.json()["read_as"]
    assert (read["segment"], read["text"], read["samples"]) == (2, "she lowers herself onto a bench", [0])
    assert read["close"] == []  # a clear reading
    plonks = "1.5 a person walks\n2 a woman flops onto the bed"
    close = client.post("/api/story", json={"story": plonks, **QUICK})
    assert close.json()["read_as"][0]["close"] == ["lie_down"], close.text
    assert parse_action_timeline(read["actions"], 25.0, seconds=2.0) is not None
    given = client.post("/api/story", json={"story": story.replace("bench\n", "bench | kneel\n"), **QUICK})
    assert given.status_code == 200, given.text
    assert given.json()["read_as"] is None
    assert (result_motion(client, given.json()).actions[-25:] == action_id("kneel")).all()


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        ("/api/continue", {"id": "nope", "text": "a person jumps"}, "no such result"),
        ("/api/edit", {"id": "nope", "text": "a person waves", "part": "arms"}, "no such result"),
        ("/api/edit", {"id": "WALK", "text": "a person waves", "part": "tail"}, "Unknown part"),
        ("/api/edit", {"id": "WALK", "text": "a person waves", "part": "arms", "from": 1.5, "to": 9}, "clip"),
        (
            "/api/edit",
            {"id": "WALK", "text": "a person waves", "part": "arms", "sample": 3},
            "sample must be",
        ),
        ("/api/continue", {"id": "WALK", "text": ""}, "prompt"),
        ("/api/continue", {"id": "WALK", "text": "a person jumps", "seconds": 600}, "seconds"),
        ("/api/continue", {"id": "WALK", "text": "a person jumps", "actions": "flap"}, "unknown action"),
        ("/api/continue", {"id": "WALK", "text": "a person walks", "actions": "walk:0-90"}, "at most 60 s"),
        (
            "/api/continue",
            {"id": "WALK", "text": "a person jumps", "seconds": 1, "actions": "jump:0-2"},
            "run to 2 s, past the segment's 1 s",
        ),
        (
            "/api/edit",
            {"id": "WALK", "text": "a person waves", "part": "arms", "actions": "wave:0-5"},
            "run to 5 s, past the edited span's",
        ),
        ("/api/story", {"story": ""}, "story"),
        ("/api/story", {"story": "3\n"}, "text"),
        ("/api/story", {"story": "3 a person walks | strut"}, "Line 1 of the story: unknown action 'strut'"),
        ("/api/story", {"story": "50 a person walks\n50 a person runs"}, "at most 60 s"),
        ("/api/story", {"story": "a person walks", "seed": -1}, "seed"),
        (
            "/api/edit",
            {"id": "WALK", "text": "a person waves", "part": "arms", "fro": 1},
            "the fields are: seed",
        ),
        ("/api/story", {"text": "a person walks"}, "the field 'story' is required"),
    ],
)
def test_bad_changes_are_one_sentence(client, walk, path, body, says):
    body = {k: (walk["id"] if v == "WALK" else v) for k, v in body.items()}
    response = client.post(path, json=body)
    detail = assert_one_sentence(response, (404, 422))
    assert says.lower() in detail.lower(), detail


def test_batch_one_samples_one_request_at_a_time(studio, monkeypatch, tmp_path):
    from stickgen import generation
    from stickgen.serve.studio import check_request

    batches = []
    real = generation.generate_requests
    monkeypatch.setattr(
        generation,
        "generate_requests",
        lambda model, requests, **kw: batches.append(len(requests)) or real(model, requests, **kw),
    )
    monkeypatch.setattr(studio, "batch", 1)
    release = threading.Event()
    blocker = studio.submit(release.wait, 30)
    try:
        futures = [
            studio.submit_generate(check_request("a person jumps", seed=s, seconds=1.0, **QUICK))
            for s in (1, 2)
        ]
    finally:
        release.set()
    blocker.result(timeout=30)
    for future in futures:
        future.result(timeout=60)
    assert batches == [1, 1]
    with pytest.raises(StickgenError, match="--batch must be"):
        Studio(studio.checkpoint, name="x", store=ResultStore(parent=tmp_path), batch=0)
