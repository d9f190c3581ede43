"""Replay ``impact`` over a repository's history: which commits would have flagged which in-repo skills.

    python benchmarks/impact_history.py GITDIR SINCE [UNTIL] [--skills skills]

For each first-parent commit of SINCE..UNTIL, ``impact PARENT COMMIT`` on
every skill under ``--skills`` as that commit has them (the README's
Megatron-Bridge figures come from this script). Prints one line per flagged
commit, a per-skill count and the time per commit.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from anchor_audit.audit.skills import Judge  # noqa: E402
from anchor_audit.cli import collect_seldom  # noqa: E402
from anchor_audit.model import UnreadableSkill  # noqa: E402
from anchor_audit.runs.impact import impact  # noqa: E402
from anchor_audit.source.git import open_git  # noqa: E402
from anchor_audit.spec.inputs import load_inputs  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("gitdir")
    parser.add_argument("since")
    parser.add_argument("until", nargs="?", default="HEAD")
    parser.add_argument("--skills", default="skills")
    args = parser.parse_args()
    collect_seldom()  # one process auditing 1,415 commits' skills: its collector set as the command's is
    # The judge's memo given to the tree, as the command line's open_sources does: each SKILL.md parsed once per
    # text, and git's answers about a commit (its renames, its day, the deletions up to it) asked once.
    judge = Judge()
    tree = open_git(args.gitdir, args.until, full_history=True, memo=judge.memo.remember)
    inputs = load_inputs(None, [], args.gitdir, args.until, "/nonexistent", True, [args.skills], judge.memo.remember)
    shas = tree.repo.git.rev_list("--reverse", "--first-parent", f"{args.since}..{args.until}").split()
    flagged: collections.Counter[str] = collections.Counter()
    hits = 0
    start = time.perf_counter()
    for sha in shas:
        head = tree.at(sha)
        parent = head.commit.parents[0].hexsha
        skills = []
        for item in inputs.skills_at(head):
            if isinstance(item, UnreadableSkill):
                continue
            skill, entry = item
            text = head.read(f"{skill.path.strip('/')}/SKILL.md")
            skills.append((skill, entry, text.text if text else ""))
        report = impact(tree.at(parent), head, skills, judge)
        changes = [i for i in report.impacts if i.before != i.after]
        if changes:
            hits += 1
            names = sorted({i.skill for i in changes})
            flagged.update(names)
            print(f"{sha[:10]} {head.commit.summary[:60]!r}: {len(changes)} status changes in {', '.join(names)}")
    elapsed = time.perf_counter() - start
    print(f"{hits} of {len(shas)} commits change a status; {elapsed / max(len(shas), 1) * 1000:.0f} ms per commit")
    for name, count in flagged.most_common():
        print(f"  {name}: {count} commits")


if __name__ == "__main__":
    main()
