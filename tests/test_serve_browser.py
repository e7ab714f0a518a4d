"""The studio page in a real browser: Debian's Chromium driven by Playwright, against a live server.

Skips, saying why, without Playwright (the [dev] extra) or without a Chromium (`apt-get install
chromium`; `.ci/run` installs it when it can). With STICKGEN_SCREENSHOT=docs/serve.png the page's
screenshot is also saved there (the README's picture).
"""

import io
import os
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason='stickgen serve needs the [serve] extra: pip install "stickgen[serve]"')
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser test needs Playwright: pip install playwright"
)

from PIL import Image  # noqa: E402

from stickgen.bvh import read_bvh  # noqa: E402
from stickgen.serve import server  # noqa: E402
from stickgen.serve.studio import Studio  # noqa: E402

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
# No first-run, sync or update traffic: the machine may have no network at all.
FLAGS = [
    "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip
SCREENSHOT_ENV = "STICKGEN_SCREENSHOT"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no Chromium on this machine: apt-get install chromium (.ci/run does when it can)",
    ),
]


@pytest.fixture(scope="module")
def url():
    studio = Studio.load(device="cpu")
    studio.start()
    try:
        with server.running(studio) as address:
            yield address
    finally:
        studio.close()


@pytest.fixture
def page(url):
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1040, "height": 900}, accept_downloads=True)
        page.set_default_timeout(60_000)
        problems = []  # uncaught script errors, and anything the Content-Security-Policy blocked
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("console", lambda m: problems.append(m.text) if "Content Security Policy" in m.text else None)
        page.goto(url)
        yield page
        browser.close()
        assert problems == []


def test_type_generate_watch_download(page, tmp_path):
    page.wait_for_selector("#examples button")  # the options have arrived
    page.fill("#prompt", "a person jumps")
    with page.expect_response(lambda response: response.url.endswith(".gif")) as shown:
        page.click("#generate")
    page.wait_for_function("() => { const img = document.getElementById('animation'); "
                           "return img.complete && img.naturalWidth > 0; }")  # fmt: skip
    assert page.get_attribute("#animation", "src").endswith("/a-person-jumps.gif")
    with Image.open(io.BytesIO(shown.value.body())) as gif:
        assert gif.format == "GIF" and gif.n_frames > 25

    with page.expect_download() as download:
        page.click("#downloads a[data-format=bvh]")
    assert download.value.suggested_filename == "a-person-jumps.bvh"
    bvh = read_bvh(download.value.path())
    assert bvh.num_frames == 75 and bvh.frame_time == pytest.approx(0.04)

    # A refused option: the server's sentence on the page, and no new result.
    page.click("#options summary")
    page.fill("#seconds", "1000")
    page.click("#generate")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "seconds must be between 0.5 and 20, not 1000."

    # Enter generates too; the history keeps both results for comparing and downloading.
    page.fill("#seconds", "")
    page.fill("#seed", "7")
    page.fill("#prompt", "a person jumps on the moon")
    page.press("#prompt", "Enter")
    page.wait_for_selector("#history li:nth-child(2)")
    page.wait_for_function("() => !document.getElementById('generate').disabled")
    assert page.is_hidden("#error")
    assert page.locator("#history li").count() == 2
    assert page.locator("#history li a[data-format=bvh]").count() == 2
    assert "moon" in page.inner_text("#caption") and "seed 7" in page.inner_text("#caption")
    assert "read as" not in page.inner_text("#caption")  # its words name its action: nothing guessed

    page.click("#options summary")  # closed again, for the picture
    page.wait_for_function("() => [...document.images].every((img) => img.complete && img.naturalWidth > 0)")
    shot = tmp_path / "serve.png"
    page.screenshot(path=str(shot))
    with Image.open(shot) as image:  # a small palette PNG, as the README shows it
        image.convert("RGB").quantize(colors=96).save(shot, optimize=True)
    if os.environ.get(SCREENSHOT_ENV):
        shutil.copyfile(shot, Path(os.environ[SCREENSHOT_ENV]))


def test_a_guessed_reading_is_shown_after_the_prompt(page):
    """A prompt whose words name no action is read by meaning; the page says how, for the timeline field."""
    page.wait_for_selector("#examples button")
    page.click("#options summary")
    page.fill("#steps", "4")
    page.fill("#prompt", "a crowd goes wild as the player scores")
    page.click("#generate")
    page.wait_for_selector("#result:not([hidden])")
    page.wait_for_function("() => !document.getElementById('generate').disabled")
    assert "read as celebrate:0-" in page.inner_text("#caption")


def test_continue_edit_and_tell_a_story_on_the_page(page):
    def gif_frames_of_current() -> int:
        page.wait_for_function("() => { const img = document.getElementById('animation'); "
                               "return img.complete && img.naturalWidth > 0; }")  # fmt: skip
        data = page.evaluate(
            "async () => { const r = await fetch(document.getElementById('animation').src);"
            " return Array.from(new Uint8Array(await r.arrayBuffer())); }"
        )
        with Image.open(io.BytesIO(bytes(data))) as gif:
            return gif.n_frames

    def wait_for_result(count: int) -> None:
        page.wait_for_function(f"() => document.querySelectorAll('#history li').length >= {count}")
        page.wait_for_function("() => !document.getElementById('tell').disabled")
        assert page.is_hidden("#error"), page.inner_text("#error")

    page.wait_for_selector("#examples button")
    page.click("#options summary")
    page.fill("#seconds", "2")
    page.fill("#steps", "4")
    page.fill("#prompt", "a person walks forward")
    page.click("#generate")
    page.wait_for_selector("#result:not([hidden])")
    page.wait_for_function("() => !document.getElementById('generate').disabled")
    first = gif_frames_of_current()
    page.click("#change summary")
    page.fill("#change-text", "a person jumps")
    page.fill("#change-seconds", "1")
    page.click("#continue")
    wait_for_result(2)
    assert gif_frames_of_current() == first + 25  # the clip and then 1 s more
    assert page.inner_text("#caption").startswith("“a person walks forward, then a person jumps”")
    page.fill("#change-text", "a person waves")
    page.select_option("#part", "arms")
    page.click("#edit-part")
    wait_for_result(3)
    assert gif_frames_of_current() == first + 25  # an edit keeps the length
    page.fill("#from", "9")
    page.click("#edit-part")
    page.wait_for_selector("#error:not([hidden])")
    assert "not inside" in page.inner_text("#error")
    page.fill("#change-text", "")
    page.select_option("#n", "2")  # a grid of two: the change form asks which sample
    page.fill("#prompt", "a person waves")
    page.click("#generate")
    wait_for_result(4)
    assert page.is_visible("#change-sample") and page.locator("#change-sample option").count() == 2
    page.select_option("#change-sample", "2")
    page.fill("#change-text", "a person jumps")
    with page.expect_request("**/api/continue") as request:
        page.click("#continue")
    assert request.value.post_data_json["sample"] == 2
    wait_for_result(5)
    assert page.is_hidden("#change-sample-label")  # the continued clip is one sample
    page.click("#story-box summary")
    page.fill("#story", "1 a person walks\n1 a person jumps")
    page.click("#tell")
    wait_for_result(6)
    assert gif_frames_of_current() == 50
    page.fill("#story", "1 a person walks\n1 she lowers herself onto a bench")  # a line read by meaning
    page.click("#tell")
    wait_for_result(7)
    assert "read segment 2 (“she lowers herself onto a bench”) as " in page.inner_text("#caption")
    page.fill("#change-text", "she lowers herself onto a bench")
    page.fill("#change-actions", "kneel")  # said instead of read: no guess to show
    with page.expect_request("**/api/continue") as request:
        page.click("#continue")
    assert request.value.post_data_json["actions"] == "kneel"
    wait_for_result(8)
    assert " read " not in page.inner_text("#caption")
    # a close call offers the actions near the reading: one click draws the same seed with that one
    page.fill("#prompt", "a woman flops onto the bed")  # read as sit_down, close to lie_down
    page.select_option("#n", "1")
    page.fill("#seconds", "")
    page.click("#generate")
    wait_for_result(9)
    assert "read as sit_down:0-5 (close: lie_down)" in page.inner_text("#caption")
    assert page.locator("#fixes button").all_inner_texts() == ["Try lie down instead"]
    with page.expect_request("**/api/generate") as request:
        page.click("#fixes button")
    sent = request.value.post_data_json
    assert (sent["actions"], sent["seed"]) == ("lie_down:0-5", 0) and sent["text"].startswith("a woman flops")
    wait_for_result(10)
    assert " read " not in page.inner_text("#caption") and page.is_hidden("#fixes")
    assert "actions lie_down:0-5" in page.inner_text("#caption")  # what it was drawn with
    # in a chained reading, the close call says which action it is about and replaces only its span
    page.fill("#actions", "")
    page.fill("#prompt", "a man drops into an armchair, then straightens up out of it")
    page.click("#generate")
    wait_for_result(11)
    spec = re.search(r"read as (\S+) \(close: stretch, (\w+) for stand_up\)", page.inner_text("#caption"))
    assert spec, page.inner_text("#caption")
    sit, stand = spec.group(1).split(",")
    assert sit.startswith("sit_down:0-") and stand.startswith("stand_up:")
    assert page.locator("#fixes button").all_inner_texts()[0] == "Try stretch for stand up"
    with page.expect_request("**/api/generate") as request:
        page.locator("#fixes button").first.click()
    assert request.value.post_data_json["actions"] == f"{sit},{stand.replace('stand_up', 'stretch')}"
    wait_for_result(12)
    assert " read " not in page.inner_text("#caption") and page.is_hidden("#fixes")
    # in a story, the close call's button puts the action on that line and tells the story again
    page.fill("#story", "# two lines\n1 a person walks\n\n2 a woman flops onto the bed  # her line")
    page.click("#tell")
    wait_for_result(13)
    assert "read segment 2 (“a woman flops onto the bed”) as sit_down:0-2 (close: lie_down)" in (
        page.inner_text("#caption")
    )
    assert page.locator("#fixes button").all_inner_texts() == ["Line 2: try lie down"]
    with page.expect_request("**/api/story") as request:
        page.click("#fixes button")
    fixed = "# two lines\n1 a person walks\n\n2 a woman flops onto the bed | lie_down  # her line"
    assert request.value.post_data_json["story"] == fixed and page.input_value("#story") == fixed
    wait_for_result(14)
    assert " read " not in page.inner_text("#caption") and page.is_hidden("#fixes")
    assert page.input_value("#actions") == ""  # the form is left as it was
