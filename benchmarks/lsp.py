"""Benchmark: how soon the language server answers an edit, against a warm ``check`` of the same skill.

    python benchmarks/lsp.py [--repo PATH] [--edits 20]

With ``--repo`` (a local Megatron-Bridge repository or fetched copy) the
server checks the reference skill (``fixtures/reference``, a skill like
tp-dp) against it at v0.6.0; without, the demo skill against a generated
repository of Megatron-Bridge's size.  The server runs as an editor starts
it (``anchor-audit lsp`` on stdio, a real client speaking JSON-RPC); an edit
is timed from the ``didChange`` sent to the ``publishDiagnostics`` received
for it.  The baseline, measured in this run: a warm ``anchor-audit check`` of
the same skill, end to end (what a save hook pays each time).

* cold: the first diagnostics after ``didOpen`` (opening the code, the first
  checks);
* warm: the median and slowest of ``--edits`` edits, half of them a word of
  prose, half a fence's range (the goal: 200 ms for a skill like tp-dp), and
  their ratio to the warm ``check``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import DEMO, ROOT, anchor_audit, bench_env, generated_repo, median_of, timed, verdict

sys.path.insert(0, str(ROOT))
from tests.lspclient import LspClient  # noqa: E402  (the tests' client: the same protocol an editor speaks)

REFERENCE = ROOT / "fixtures" / "reference" / "tp-dp-comm-overlap-reference"
GOAL_MS = 200.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", help="a local Megatron-Bridge repository (default: a generated one)")
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5, help="warm check runs for the baseline")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="anchor-audit-bench-lsp-"))
    if args.repo:
        repo, ref, skill, registry = Path(args.repo).resolve(), "v0.6.0", REFERENCE, ROOT / "anchors.yaml"
        kind = f"real repository {repo} at v0.6.0, skill {skill.name}"
    else:
        repo = generated_repo(work, commits=600, other_files=3000)
        ref, skill, registry = "HEAD", DEMO / "skills" / "demo-overlap", DEMO / "anchors.yaml"
        kind = "generated repository (3,000 files, 600 commits), demo skill"
    root = work / "workspace"
    shutil.copytree(skill, root / "skills" / skill.name)
    _registry(registry, root / "anchors.yaml", repo, ref, skill.name)
    env = bench_env(ANCHOR_AUDIT_CACHE=str(work / "cache"))
    print(f"input: {kind}")

    client = LspClient(root, env)
    client.initialize(root)
    skill_md = root / "skills" / skill.name / "SKILL.md"
    start = time.perf_counter()
    text = client.open(skill_md)
    client.diagnostics(skill_md)
    cold = time.perf_counter() - start
    prose_times, fence_times = [], []
    lines = text.split("\n")
    prose = next(i for i, line in enumerate(lines) if line and line[0].isalpha())  # a line of prose to edit
    fence = next(i for i, line in enumerate(lines) if re.match(r"^\s*(`{3,}|~{3,})\d+:\d+:", line))
    header = lines[fence]
    for version in range(2, args.edits + 2):
        if version % 2:  # a word of prose: the SKILL.md is parsed again, every check's result is remembered
            lines[prose] = lines[prose].rstrip() + (" " if version % 4 == 1 else "")
        else:  # a fence's range, never the same twice: that quote is judged again at its new lines
            end = re.search(r":(\d+):", header)
            assert end is not None
            lines[fence] = header.replace(end.group(0), f":{int(end.group(1)) + version // 2}:", 1)
        start = time.perf_counter()
        client.change(skill_md, "\n".join(lines), version)
        client.diagnostics(skill_md)
        (prose_times if version % 2 else fence_times).append(time.perf_counter() - start)
    client.stop()
    times = prose_times + fence_times
    warm, slowest = statistics.median(times) * 1000, max(times) * 1000

    check = [*anchor_audit(), "check", "--quiet", "--spec", str(root / "anchors.yaml"), str(skill_md.parent)]
    timed(check, env, root)  # fills the result cache (and the bytecode cache)
    cli = median_of(args.runs, lambda: timed(check, env, root)) * 1000
    print(f"cold: first diagnostics {cold * 1000:.0f} ms after didOpen")
    by_kind = f"prose {statistics.median(prose_times) * 1000:.1f} ms, a fence's range " \
        f"{statistics.median(fence_times) * 1000:.1f} ms"
    print(f"warm: {warm:.1f} ms median, {slowest:.1f} ms slowest of {len(times)} edits ({by_kind}); "
          f"warm check {cli:.0f} ms")  # fmt: skip
    print(verdict("warm response to an edit", warm, GOAL_MS, unit=" ms"))
    print(f"warm response / warm check: {warm / cli:.2f}x (no goal: what the server saves an editor per edit)")
    shutil.rmtree(work, ignore_errors=True)
    return 0


def _registry(source: Path, target: Path, repo: Path, ref: str, name: str) -> None:
    """The registry with its source pointed at ``repo`` at ``ref``, and only ``name``'s entry's path changed."""
    import yaml

    data = yaml.safe_load(source.read_text())
    data["source"] = {"repo": str(repo), "ref": ref}
    entry = data["skills"][name]
    entry["path"] = f"skills/{name}"
    data["skills"] = {name: entry}
    target.write_text(yaml.safe_dump(data, sort_keys=False))


if __name__ == "__main__":
    raise SystemExit(main())
