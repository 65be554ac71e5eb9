"""`socialbench serve`, `socialbench report` and `socialbench study`: the web app, the static
report and the human rating study (``socialbench.web``; needs the ``web`` extra)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

import click

from socialbench.core.errors import UserError

if TYPE_CHECKING:  # the web extra is imported when a command runs
    from socialbench.web.study.design import Design

DEFAULT_DB = "sqlite:///socialbench-study.db"  # a file in the working folder
DESIGN_HELP = ("Comma-separated KEY=VALUE: fraction (share of each task's test pairs, AGENT: "
               "0.25), raters, checks (attention checks per rater), seed, watch (share of a "
               "trial's video time before its rating is accepted). "
               "Default: fraction=0.25,raters=20,checks=2,seed=0,watch=0.9.")


def _need_web() -> None:
    missing = [m for m in ("starlette", "sqlalchemy", "alembic", "jinja2")
               if importlib.util.find_spec(m) is None]
    if missing:
        raise UserError(f"the web commands need {', '.join(missing)}: pip install -e '.[web]'")


def _results(paths: tuple[Path, ...]) -> list:
    from socialbench.web.results import load_results

    return [load_results(p) for p in paths]


def _checkpoints(pairs: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise UserError(f"--checkpoint {pair!r}: give OBSERVER=PATH, e.g. mask=mask.pt")
        out[name] = path
    return out


@click.command(name="serve")
@click.option("--data", "data", multiple=True, type=click.Path(path_type=Path, exists=True,
              file_okay=False), help="A BIB or AGENT dataset root to browse (repeatable).")
@click.option("--results", "results", multiple=True,
              type=click.Path(path_type=Path, dir_okay=False),
              help="Evaluation JSON from `socialbench bib evaluate --json`: --results A.json "
                   "[B.json ...].")
@click.argument("more", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--checkpoint", "checkpoints", multiple=True,
              help="OBSERVER=PATH: a learned observer's checkpoint, for its surprise curves.")
@click.option("--db", default=None,
              help=f"The study database: sqlite:///PATH or postgresql://USER@HOST/DB "
                   f"(default: {DEFAULT_DB} when that file exists).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to listen on; anything but loopback needs an admin password.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--password-file", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="First line: the admin password (or set "
                                 "$SOCIALBENCH_ADMIN_PASSWORD).")
@click.option("--cache", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where rendered trial clips are kept (default: a folder in the temp dir).")
def serve(data: tuple[Path, ...], results: tuple[Path, ...], more: tuple[Path, ...],
          checkpoints: tuple[str, ...],
          db: str | None, host: str, port: int, password_file: Path | None,
          cache: Path | None) -> None:
    """Serve the dataset browser, results, TalkItOut replay and rating study."""
    _need_web()
    import uvicorn

    from socialbench.web.app import AppConfig, create_app
    from socialbench.web.datasets import open_dataset
    from socialbench.web.security import admin_password, check_exposure
    from socialbench.web.study.db import make_engine, sessions

    password = admin_password(password_file)
    check_exposure(host, password)
    if db is None and Path(DEFAULT_DB.split("///", 1)[1]).exists():
        db = DEFAULT_DB
    config = AppConfig(datasets=[open_dataset(d) for d in data],
                       results=_results(results + more),
                       checkpoints=_checkpoints(checkpoints),
                       sessions=sessions(make_engine(db)) if db else None, password=password)
    if cache is not None:
        config.cache = cache
    click.echo(f"serving on http://{host}:{port}/ (Ctrl-C stops)", err=True)
    uvicorn.run(create_app(config), host=host, port=port, log_level="warning",
                proxy_headers=False)


@click.command(name="report")
@click.option("--results", "results", multiple=True, required=True,
              type=click.Path(path_type=Path, dir_okay=False),
              help="Evaluation JSON from `socialbench bib evaluate --json`: --results A.json "
                   "[B.json ...].")
@click.argument("more", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--out", required=True, type=click.Path(path_type=Path, dir_okay=False),
              help="The HTML file to write.")
@click.option("--data", type=click.Path(path_type=Path, exists=True, file_okay=False),
              default=None, help="The evaluated BIB dataset: adds surprise curves of episodes.")
@click.option("--episodes", type=click.IntRange(0, 100), default=1, show_default=True,
              help="With --data: episodes per task whose surprise curves are drawn.")
def report(results: tuple[Path, ...], more: tuple[Path, ...], out: Path, data: Path | None,
           episodes: int) -> None:
    """Write the results' tables and plots as one self-contained HTML page."""
    _need_web()
    from socialbench.web.report import write_report

    write_report(_results(results + more), out, data=data, episodes_per_task=episodes)
    click.echo(f"wrote {out}")


@click.group(name="study")
def study() -> None:
    """A human surprise-rating study: create it, serve it, read its results."""


def _design(text: str) -> Design:
    from socialbench.web.study.design import Design

    kinds = {"fraction": float, "raters": int, "checks": int, "seed": int, "watch": float}
    values = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, raw = part.partition("=")
        if not sep or key not in kinds:
            raise UserError(f"--design {part!r}: give KEY=VALUE with KEY one of "
                            f"{', '.join(kinds)}")
        try:
            values[key] = kinds[key](raw)
        except ValueError as exc:
            raise UserError(f"--design {part!r}: {raw!r} is not a {kinds[key].__name__}") from exc
    design = Design(**values)
    design.check()
    return design


@study.command(name="create")
@click.option("--data", required=True, type=click.Path(path_type=Path, exists=True,
              file_okay=False), help="The BIB or AGENT dataset whose test pairs are rated.")
@click.option("--design", "design", default="", help=DESIGN_HELP)
@click.option("--name", default="study", show_default=True, help="The study's name.")
@click.option("--db", default=DEFAULT_DB, show_default=True,
              help="sqlite:///PATH or postgresql://USER@HOST/DB.")
@click.option("--base-url", default="http://127.0.0.1:8000", show_default=True,
              help="Where the study will be served: the rater links start with it.")
def study_create(data: Path, design: str, name: str, db: str, base_url: str) -> None:
    """Pick the trials, balance expected/unexpected across raters, add attention checks,
    shuffle each rater's order; print the rater links."""
    _need_web()
    from socialbench.web.datasets import open_dataset
    from socialbench.web.study.db import make_engine, sessions
    from socialbench.web.study.design import create_study

    dataset = open_dataset(data)
    with sessions(make_engine(db)).begin() as session:
        created = create_study(session, dataset, name, _design(design))
        links = [f"{base_url.rstrip('/')}/r/{r.token}" for r in created.raters]
        trials = sum(1 for i in created.items if i.kind == "trial") // 2
    click.echo(f"study {name!r}: {trials} test pairs of {dataset.root}, {len(links)} raters; "
               f"serve with: socialbench serve --db {db} --data {dataset.root}", err=True)
    for link in links:
        click.echo(link)


@study.command(name="results")
@click.option("--db", default=DEFAULT_DB, show_default=True,
              help="sqlite:///PATH or postgresql://USER@HOST/DB.")
@click.option("--study", "name", default=None, help="The study's name (default: the only one).")
@click.option("--csv", "csv_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write every rating (one row per rater and trial) to this CSV file.")
@click.option("--results", "results", multiple=True,
              type=click.Path(path_type=Path, dir_okay=False),
              help="Model observers' evaluation JSON to show beside the humans: --results "
                   "A.json [B.json ...].")
@click.argument("more", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
def study_results(db: str, name: str | None, csv_path: Path | None,
                  results: tuple[Path, ...], more: tuple[Path, ...]) -> None:
    """AGENT's analysis of the ratings (z-scored pairwise accuracy per type, scenario and
    pooled) beside the model observers; raters failing attention checks are excluded."""
    _need_web()
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from socialbench.core.files import atomic_write
    from socialbench.web.study.analysis import analyse, export_csv, human_table
    from socialbench.web.study.db import make_engine, sessions
    from socialbench.web.study.design import find_study

    with sessions(make_engine(db))() as session:
        chosen = find_study(session, name)
        result = analyse(session, chosen)
        text = export_csv(session, chosen) if csv_path else ""
    table = human_table(result, _results(results + more))
    console = Console()
    excluded = "; ".join(f"{n} excluded: {why}" for why, n in result.excluded.items())
    shown = Table(title=f"study {chosen.name}: {result.raters} raters with ratings "
                        f"({result.not_started} not started), {result.included} included"
                        f"{'; ' + excluded if excluded else ''}", box=box.SIMPLE_HEAD)
    for k, column in enumerate(table["columns"]):
        shown.add_column(column, justify="left" if k == 0 else "right")
    for row in table["rows"]:
        shown.add_row(*row)
    console.print(shown)
    if csv_path:
        with atomic_write(csv_path) as tmp:
            tmp.write_text(text)
        click.echo(f"wrote {csv_path}")
