"""--jobs: the skills of a catalog or of --all spread over forked workers, the same report for any number.

Real forks, real git processes, a real result store: a worker that shared its parent's ``git cat-file`` or
SQLite connection would garble reads or lose results, and these tests would see it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from anchor_audit.audit.judge import Judge
from anchor_audit.audit.parallel import Spread, _parts
from anchor_audit.audit.skills import audit
from anchor_audit.source.git import open_git
from anchor_audit.spec.skill import load_skill
from anchor_audit.store.sqlite import ResultStore

from .catalog_fixture import build_catalog
from .conftest import GitRepo, git
from .hostile.conftest import run_cli

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="--jobs forks its workers: POSIX only")

PLAN = "".join(f"def step_{i}(cfg):\n    if cfg.size_{i} > {i}:\n        cfg.flag_{i} = True\n    return cfg\n\n"
               for i in range(12))  # fmt: skip


@pytest.mark.parametrize(("count", "wanted"), [(10, 8), (9, 2), (3, 8), (1, 1), (100, 7)])
def test_parts_cover_the_items_in_order_and_even(count: int, wanted: int) -> None:
    parts = _parts(count, wanted)
    assert [i for part in parts for i in part] == list(range(count))
    assert len(parts) == min(count, wanted)
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_weighted_parts_cover_the_items_in_order_and_cut_the_heavy_ones_fine() -> None:
    weights = [1.0] * 40 + [20.0] * 8 + [1.0] * 40  # a catalog's skills that quote code, among many that do not
    parts = _parts(len(weights), 16, weights)
    assert [i for part in parts for i in part] == list(range(len(weights)))
    assert all(sum(40 <= i < 48 for i in part) <= 2 for part in parts)  # never a long run of the heaviest
    assert len(parts) <= 16 and all(len(part) >= 5 for part in parts if part[0] >= 48)  # the light ones: coarse
    assert _parts(5, 16, [0.0] * 5) == _parts(5, 16)  # no cost known: even parts
    assert _parts(4, 2, [1.0, 1.0]) == _parts(4, 2)  # weights that do not fit the items are not used


@pytest.mark.parametrize("processes", [2, 3, 4])
def test_weighted_parts_are_largest_at_both_ends_and_smallest_where_the_processes_meet(processes: int) -> None:
    """The workers take parts from the first, this process from the last: those are cut large (a component's
    skills share a search of their tree, done once a part), the parts where they meet small (no process ends
    long after another)."""
    weights = [20.0] * 8 + [1.0] * 160  # a catalog audited heaviest component first
    parts = _parts(len(weights), 8 * processes, weights, processes)
    assert [i for part in parts for i in part] == list(range(len(weights)))
    costs = [sum(weights[i] for i in part) for part in parts]
    least = costs.index(min(costs))
    assert 0 < least < len(costs) - 1 and costs[0] == max(costs[: least + 1]) and costs[-1] == max(costs[least:])
    assert costs[0] > 2 * min(costs) and costs[-1] > 2 * min(costs)
    assert len(parts) < 8 * processes  # fewer parts than an even cut: fewer searches
    assert len(parts[0]) < len(parts[-1])  # the heaviest items cut finer than the light ones


def test_a_catalog_is_audited_heaviest_component_first_and_reported_in_its_own_order(tmp_path: Path) -> None:
    """The second component quotes the most code: it is audited first, and the report is the catalog's order,
    the same bytes for one process and two."""
    from anchor_audit.runs.catalog import heaviest_first

    light, heavy = object(), object()
    work = [(None, light, None, ()), (None, light, None, ()), (None, None, "gone", ()), (None, heavy, None, ()),
            (None, light, None, ()), (None, heavy, None, ())]  # fmt: skip
    assert heaviest_first(work, [1.0, 1.0, 0.2, 9.0, 1.0, 9.0]) == [3, 5, 0, 1, 4, 2]  # type: ignore[arg-type]

    catalog, mirrors = build_catalog(tmp_path)
    fences = "".join(f"```{n}:{n}:tool/cli.py\n{line}\n```\n\n" for n, line in ((1, "import argparse"), (3, "def main():")))
    with open(catalog / "skills" / "b-clean" / "SKILL.md", "a") as handle:
        handle.write(fences * 6)  # beta's copy now outweighs alpha
    outputs = [run_cli("check", "--catalog", str(catalog), *mirrors, "--format", "json", "--jobs", jobs, "--quiet",
                       "--cache-dir", str(tmp_path / f"cache{jobs}")) for jobs in ("1", "2")]  # fmt: skip
    assert outputs[0].out == outputs[1].out and outputs[0].code == 1, outputs[0].err
    names = [skill["name"] for skill in json.loads(outputs[0].out)["skills"]]
    assert names.index("a-clean") < names.index("b-clean") < names.index("g-one")


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 10
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.005)


def _a_worker_first(parent: int, begun: Path) -> None:
    """This process waits until a worker has begun a part: however slow the worker is to start (a loaded CI
    machine), it gets the first part and this process the last."""
    if os.getpid() == parent:
        _wait_for(begun)
    else:
        begun.touch()


def test_two_jobs_are_this_process_and_one_worker_and_results_keep_their_order(tmp_path: Path) -> None:
    """The run's process takes parts from the last back while its one worker takes them from the first."""
    parent, begun = os.getpid(), tmp_path / "begun"

    def work(span: range) -> list[tuple[int, int]]:
        _a_worker_first(parent, begun)
        return [(i, os.getpid()) for i in span]

    seen = Spread(work, lambda: None).run(40, 2)
    assert [i for i, _ in seen] == list(range(40))
    pids = {pid for _, pid in seen}
    assert len(pids) == 2 and seen[-1][1] == parent and seen[0][1] != parent


def test_a_small_run_stays_in_this_process() -> None:
    seen = Spread(lambda span: [os.getpid() for _ in span], lambda: None).run(7, 2)  # under 4 items a worker
    assert set(seen) == {os.getpid()}


def test_a_process_running_another_thread_is_not_forked() -> None:
    """A fork copies the calling thread only: a lock another thread holds (a caller's, a progress display's)
    would never be released in the worker, so the parts run here instead."""
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        seen = Spread(lambda span: [os.getpid() for _ in span], lambda: None).run(40, 2)
    finally:
        release.set()
        other.join()
    assert set(seen) == {os.getpid()} and len(seen) == 40


def test_a_killed_worker_s_parts_are_done_here() -> None:
    parent = os.getpid()

    def work(span: range) -> list[int]:
        if os.getpid() != parent and span.start == 0:
            os._exit(9)  # as the kernel's out-of-memory killer would
        return list(span)

    assert Spread(work, lambda: None).run(16, 2) == list(range(16))


def test_a_worker_killed_while_parts_are_given_out_leaves_them_to_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pool's workers start with its first part; one that dies at once (out of memory) breaks the pool
    before the rest are handed over, and the parts never handed over are done here (CI saw the hand-over
    raise BrokenProcessPool under load; waiting for the break after the first part makes that certain)."""
    from concurrent.futures import ProcessPoolExecutor

    given = ProcessPoolExecutor.submit

    def give_then_wait_for_the_break(pool: ProcessPoolExecutor, *args: object) -> object:
        future = given(pool, *args)
        deadline = time.monotonic() + 10
        while not pool._broken and time.monotonic() < deadline:  # type: ignore[attr-defined]
            time.sleep(0.01)
        return future

    monkeypatch.setattr(ProcessPoolExecutor, "submit", give_then_wait_for_the_break)
    assert Spread(lambda span: list(span), lambda: os._exit(9)).run(16, 2) == list(range(16))


def test_a_worker_killed_after_this_process_took_parts_ends_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker dies once this process has taken its first part from the end: every part is still done once,
    and the pool's own thread ends without an error (Python 3.11's pool fails on a part it had given back,
    leaving its other workers running) and no worker outlives the run."""
    parent = os.getpid()
    taken = tmp_path / "taken"
    errors: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_value))

    begun = tmp_path / "begun"

    def work(span: range) -> list[int]:
        if os.getpid() == parent:  # its first part (the last): once a worker holds the first
            _wait_for(begun)
            taken.touch()
        elif span.start == 0:
            begun.touch()
            _wait_for(taken)
            os._exit(9)
        return list(span)

    assert Spread(work, lambda: None).run(64, 3) == list(range(64))
    assert errors == []
    import multiprocessing

    assert multiprocessing.active_children() == []


def _repo_with_skills(root: Path, count: int) -> tuple[GitRepo, list[Path]]:
    repo_path = root / "code"
    repo_path.mkdir()
    git(repo_path, "init", "-q", "-b", "main")
    repo = GitRepo(repo_path)
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/plan.py", PLAN)
    repo.commit("plan")
    repo.write("pkg/plan.py", "import os\n\n" + PLAN)  # every quote two lines lower
    repo.commit("import os")
    skills = []
    for i in range(count):
        folder = root / "skills" / f"s{i}"
        folder.mkdir(parents=True)
        start = 5 * i + 2
        where = "pkg/plan.py" if i % 2 else "pkg/old_plan.py"  # a file gone: the quote is looked for elsewhere
        quote = f"```{start}:{start + 1}:{where}\n    if cfg.size_{i} > {i}:\n        cfg.flag_{i} = True\n```\n"
        extra = "Edit `pkg/gone.py`.\n" if i % 3 == 0 else "Read `pkg/plan.py`.\n"
        (folder / "SKILL.md").write_text(f"---\nname: s{i}\ndescription: d\n---\n\n{quote}\n{extra}")
        skills.append(folder)
    return repo, skills


def test_workers_read_git_through_their_own_processes_and_write_the_one_store(tmp_path: Path) -> None:
    """The parent has read from the repository (its cat-file processes are running) before the workers do;
    every worker's reads come back whole, and what they computed is in the store for the next run."""
    repo, folders = _repo_with_skills(tmp_path, 12)
    tree = open_git(str(repo.path), "HEAD", str(tmp_path / "cache"))
    assert tree.read("pkg/plan.py") is not None  # the parent's git processes started
    pairs = [(load_skill(f), None) for f in folders]
    store = ResultStore(tmp_path / "results.sqlite3", key=b"k" * 32)
    first = audit(pairs, tree, judge=Judge(store), jobs=2)
    store.close()
    assert [s.name for s in first.skills] == [f"s{i}" for i in range(12)]
    kinds = [q.__class__.__name__ for s in first.skills for q in s.anchors]
    assert kinds == ["Relocated", "Moved"] * 6, kinds

    again = ResultStore(tmp_path / "results.sqlite3", key=b"k" * 32)
    judge = Judge(again)
    second = audit(pairs, tree, judge=judge, jobs=1)
    again.close()
    assert second == first
    assert judge.computed == 0  # every result the workers computed was stored before they exited


def test_a_worker_forgets_the_git_processes_of_every_repository_opened_twice(tmp_path: Path) -> None:
    """Two opens of one path are two ``git.Repo`` objects that compare equal (a set would hold one): a worker
    must start its own processes for both, or its reads through the second share the parent's pipe."""
    repo, _ = _repo_with_skills(tmp_path, 1)
    trees = [open_git(str(repo.path), "HEAD", str(tmp_path / "cache")) for _ in range(2)]
    for tree in trees:
        assert tree.read("pkg/plan.py") is not None  # each one's cat-file process running here
    inherited = [(t.repo.git.cat_file_all, t.repo.git.cat_file_header) for t in trees]

    parent = os.getpid()

    def work(span: range) -> list[tuple[bool, bool]]:
        _a_worker_first(parent, tmp_path / "begun")
        fresh = all(t.repo.git.cat_file_all is None for t in trees)
        return [(os.getpid() == parent, fresh) for _ in span]

    seen = Spread(work, Judge().after_fork).run(8, 2)
    assert (False, True) in seen and (True, False) in seen  # each worker's its own; this process's as they were
    assert set(seen) == {(False, True), (True, False)}
    assert [(t.repo.git.cat_file_all, t.repo.git.cat_file_header) for t in trees] == inherited  # the parent's kept


def test_the_same_bytes_for_any_number_of_jobs_in_a_catalog(tmp_path: Path) -> None:
    catalog, mirrors = build_catalog(tmp_path)
    outputs = {}
    for jobs in ("1", "2", "3"):
        for fmt in ("json", "sarif", "markdown"):
            done = run_cli("check", "--catalog", str(catalog), *mirrors, "--format", fmt, "--jobs", jobs,
                           "--cache-dir", str(tmp_path / f"cache{jobs}"), "--quiet")  # fmt: skip
            assert done.code == 1, done.err
            outputs[jobs, fmt] = done.out
    for fmt in ("json", "sarif", "markdown"):
        assert outputs["1", fmt] == outputs["2", fmt] == outputs["3", fmt]
    assert '"moved"' in outputs["1", "json"] and "b-cli" in outputs["1", "json"]


def test_the_same_bytes_for_any_number_of_jobs_with_all(tmp_path: Path) -> None:
    repo, folders = _repo_with_skills(tmp_path, 10)
    common = ["check", "--repo", str(repo.path), "--ref", "HEAD", "--all", str(tmp_path / "skills"), "--no-cache"]
    one = run_cli(*common, "--format", "json", "--jobs", "1")
    two = run_cli(*common, "--format", "json", "--jobs", "2")
    assert one.code == two.code == 1, one.err
    assert one.out == two.out and '"s9"' in one.out and "pkg/gone.py" in one.out


def test_the_same_bytes_for_any_number_of_jobs_in_a_history(tmp_path: Path) -> None:
    repo, _ = _repo_with_skills(tmp_path, 0)
    quote = "```{0}:{1}:pkg/plan.py\n    if cfg.size_3 > 3:\n        cfg.flag_3 = True\n```\n"
    repo.write("skills/s/SKILL.md", f"---\nname: s\ndescription: d\n---\n\n{quote.format(19, 20)}")
    repo.commit("the skill")
    for i in range(1, 13):  # each commit moves the quoted lines one lower; the fourth also changes them
        body = "import os\n\n" + "# a line\n" * i + PLAN
        repo.write("pkg/plan.py", body.replace("size_3 > 3", "size_3 > 4") if i >= 4 else body)
        repo.commit(f"move {i}")
    common = ["history", "--repo", str(repo.path), "--in-repo", "skills/s", "--no-cache", "--since", "HEAD~12"]
    outputs = {jobs: run_cli(*common, "--format", "json", "--jobs", jobs) for jobs in ("1", "2")}
    assert outputs["1"].code == outputs["2"].code == 0, outputs["1"].err
    assert outputs["1"].out == outputs["2"].out
    assert outputs["1"].out.count('"commit"') >= 2 and "move 4" in outputs["1"].out


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", "257"])
def test_a_bad_job_count_is_one_line_and_exit_2(tmp_path: Path, value: str) -> None:
    done = run_cli("check", "--release", f"--jobs={value}", cwd=tmp_path)
    assert done.code == 2 and "Traceback" not in done.err
    assert "--jobs" in done.err and "whole number from 1 to 256" in done.err


def test_jobs_from_the_settings_file_is_checked(tmp_path: Path) -> None:
    (tmp_path / "anchor-audit.toml").write_text('jobs = "many"\n')
    done = run_cli("check", "--release", cwd=tmp_path)
    assert done.code == 2 and done.err.strip().endswith("anchor-audit.toml:1: jobs: expected a whole number from 1 to 256")


def test_what_a_spread_s_items_refer_to_is_freed_when_it_returns_not_by_the_collector() -> None:
    """A replay spreads every commit's audit: a reference cycle through the spread (its work referring to it)
    held each audit's state until the cyclic collector ran, 15 MB more at the replay's peak."""
    import gc
    import weakref

    from anchor_audit.audit.skills import spread
    from anchor_audit.source import no_progress

    class State:
        pass

    state = State()
    gone = weakref.ref(state)
    gc.disable()
    try:
        done = spread(8, lambda i, held=state: i, Judge(), no_progress, 1, str, "items")
        del state
        assert done == list(range(8)) and gone() is None
    finally:
        gc.enable()


def test_after_a_fork_the_run_reads_what_its_workers_stored_in_a_store_that_was_empty(tmp_path: Path) -> None:
    """A store opened empty answers misses from what its run put; once workers write to it too, it asks."""
    from anchor_audit.audit.skills import spread
    from anchor_audit.source import no_progress

    parent = os.getpid()
    store = ResultStore(tmp_path / "results.sqlite3", key=b"k" * 32)
    judge = Judge(store)

    def one(i: int) -> int:
        _a_worker_first(parent, tmp_path / "begun")
        judge.memo.keep(f"item {i}", {"by": os.getpid()})
        return os.getpid()

    pids = spread(8, one, judge, no_progress, 2, str, "items")
    by_worker = [i for i, pid in enumerate(pids) if pid != parent]
    assert by_worker and all(store.get(f"item {i}") is not None for i in by_worker)
    store.close()
