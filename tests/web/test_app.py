"""The app through Starlette's test client: pages, media, security."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from socialbench.web.app import AppConfig, create_app
from socialbench.web.datasets import open_dataset
from socialbench.web.results import load_results
from socialbench.web.study.db import Assignment, make_engine, sessions
from socialbench.web.study.design import Design, create_study

PASSWORD = "correct horse battery"


@pytest.fixture()
def app_config(bib_root: Path, results_json: Path, db_url: str, tmp_path: Path) -> AppConfig:
    factory = sessions(make_engine(db_url))
    dataset = open_dataset(bib_root)
    with factory.begin() as db:
        create_study(db, dataset, "pilot", Design(fraction=0.5, raters=2, checks=1, watch=0))
    return AppConfig(datasets=[dataset], results=[load_results(results_json)],
                     sessions=factory, cache=tmp_path / "cache")


@pytest.fixture()
def client(app_config: AppConfig) -> TestClient:
    return TestClient(create_app(app_config), follow_redirects=False)


def tokens(client: TestClient) -> list[str]:
    return re.findall(r"/r/([A-Za-z0-9_-]{32})", client.get("/studies/1").text)


def test_viewer_pages_and_media(client: TestClient, bib_root: Path) -> None:
    page = client.get("/data/0/?task=efficiency_path")
    assert page.status_code == 200
    assert "efficiency_path/000000ep" in page.text and "preference/" not in page.text
    episode = client.get("/data/0/episode?key=efficiency_path/000000ep")
    assert episode.status_code == 200
    assert "show design facts" in episode.text
    facts = client.get("/data/0/meta?key=efficiency_path/000000ep").json()
    assert facts["task"] == "efficiency_path" and facts["design"]
    for key in (*facts["design"], *facts["audit"]):  # the answer: only on request
        assert key not in episode.text
    clip = client.get("/data/0/clip?file=efficiency_path/000000epu.json&trial=8")
    assert clip.status_code == 200 and clip.headers["content-type"] == "video/mp4"
    assert clip.content[4:8] == b"ftyp"
    ranged = client.get("/data/0/clip?file=efficiency_path/000000epu.json&trial=8",
                        headers={"range": "bytes=0-99"})
    assert ranged.status_code == 206 and len(ranged.content) == 100  # seeking in a <video>
    curves = client.get("/data/0/curves?key=efficiency_path/000000ep")
    assert curves.text.count("<svg") == 2 and 'data-observer="shortcut-path"' in curves.text
    results = client.get("/results")
    assert "shortcut-path rel.acc" in results.text and "HBToM" in results.text


@pytest.mark.parametrize("url", [
    "/data/0/clip?file=../../../etc/passwd&trial=0",
    "/data/0/clip?file=/etc/passwd&trial=0",
    "/data/0/clip?file=manifest.json&trial=0",
    "/data/0/clip?file=efficiency_path/000000epe.json&trial=99",
    "/data/0/video?folder=../x",
    "/data/0/meta?key=../../etc/passwd",
    "/data/0/episode?key=_meta/efficiency_path/000000ep",
    "/data/7/",
])
def test_paths_never_leave_the_dataset(client: TestClient, url: str) -> None:
    response = client.get(url)
    assert response.status_code in (400, 404)
    assert "root:" not in response.text


def test_security_headers(client: TestClient) -> None:
    headers = client.get("/").headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY" and headers["referrer-policy"] == "no-referrer"


def test_admin_pages_need_the_password(app_config: AppConfig) -> None:
    app_config.password = PASSWORD
    client = TestClient(create_app(app_config), follow_redirects=False)
    for url in ("/", "/data/0/", "/studies/1", "/studies/1/ratings.csv", "/results",
                "/data/0/meta?key=efficiency_path/000000ep"):
        assert client.get(url).status_code == 303, url
    login = client.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', login.text).group(1)
    assert client.post("/login", data={"password": PASSWORD, "csrf": "forged"}).status_code == 400
    assert client.post("/login", data={"password": "wrong", "csrf": csrf}).status_code == 403
    assert client.get("/studies/1").status_code == 303
    assert client.post("/login?next=/studies/1",
                       data={"password": PASSWORD, "csrf": csrf}).headers["location"] == \
        "/studies/1"
    assert client.get("/studies/1").status_code == 200
    other = TestClient(create_app(app_config), follow_redirects=False)
    assert other.post("/login?next=//evil.example", data={"password": PASSWORD,
                      "csrf": "x"}).status_code == 400
    csrf = re.search(r'name="csrf" value="([^"]+)"', other.get("/login").text).group(1)
    for _ in range(5):  # guessing: refused after five wrong passwords, even the right one
        assert other.post("/login", data={"password": "guess", "csrf": csrf}).status_code == 403
    refused = other.post("/login", data={"password": PASSWORD, "csrf": csrf})
    assert refused.status_code == 429 and "too many" in refused.text


def test_a_rater_session_over_http(client: TestClient, app_config: AppConfig) -> None:
    mine, theirs = tokens(client)
    assert client.get("/r/" + "A" * 32).status_code == 404
    start = client.get(f"/r/{mine}")
    assert "Consent" in start.text and "slider" in start.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', start.text).group(1)
    assert client.post(f"/r/{mine}/consent", data={"csrf": csrf}).status_code == 303  # no tick
    forged = client.post(f"/r/{mine}/consent", data={"agree": "yes", "csrf": "x" * 64})
    assert forged.status_code == 403 and "security token" in forged.text
    assert "Consent" in client.get(f"/r/{mine}").text
    client.post(f"/r/{mine}/consent", data={"agree": "yes", "csrf": csrf})
    ratings = 0
    while True:
        page = client.get(f"/r/{mine}")
        if "Thank you" in page.text:
            break
        assert 'id="rating"' in page.text and "disabled" in page.text
        form = dict(re.findall(r'name="(csrf|assignment)" value="([^"]+)"', page.text))
        clip = re.search(r'/r/[^/]+/clip/(\d+)/(\d+)', page.text.replace("&#34;", '"'))
        assert clip is not None
        assert client.get(f"/r/{mine}/clip/{form['assignment']}/8").status_code == 200
        assert client.get(f"/r/{theirs}/clip/{form['assignment']}/0").status_code == 404
        bad = client.post(f"/r/{mine}/rate", data={**form, "rating": "250"})
        assert bad.status_code == 409 and "0 to 100" in bad.text
        target = re.search(r"set the slider to <b>(\d+)</b>", page.text)
        value = target.group(1) if target else "70"
        assert client.post(f"/r/{mine}/rate", data={**form, "rating": value}).status_code == 303
        replay = client.post(f"/r/{mine}/rate", data={**form, "rating": value})
        assert replay.status_code == 409 and "already rated" in replay.text
        ratings += 1
    assert ratings == 4 + 1
    with app_config.sessions() as db:  # type: ignore[misc]
        assert db.scalar(select(func.count()).where(Assignment.rating.is_not(None))) == ratings
    csv_text = client.get("/studies/1/ratings.csv").text
    assert csv_text.count(",70,") == 4


def test_talkitout_replay() -> None:
    client = TestClient(create_app(AppConfig()))
    page = client.get("/talkitout?episode=0&agent=oracle")
    assert page.status_code == 200 and "Ask" in page.text
    frame = client.get("/talkitout/frame?episode=0&agent=oracle&variant=original&step=1")
    assert frame.content[:4] == b"\x89PNG"
    assert client.get("/talkitout?episode=5000").status_code == 400
    assert client.get("/talkitout?agent=nobody").status_code == 400
