"""`socialbench report` and `socialbench study create/results` from the command line."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from socialbench.cli import main
from tests.web.conftest import run_cli


def test_report_is_one_self_contained_page(results_json: Path, bib_root: Path,
                                           tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    other = tmp_path / "other.json"  # a second observer: --results A.json B.json
    other.write_text(results_json.read_text().replace('"shortcut-path"', '"other"'))
    run_cli("report", "--results", str(results_json), str(other), "--out", str(out), "--data",
            str(bib_root))
    text = out.read_text()
    assert "other rel.acc" in text
    assert "<style>" in text and "<script" not in text
    assert not re.search(r'(src|href)="(https?:|/)', text)  # nothing fetched from elsewhere
    assert "shortcut-path rel.acc" in text and "HBToM" in text  # ours beside the papers'
    assert text.count('class="bars"') == 1 and text.count('class="curves"') == 4
    assert text.count('class="curve"') == 4  # "other" names no observer: no curve of its own


def test_report_rejects_a_file_that_is_not_results(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"observer": 3}')
    result = CliRunner().invoke(main, ["report", "--results", str(bad), "--out",
                                       str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "not an evaluation result" in result.output


def test_study_create_and_results(bib_root: Path, results_json: Path, db_url: str,
                                  tmp_path: Path) -> None:
    links = run_cli("study", "create", "--data", str(bib_root), "--db", db_url, "--design",
                    "fraction=0.5,raters=3,checks=1", "--base-url", "https://x.example/")
    urls = [line for line in links.splitlines() if line.startswith("https://x.example/r/")]
    assert len(urls) == 3
    out = tmp_path / "ratings.csv"
    text = run_cli("study", "results", "--db", db_url, "--csv", str(out), "--results",
                   str(results_json))
    assert "pooled raters" in text and "shortcut-path" in text
    assert out.read_text().count("\n") == 1 + 3 * (4 + 1)
    again = CliRunner().invoke(main, ["study", "create", "--data", str(bib_root), "--db",
                                      db_url])
    assert again.exit_code == 2 and "exists" in again.output
    for design in ("raters=x", "fraction=2", "colour=3", "watch=1.5"):
        bad = CliRunner().invoke(main, ["study", "create", "--data", str(bib_root), "--db",
                                        db_url, "--name", "b", "--design", design])
        assert bad.exit_code == 2 and bad.output.startswith("error: --"), bad.output


def test_serve_refuses_exposure_without_a_password(bib_root: Path, monkeypatch) -> None:
    monkeypatch.delenv("SOCIALBENCH_ADMIN_PASSWORD", raising=False)
    result = CliRunner().invoke(main, ["serve", "--data", str(bib_root), "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "password" in result.output
