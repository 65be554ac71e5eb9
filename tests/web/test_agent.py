"""The viewer and the study over an AGENT dataset."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from socialbench.core.errors import UserError
from socialbench.web.app import AppConfig, create_app
from socialbench.web.datasets import open_dataset
from socialbench.web.study.db import make_engine, sessions
from socialbench.web.study.design import Design, create_study
from tests.web.conftest import agent_dataset

KEY = "scenario_2_action_efficiency/type_2.1/test_set/Trial_0"


def test_agent_pairs_pages_and_facts_on_request(tmp_path: Path) -> None:
    data = open_dataset(agent_dataset(tmp_path / "agent", render=False))
    assert data.benchmark == "agent" and [e.key for e in data.episodes] == [KEY]
    client = TestClient(create_app(AppConfig(datasets=[data])))
    assert "type_2.1" in client.get("/data/0/?task=2.1").text
    page = client.get(f"/data/0/episode?key={KEY}").text
    assert "no rendered video" in page and "show design facts" in page
    facts = client.get(f"/data/0/meta?key={KEY}").json()
    assert "annotations" in facts
    for note in facts["annotations"]["expected"]:
        assert f'"{note}"' not in page
    factory = sessions(make_engine(f"sqlite:///{tmp_path / 'db'}"))
    with pytest.raises(UserError, match="--render"), factory.begin() as db:  # nothing to rate
        create_study(db, data, "agent", Design(fraction=1.0, raters=2))


@pytest.mark.slow
def test_agent_videos_are_served_to_viewer_and_raters(tmp_path: Path) -> None:
    import re

    data = open_dataset(agent_dataset(tmp_path / "agent", render=True))
    factory = sessions(make_engine(f"sqlite:///{tmp_path / 'db'}"))
    with factory.begin() as db:
        study = create_study(db, data, "agent", Design(fraction=1.0, raters=2, checks=0, watch=0))
        token = study.raters[0].token
    client = TestClient(create_app(AppConfig(datasets=[data], sessions=factory)))
    page = client.get(f"/data/0/episode?key={KEY}").text.replace("&amp;", "&")
    videos = re.findall(r'src="(/data/0/video\?folder=[^"]+)"', page)
    assert len(videos) == 2  # expected and surprising, side by side
    for url in videos:
        response = client.get(url)
        assert response.status_code == 200 and response.content[4:8] == b"ftyp"
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get(f"/r/{token}").text).group(1)
    client.post(f"/r/{token}/consent", data={"agree": "yes", "csrf": csrf})
    rater = client.get(f"/r/{token}").text
    clips = re.findall(r"/r/[^/]+/clip/\d+/\d+", rater.replace("&#34;", '"'))
    assert len(clips) == 2  # one familiarization video, then the test
    assert all(client.get(c).status_code == 200 for c in clips)
