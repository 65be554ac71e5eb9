"""The Starlette app behind ``socialbench serve``: routes that call the dataset readers, the
observers and the study, and render templates. No logic of its own lives here."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import func, select
from sqlalchemy.orm import sessionmaker
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from socialbench.bib.schema import N_TRIALS
from socialbench.core.errors import UserError
from socialbench.web import datasets as ds
from socialbench.web import security
from socialbench.web.plots import curves_svg
from socialbench.web.results import Results, surprise_curve, task_table
from socialbench.web.study import analysis
from socialbench.web.study import session as rating
from socialbench.web.study.db import Assignment, Item, Rater, Study

HERE = Path(__file__).parent
PAGE_SIZE = 100
MAX_QUERY = 200  # characters of a filter or key a request may send


@dataclass
class AppConfig:
    """What ``socialbench serve`` was given."""

    datasets: list[ds.Dataset] = field(default_factory=list)
    results: list[Results] = field(default_factory=list)
    checkpoints: dict[str, str] = field(default_factory=dict)
    sessions: sessionmaker | None = None  # the study database, when one is served
    password: str | None = None  # admin password; None: admin pages open (loopback only)
    secret: str = ""  # signs admin session cookies
    cache: Path = field(default_factory=lambda: Path(tempfile.gettempdir()) / "socialbench-web")


class Problem(Exception):
    """A request the app refuses: an HTTP status and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create_app(config: AppConfig) -> Starlette:
    """The app: viewer, results, TalkItOut replay, study admin and rater pages."""
    throttle = security.LoginThrottle()
    templates = Jinja2Templates(directory=str(HERE / "templates"))  # autoescapes
    secret = config.secret or security.new_csrf() + security.new_csrf()

    def page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        context.setdefault("admin", _is_admin(request))
        context.setdefault("csrf", _csrf(request))
        context.setdefault("config", config)
        return templates.TemplateResponse(request, name, context, status_code=status)

    def _is_admin(request: Request) -> bool:
        return config.password is None or request.session.get("admin") is True

    def _csrf(request: Request) -> str:
        if "csrf" not in request.session:
            request.session["csrf"] = security.new_csrf()
        return request.session["csrf"]

    def admin(handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        def guarded(request: Request) -> Response:
            if not _is_admin(request):
                return RedirectResponse(f"/login?next={request.url.path}", status_code=303)
            return handler(request)
        return guarded

    def dataset(request: Request) -> ds.Dataset:
        index = request.path_params["d"]
        if not 0 <= index < len(config.datasets):
            raise Problem(404, "no such dataset")
        return config.datasets[index]

    def query(request: Request, name: str, default: str = "") -> str:
        value = request.query_params.get(name, default)
        if len(value) > MAX_QUERY:
            raise Problem(400, f"the {name!r} parameter is too long")
        return value

    def episode_ref(request: Request, data: ds.Dataset) -> ds.EpisodeRef:
        try:
            return data.find(query(request, "key"))
        except UserError as exc:
            raise Problem(404, str(exc)) from exc

    def studies_db() -> sessionmaker:
        if config.sessions is None:
            raise Problem(404, "no study database: serve with --db")
        return config.sessions

    # ------------------------------------------------------------------ viewer and results

    @admin
    def index(request: Request) -> Response:
        studies = []
        if config.sessions is not None:
            with config.sessions() as db:
                studies = list(db.scalars(select(Study).order_by(Study.id)))
        return page(request, "index.html", studies=studies)

    @admin
    def dataset_page(request: Request) -> Response:
        data = dataset(request)
        task, text = query(request, "task"), query(request, "q").strip().lower()
        shown = [e for e in data.episodes
                 if (not task or e.task == task) and (not text or text in e.name.lower())]
        start = query(request, "start", "0")
        first = int(start) if start.isdigit() else 0
        return page(request, "dataset.html", d=request.path_params["d"], data=data, task=task,
                    q=text, episodes=shown[first:first + PAGE_SIZE], total=len(shown),
                    start=first, page_size=PAGE_SIZE)

    @admin
    def episode_page(request: Request) -> Response:
        data = dataset(request)
        ref = episode_ref(request, data)
        context: dict[str, Any] = {"d": request.path_params["d"], "data": data, "ref": ref}
        if ref.benchmark == "bib":
            sides = [s for s in (ref.expected, ref.unexpected) if s]
            frames = ds.bib_trial_frames(data, sides[0])
            context["familiar"] = [{"label": f"familiarization {k + 1}",
                                    "src": _clip_url(request, sides[0], k)}
                                   for k in range(len(frames) - 1)]
            context["tests"] = [{"label": side, "src": _clip_url(request, path, len(frames) - 1)}
                                for side, path in (("expected", ref.expected),
                                                   ("unexpected", ref.unexpected)) if path]
        else:
            folders = ds.agent_videos(data, ref)
            context["familiar"] = [{"label": f"familiarization {k + 1}",
                                    "src": _video_url(request, data, f)}
                                   for k, f in enumerate(folders["familiarization"])]
            context["tests"] = [{"label": side, "src": _video_url(request, data, folders[side][0])}
                                for side in ("expected", "unexpected") if folders[side][0]]
        context["curves"] = bool(config.results) and ref.benchmark == "bib"
        return page(request, "episode.html", **context)

    # media URLs are paths on this server, never built from the request's Host header
    def _clip_url(request: Request, relpath: str, trial: int) -> str:
        query = urlencode({"file": relpath, "trial": trial})
        return f"/data/{request.path_params['d']}/clip?{query}"

    def _video_url(request: Request, data: ds.Dataset, folder: str) -> str | None:
        if ds.agent_video_file(data, folder) is None:
            return None
        return f"/data/{request.path_params['d']}/video?{urlencode({'folder': folder})}"

    @admin
    def clip(request: Request) -> Response:
        data = dataset(request)
        relpath = query(request, "file")
        if not any(relpath in (e.expected, e.unexpected) for e in data.episodes):
            raise Problem(404, "not an episode file of this dataset")
        trial = query(request, "trial", "0")
        if not trial.isdigit() or int(trial) > 20:
            raise Problem(400, "trial must be a small whole number")
        try:
            path = _bib_clip(data, relpath, int(trial))
        except IndexError as exc:
            raise Problem(404, "no such trial") from exc
        return FileResponse(path, media_type="video/mp4")

    def _bib_clip(data: ds.Dataset, relpath: str, trial: int) -> Path:
        from socialbench.web.media import bib_trial_clip

        return bib_trial_clip(data, relpath, trial, config.cache)

    @admin
    def video(request: Request) -> Response:
        data = dataset(request)
        folder = query(request, "folder")
        if not any(folder.startswith(e.name + "/") for e in data.episodes):
            raise Problem(404, "not a video folder of this dataset")
        try:
            path = ds.agent_video_file(data, folder)
        except UserError as exc:
            raise Problem(404, str(exc)) from exc
        if path is None:
            raise Problem(404, "no rendered video: generate with --render")
        return FileResponse(path, media_type="video/mp4")

    @admin
    def meta(request: Request) -> Response:
        data = dataset(request)
        return JSONResponse(ds.design_facts(data, episode_ref(request, data)))

    @admin
    def curves(request: Request) -> Response:
        data = dataset(request)
        ref = episode_ref(request, data)
        figures = []
        for side, path in (("expected", ref.expected), ("unexpected", ref.unexpected)):
            if not path:
                continue
            episode = ds.bib_episode(data, path)
            shown = {}
            for result in config.results:
                values = surprise_curve(result.observer, episode,
                                        checkpoints=config.checkpoints)
                if values is not None:
                    shown[result.observer] = values
            figures.append(curves_svg(shown, title=f"surprise over the {side} test trial"))
        return HTMLResponse("".join(f'<div class="curve-box">{f}</div>' for f in figures))

    @admin
    def results_page(request: Request) -> Response:
        return page(request, "results.html", table=task_table(config.results))

    @admin
    def talkitout_page(request: Request) -> Response:
        from socialbench.talkitout.agents import AGENTS
        from socialbench.talkitout.evaluate import VARIANTS
        from socialbench.web.talkitout import replay

        episode, agent, variant = _talk_args(request)
        steps = replay(episode, agent, variant)
        return page(request, "talkitout.html", episode=episode, agent=agent, variant=variant,
                    agents=list(AGENTS), variants=list(VARIANTS), steps=steps)

    def _talk_args(request: Request) -> tuple[int, str, str]:
        from socialbench.talkitout.agents import AGENTS
        from socialbench.talkitout.evaluate import VARIANTS
        from socialbench.web.talkitout import MAX_EPISODE

        raw = query(request, "episode", "0")
        agent, variant = query(request, "agent", "oracle"), query(request, "variant", "original")
        if not raw.isdigit() or int(raw) >= MAX_EPISODE:
            raise Problem(400, f"episode must be 0-{MAX_EPISODE - 1}")
        if agent not in AGENTS or variant not in VARIANTS:
            raise Problem(400, "unknown agent or variant")
        return int(raw), agent, variant

    @admin
    def talkitout_frame(request: Request) -> Response:
        from socialbench.web.talkitout import replay

        steps = replay(*_talk_args(request))
        step = query(request, "step", "0")
        if not step.isdigit() or int(step) >= len(steps):
            raise Problem(404, "no such step")
        return Response(steps[int(step)].png, media_type="image/png")

    # ------------------------------------------------------------------ study admin

    def find_study(db: Any, request: Request) -> Study:
        study = db.get(Study, request.path_params["s"])
        if study is None:
            raise Problem(404, "no such study")
        return study

    @admin
    def study_page(request: Request) -> Response:
        with studies_db()() as db:
            study = find_study(db, request)
            raters = list(db.execute(
                select(Rater, func.count(Assignment.rating), func.count(Assignment.id))
                .join(Assignment, Assignment.rater_id == Rater.id)
                .where(Rater.study_id == study.id).group_by(Rater.id).order_by(Rater.id)))
            result = analysis.analyse(db, study)
            table = analysis.human_table(result, config.results)
            items = db.scalar(select(func.count()).where(Item.study_id == study.id))
        base = str(request.base_url).rstrip("/")
        return page(request, "study.html", study=study, raters=raters, result=result,
                    table=table, items=items, base=base,
                    design=json.loads(study.design))

    @admin
    def study_csv(request: Request) -> Response:
        with studies_db()() as db:
            study = find_study(db, request)
            text = analysis.export_csv(db, study)
        return PlainTextResponse(text, media_type="text/csv", headers={
            "content-disposition": f'attachment; filename="study-{study.id}.csv"'})

    # ------------------------------------------------------------------ login

    async def login(request: Request) -> Response:
        target = request.query_params.get("next", "/")
        target = target if target.startswith("/") and not target.startswith("//") else "/"
        if request.method == "GET":
            return page(request, "login.html", next=target, error="")
        client = request.client.host if request.client else ""
        if throttle.blocked(client):
            return page(request, "login.html", 429, next=target,
                        error="too many wrong passwords: try again in 15 minutes")
        form = await request.form()
        if not security.same_secret(str(form.get("csrf", "")), _csrf(request)):
            return page(request, "login.html", 400, next=target,
                        error="the form's security token does not match: reload the page")
        if config.password is None or not security.same_secret(str(form.get("password", "")),
                                                               config.password):
            throttle.failed(client)
            return page(request, "login.html", 403, next=target, error="wrong password")
        request.session.clear()
        request.session["admin"] = True
        return RedirectResponse(target, status_code=303)

    async def logout(request: Request) -> Response:
        form = await request.form()
        if security.same_secret(str(form.get("csrf", "")), _csrf(request)):
            request.session.clear()
        return RedirectResponse("/login", status_code=303)

    # ------------------------------------------------------------------ the rater

    def rater_page(request: Request) -> Response:
        token = request.path_params["token"]
        with studies_db()() as db:
            rater = rating.find_rater(db, token)
            if rater is None:
                raise Problem(404, "unknown rater link")
            state = rating.progress(db, rater)
            current = rating.next_assignment(db, rater)
            context: dict[str, Any] = {"token": token, "state": state, "rater": rater,
                                       "error": request.query_params.get("error", "")[:200]}
            if rater.consented_at is None:
                return page(request, "rater.html", step="consent", **context,
                            form_token=rating.consent_token(rater.study.secret, token))
            if current is None:
                return page(request, "rater.html", step="done", **context)
            videos = _rater_videos(request, rater.study, current)
            if current.shown_at is None:
                rating.mark_shown(db, current.id)
            return page(request, "rater.html", step="trial", assignment=current,
                        item=current.item, videos=videos,
                        form_token=rating.form_token(rater.study.secret, token, current.id),
                        **context)

    def _rater_videos(request: Request, study: Study, assignment: Assignment
                      ) -> list[dict[str, str]]:
        count = len(_rater_sources(study, assignment.item))
        return [{"label": "test video" if k == count - 1 else f"familiarization video {k + 1} "
                 f"of {count - 1}",
                 "src": f"/r/{request.path_params['token']}/clip/{assignment.id}/{k}"}
                for k in range(count)]

    def _rater_sources(study: Study, item: Item) -> list[tuple[str, int]]:
        """(file or folder, trial) of each video of an item, familiarization first."""
        data = _study_dataset(study)
        if study.benchmark == "bib":  # every BIB episode: 8 familiarization trials, a test
            return [(item.source, k) for k in range(N_TRIALS)]
        folders = ds.agent_videos(data, data.find(item.pair))
        return [(f, 0) for f in folders["familiarization"]] + [(item.source, 0)]

    def _study_dataset(study: Study) -> ds.Dataset:
        for data in config.datasets:
            if str(data.root) == study.data_root:
                return data
        loaded = ds.open_dataset(study.data_root)
        config.datasets.append(loaded)
        return loaded

    def rater_clip(request: Request) -> Response:
        token = request.path_params["token"]
        with studies_db()() as db:
            rater = rating.find_rater(db, token)
            assignment = db.get(Assignment, request.path_params["a"])
            if rater is None or assignment is None or assignment.rater_id != rater.id:
                raise Problem(404, "not one of your trials")
            sources = _rater_sources(rater.study, assignment.item)
            data = _study_dataset(rater.study)
            benchmark = rater.study.benchmark
        k = request.path_params["k"]
        if not 0 <= k < len(sources):
            raise Problem(404, "no such video")
        source, trial = sources[k]
        path = (_bib_clip(data, source, trial) if benchmark == "bib"
                else ds.agent_video_file(data, source))
        if path is None:
            raise Problem(404, "this video was not rendered")
        return FileResponse(path, media_type="video/mp4")

    async def rater_consent(request: Request) -> Response:
        token = request.path_params["token"]
        form = await request.form()
        if form.get("agree") != "yes":
            return RedirectResponse(f"/r/{token}?error=tick+the+box+to+consent",
                                    status_code=303)
        try:
            rating.consent(studies_db(), token, _field(form, "csrf") or "")
        except rating.Rejected as exc:
            raise Problem(403, str(exc)) from exc
        return RedirectResponse(f"/r/{token}", status_code=303)

    async def rater_rate(request: Request) -> Response:
        token = request.path_params["token"]
        form = await request.form()
        try:
            state = await _in_thread(rating.submit, studies_db(), token,
                                     _field(form, "assignment"), _field(form, "rating"),
                                     _field(form, "csrf"))
        except rating.Rejected as exc:
            if "json" in request.headers.get("accept", ""):
                return JSONResponse({"stored": False, "error": str(exc)}, status_code=409)
            return page(request, "error.html", 409, message=str(exc),
                        back=f"/r/{token}")
        if "json" in request.headers.get("accept", ""):
            return JSONResponse({"stored": True, "done": state.done, "total": state.total})
        return RedirectResponse(f"/r/{token}", status_code=303)

    # ------------------------------------------------------------------ errors

    async def problem(request: Request, exc: Exception) -> Response:
        status = exc.status if isinstance(exc, Problem) else 400
        return page(request, "error.html", status, message=str(exc), back="/")

    routes = [
        Route("/", index),
        Route("/login", login, methods=["GET", "POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/data/{d:int}/", dataset_page),
        Route("/data/{d:int}/episode", episode_page),
        Route("/data/{d:int}/clip", clip),
        Route("/data/{d:int}/video", video),
        Route("/data/{d:int}/meta", meta),
        Route("/data/{d:int}/curves", curves),
        Route("/results", results_page),
        Route("/talkitout", talkitout_page),
        Route("/talkitout/frame", talkitout_frame),
        Route("/studies/{s:int}", study_page),
        Route("/studies/{s:int}/ratings.csv", study_csv),
        Route("/r/{token:str}", rater_page),
        Route("/r/{token:str}/consent", rater_consent, methods=["POST"]),
        Route("/r/{token:str}/rate", rater_rate, methods=["POST"]),
        Route("/r/{token:str}/clip/{a:int}/{k:int}", rater_clip),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[
        Middleware(SessionMiddleware, secret_key=secret, session_cookie="socialbench_admin",
                   same_site="strict", https_only=False, max_age=12 * 3600),
        Middleware(_Headers),
    ], exception_handlers={Problem: problem, UserError: problem})
    return app


def _field(form: Any, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None


async def _in_thread(function: Callable[..., Any], *args: Any) -> Any:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(function, *args)


class _Headers:
    """Security headers on every response (security.HEADERS)."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [
                    (k.encode(), v.encode()) for k, v in security.HEADERS.items()
                    if k.encode() not in names]
            await send(message)

        await self.app(scope, receive, with_headers)
