"""Benchmark: a one-ref audit against the floor, and a cold audit's fetch against a full clone.

    python benchmarks/one_ref.py [--repo PATH] [--runs 5] [--cold-runs 3]

With ``--repo`` (a local Megatron-Bridge repository or fetched copy; ../shared
must hold the tp-dp skill) it audits the real skill at v0.6.0; without, a
generated repository of the same shape and the demo skill.  Everything is
measured in this one run, end to end; medians; ratios, since absolute times
are noisy here.  The repository given is only read: the cold audit fetches
from a copy served beside it (see ``_common.served_copy``).

* warm audit (``check``, results cached) against two floors: Python start-up
  + ``import libcst, git, yaml, rich`` + ``git cat-file --batch`` of the same
  files (the floor the goal is set against), and the same with only the
  packages a warm audit really imports;
* a warm audit writing JSON, which is remembered whole (``runmemo``): the
  same floor, goal 0.6x, and what it imports;
* one skill after an edit (SKILL.md appended to before each run, the cache
  warm): against start-up + ``import git, yaml, rich`` + the same cat-file,
  goal 1.5x, and what importing the modules such a run loads costs alone;
* cold audit from the served copy (an empty cache each run): bytes stored
  against a full ``git clone --bare`` of the same served repository;
* parse cost: ast and libcst per 1,000 lines, and which blobs a run parses.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import (
    DEMO,
    ROOT,
    anchor_audit,
    bench_env,
    full_clone_bytes,
    generated_repo,
    git,
    median_of,
    served_copy,
    timed,
    verdict,
)

SHARED_SKILL = ROOT.parent / "shared" / "skills" / "nemo-mbridge-perf-tp-dp-comm-overlap"
GOAL_FLOOR = 1.0  # warm audit / floor with libcst
GOAL_REMEMBERED = 0.6  # a warm run writing JSON (remembered whole) / the same floor
GOAL_FETCH = 0.01  # lean fetch / full clone
GOAL_EDITED = 1.5  # one skill after an edit / start-up + import git, yaml, rich + cat-file
FLOOR_PACKAGES = ("libcst", "git", "yaml", "rich")  # the floor the goal names
CANDIDATES = ("libcst", "git", "yaml", "rich", "markdown_it")  # what the tool may import


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", help="a local Megatron-Bridge repository (default: a generated one)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold-runs", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="anchor-audit-bench-"))
    if args.repo:
        if not SHARED_SKILL.is_dir():
            raise SystemExit(f"{SHARED_SKILL} is needed with --repo")
        repo, ref, skill, spec = Path(args.repo), "v0.6.0", SHARED_SKILL, ROOT / "anchors.yaml"
        kind = f"real repository {repo} at v0.6.0, skill {skill.name}"
    else:
        # Megatron-Bridge's size and shape: thousands of files, hundreds of commits.
        repo = generated_repo(work, commits=600, other_files=3000)
        ref, skill, spec = "HEAD", DEMO / "skills" / "demo-overlap", DEMO / "anchors.yaml"
        kind = "generated repository (3,000 files, 600 commits), demo skill"
    files = _files(spec, skill)
    env = bench_env(ANCHOR_AUDIT_CACHE=str(work / "cache"))
    check = [*anchor_audit(), "check", "--quiet", "--spec", str(spec), "--repo", str(repo), "--ref", ref, str(skill)]
    print(f"input: {kind}; quoted or conditioned files: {', '.join(files)}")

    # 1. Warm audit against the floors.
    timed(check, env)  # fills the result cache (and the bytecode cache)
    warm = median_of(args.runs, lambda: timed(check, env))
    used = _imported(check, env)
    batch = "".join(f"{ref}:{f}\n" for f in files).encode()

    def floor(packages: tuple[str, ...]) -> float:
        def once() -> float:
            code = f"import {', '.join(packages)}" if packages else "pass"
            seconds = timed([sys.executable, "-c", code], env)
            start = time.perf_counter()
            subprocess.run(["git", "cat-file", "--batch"], cwd=repo, input=batch, stdout=subprocess.DEVNULL, check=True)
            return seconds + time.perf_counter() - start

        once()
        return median_of(args.runs, once)

    named, really = floor(FLOOR_PACKAGES), floor(used)
    print(f"warm audit: {warm:.3f} s (imports {', '.join(used)} of {', '.join(CANDIDATES)})")
    print(f"floor: start-up + `import {', '.join(FLOOR_PACKAGES)}` + git cat-file --batch: {named:.3f} s")
    print(f"floor without libcst: start-up + `import {', '.join(used)}` (what a warm audit imports) "
          f"+ git cat-file --batch: {really:.3f} s")  # fmt: skip
    print(verdict("warm audit / floor", warm / named, GOAL_FLOOR))
    print(f"warm audit / floor without libcst: {warm / really:.2f}x (no goal: the imports alone are the floor)")
    as_json = [*check, "--format", "json"]
    timed(as_json, env)  # computed (from the result cache) and remembered whole
    remembered = median_of(args.runs, lambda: timed(as_json, env))
    heavy = _imported(as_json, env)
    print(f"warm audit writing JSON (the run remembered whole): {remembered:.3f} s "
          f"(imports {', '.join(heavy) or 'none'} of {', '.join(CANDIDATES)})")  # fmt: skip
    print(verdict("warm JSON audit / floor", remembered / named, GOAL_REMEMBERED))

    # 1b. One skill after an edit: the pre-commit and editor-save case.
    _after_an_edit(args, work, repo, ref, skill, spec, files, env)

    # 2. Cold audits from a served copy: bytes stored against a full clone of the same served repository.
    served = served_copy(repo, work)
    stored: list[int] = []

    def cold() -> float:
        cache = work / "remote-cache"
        shutil.rmtree(cache, ignore_errors=True)
        # An empty --cache-dir is cold; not --no-cache, which would fetch into a temporary folder and delete it.
        remote = [*anchor_audit(), "check", "--quiet", "--spec", str(spec), "--repo", f"file://{served}",
                  "--ref", ref, "--cache-dir", str(cache), str(skill)]  # fmt: skip
        seconds = timed(remote, env)
        stored.append(_bytes(cache / "git"))
        return seconds

    cold_seconds = median_of(args.cold_runs, cold)
    full, how = full_clone_bytes(served, work)
    share = max(stored) / full
    print(f"cold audit from a served file:// copy: {cold_seconds:.3f} s (median of {args.cold_runs}), "
          f"{max(stored) / 1e6:.2f} MB stored; full clone {full / 1e6:.1f} MB ({how})")  # fmt: skip
    if args.repo:
        print(verdict("lean fetch / full clone", share, GOAL_FETCH, unit="%"))
    else:  # the goal is Megatron-Bridge's: a small generated history makes its one tree a large share
        print(f"lean fetch / full clone: {share:.2%} (the {GOAL_FETCH:.0%} goal is set for the real repository)")

    # 3. Parse cost, and which blobs a run parses.
    _parse_cost(repo, ref, files)
    _parsed_by_a_run(spec, skill, repo, ref)
    shutil.rmtree(work, ignore_errors=True)
    return 0


def _after_an_edit(
    args: argparse.Namespace, work: Path, repo: Path, ref: str, skill: Path, spec: Path, files: list[str],
    env: dict[str, str],
) -> None:  # fmt: skip
    """A warm audit of a copy of the skill whose SKILL.md gets a new line before each run, against the floor of
    ``import git, yaml, rich`` and a ``git cat-file --batch`` of its files, and what importing the modules the
    run loads costs alone (the share of the floor's budget this package's own code takes before any work)."""
    edited = work / "edited" / skill.name
    shutil.copytree(skill, edited)
    check = [*anchor_audit(), "check", "--quiet", "--format", "json", "-o", str(work / "edited.json"), "--spec",
             str(spec), "--repo", str(repo), "--ref", ref, str(edited)]  # fmt: skip
    count = iter(range(1_000_000))

    def after_an_edit() -> float:
        with open(edited / "SKILL.md", "a", encoding="utf-8") as handle:
            handle.write(f"\nAn edited line, {next(count)}.\n")
        return timed(check, env)

    after_an_edit()  # the cache warm for everything the edit leaves alone
    seconds = median_of(args.runs, after_an_edit)
    batch = "".join(f"{ref}:{f}\n" for f in files).encode()

    def floor() -> float:
        took = timed([sys.executable, "-c", "import git, yaml, rich"], env)
        start = time.perf_counter()
        subprocess.run(["git", "cat-file", "--batch"], cwd=repo, input=batch, stdout=subprocess.DEVNULL, check=True)
        return took + time.perf_counter() - start

    least = median_of(args.runs, floor)
    traced = [check[0], "-X", "importtime", *check[1:]]
    with open(edited / "SKILL.md", "a", encoding="utf-8") as handle:
        handle.write("\nOne more edited line.\n")
    err = subprocess.run(traced, env=env, capture_output=True, text=True).stderr
    loaded = [line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if line.startswith("import time:")]
    ours = [name for name in loaded if name.split(".")[0] in ("anchor_audit", "markdown_it")]
    imports = median_of(args.runs, lambda: timed([sys.executable, "-c", "import git, yaml, rich\n" + "".join(
        f"import {name}\n" for name in ours)], env))  # fmt: skip
    print(f"one skill after an edit (SKILL.md appended to before each run, cache warm): {seconds:.3f} s; floor "
          f"(start-up + `import git, yaml, rich` + git cat-file --batch): {least:.3f} s")  # fmt: skip
    print(verdict("edited audit / floor", seconds / least, GOAL_EDITED))
    print(f"the floor's imports and this package's own ({len(ours)} modules, markdown-it among them), imported "
          f"alone: {imports:.3f} s, {imports / least:.2f}x the floor before any work")  # fmt: skip


def _imported(cmd: list[str], env: dict[str, str]) -> tuple[str, ...]:
    """Which of :data:`CANDIDATES` a run of ``cmd`` imports (``python -X importtime``)."""
    traced = [cmd[0], "-X", "importtime", *cmd[1:]]
    err = subprocess.run(traced, env=env, capture_output=True, text=True).stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    return tuple(name for name in CANDIDATES if name in loaded)


def _files(spec: Path, skill: Path) -> list[str]:
    sys.path.insert(0, str(ROOT / "src"))
    from anchor_audit.spec.registry import load_spec
    from anchor_audit.spec.skill import load_skill

    paths = {q.path for q in load_skill(skill).quotes}
    for entry in load_spec(spec).skills:
        paths |= {c.path for claim in entry.claims for c in claim.conditions}
    return sorted(paths)


def _bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _parse_cost(repo: Path, ref: str, files: list[str]) -> None:
    import ast

    import libcst

    for path in files:
        if not path.endswith(".py"):
            continue
        text = git(repo, "show", f"{ref}:{path}")
        lines = text.count("\n") or 1
        t_ast = median_of(5, lambda text=text: _time(lambda: ast.parse(text)))
        t_cst = median_of(5, lambda text=text: _time(lambda: libcst.parse_module(text)))

        def cst_with_positions(text: str = text) -> None:
            libcst.MetadataWrapper(libcst.parse_module(text)).resolve(libcst.metadata.PositionProvider)

        t_pos = median_of(3, lambda: _time(cst_with_positions))
        k = 1000 / lines
        print(f"parse {path} ({lines} lines), per 1,000 lines: ast {t_ast * k * 1000:.1f} ms, "
              f"libcst {t_cst * k * 1000:.1f} ms, libcst + positions {t_pos * k * 1000:.1f} ms")  # fmt: skip


def _time(fn) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _parsed_by_a_run(spec: Path, skill: Path, repo: Path, ref: str) -> None:
    from anchor_audit.audit.skills import Judge, audit
    from anchor_audit.parse.index import INDEXES
    from anchor_audit.source.git import open_git
    from anchor_audit.spec.registry import load_spec
    from anchor_audit.spec.skill import load_skill

    tree = open_git(str(repo), ref)
    reads: list[str] = []
    original = tree.read

    def counting_read(path: str):  # type: ignore[no-untyped-def]
        reads.append(path)
        return original(path)

    tree.read = counting_read  # type: ignore[method-assign]
    registry = load_spec(spec)
    loaded = load_skill(skill)
    before = INDEXES.parses
    audit([(loaded, registry.skill(loaded.name))] * 3, tree, registry, Judge())  # the same skill three times
    print(f"one run auditing the skill 3 times over: {INDEXES.parses - before} blobs parsed with their index; "
          f"{len(reads)} reads of {len(set(reads))} distinct files")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
