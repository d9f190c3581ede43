"""Audits of a real git history: tags that move, reformat, change and delete quoted code.

Every expected range below was worked out by hand from the edits each tag
makes to fixtures/demo/src (see the comments), not copied from the output.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from anchor_audit.audit.skills import audit
from anchor_audit.errors import SourceError, UsageError
from anchor_audit.findings import exit_code
from anchor_audit.model import (
    AnchorStatus,
    AuditReport,
    Changed,
    ExitCode,
    LineRange,
    Relocated,
    Verdict,
    found_lines,
    suggested_lines,
)
from anchor_audit.source.git import open_git
from anchor_audit.spec.registry import load_spec
from anchor_audit.spec.skill import load_skill

from .conftest import DEMO, GitRepo, git

OVERLAP = "src/demo/overlap.py"
LAUNCH = "src/demo/launch.py"


def run(repo: str | Path, ref: str, cache: Path | None = None) -> AuditReport:
    spec = load_spec(DEMO / "anchors.yaml")
    skill = load_skill(DEMO / "skills" / "demo-overlap")
    tree = open_git(str(repo), ref, str(cache) if cache else None)
    return audit([(skill, spec.skills[0])], tree, spec)


def anchors(report: AuditReport) -> list[tuple[str, LineRange | None, LineRange | None]]:
    return [(m.status.value, found_lines(m), suggested_lines(m)) for m in report.skills[0].anchors]


def verdicts(report: AuditReport) -> dict[str, str]:
    return {c.id: c.verdict.value for c in report.skills[0].claims}


@pytest.fixture
def history(make_repo) -> GitRepo:
    repo = make_repo()
    # v2: two imports at the top of overlap.py push every overlap quote down by 2.
    repo.edit(
        OVERLAP, "from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n"
    )
    repo.commit("add imports", tag="v2")
    # v3: launch.py changes quote style and gains a comment (same lines); the dp
    # bucket assignment is re-wrapped over three lines (lines 58-60, grad at 61).
    repo.edit(
        LAUNCH,
        'executor.env_vars["FWD_SM_MARGIN"] = str(self.margin)',
        "executor.env_vars['FWD_SM_MARGIN'] = str(self.margin)  # forward kernels",
    )
    repo.edit(
        OVERLAP, "cfg.bucket = 64 * 1024 * 1024\n", "cfg.bucket = (\n                64 * 1024 * 1024\n            )\n"
    )
    repo.commit("reformat", tag="v3")
    # v4: the TP gate's threshold changes: the quote and the condition break.
    repo.edit(OVERLAP, "if model.tp_size < 2:", "if model.tp_size < 4:")
    repo.commit("raise the tp threshold", tag="v4")
    # v5: launch.py is deleted.
    repo.remove(LAUNCH)
    repo.commit("move launch settings elsewhere", tag="v5")
    return repo


def test_v1_everything_holds(history: GitRepo) -> None:
    report = run(history.path, "v1")
    assert [a[0] for a in anchors(report)] == ["exact"] * 4
    assert set(verdicts(report).values()) == {"code_verified", "doc_only"}
    assert exit_code(report) is ExitCode.OK
    assert report.source.commit == git(history.path, "rev-parse", "v1")


def test_v2_moved_quotes_get_suggestions(history: GitRepo) -> None:
    report = run(history.path, "v2")
    assert anchors(report) == [
        # TP gate: found 34-39; the trailing "..." keeps the elif's body (line 40) in range.
        ("moved", LineRange(34, 39), LineRange(34, 40)),
        ("moved", LineRange(43, 49), LineRange(43, 49)),
        ("moved", LineRange(57, 59), LineRange(57, 59)),
        ("exact", LineRange(10, 13), None),
    ]
    assert verdicts(report)["tp_gate"] == "code_verified"
    assert exit_code(report) is ExitCode.DRIFT  # a moved quote is drift


def test_v3_formatting_is_not_drift_but_rewrapping_moves_lines(history: GitRepo) -> None:
    report = run(history.path, "v3")
    status = anchors(report)
    assert status[3] == ("exact", LineRange(10, 13), None)  # quote style and comment only
    assert status[2] == ("moved", LineRange(57, 61), LineRange(57, 61))  # re-wrapped over 3 lines
    assert all(v in ("code_verified", "doc_only") for v in verdicts(report).values())


def test_v4_changed_operator_breaks_quote_and_condition(history: GitRepo) -> None:
    report = run(history.path, "v4")
    tp_quote = report.skills[0].anchors[0]
    assert isinstance(tp_quote, Changed)
    assert tp_quote.candidate is not None and 34 in tp_quote.candidate
    assert any(line.startswith("+") and "< 4" in line for line in tp_quote.diff)
    claim = next(c for c in report.skills[0].claims if c.id == "tp_gate")
    assert claim.verdict is Verdict.BROKEN
    condition = next(e for e in claim.evidence if e.kind == "condition" and "if model.tp_size" in e.ref)
    assert (condition.status, str(condition.location)) == ("different", f"{OVERLAP}:35")
    assert "tests `model.tp_size < 4`" in condition.detail
    assert claim.mismatch == "card.yaml says code_verified, but its evidence fails"


def test_v5_deleted_file_is_missing(history: GitRepo) -> None:
    report = run(history.path, "v5")
    assert report.skills[0].anchors[3].status is AnchorStatus.MISSING
    claim = next(c for c in report.skills[0].claims if c.id == "launch_env")
    assert claim.verdict is Verdict.BROKEN
    assert {e.status for e in claim.evidence} == {"missing"}


def test_reads_the_commit_not_the_work_tree(history: GitRepo) -> None:
    history.write(LAUNCH, "# scribbled over, never committed\n")
    (history.path / OVERLAP).unlink()
    report = run(history.path, "v1")
    assert [a[0] for a in anchors(report)] == ["exact"] * 4


def test_bare_repository_and_full_sha(history: GitRepo, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(history.path), str(bare))
    sha = git(history.path, "rev-parse", "v2")
    report = run(bare, sha)
    assert report.source.commit == sha
    assert anchors(report)[0][0] == "moved"


def test_unknown_ref_and_not_a_repository(history: GitRepo, tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r": unknown ref 'v9'$"):
        run(history.path, "v9")
    with pytest.raises(SourceError, match="not a git repository"):
        run(tmp_path, "v1")
    with pytest.raises(SourceError, match="no such repository"):
        run(tmp_path / "nowhere", "v1")
    with pytest.raises(UsageError, match="not a ref name"):
        run(history.path, "--upload-pack=touch /tmp/x")


def _blobs(git_dir: Path) -> int:
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return out.count("blob")


def test_remote_is_mirrored_lean_and_fetched_only_when_the_ref_is_missing(history: GitRepo, tmp_path: Path) -> None:
    for i in range(30):  # files no skill quotes: a lean fetch leaves their blobs on the server
        history.write(f"docs/page{i}.md", f"page {i}\n" * 50)
    history.commit("docs", tag="v6")
    git(history.path, "tag", "-a", "-m", "annotated release", "r6", "v6")
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(history.path), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    url = f"file://{server}"
    cache = tmp_path / "cache"

    report = run(url, "r6", cache)  # an annotated tag, peeled to its commit
    assert report.source.commit == git(history.path, "rev-parse", "v6")
    (mirror,) = (cache / "git").glob("*.git")
    assert _blobs(mirror) < _blobs(server) // 4  # only the blobs the audit read

    # The ref is cached: with the server gone, the same audit still runs.
    server.rename(tmp_path / "server-gone.git")
    again = run(url, "r6", cache)
    assert anchors(again) == anchors(report)
    # A ref that is not cached needs the server: a clear error, and the cache stays usable.
    with pytest.raises(SourceError, match=r"cannot fetch v1"):
        run(url, "v1", cache)
    assert anchors(run(url, "r6", cache)) == anchors(report)


def test_refuses_command_running_transports(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"the ext:: transport can run commands; refused \(--allow-protocol ext\)"):
        open_git("ext::sh -c touch% /tmp/pwned", "v1", str(tmp_path))
    with pytest.raises(UsageError, match="begins with '-'"):
        open_git("--upload-pack=touch /tmp/pwned", "v1", str(tmp_path))


def test_code_moved_to_another_file_is_relocated(make_repo) -> None:
    repo = make_repo()
    text = repo.read(LAUNCH)
    repo.remove(LAUNCH)
    # The launch plugin now lives in plugins/env.py, below a new header (6 lines further down).
    repo.write("src/demo/plugins/env.py", '"""Plugins."""\n\nimport os\n\n\n# moved here\n' + text)
    repo.commit("move the launch plugin", tag="v2")
    report = run(repo.path, "v2")
    launch = report.skills[0].anchors[3]
    assert isinstance(launch, Relocated)
    assert (launch.status, launch.found_path, launch.found) == (
        AnchorStatus.RELOCATED,
        "src/demo/plugins/env.py",
        LineRange(16, 19),
    )
    assert launch.detail == "the quoted code is now in src/demo/plugins/env.py, lines 16-19"
    claim = next(c for c in report.skills[0].claims if c.id == "launch_env")
    assert claim.verdict is Verdict.BROKEN  # its conditions still name launch.py
    assert exit_code(report) is ExitCode.DRIFT


def remembering() -> tuple[dict[str, dict], object]:
    """A memo like the judge's (content key -> answer), and the function that fills it."""
    store: dict[str, dict] = {}

    def memo(key: str, compute):  # type: ignore[no-untyped-def]
        if key not in store:
            store[key] = compute()
        return store[key]

    return store, memo


def test_history_answers_about_shas_are_remembered_and_about_names_are_not(history: GitRepo) -> None:
    tree = open_git(str(history.path), "v5")
    store, tree.history.memo = remembering()
    v1, v5 = git(history.path, "rev-parse", "v1"), tree.commit.hexsha
    # v2 (imports), v3 (reformat) and v4 (threshold) touch overlap.py after v1; v5 deletes launch.py only.
    assert [tree.at(sha).history.summary[1] for sha in tree.history.commits_touching(f"{v1}..{v5}", {OVERLAP})] == [
        "add imports", "reformat", "raise the tp threshold"]  # fmt: skip
    assert tree.history.count_commits(f"{v1}..{v5}") == 4
    assert len(store) == 2
    remembered = dict(store)
    assert tree.history.commits_touching("v1..v5", {OVERLAP}) == tree.history.commits_touching(f"{v1}..{v5}", {OVERLAP})
    assert store == remembered  # a name can move: its answer is asked of git every time
    store[next(k for k in store if '"count"' in k)] = {"answer": 99}
    assert tree.history.count_commits(f"{v1}..{v5}") == 99  # the second time the memo answers, not git


def test_a_shallow_clone_is_never_remembered(history: GitRepo, tmp_path: Path) -> None:
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{history.path}", str(shallow))
    tree = open_git(str(shallow), "HEAD")
    store, tree.history.memo = remembering()
    assert tree.history.count_commits(tree.commit.hexsha) == 2  # its history ends early, and may be deepened later
    assert store == {}


def test_replace_refs_do_not_change_what_a_sha_names(history: GitRepo) -> None:
    v4, v5 = git(history.path, "rev-parse", "v4"), git(history.path, "rev-parse", "v5")
    git(history.path, "replace", "--graft", v5, git(history.path, "rev-parse", "v1"))  # v5's parent "is" v1
    assert git(history.path, "rev-list", "--count", v5) == "2"  # git itself now follows the replacement
    tree = open_git(str(history.path), v5)
    assert tree.history.count_commits(v5) == 5
    assert tree.history.first_parent(v5) == v4


def fetches(trace: Path) -> tuple[int, int]:
    """(fetches of wanted blobs run by anchor-audit, fetches git ran itself for a blob it lacked) in a GIT_TRACE file."""
    lines = trace.read_text().splitlines() if trace.exists() else []
    batched = sum(
        "built-in: git fetch -q --upload-pack=git-upload-pack origin" in line and "--stdin" in line for line in lines
    )
    lazy = sum("run_command:" in line and "fetch.negotiationAlgorithm=noop fetch" in line for line in lines)
    return batched, lazy


def served(history: GitRepo, tmp_path: Path) -> str:
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(history.path), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    return f"file://{server}"


def test_a_lean_mirror_gets_the_blobs_an_audit_reads_in_one_fetch(
    history: GitRepo, tmp_path: Path, monkeypatch
) -> None:
    url, trace = served(history, tmp_path), tmp_path / "trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    report = run(url, "v4", tmp_path / "cache")
    # The demo skill quotes overlap.py and launch.py, and its conditions read them: two blobs, one fetch,
    # and git never had to fetch one on its own.
    assert fetches(trace) == (1, 0)
    assert anchors(report) == anchors(run(history.path, "v4"))  # the same audit as from the repository itself


def test_a_lean_history_gets_every_commits_blobs_in_one_fetch(history: GitRepo, tmp_path: Path, monkeypatch) -> None:
    from anchor_audit.cli import main

    url, trace = served(history, tmp_path), tmp_path / "trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    since = git(history.path, "rev-parse", "v1")  # a lean mirror fetches no tags: the range is named by sha
    args = ["history", "--spec", str(DEMO / "anchors.yaml"), "--repo", url, "--since", since, "--format", "json",
            "--quiet", str(DEMO / "skills" / "demo-overlap")]  # fmt: skip
    assert main(args) == 0
    assert fetches(trace) == (1, 0)  # every version of overlap.py and launch.py: one fetch for them all


def test_a_history_fetches_a_remote_submodules_commits_at_once(tmp_path: Path, monkeypatch) -> None:
    from anchor_audit.audit.skills import Judge
    from anchor_audit.runs.history import SkillSource, history

    sub = GitRepo(tmp_path / "sub")
    sub.path.mkdir()
    git(sub.path, "init", "-q", "-b", "main")
    lib = "def plan(cfg):\n    if cfg.tp > 1:\n        return 'overlap'\n    return 'none'\n"
    shas = []
    for i in range(3):  # each version pushes the quoted function down a line
        sub.write("lib.py", "# header\n" * i + lib)
        shas.append(sub.commit(f"lib v{i}"))
    server = tmp_path / "sub-server.git"
    git(tmp_path, "clone", "-q", "--bare", str(sub.path), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    top = GitRepo(tmp_path / "top")
    top.path.mkdir()
    git(top.path, "init", "-q", "-b", "main")
    git(top.path, "-c", "protocol.file.allow=always", "submodule", "add", "-q", f"file://{server}", "third/sub")
    commits = []
    for sha in shas:  # the superproject moves its submodule from one version to the next
        git(top.path / "third" / "sub", "checkout", "-q", sha)
        commits.append(top.commit(f"sub at {sha[:7]}"))
    skill = tmp_path / "skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("# plan\n\n```1:3:third/sub/lib.py\ndef plan(cfg):\n    if cfg.tp > 1:\n"
                                    "        return 'overlap'\n```\n")  # fmt: skip
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    # .gitmodules' file:// URL is local: followed only as the user's own --submodule.
    tree = open_git(str(top.path), "HEAD", str(tmp_path / "cache"), submodules={"third/sub": f"file://{server}"})
    loaded = load_skill(skill)
    result = history(tree, [SkillSource(loaded.name, disk=loaded)], None, commits[0], "HEAD", Judge())
    # exact at the first commit, moved at the second (one line down); at the third it is still moved (two lines
    # down), which is no change of status.
    assert [(e.commit.sha, e.change.after) for e in result.events] == [(commits[0], "exact"), (commits[1], "moved")]
    commit_fetches = [line for line in trace.read_text().splitlines()
                      if "built-in: git fetch" in line and "refs/anchor-audit/" in line]  # fmt: skip
    assert len(commit_fetches) == 1 and all(sha in commit_fetches[0] for sha in shas)
    assert fetches(trace) == (1, 0)  # and the three versions of lib.py in one fetch


def _blame(repo: Path, sha: str, path: str) -> list[str]:
    out = git(repo, "blame", "--porcelain", sha, "--", path)
    return [line.split(" ", 1)[0] for line in out.split("\n") if line[:1].isalnum() and len(line.split(" ")) in (3, 4)
            and len(line.split(" ", 1)[0]) == 40]  # fmt: skip


def test_a_files_blame_is_asked_of_git_once_per_version_along_a_walk(make_repo, tmp_path: Path, monkeypatch) -> None:
    """Where a commit's first parent holds the same blob, git passes it the whole blame: the answer is the
    parent's, asked once.  A merge whose first parent holds it too; a commit that changes it is asked again."""
    repo = make_repo("blamed")
    repo.write("SKILL.md", "one\ntwo\n")
    shas = [repo.commit("written", date="2026-01-01T00:00:00")]
    repo.write("other.py", "x = 1\n")
    shas.append(repo.commit("another file", date="2026-01-02T00:00:00"))
    git(repo.path, "checkout", "-q", "-b", "side", shas[0])
    repo.write("side.py", "y = 2\n")
    repo.commit("on a side branch", date="2026-01-03T00:00:00")
    git(repo.path, "checkout", "-q", "-")
    git(repo.path, "merge", "-q", "--no-edit", "side")
    shas.append(git(repo.path, "rev-parse", "HEAD").strip())
    repo.write("SKILL.md", "one\nthree\ntwo\n")
    shas.append(repo.commit("a line added", date="2026-01-04T00:00:00"))
    repo.write("other.py", "x = 3\n")
    shas.append(repo.commit("the skill left alone", date="2026-01-05T00:00:00"))
    tree = open_git(str(repo.path), shas[-1])
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    answers = [tree.at(sha).line_commits("SKILL.md") for sha in shas]
    monkeypatch.delenv("GIT_TRACE")
    assert answers == [_blame(repo.path, sha, "SKILL.md") for sha in shas]
    assert answers[-1] == [shas[0], shas[3], shas[0]]
    blames = [line for line in trace.read_text().splitlines() if "built-in: git blame" in line]
    assert len(blames) == 2 and shas[0] in blames[0] and shas[3] in blames[1]
