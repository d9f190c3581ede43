"""Benchmark: one-ref audits against the floor, lean fetches, parse cost, many skills.

    python benchmarks/one_ref.py [--repo PATH] [--runs 5]

With ``--repo`` (a local Megatron-Bridge repository or fetched copy; ../shared
must hold the tp-dp skill) it audits the real skill at v0.6.0; without, a
generated repository of the same shape and the demo skill.  Everything is
measured in this one run; medians of --runs end-to-end runs; ratios, since
absolute times are noisy here.

* warm audit (``check``, results cached) against the floor: Python start-up,
  importing the tool's dependencies, and ``git cat-file --batch`` of the
  same files;
* cold audit from a ``file://`` remote served with uploadpack.allowFilter:
  bytes stored in the cache against a full clone;
* parse cost: ast and libcst per 1,000 lines, and which blobs a run parses;
* many skills: 20 skills quoting the same files against one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import DEMO, ROOT, anchor_audit, generated_repo, git, median_of, timed

SHARED_SKILL = ROOT.parent / "shared" / "skills" / "nemo-mbridge-perf-tp-dp-comm-overlap"
DEPENDENCIES = "import libcst, git, yaml, rich, markdown_it"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", help="a local Megatron-Bridge repository (default: a generated one)")
    parser.add_argument("--runs", type=int, default=5)
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
    env = {**os.environ, "ANCHOR_AUDIT_CACHE": str(work / "cache")}
    check = [*anchor_audit(), "check", "--quiet", "--spec", str(spec), "--repo", str(repo), "--ref", ref, str(skill)]

    print(f"input: {kind}; quoted or conditioned files: {', '.join(files)}")
    # 1. Warm audit against the floor.
    timed(check, env)
    warm = median_of(args.runs, lambda: timed(check, env))
    batch = "".join(f"{ref}:{f}\n" for f in files).encode()

    def floor() -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", DEPENDENCIES], check=True)
        subprocess.run(["git", "cat-file", "--batch"], cwd=repo, input=batch, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - start

    base = median_of(args.runs, floor)
    print(f"warm audit: {warm:.3f} s; floor (start-up + `{DEPENDENCIES}` + git cat-file --batch): {base:.3f} s")
    print(f"warm audit / floor: {warm / base:.2f}x (goal <= 1.5x: {'met' if warm / base <= 1.5 else 'NOT met'})")

    # 2. Cold audit from a remote: bytes stored against a full clone.
    server = work / "server.git"
    git(work, "clone", "-q", "--bare", "--no-local", str(repo), str(server)) if not args.repo else None
    served = server if not args.repo else repo
    git(served, "config", "uploadpack.allowFilter", "true")
    # An empty --cache-dir is cold; not --no-cache, which would fetch into a temporary folder and delete it.
    remote = [*anchor_audit(), "check", "--quiet", "--spec", str(spec), "--repo", f"file://{served}",
              "--ref", ref, "--cache-dir", str(work / "remote-cache"), str(skill)]  # fmt: skip
    cold = timed(remote, env)
    stored = _bytes(work / "remote-cache" / "git")
    full = _full_clone_bytes(served, work)
    share = stored / full
    print(f"cold audit from file:// remote: {cold:.3f} s, {stored / 1e6:.2f} MB stored; full clone {full / 1e6:.1f} MB")
    print(f"lean fetch / full clone: {share:.2%} (goal <= 5%: {'met' if share <= 0.05 else 'NOT met'})")

    # 3. Parse cost, and which blobs a run parses.
    _parse_cost(repo, ref, files)
    _parsed_by_a_run(spec, skill, repo, ref)

    # 4. Many skills quoting the same files.
    many = _many_skills(work, spec, skill, 20)
    one_cold = [*anchor_audit(), "check", "--quiet", "--no-cache", "--spec", str(spec), "--repo", str(repo),
                "--ref", ref, str(skill)]  # fmt: skip
    twenty = [*anchor_audit(), "check", "--quiet", "--no-cache", "--spec", str(many), "--repo", str(repo),
              "--ref", ref]  # fmt: skip
    t1 = median_of(args.runs, lambda: timed(one_cold, env))
    t20 = median_of(args.runs, lambda: timed(twenty, env))
    print(f"cold audit of 1 skill: {t1:.3f} s; of 20 skills quoting the same files: {t20:.3f} s; ratio {t20 / t1:.2f}x")
    return 0


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


def _full_clone_bytes(served: Path, work: Path) -> int:
    target = work / "full-clone.git"
    done = subprocess.run(["git", "clone", "-q", "--bare", f"file://{served}", str(target)], capture_output=True)
    if done.returncode == 0:
        return _bytes(target)
    # A fetched snapshot may lack a few blobs, so a full clone of it fails; its own packs are the measure then.
    print("  (a full clone of this copy fails on its missing blobs: using the size of its packs instead)")
    return _bytes(served / "objects")


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
    from anchor_audit.audit import Judge, audit
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
    print(f"one run auditing the skill 3 times over: {INDEXES.parses - before} blobs parsed, of "
          f"{sorted(set(reads))} only; {len(reads)} reads, one per distinct quote or condition")  # fmt: skip


def _many_skills(work: Path, spec: Path, skill: Path, n: int) -> Path:
    import yaml

    data = yaml.safe_load(spec.read_text())
    (name, entry), *_ = [(k, v) for k, v in data["skills"].items() if k == skill.name]
    data["skills"] = {}
    for i in range(n):
        copy = work / "many" / f"{name}-{i}"
        shutil.copytree(skill, copy)
        data["skills"][copy.name] = {**entry, "path": str(copy)}
    data["source"]["repo"] = "."
    target = work / "many" / "anchors.yaml"
    target.write_text(yaml.safe_dump(data))
    return target


if __name__ == "__main__":
    raise SystemExit(main())
