"""Real skills against the real code: published Megatron-Bridge wheels 0.3.0 and 0.6.0.

The project's reference skill (fixtures/reference/) needs only the package
index; the published skill also needs ../shared beside the checkout.  Each
is skipped, with the reason, where what it needs is missing.  The expected
results are the known truth, checked by hand against the code (see the README and docs/commands.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anchor_audit.audit.skills import audit
from anchor_audit.errors import NotCarried, SourceError
from anchor_audit.findings import exit_code
from anchor_audit.model import AnchorStatus, ExitCode, LineRange, Verdict, found_lines
from anchor_audit.source.wheel import open_release
from anchor_audit.spec.registry import load_spec
from anchor_audit.spec.skill import load_skill

from .conftest import ROOT, SHARED_SKILL

pytestmark = pytest.mark.network

PUBLISHED = "nemo-mbridge-perf-tp-dp-comm-overlap"
REFERENCE = ROOT / "fixtures" / "reference" / "tp-dp-comm-overlap-reference"
COMM = "src/megatron/bridge/training/comm_overlap.py"
PLUGINS = "src/megatron/bridge/recipes/run_plugins.py"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("cache")
    spec = load_spec(ROOT / "anchors.yaml")
    assert spec.source.release is not None
    for version in ("0.3.0", "0.6.0"):
        try:
            open_release(spec.source.repo, f"v{version}", spec.source.release, cache_dir=str(cache))
        except SourceError as exc:
            pytest.skip(f"the package index is unreachable: {exc}")
    return cache


@pytest.fixture
def published() -> Path:
    if not SHARED_SKILL.is_dir():
        pytest.skip(f"{SHARED_SKILL} not found: ../shared is not beside this checkout")
    return SHARED_SKILL


def run(ref: str, cache: Path, skill_dir: Path = SHARED_SKILL):
    spec = load_spec(ROOT / "anchors.yaml")
    skill = load_skill(skill_dir)
    assert spec.source.release is not None
    tree = open_release(spec.source.repo, ref, spec.source.release, cache_dir=str(cache))
    return audit([(skill, spec.skill(skill.name))], tree, spec)


# Both skills make the same five claims; at v0.6.0 only the launch environment wiring is gone.
V0_6_0_VERDICTS = {
    "tp_overlap_gating": Verdict.CODE_VERIFIED,
    "dp_overlap_defaults": Verdict.CODE_VERIFIED,
    "pp_overlap_auto_selection": Verdict.CODE_VERIFIED,
    "launch_env_wiring": Verdict.BROKEN,
    "overlap_perf_claims": Verdict.DOC_ONLY,
}


def assert_the_v0_6_0_verdicts(report) -> None:  # noqa: ANN001
    assert {c.id: c.verdict for c in report.skills[0].claims} == V0_6_0_VERDICTS
    assert exit_code(report) is ExitCode.DRIFT


def test_the_reference_skill_tells_the_v0_6_0_story(wheels: Path) -> None:
    # Checked by hand at v0.6.0: the three comm_overlap.py blocks sit 2 to 4 lines lower, and
    # run_plugins.py no longer has PerfEnvPlugin (the launch environment is set elsewhere).
    report = run("v0.6.0", wheels, REFERENCE)
    got = [(m.quote.key, m.status, found_lines(m)) for m in report.skills[0].anchors]
    assert got == [
        (f"{COMM}:440-449", AnchorStatus.MOVED, LineRange(442, 449)),
        (f"{COMM}:452-458", AnchorStatus.MOVED, LineRange(454, 459)),
        (f"{COMM}:572-575", AnchorStatus.MOVED, LineRange(576, 579)),
        (f"{PLUGINS}:594-594", AnchorStatus.CHANGED, None),
        (f"{PLUGINS}:607-609", AnchorStatus.CHANGED, None),
    ]
    assert_the_v0_6_0_verdicts(report)


def test_the_reference_skill_at_v0_3_0_keeps_the_launch_wiring(wheels: Path) -> None:
    report = run("v0.3.0", wheels, REFERENCE)
    status = {m.quote.key: m.status for m in report.skills[0].anchors}
    assert status[f"{PLUGINS}:594-594"] is AnchorStatus.EXACT and status[f"{PLUGINS}:607-609"] is AnchorStatus.EXACT
    assert all(c.verdict is not Verdict.BROKEN for c in report.skills[0].claims)


def test_v0_6_0_three_quotes_moved_and_the_env_wiring_left_run_plugins(wheels: Path, published: Path) -> None:
    report = run("v0.6.0", wheels)
    assert report.source.label.endswith("read from release wheel megatron-bridge 0.6.0, not git")
    got = [(m.quote.key, m.status, found_lines(m)) for m in report.skills[0].anchors]
    assert got == [
        (f"{COMM}:439-449", AnchorStatus.MOVED, LineRange(442, 449)),
        (f"{COMM}:451-458", AnchorStatus.MOVED, LineRange(454, 460)),
        (f"{COMM}:572-579", AnchorStatus.MOVED, LineRange(576, 579)),
        (f"{PLUGINS}:570-609", AnchorStatus.CHANGED, None),
    ]
    assert_the_v0_6_0_verdicts(report)


def test_v0_3_0_two_quotes_exact(wheels: Path, published: Path) -> None:
    report = run("v0.3.0", wheels)
    status = {m.quote.key: m.status for m in report.skills[0].anchors}
    assert status[f"{COMM}:451-458"] is AnchorStatus.EXACT
    assert status[f"{PLUGINS}:570-609"] is AnchorStatus.EXACT
    assert status[f"{COMM}:439-449"] is AnchorStatus.MOVED  # line 449 is the blank after the block
    launch = next(c for c in report.skills[0].claims if c.id == "launch_env_wiring")
    assert launch.verdict is Verdict.CODE_VERIFIED


def test_paths_a_wheel_does_not_carry_are_unverifiable(wheels: Path) -> None:
    spec = load_spec(ROOT / "anchors.yaml")
    assert spec.source.release is not None
    tree = open_release(spec.source.repo, "v0.6.0", spec.source.release, cache_dir=str(wheels))
    with pytest.raises(NotCarried, match="does not carry docs/training/communication-overlap.md"):
        tree.read("docs/training/communication-overlap.md")
    assert tree.read("src/megatron/bridge/no_such_module.py") is None


def test_fix_heals_the_three_moved_quotes_and_leaves_run_plugins_alone(
    wheels: Path, published: Path, tmp_path: Path
) -> None:
    import shutil

    from anchor_audit.fix import plan_fix
    from anchor_audit.text.fsutil import apply_edits

    skill_dir = tmp_path / SHARED_SKILL.name
    shutil.copytree(SHARED_SKILL, skill_dir)
    for item in skill_dir.iterdir():
        item.chmod(0o644)  # ../shared is read-only
    registry = tmp_path / "anchors.yaml"
    # The entry names this copy's folder: fix rewrites the quote keys of that entry only.
    registry.write_text((ROOT / "anchors.yaml").read_text().replace(
        f"  {PUBLISHED}:\n    claims:", f"  {PUBLISHED}:\n    path: {skill_dir}\n    claims:"
    ))
    spec = load_spec(registry)
    assert spec.source.release is not None
    tree = open_release(spec.source.repo, "v0.6.0", spec.source.release, cache_dir=str(wheels))
    skills = [(load_skill(skill_dir), spec.skill(PUBLISHED))]
    plan = plan_fix(audit(skills, tree, spec), skills, spec, tree, refresh=True)
    assert len([line for line in plan.done if "moved: range ->" in line]) == 3
    assert any(f"{PLUGINS}:570-609 is changed; not rewritten" in line for line in plan.left)
    apply_edits(plan.edits)

    spec = load_spec(registry)
    skills = [(load_skill(skill_dir), spec.skill(PUBLISHED))]
    report = audit(skills, tree, spec)
    assert [m.status for m in report.skills[0].anchors] == [AnchorStatus.EXACT] * 3 + [AnchorStatus.CHANGED]
    assert "```570:609:src/megatron/bridge/recipes/run_plugins.py" in (skill_dir / "SKILL.md").read_text()
    verdicts = {c.id: c.verdict for c in report.skills[0].claims}
    assert verdicts["tp_overlap_gating"] is Verdict.CODE_VERIFIED  # the registry followed the new ranges


def test_release_versions_as_users_write_them(tmp_path: Path) -> None:
    # The tag form is accepted, the version read is named, and a yanked release says so.
    import subprocess
    import sys

    env = {**__import__("os").environ, "ANCHOR_AUDIT_CACHE": str(tmp_path / "cache")}
    for asked, shown in (("v0.3.0", "@ v0.3.0: read from release wheel megatron-bridge 0.3.0, not git"),
                         ("0.3.0", "@ v0.3.0: read from release wheel megatron-bridge 0.3.0, not git"),
                         ("v0.6.1", "@ v0.6.1: read from release wheel megatron-bridge 0.6.1 (a yanked release), not git")):
        done = subprocess.run([sys.executable, "-m", "anchor_audit", "check", "--release", asked], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        if done.returncode == 2 and "pip could not download" in done.stderr:
            pytest.skip(f"the package index is unreachable: {done.stderr.strip()}")
        assert done.stdout.splitlines()[0].endswith(shown), done.stdout[:300]


def test_docs_commands_shows_the_diff_of_the_published_skill_as_it_is(wheels: Path, published: Path, capsys,
                                                                       monkeypatch) -> None:  # fmt: skip
    import re

    from anchor_audit.cli import main

    monkeypatch.chdir(ROOT)
    code = main(["diff", "v0.3.0", "v0.6.0", str(published), "--release", "--cache-dir", str(wheels)])
    out = "\n".join(line.rstrip() for line in capsys.readouterr().out.splitlines())
    docs = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    shown = re.search(r"```text\n(diff: release megatron-bridge 0\.3\.0.*?)\n```", docs, re.S)
    assert code == 1 and shown is not None and shown.group(1) == out


def test_the_readme_shows_the_main_job_as_it_is(wheels: Path, capsys, monkeypatch) -> None:
    from anchor_audit.cli import main

    from .docpages import agrees, first_difference, shown_by

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "120")  # the width the README says it shows
    assert main(["check", "--release", "--cache-dir", str(wheels)]) == 1
    out = capsys.readouterr().out
    for block in shown_by("release-main-job"):  # README.md and README.zh-CN.md
        assert agrees(block.text, out), f"{block.where}: {first_difference(block.text, out)}"


def test_docs_commands_shows_fix_and_the_diffs_markdown_as_they_are(wheels: Path, published: Path, tmp_path: Path,
                                                                     capsys, monkeypatch) -> None:  # fmt: skip
    import shutil

    from anchor_audit.cli import main

    from .docpages import agrees, first_difference, shown_by

    shutil.copytree(published, tmp_path / PUBLISHED)
    for item in (tmp_path / PUBLISHED).iterdir():
        item.chmod(0o644)  # ../shared is read-only
    shutil.copy(ROOT / "anchors.yaml", tmp_path / "anchors.yaml")
    monkeypatch.chdir(tmp_path)
    assert main(["fix", PUBLISHED, "--release", "--update-card", "--cache-dir", str(wheels)]) == 1
    out = capsys.readouterr().out
    (block,) = shown_by("release-fix-diff")
    assert agrees(block.text, out), f"{block.where}: {first_difference(block.text, out)}"
    monkeypatch.chdir(ROOT)
    code = main(["diff", "v0.3.0", "v0.6.0", str(published), "--release", "--format", "markdown",
                 "--cache-dir", str(wheels)])  # fmt: skip
    out = capsys.readouterr().out
    (block,) = shown_by("release-diff-markdown")
    assert code == 1 and agrees(block.text, out), f"{block.where}: {first_difference(block.text, out)}"
