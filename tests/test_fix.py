"""anchor-audit fix: before/after strings for each edit, then the command on real repositories."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from textwrap import dedent

import pytest

from anchor_audit.cli import main
from anchor_audit.fix.anchorsyaml import heal_registry, rewrite_pin
from anchor_audit.fix.cardyaml import reconcile_card
from anchor_audit.fix.skillmd import heal_skill_md
from anchor_audit.match.quote import match_quote
from anchor_audit.model import AnchorStatus, ClaimVerdict, SourceInfo, Verdict
from anchor_audit.source.file import SourceFile
from anchor_audit.spec.skill import parse_skill_md
from anchor_audit.text.fsutil import FileEdit, WriteConflict, apply_edits

from .conftest import DEMO, GitRepo

CODE = dedent(
    """\
    import os
    import sys


    def plan(cfg):
        # pick the overlap
        if cfg.tp > 1:
            cfg.overlap = True  # fast path
        else:
            cfg.overlap = False
        return cfg
    """
)


def healed(before: str, code: str = CODE, refresh: bool = False) -> str:
    """Run the SKILL.md healer as fix does: match every quote, rewrite the moved ones."""
    moved = []
    for quote in parse_skill_md(before.replace("\r\n", "\n")):
        match = match_quote(quote, SourceFile(quote.path, code))
        if match.status is AnchorStatus.MOVED:
            moved.append(match)
    return heal_skill_md(before, moved, {"m.py": SourceFile("m.py", code)}, refresh)


def test_moved_range_is_rewritten_and_nothing_else() -> None:
    before = dedent(
        """\
        # Skill

        ```3:5:m.py
        if cfg.tp > 1:
            cfg.overlap = True  # fast path
        ```

        ```7:11:m.py
        if cfg.tp > 1:
        ```
        """
    )
    # The second range ran past the if (line 11 is `return cfg`): cut back to the quoted line.
    after = dedent(
        """\
        # Skill

        ```7:8:m.py
        if cfg.tp > 1:
            cfg.overlap = True  # fast path
        ```

        ```7:7:m.py
        if cfg.tp > 1:
        ```
        """
    )
    assert healed(before) == after


def test_changed_quotes_are_never_rewritten() -> None:
    before = "```1:2:m.py\nif cfg.tp > 2:\n```\n"
    assert healed(before) == before


def test_refresh_copies_the_code_and_keeps_the_authors_elisions() -> None:
    before = dedent(
        """\
        1. In a list:

           ~~~1:3:m.py
           if cfg.tp>1:
               ...
           else:
               cfg.overlap = False
           ~~~
        """
    )
    after = dedent(
        """\
        1. In a list:

           ~~~7:10:m.py
           if cfg.tp > 1:
               ...
           else:
               cfg.overlap = False
           ~~~
        """
    )
    assert healed(before, refresh=True) == after


def test_crlf_skill_keeps_its_line_endings() -> None:
    before = "```3:4:m.py\r\nif cfg.tp > 1:\r\n    cfg.overlap = True\r\n```\r\n"
    after = "```7:8:m.py\r\nif cfg.tp > 1:\r\n    cfg.overlap = True  # fast path\r\n```\r\n"
    assert healed(before, refresh=True) == after


def test_registry_keys_follow_the_healed_quotes() -> None:
    before = dedent(
        """\
        skills:
          s:
            claims:
              c:
                quotes:
                  - m.py:3-5          # the gate
                  - "./m.py:20-30"
          other:
            claims:
              c: {quotes: [m.py:3-5]}
        """
    )
    after = before.replace("- m.py:3-5          # the gate", "- m.py:7-8          # the gate")
    after = after.replace('"./m.py:20-30"', '"m.py:21-31"')
    assert heal_registry(before, "s", {"m.py:3-5": "m.py:7-8", "m.py:20-30": "m.py:21-31"}) == after


CARD = dedent(
    """\
    # Card for the demo; reviewers keep notes here.
    title: demo
    validated_on: '2026-01-10'   # last full review
    validation_status:
      gate:
        - code_verified
      env:   # wiring lives in the plugin
        - code_verified
      perf: [doc_only]
      docs:
        - documented
    evidence:
      - src/demo/overlap.py
    """
)


def verdict(cid: str, declared: tuple[str, ...], value: Verdict, mismatch: str | None = None) -> ClaimVerdict:
    return ClaimVerdict(cid, declared, value, (), mismatch)


SOURCE = SourceInfo("repo", "v2", "0123456789abcdef0123", date="2026-02-03")


def test_card_reconciled_with_comments_and_order_kept() -> None:
    claims = (
        verdict("gate", ("code_verified",), Verdict.CODE_VERIFIED),
        verdict("env", ("code_verified",), Verdict.BROKEN, "card.yaml says code_verified, but its evidence fails"),
        verdict("perf", ("doc_only",), Verdict.CODE_VERIFIED),
        verdict("docs", ("documented",), Verdict.CODE_VERIFIED),
    )
    text, changes = reconcile_card(CARD, claims, SOURCE)
    assert text == dedent(
        """\
        # Card for the demo; reviewers keep notes here.
        title: demo
        validated_on: '2026-02-03'   # last full review
        validation_status:
          gate:
            - code_verified
          env:   # wiring lives in the plugin  # anchor-audit: broken at v2 (0123456789ab)
            - code_verified
          perf: [code_verified]
          docs:
            - documented
            - code_verified
        evidence:
          - src/demo/overlap.py
        """
    )
    assert [c.claim for c in changes] == ["", "env", "perf", "docs"]
    # Once the claim holds again, the mark goes; a second run changes nothing more.
    claims = (verdict("env", ("code_verified",), Verdict.CODE_VERIFIED),)
    again, _ = reconcile_card(text, claims, SOURCE)
    assert "anchor-audit" not in again and "  env:   # wiring lives in the plugin\n" in again
    assert reconcile_card(again, claims, SOURCE)[0] == again


def test_card_without_validated_on_gets_one_and_release_leaves_it() -> None:
    text, _ = reconcile_card("title: x\r\n", (), SOURCE)
    assert text == 'title: x\r\nvalidated_on: "2026-02-03"\r\n'
    release = SourceInfo("repo", "v2", None, kind="release", release="d 2")
    text, changes = reconcile_card(CARD, (), release)
    assert text == CARD and not changes[0].changed


def test_a_file_edited_during_the_run_is_not_written(tmp_path: Path) -> None:
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text("old a\n")
    second.write_text("old b\n")
    edits = [FileEdit(first, b"old a\n", b"new a\n"), FileEdit(second, b"old b\n", b"new b\n")]
    second.write_text("someone else's edit\n")
    with pytest.raises(WriteConflict, match="b.md: changed on disk since anchor-audit read it"):
        apply_edits(edits)
    assert first.read_text() == "old a\n"  # nothing half-written


def test_write_keeps_permissions_and_byte_order_mark(tmp_path: Path) -> None:
    target = tmp_path / "SKILL.md"
    target.write_bytes(b"\xef\xbb\xbfold\n")
    os.chmod(target, 0o640)
    apply_edits([FileEdit(target, b"\xef\xbb\xbfold\n", b"\xef\xbb\xbfnew\n")])
    assert target.read_bytes() == b"\xef\xbb\xbfnew\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["SKILL.md"]


@pytest.fixture
def workspace(make_repo, tmp_path: Path) -> tuple[GitRepo, Path]:
    """The demo code with every overlap quote moved down by 2 at v2, and a writable copy of the skill."""
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n")
    repo.commit("add imports", tag="v2", date="2026-03-04T05:06:07")
    work = tmp_path / "work"
    shutil.copytree(DEMO, work, ignore=shutil.ignore_patterns("src"))
    return repo, work


def test_fix_dry_run_writes_nothing_then_write_heals_and_is_idempotent(workspace, capsys, monkeypatch) -> None:
    repo, work = workspace
    monkeypatch.chdir(work)
    skill_md = work / "skills/demo-overlap/SKILL.md"
    before = skill_md.read_bytes()
    args = ["fix", "--repo", str(repo.path), "--ref", "v2", "--update-card"]

    assert main(args) == 1
    out = capsys.readouterr().out
    assert "-```32:38:src/demo/overlap.py\n+```34:40:src/demo/overlap.py\n" in out
    assert "-          - src/demo/overlap.py:32-38\n+          - src/demo/overlap.py:34-40\n" in out
    assert out.endswith("fix: 3 files to change, dry run, nothing written (--write applies); 0 left for a person\n")
    assert skill_md.read_bytes() == before

    assert main([*args, "--write"]) == 0
    capsys.readouterr()
    assert 'validated_on: "2026-03-04"' in (work / "skills/demo-overlap/card.yaml").read_text()
    assert main(["check", "--repo", str(repo.path), "--ref", "v2"]) == 0  # every moved quote is exact now
    capsys.readouterr()
    assert main([*args, "--refresh-quotes"]) == 0  # a second fix finds nothing to do
    assert "fix: 0 files to change" in capsys.readouterr().out


def test_rewrite_pin_keeps_comments_and_quoting() -> None:
    text = "source:\n  repo: x  # upstream\n  ref: 'v0.6.0'   # pinned\nskills: {}\n"
    assert rewrite_pin(text, "v0.6.2") == "source:\n  repo: x  # upstream\n  ref: 'v0.6.2'   # pinned\nskills: {}\n"


def test_fix_follows_code_relocated_to_another_file(make_repo, tmp_path: Path, capsys, monkeypatch) -> None:
    repo = make_repo()
    text = repo.read("src/demo/launch.py")
    repo.remove("src/demo/launch.py")
    repo.write("src/demo/plugins/env.py", '"""Plugins."""\n\nimport os\n\n\n# moved here\n' + text)
    repo.commit("move the launch plugin", tag="v2")
    work = tmp_path / "work"
    shutil.copytree(DEMO, work, ignore=shutil.ignore_patterns("src"))
    monkeypatch.chdir(work)
    assert main(["fix", "--repo", str(repo.path), "--ref", "v2", "--write"]) == 1  # launch_env's conditions still fail
    out = capsys.readouterr().out
    assert "src/demo/launch.py:10-13 relocated: -> 16:19:src/demo/plugins/env.py" in out
    assert "```16:19:src/demo/plugins/env.py\n" in (work / "skills/demo-overlap/SKILL.md").read_text()
    assert "- src/demo/plugins/env.py:16-19\n" in (work / "anchors.yaml").read_text()
    main(["check", "--repo", str(repo.path), "--ref", "v2", "--format", "json"])
    anchors = json.loads(capsys.readouterr().out)["skills"][0]["anchors"]
    assert [a["status"] for a in anchors] == ["exact"] * 4


def test_fix_rewrites_only_the_registry_entry_that_names_the_folder(make_repo, tmp_path: Path, capsys) -> None:
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("shift", tag="v2")
    copy = tmp_path / "elsewhere" / "demo-overlap"
    shutil.copytree(DEMO / "skills" / "demo-overlap", copy)
    registry = tmp_path / "anchors.yaml"
    registry.write_text((DEMO / "anchors.yaml").read_text().replace("path: skills/demo-overlap", f"path: {DEMO / 'skills' / 'demo-overlap'}"))
    before, skill_before = registry.read_text(), (copy / "SKILL.md").read_text()
    assert main(["fix", "--write", "--spec", str(registry), "--repo", str(repo.path), "--ref", "v2", str(copy)]) == 1
    out = capsys.readouterr().out
    # The entry names the fixture's folder, not this copy: healing the copy's fences without the entry's keys
    # would break the claims, so neither is written, and fix says why.
    assert registry.read_text() == before and (copy / "SKILL.md").read_text() == skill_before
    assert "wrote " not in out
    assert f"belongs to {DEMO / 'skills' / 'demo-overlap'}; healing the fences without its keys would break its claims" in " ".join(out.split())


def test_a_second_update_card_has_nothing_to_say(make_repo, tmp_path: Path, capsys) -> None:
    repo = make_repo()
    work = tmp_path / "w"
    shutil.copytree(DEMO / "skills", work / "skills")
    (work / "anchors.yaml").write_text((DEMO / "anchors.yaml").read_text())
    args = ["fix", "--update-card", "--spec", str(work / "anchors.yaml"), "--repo", str(repo.path), "--ref", "v1"]
    main([*args, "--write"])
    first = capsys.readouterr().out
    assert "validated_on 2026-01-10 -> 2026-01-01" in first and "wrote " in first
    main(args)
    second = capsys.readouterr().out
    assert "would fix" not in second and second.splitlines()[-1].startswith("fix: 0 files to change")


def test_a_fence_below_a_refreshed_quote_of_another_length_is_healed_in_its_place() -> None:
    # The first quote's two lines hold a comment between them in the code: refreshed, it is three lines long.
    before = "```1:2:m.py\ndef plan(cfg):\nif cfg.tp > 1:\n```\n\nThen:\n\n```1:1:m.py\nreturn cfg\n```\n"
    after = (
        "```5:7:m.py\ndef plan(cfg):\n    # pick the overlap\n    if cfg.tp > 1:\n```\n\nThen:\n\n"
        "```11:11:m.py\nreturn cfg\n```\n"
    )
    assert healed(before, refresh=True) == after


def test_a_path_written_twice_on_a_line_is_rewritten_where_it_stands_alone() -> None:
    """``pkg/a.py`` inside ``src/pkg/a.py`` is another path: only the one written alone is the cited one."""
    from anchor_audit.fix.skillmd import heal_paths

    for text, after in [
        ("Read `src/pkg/a.py` (that is, `pkg/a.py`).\n", "Read `src/pkg/a.py` (that is, `pkg/b.py`).\n"),
        ("Read `pkg/a.py` (not `src/pkg/a.py`).\n", "Read `pkg/b.py` (not `src/pkg/a.py`).\n"),
    ]:
        assert heal_paths(text, [(1, "pkg/a.py", "pkg/b.py")]) == (after, [(1, "pkg/a.py", "pkg/b.py")])


def test_a_claim_holds_once_healed_only_when_every_failing_evidence_path_is_healed() -> None:
    from anchor_audit.fix import FixPlan, _claims
    from anchor_audit.model import Evidence, EvidenceKind, PromiseStatus, Skill, SkillReport

    def broken(cid: str, *paths: str) -> ClaimVerdict:
        evidence = tuple(Evidence(EvidenceKind.FILE, p, False, PromiseStatus.MISSING) for p in paths)
        return ClaimVerdict(cid, ("file_exists",), Verdict.BROKEN, evidence)

    skill = Skill("s", "s", (), None)
    result = SkillReport("s", "s", (), (broken("one", "a.py"), broken("both", "a.py", "b.py")))
    plan = FixPlan()
    _claims(plan, skill, result, healed_paths={"a.py"}, card_healed=set())
    assert plan.done == ["s: claim one holds once its evidence paths are healed"]
    assert plan.left == ["s: claim both is broken"]
