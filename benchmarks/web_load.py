"""Load test of the rating study: many simulated raters submitting at once, on loopback.

    nice -n 10 python benchmarks/web_load.py [--raters 200] [--seconds 30] [--db URL]

Makes a BIB dataset (JSON only) and a study with one link per rater (no watch time: the
simulated raters rate at once), starts ``socialbench serve`` in its own process (one uvicorn
worker, as the command runs), then runs ``--raters`` concurrent raters for ``--seconds``: each
consents (GET, POST), then loops GET its page -> POST its rating (``Accept: application/json``);
its first and every fifth submission after are sent twice (the replay must be refused). At the
end it checks, in the database, that every rating the server accepted is stored exactly once,
and nothing else is; it prints requests/s and latency percentiles per kind of request.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

FORM = re.compile(r'name="(csrf|assignment)" value="([^"]+)"')


@dataclass
class Tally:
    """What the simulated raters saw."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    accepted: set[tuple[str, str]] = field(default_factory=set)  # (token, assignment)
    refused_replays: int = 0
    accepted_replays: int = 0
    errors: list[str] = field(default_factory=list)
    finished: int = 0


async def rater(client, token: str, deadline: float, tally: Tally) -> None:  # type: ignore[no-untyped-def]
    async def timed(kind: str, method: str, url: str, **kwargs):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        response = await client.request(method, url, **kwargs)
        tally.latencies[kind].append(time.perf_counter() - start)
        return response

    start = await timed("page", "GET", f"/r/{token}")
    csrf = dict(FORM.findall(start.text)).get("csrf", "")
    await timed("consent", "POST", f"/r/{token}/consent", data={"agree": "yes", "csrf": csrf})
    sent = 0
    while time.monotonic() < deadline:
        page = await timed("page", "GET", f"/r/{token}")
        if "Thank you" in page.text:
            tally.finished += 1
            return
        form = dict(FORM.findall(page.text))
        if len(form) != 2:
            tally.errors.append(f"page without a form: {page.status_code}")
            return
        value = re.search(r"set the slider to <b>(\d+)</b>", page.text)
        data = {**form, "rating": value.group(1) if value else str(sent * 7 % 101)}
        headers = {"accept": "application/json"}
        reply = await timed("rate", "POST", f"/r/{token}/rate", data=data, headers=headers)
        if reply.status_code == 200 and reply.json()["stored"]:
            tally.accepted.add((token, form["assignment"]))
        else:
            tally.errors.append(f"rating refused: {reply.status_code} {reply.text[:80]}")
        sent += 1
        if sent % 5 == 1:
            again = await timed("replay", "POST", f"/r/{token}/rate", data=data, headers=headers)
            if again.status_code == 409:
                tally.refused_replays += 1
            else:
                tally.accepted_replays += 1


async def run_raters(base_url: str, tokens: list[str], seconds: float) -> tuple[Tally, float]:
    import httpx2

    tally = Tally()
    limits = httpx2.Limits(max_connections=len(tokens), max_keepalive_connections=len(tokens))
    async with httpx2.AsyncClient(base_url=base_url, limits=limits, timeout=120) as client:
        start = time.monotonic()
        await asyncio.gather(*(rater(client, t, start + seconds, tally) for t in tokens))
        return tally, time.monotonic() - start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(data: Path, db: str, port: int, cache: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", "from socialbench.cli import main; main()",
                                "serve", "--data",
                                str(data), "--db", db, "--port", str(port), "--cache",
                                str(cache)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONWARNINGS": "ignore"})
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(process.stderr.read().decode()) from None
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start in 60 s")


def check_database(db: str, tally: Tally) -> dict[str, int]:
    """Every accepted rating stored once, nothing else stored."""
    from sqlalchemy import func, select

    from socialbench.web.study.db import Assignment, Rater, make_engine

    engine = make_engine(db)
    with engine.connect() as connection:
        stored = {(token, str(aid)) for token, aid in connection.execute(
            select(Rater.token, Assignment.id).join(Rater, Rater.id == Assignment.rater_id)
            .where(Assignment.rating.is_not(None)))}
        rows = connection.scalar(select(func.count()).where(Assignment.rating.is_not(None)))
    engine.dispose()
    return {"accepted": len(tally.accepted), "stored_rows": int(rows or 0),
            "stored_distinct": len(stored), "accepted_not_stored": len(tally.accepted - stored),
            "stored_not_accepted": len(stored - tally.accepted)}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def load_test(raters: int, seconds: float, db: str | None, episodes: int,
              workdir: Path) -> dict:
    """Run the whole test; return the figures and the database check."""
    from click.testing import CliRunner

    from socialbench.cli import main
    from socialbench.web.datasets import open_dataset
    from socialbench.web.study.db import make_engine, sessions
    from socialbench.web.study.design import Design, create_study

    data = workdir / "bib"
    CliRunner().invoke(main, ["bib", "generate", "--out", str(data), "--episodes",
                              str(episodes), "--no-video", "--workers", "1"],
                       catch_exceptions=False)
    db = db or f"sqlite:///{workdir / 'load.db'}"
    factory = sessions(make_engine(db))
    name = f"load-{time.time_ns()}"
    with factory.begin() as session:
        study = create_study(session, open_dataset(data), name,
                             Design(fraction=1.0, raters=raters, checks=2, watch=0))
        tokens = [r.token for r in study.raters]
    port = free_port()
    server = serve(data, db, port, workdir / "cache")
    try:
        tally, wall = asyncio.run(run_raters(f"http://127.0.0.1:{port}", tokens, seconds))
    finally:
        server.terminate()
        server.wait(timeout=30)
    requests = sum(len(v) for v in tally.latencies.values())
    figures = {"raters": raters, "seconds": round(wall, 1), "requests": requests,
               "requests_per_s": round(requests / wall, 1),
               "ratings_per_s": round(len(tally.accepted) / wall, 1),
               "refused_replays": tally.refused_replays,
               "accepted_replays": tally.accepted_replays, "finished": tally.finished,
               "errors": tally.errors[:5], "error_count": len(tally.errors)}
    for kind, values in tally.latencies.items():
        figures[f"{kind}_p50_ms"] = round(1000 * statistics.median(values), 1)
        figures[f"{kind}_p99_ms"] = round(1000 * percentile(values, 0.99), 1)
    every = [v for values in tally.latencies.values() for v in values]
    figures["all_p99_ms"] = round(1000 * percentile(every, 0.99), 1)
    figures.update(check_database(db, tally))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raters", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--episodes", type=int, default=6,
                        help="BIB episodes per task (each rater has 9 x this trials + 2 checks)")
    parser.add_argument("--db", default=None, help="default: a SQLite file in a temp folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        figures = load_test(args.raters, args.seconds, args.db, args.episodes, Path(tmp))
    for key, value in figures.items():
        print(f"{key:>22}: {value}")


if __name__ == "__main__":
    main()
