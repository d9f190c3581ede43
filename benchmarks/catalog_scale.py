"""Benchmark: a synthetic catalog of many skills, per skill, against the naive script (naive_catalog.py).

    python benchmarks/catalog_scale.py [--skills 1000] [--components 10] [--runs 3] [--cold-runs 2]

Each component is a local git repository with a package of 30 modules and its share of the skills (a quote of
a module, a path, a card with two claims); the catalog holds their copies, one in ten edited since the sync.
It prints, measured in this one run, end to end: ``check --catalog --jobs 1`` cold (empty cache) and warm (the
match results cached, the report computed), the naive script (one process too), per skill, their ratios (goals:
warm <= 2x, cold <= 3x), and peak memory; the same command once more with nothing changed (its report remembered
whole and replayed, :mod:`anchor_audit.runs.remembered`); then
the cold run with ``--jobs`` left to its default (one process per core) against ``--jobs 1`` (goal <= 0.65x on
two cores), its report compared byte for byte with the one-process report.  Medians of max(--runs, --cold-runs)
rounds, each round running every kind once, one after another, so that the machine's drift falls on both sides
of every ratio.

With ``--memory`` it measures instead the peak memory of a cold and a warm ``--jobs 1`` run in each format a
catalog's CI writes (JSON, SARIF, JUnit, Markdown), to stdout, remembered, and warm to a file (``--output``),
against the goal of 150 MB at 5,000 skills; run it at two sizes to read the cost of one
more skill.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import anchor_audit, bench_env, git, measure, verdict

GOAL_WARM, GOAL_COLD, GOAL_JOBS = 2.0, 3.0, 0.65
GOAL_MEMORY_MB = 150  # every format, 5,000 skills
NAIVE = Path(__file__).resolve().parent / "naive_catalog.py"
IDENTITY = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
            "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
            "GIT_AUTHOR_DATE": "2026-01-01T00:00:00", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00"}  # fmt: skip


def module(rng: random.Random, k: int) -> str:
    """A module of ~200 lines: classes with methods that gate on their config, as quoted code looks."""
    out = [f'"""Module {k}."""\n\n']
    for c in range(8):
        out.append(f"class Part{k}x{c}:\n    def plan(self, cfg):\n")
        for g in range(5):
            out.append(f"        if cfg.size_{g} > {rng.randint(1, 9)}:\n            cfg.flag_{g} = True\n")
        out.append("        return cfg\n\n")
    return "".join(out)


def build(work: Path, skills: int, components: int) -> tuple[Path, list[str]]:
    rng = random.Random(27)
    catalog = work / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    mirrors, per = [], skills // components
    env = {**os.environ, **IDENTITY}
    for c in range(components):
        repo = work / f"repo{c}"
        (repo / "pkg").mkdir(parents=True)
        git(repo, "init", "-q", "-b", "main", env=env)
        texts = [module(rng, k) for k in range(30)]
        for k, text in enumerate(texts):
            (repo / "pkg" / f"mod{k}.py").write_text(text)
        lines = [f"name: c{c}", f"repo: bench/c{c}", "skills:"]
        for s in range(per):
            name, k = f"c{c}-skill-{s:04d}", rng.randrange(30)
            body = (f"---\nname: {name}\ndescription: a synthetic skill\n---\n\n# {name}\n\n"
                    f"The gate lives in `pkg/mod{k}.py`:\n\n```5:6:pkg/mod{k}.py\n"
                    + "\n".join(texts[k].splitlines()[4:6]) + "\n```\n")  # fmt: skip
            card = "validation_status:\n  gate:\n    - doc_only\n  notes:\n    - doc_only\nevidence:\n  - pkg/\n"
            for root in (repo / "skills" / name, catalog / "skills" / name):
                root.mkdir(parents=True)
                (root / "SKILL.md").write_text(body if root.is_relative_to(repo) or s % 10 else body + "Edited.\n")
                (root / "card.yaml").write_text(card)
            lines.append(f"  - path: skills/{name}\n    catalog_dir: {name}")
        (catalog / "components.d" / f"c{c}.yml").write_text("\n".join(lines) + "\n")
        git(repo, "add", "-A", env=env)
        git(repo, "commit", "-q", "-m", "code and skills", env=env)
        mirrors += ["--mirror", f"bench/c{c}={repo}"]
    return catalog, mirrors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--components", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, default=2)
    parser.add_argument("--memory", action="store_true", help="peak memory per report format instead")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="anchor-audit-bench-"))
    catalog, mirrors = build(work, args.skills, args.components)
    cache = work / "cache"
    env = bench_env(ANCHOR_AUDIT_CACHE=str(cache))
    if args.memory:
        _memory(catalog, mirrors, env, cache, args.skills // args.components * args.components)
        shutil.rmtree(work, ignore_errors=True)
        return 0
    spread = [*anchor_audit(), "check", "--quiet", "--catalog", str(catalog), *mirrors, "--format", "json"]
    check = [*spread, "--jobs", "1"]
    naive = [sys.executable, str(NAIVE), str(catalog), *mirrors[1::2]]
    measure([sys.executable, "-c", "import anchor_audit.cli"], env)  # bytecode cached before anything is timed

    def cold(command: list[str] = check) -> tuple[float, int]:
        shutil.rmtree(cache, ignore_errors=True)
        return measure(command, env)

    same = _report(check, env, cache) == _report(spread, env, cache)
    colds, spreads, warms, remembered, naives = [], [], [], [], []
    for _ in range(max(args.runs, args.cold_runs)):  # each kind beside the others: the machine's drift (10-40%
        colds.append(cold())  # from one minute to the next here) touches every ratio's two sides alike
        warms.append(forget_runs(cache) and measure(check, env))  # computed from the cached results
        remembered.append(measure(check, env))  # the whole report replayed (runmemo)
        naives.append(measure(naive, env))
        spreads.append(cold(spread)[0])
    t_spread = statistics.median(spreads)
    t_cold, t_warm = statistics.median(t for t, _ in colds), statistics.median(t for t, _ in warms)
    t_naive, t_kept = statistics.median(t for t, _ in naives), statistics.median(t for t, _ in remembered)
    n = args.skills // args.components * args.components
    peak = max(m for _, m in colds + warms) / 1024
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"input: a synthetic catalog of {n} skills in {args.components} components (one in ten edited)")
    print(f"check --catalog cold: {t_cold:.3f} s ({t_cold / n * 1000:.2f} ms a skill); warm: {t_warm:.3f} s "
          f"({t_warm / n * 1000:.2f} ms a skill); peak {peak:.0f} MB")  # fmt: skip
    print(f"naive script: {t_naive:.3f} s ({t_naive / n * 1000:.2f} ms a skill)")
    print(verdict("warm per skill / naive per skill", t_warm / t_naive, GOAL_WARM))
    print(f"check --catalog again, nothing changed (the report remembered whole): {t_kept:.3f} s "
          f"({t_kept / n * 1000:.2f} ms a skill)")  # fmt: skip
    print(verdict("remembered per skill / naive per skill", t_kept / t_naive, GOAL_WARM))
    print(verdict("cold / naive", t_cold / t_naive, GOAL_COLD))
    print(f"check --catalog cold, --jobs default ({os.cpu_count()} processes): {t_spread:.3f} s; "
          f"the same report as --jobs 1: {'yes' if same else 'NO'}")  # fmt: skip
    print(verdict("cold --jobs default / --jobs 1", t_spread / t_cold, GOAL_JOBS))
    shutil.rmtree(work, ignore_errors=True)
    return 0


def _memory(catalog: Path, mirrors: list[str], env: dict[str, str], cache: Path, n: int) -> None:
    print(f"input: a synthetic catalog of {n} skills (one in ten edited); peak memory of check --catalog --jobs 1")
    worst = 0.0
    for fmt in ("json", "sarif", "junit", "markdown"):
        command = [*anchor_audit(), "check", "--quiet", "--catalog", str(catalog), *mirrors, "--format", fmt,
                   "--jobs", "1"]  # fmt: skip
        shutil.rmtree(cache, ignore_errors=True)
        cold = measure(command, env)[1] / 1024
        warm = forget_runs(cache) and measure(command, env)[1] / 1024  # the report computed from cached results
        kept = measure(command, env)[1] / 1024  # the report remembered whole
        written = [*command, "--output", str(cache.parent / f"report.{fmt}")]  # a file, as a CI job keeps it
        filed = forget_runs(cache) and measure(written, env)[1] / 1024
        worst = max(worst, cold, warm, kept, filed)
        print(f"--format {fmt}: cold {cold:.0f} MB, warm {warm:.0f} MB, remembered {kept:.0f} MB, "
              f"warm to a file (--output) {filed:.0f} MB")
    goal = f"goal <= {GOAL_MEMORY_MB} MB at 5000 skills"
    print(f"worst: {worst:.0f} MB ({goal}: {'met' if worst <= GOAL_MEMORY_MB else 'NOT met'}"
          f"{'' if n == 5000 else ', measured at ' + str(n)})")


def forget_runs(cache: Path) -> bool:
    """Drop the remembered reports (not the match results), so the next warm run computes its report."""
    with sqlite3.connect(cache / "results.sqlite3") as db:
        db.execute("DELETE FROM results WHERE key LIKE 'run/%'")
    return True


def _report(command: list[str], env: dict[str, str], cache: Path) -> bytes:
    """The JSON report of one cold run."""
    shutil.rmtree(cache, ignore_errors=True)
    return subprocess.run(command, env=env, capture_output=True, check=False).stdout


if __name__ == "__main__":
    raise SystemExit(main())
