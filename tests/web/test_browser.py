"""End to end in headless Chromium (Selenium, Debian's chromium and chromium-driver): the
viewer plays a pair of test videos in sync and draws the surprise curves with a moving cursor;
a rater completes a session (slider locked until the test video ends, resume after leaving)
and the ratings appear in the CSV export. Screenshots of the main pages are written to
``$SOCIALBENCH_SCREENSHOTS`` (docs/img when making the docs), else to a temp folder."""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from socialbench.web.app import AppConfig, create_app
from socialbench.web.datasets import open_dataset
from socialbench.web.results import load_results
from socialbench.web.study.db import make_engine, sessions
from socialbench.web.study.design import Design, create_study

pytestmark = pytest.mark.slow
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def factory(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return sessions(make_engine(f"sqlite:///{tmp_path_factory.mktemp('db') / 'study.db'}"))


@pytest.fixture(scope="module")
def server(bib_root: Path, results_json: Path, inverse_planning_json: Path, factory,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app served by uvicorn in a thread: study 1 (2 raters) is rated in the browser,
    study 2 (6 raters) by the library, for the analysis page."""
    import uvicorn

    folder = tmp_path_factory.mktemp("served")
    dataset = open_dataset(bib_root)
    with factory.begin() as db:
        create_study(db, dataset, "pilot", Design(fraction=0.25, raters=2, checks=1, watch=0))
        create_study(db, dataset, "demo", Design(fraction=1.0, raters=6, checks=1, watch=0))
    results = [load_results(inverse_planning_json), load_results(results_json)]
    app = create_app(AppConfig(datasets=[dataset], results=results, sessions=factory,
                               cache=folder / "cache"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    while not uv.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    uv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("no chromium/chromedriver: apt-get install chromium chromium-driver")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,900",
                 "--autoplay-policy=no-user-gesture-required", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("SOCIALBENCH_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def until(condition, timeout: float = 60.0, what: str = "") -> object:  # type: ignore[no-untyped-def]
    """Wait for ``condition()`` (page_source reads '' now and then just after a navigation)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def screenshot(driver, path: Path) -> None:  # type: ignore[no-untyped-def]
    """The whole page: the viewport grown to the document's height for the picture."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 1200, "height": min(max(height, 600), 4000), "deviceScaleFactor": 1,
        "mobile": False})
    driver.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.2)
    driver.save_screenshot(str(path))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_viewer_plays_in_sync_and_draws_curves(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    driver = browser
    driver.get(f"{server}/data/0/?task=preference")
    until(lambda: "preference/000000lo" in driver.page_source, what="the dataset page")
    screenshot(driver, shots / "dataset.png")
    driver.get(f"{server}/data/0/episode?key=preference/000000lo")
    until(lambda: driver.execute_script("return document.getElementById('curves')"
                                        ".dataset.loaded"), what="the surprise curves")
    assert driver.execute_script("return document.querySelectorAll('#curves polyline')"
                                 ".length") == 2 * 2  # two observers, two test trials
    driver.find_element("id", "play").click()
    times = until(lambda: (t := driver.execute_script(
        "return Array.from(document.querySelectorAll('video.test')).map(v => v.currentTime)"))
        and min(t) > 1.0 and t, what="both test videos to play")
    assert abs(times[0] - times[1]) < 0.3  # in sync
    cursor = driver.execute_script("const l = document.querySelector('#curves line.cursor');"
                                   "return [Number(l.getAttribute('x1')), "
                                   "Number(l.dataset.left)]")
    assert cursor[0] > cursor[1]  # the cursor follows playback
    driver.find_element("id", "play").click()  # pause for the picture
    assert driver.find_element("id", "meta").get_attribute("hidden")
    driver.find_element("id", "show-meta").click()
    until(lambda: "e_goal" in driver.find_element("id", "meta").text, what="design facts")
    screenshot(driver, shots / "episode.png")
    driver.get(f"{server}/results")
    until(lambda: "shortcut-path rel.acc" in driver.page_source, what="the results page")
    screenshot(driver, shots / "results.png")
    driver.get(f"{server}/talkitout?episode=0&agent=oracle")
    driver.find_element("id", "next").click()
    driver.find_element("id", "next").click()
    until(lambda: "step 2" in driver.find_element("id", "stepno").text, what="step 2")
    until(lambda: driver.execute_script("const i = document.getElementById('frame');"
                                        "return i.complete && i.naturalWidth > 0"),
          what="the frame")
    screenshot(driver, shots / "talkitout.png")


def test_the_static_report(results_json: Path, inverse_planning_json: Path, bib_root: Path,
                           browser, shots: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.web.conftest import run_cli

    out = tmp_path / "report.html"
    run_cli("report", "--results", str(inverse_planning_json), str(results_json), "--out",
            str(out), "--data", str(bib_root))
    browser.get(out.as_uri())
    assert browser.execute_script("return document.querySelectorAll('svg.curves').length") == 4
    screenshot(browser, shots / "report.png")


def rate_current(driver, value: int) -> None:  # type: ignore[no-untyped-def]
    slider = driver.find_element("id", "rating")
    assert not slider.is_enabled() and not driver.find_element("id", "submit").is_enabled()
    driver.execute_script("const v = document.querySelector('#player video');"
                          "v.defaultPlaybackRate = 16; v.playbackRate = 16;")
    driver.find_element("id", "play").click()
    until(lambda: slider.is_enabled(), timeout=120, what="the test video to end")
    driver.execute_script("arguments[0].value = arguments[1];"
                          "arguments[0].dispatchEvent(new Event('input'))", slider, value)
    driver.find_element("id", "submit").click()


def test_a_rating_session_in_the_browser(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    import httpx2

    driver = browser
    driver.get(f"{server}/studies/1")
    links = until(lambda: re.findall(r'value="(http://[^"]+/r/[A-Za-z0-9_-]+)"',
                                     driver.page_source), what="the rater links")
    assert len(links) == 2
    driver.get(links[0])
    screenshot(driver, shots / "rater-consent.png")
    driver.find_element("id", "agree").click()
    driver.find_element("id", "start").click()
    until(lambda: "Trial 1 of 3" in driver.page_source, what="the first trial")
    shown = []
    for k in range(3):
        until(lambda k=k: f"Trial {k + 1} of 3" in driver.page_source, what=f"trial {k + 1}")
        question = driver.find_element("id", "question").text
        target = re.search(r"set the slider to (\d+)", question)
        value = int(target.group(1)) if target else 30 + 20 * k
        shown.append(value)
        if k == 1:  # leave and come back: the session resumes where it was
            driver.get(f"{server}/")
            driver.get(links[0])
            until(lambda: "Trial 2 of 3" in driver.page_source, what="the resumed session")
            driver.execute_script("const v = document.querySelector('#player video');"
                                  "v.defaultPlaybackRate = 16; v.playbackRate = 16;")
            driver.find_element("id", "play").click()
            until(lambda: driver.find_element("id", "rating").is_enabled(), timeout=120,
                  what="the slider to unlock")
            screenshot(driver, shots / "rater-trial.png")
            driver.get(links[0])
        rate_current(driver, value)
    until(lambda: "Thank you" in driver.page_source, what="the end of the session")
    export = httpx2.get(f"{server}/studies/1/ratings.csv").text
    rated = [line.split(",") for line in export.splitlines()[1:] if line.split(",")[11]]
    assert sorted(int(row[11]) for row in rated) == sorted(shown)
    driver.get(f"{server}/studies/1")
    until(lambda: "3 / 3" in driver.page_source, what="the study page")


def test_the_analysis_page(server: str, browser, factory, shots: Path) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from socialbench.web.study import session as rating
    from socialbench.web.study.db import Rater

    with factory() as db:
        tokens = list(db.scalars(select(Rater.token).where(Rater.study_id == 2)
                                 .order_by(Rater.id)))
    for r, token in enumerate(tokens[:5]):  # rater 5 fails its check; rater 6 never starts
        rating.consent(factory, token)
        while True:
            with factory() as db:
                rater = rating.find_rater(db, token)
                current = rating.next_assignment(db, rater)
                if current is None:
                    break
                item, csrf = current.item, rating.form_token(rater.study.secret, token,
                                                              current.id)
            high = item.side == "unexpected" if r != 2 else item.task == "preference"
            value = (item.check_target if r < 4 else 50) if item.kind == "check" else (
                60 + 7 * r if high else 20 + 5 * r)
            rating.submit(factory, token, str(current.id), str(value), csrf)
    browser.get(f"{server}/studies/2")
    text = until(lambda: "pooled raters" in browser.page_source
                 and browser.find_element("tag name", "main").text, what="the study page")
    assert "5 raters with ratings (1 not started), 4 included; 1 excluded: failed an attention" \
        in text
    assert "pooled raters 8" in text
    screenshot(browser, shots / "study.png")
