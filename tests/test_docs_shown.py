"""The pages show what the tool prints: every output block of README.md and docs/*.md is run and compared.

As ``cog --check`` keeps generated text honest, each output block names, in a comment above it, the case that
produces it (tests/docpages.py says how); the first test fails on a block that names none, so a page cannot
drift from the tool unseen.  Cases run against the fixtures; those that need the real Megatron-Bridge run
where ``ANCHOR_AUDIT_MEGATRON_BRIDGE`` (and for the submodule ``ANCHOR_AUDIT_MEGATRON_LM``; for the catalog's cards
``ANCHOR_AUDIT_SKILLS_CATALOG``) name local git copies of them, and are skipped with that reason elsewhere.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest

from anchor_audit.cli import main
from anchor_audit.cli.table import build_parser

from .conftest import DEMO, ROOT, GitRepo
from .docpages import OUTPUT_LANGUAGES, agrees, blocks, every_block, first_difference, shown_by

CASES = {
    "demo-init-draft", "demo-init-check", "demo-impact", "demo-impact-json", "synopsis", "catalog-fix",
    "mb-impact", "mb-history", "mb-skills", "mb-matrix",
    # run in tests/test_megatron_bridge_release.py, beside the wheels they need
    "release-main-job", "release-fix-diff", "release-diff-markdown",
}  # fmt: skip


def test_every_output_block_names_what_shows_it() -> None:
    unmarked = [b.where for b in every_block() if b.language in OUTPUT_LANGUAGES and b.marker is None]
    assert not unmarked, f"output blocks with neither <!-- shown-by: CASE --> nor <!-- not-output: WHY -->: {unmarked}"
    used = set()
    for block in every_block():
        if block.marker is None or block.marker[0] != "shown-by":
            continue
        case = block.marker[1]
        if "::" in case:  # a test elsewhere compares it
            path, name = case.split("::")
            assert f"def {name}(" in (ROOT / path).read_text(), f"{block.where}: no test {case}"
            assert block.page.name in (ROOT / path).read_text(), f"{block.where}: {case} never reads {block.page.name}"
        else:
            assert case in CASES, f"{block.where}: no case {case} in this module"
            used.add(case)
    assert used == CASES, f"cases no page shows: {sorted(CASES - used)}"


def _commands(text: str) -> list[list[str]]:
    """The anchor-audit command lines of a shell block (or of `$ ` lines), continuations joined."""
    joined = re.sub(r"\\\n\s*", " ", text)
    out = []
    for line in joined.split("\n"):
        line = line.removeprefix("$ ").strip()
        for part in re.split(r"&&|\|\|?|;", line):
            words = shlex.split(part, comments=True)
            if ">" in words:
                words = words[: words.index(">")]
            if words[:1] == ["anchor-audit"]:
                out.append(words[1:])
            elif words[:3] == ["python", "-m", "anchor_audit"]:
                out.append(words[3:])
    return out


SHELL = {"bash", "sh", "console", "shell"}


def test_every_command_a_page_shows_is_one_the_tool_takes(capsys) -> None:
    parser = build_parser()
    seen = 0
    for block in every_block():
        if block.language not in SHELL and not block.text.startswith("$ anchor-audit"):
            continue
        for argv in _commands(block.text if block.language in SHELL else block.text.split("\n", 1)[0]):
            seen += 1
            try:
                parser.parse_args(argv)
            except SystemExit:
                pytest.fail(f"{block.where}: anchor-audit {shlex.join(argv)}: {capsys.readouterr().err.strip()}")
    assert seen >= 10  # the README's and docs' commands were found at all


def _compare(case: str, actual: str) -> None:
    for block in shown_by(case):
        assert agrees(block.text, actual), f"{block.where}: {first_difference(block.text, actual)}"


# ------------------------------------------------------------------ the demo fixture


@pytest.fixture
def demo_code(make_repo) -> GitRepo:
    return make_repo()


def test_demo_init_drafts_what_the_getting_started_page_shows_and_check_runs_on_it(demo_code, tmp_path, capsys, monkeypatch) -> None:
    shutil.copytree(DEMO / "skills" / "demo-overlap", tmp_path / "demo-overlap")
    monkeypatch.chdir(tmp_path)
    assert main(["init", "demo-overlap", "--repo", str(demo_code.path), "--ref", "v1"]) == 0
    draft = capsys.readouterr().out
    for block in shown_by("demo-init-draft"):
        assert block.text in draft, f"{block.where}: the draft is\n{draft}"
    (tmp_path / "anchors.yaml").write_text(draft)
    assert main(["check"]) == 0
    _compare("demo-init-check", capsys.readouterr().out.rstrip("\n").split("\n")[-1])


def _impact(repo: GitRepo, base: str, head: str, *extra: str) -> int:
    skill = os.path.relpath(DEMO / "skills" / "demo-overlap")
    return main(["impact", base, head, skill, "--spec", str(DEMO / "anchors.yaml"), "--repo", str(repo.path), *extra])


def test_demo_impact_is_as_the_commands_page_shows(change, capsys, monkeypatch) -> None:
    repo, shas = change  # conftest's: v1 -> docs -> move -> edit -> delete, as tests/test_impact.py uses it
    monkeypatch.chdir(ROOT)
    assert _impact(repo, shas["move"], shas["edit"]) == 1
    out = capsys.readouterr().out.replace(shas["move"][:12], "ed2de4f2ef50").replace(shas["edit"][:12], "2729315d6ec5")
    _compare("demo-impact", out)  # the commits' shas are the page's: they differ with the day they are built
    assert _impact(repo, shas["docs"], shas["move"], "--format", "json") == 1
    data = json.loads(capsys.readouterr().out)
    for block in shown_by("demo-impact-json"):
        shown = json.loads(block.text.replace("…", ""))  # an elided sha is its prefix
        assert len(shown["base"]) == len(shown["head"]) == 8  # abridged shas, whichever the run made
        first = data["impacts"][0]
        for key, value in shown["impacts"][0].items():
            same = first[key].startswith(value.removesuffix("\n...")) if key == "patch" else first[key] == value
            assert same, (block.where, key, first[key])


def test_the_synopsis_names_only_options_each_command_takes() -> None:
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for block in shown_by("synopsis"):
        command = None
        for line in block.text.split("\n"):
            words = line.split()
            if words[:1] == ["anchor-audit"]:
                command = words[1] if len(words) > 1 and words[1] in commands else None
            elif not line.startswith(" "):
                command = None  # the notes under the synopsis
            if command is None:
                continue
            known = {o for action in commands[command]._actions for o in action.option_strings}
            unknown = [f for f in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", line) if f not in known]
            assert not unknown, f"{block.where}: {command} takes no {unknown}"


def test_the_catalog_page_shows_fix_catalog_on_the_fixture(tmp_path, capsys, monkeypatch) -> None:
    from .catalog_fixture import build_catalog

    build_catalog(tmp_path)
    monkeypatch.chdir(tmp_path)
    (block,) = shown_by("catalog-fix")
    argv = _commands(block.text.split("\n", 1)[0])[0]
    assert main(argv) == 1
    _compare("catalog-fix", "$ anchor-audit " + shlex.join(argv) + "\n" + capsys.readouterr().out)


# ------------------------------------------------------------------ the real Megatron-Bridge, where it is here


def _megatron_bridge() -> str:
    where = os.environ.get("ANCHOR_AUDIT_MEGATRON_BRIDGE")
    if not where or not Path(where).is_dir():
        pytest.skip("needs ANCHOR_AUDIT_MEGATRON_BRIDGE: a local git copy of NVIDIA-NeMo/Megatron-Bridge")
    return where


def test_the_getting_started_page_shows_megatron_bridge_pr_2910s_impact(capsys, tmp_path, monkeypatch) -> None:
    repo = _megatron_bridge()
    monkeypatch.chdir(tmp_path)
    code = main(["impact", "80a8070a1~1", "80a8070a1", "--repo", repo, "--all", "skills", "--in-repo"])
    assert code == 1
    _compare("mb-impact", capsys.readouterr().out)


def test_the_commands_page_shows_the_tp_dp_skills_history(capsys, monkeypatch) -> None:
    from .conftest import SHARED_SKILL

    repo = _megatron_bridge()
    if not SHARED_SKILL.is_dir():
        pytest.skip(f"needs the published skill at {SHARED_SKILL}")
    monkeypatch.chdir(ROOT)
    (block,) = [b for b in shown_by("mb-history") if b.text.startswith("$ ")]
    argv = _commands(block.text.split("\n", 1)[0])[0]
    assert main([a.replace("MEGATRON_BRIDGE", repo) for a in argv]) == 0
    _compare("mb-history", "$ anchor-audit " + shlex.join(argv) + "\n" + capsys.readouterr().out)


def test_the_statuses_page_gives_the_figures_of_megatron_bridges_skills(capsys, tmp_path, monkeypatch) -> None:
    repo = _megatron_bridge()
    lm = os.environ.get("ANCHOR_AUDIT_MEGATRON_LM")
    if not lm:
        pytest.skip("needs ANCHOR_AUDIT_MEGATRON_LM: a local git copy of NVIDIA/Megatron-LM, for the submodule")
    monkeypatch.chdir(tmp_path)
    args = ["check", "--repo", repo, "--ref", "HEAD", "--in-repo", "--all", "skills",
            "--submodule", f"3rdparty/Megatron-LM={lm}", "--format", "json"]  # fmt: skip
    assert main(args) == 1
    data = json.loads(capsys.readouterr().out)
    summary = data["summary"]
    anchors, claims = summary["anchors"], summary["claims"]
    quoting = sum(1 for skill in data["skills"] if skill["anchors"])
    said = (f"Quotes: {sum(anchors.values())}, in {quoting} of the skills: **{anchors['exact']} exact, {anchors['moved']} moved, "
            f"{anchors['relocated']} relocated, {anchors['changed']} changed, {anchors['missing']} missing**. "
            f"Claims: {sum(claims.values())}: **{claims['code_verified']} code_verified**")  # fmt: skip
    (block,) = shown_by("mb-skills")
    page = " ".join(block.page.read_text(encoding="utf-8").split())
    assert said in page, said
    assert f"**{claims['broken']} broken**, **{claims['unverifiable']} unverifiable**" in page and f"**{claims['doc_only']} doc_only, {claims['unlinked']} unlinked**" in page
    mismatches = summary["card_mismatches"]
    assert (f"{mismatches} card mismatches" if mismatches != 1 else "1 card mismatch (") in page
    promises = summary["promises"]
    evidence, symbols = promises["evidence"], promises["symbol"]
    assert (f"{evidence['missing']} of {sum(evidence.values())} card.yaml evidence paths are missing and "
            f"{evidence['unverifiable']} entries are free text") in page
    assert f"{promises['reference']['exists']} `@path` references exist" in page
    are = "is" if symbols["missing"] == 1 else "are"
    assert (f"{symbols['exists']} example symbols resolve (names in SKILL.md and in the pages), {symbols['missing']} {are} missing" in page
            and f"and {symbols['unverifiable']} cannot be resolved statically" in page)  # fmt: skip
    assert promises["tests"] == {"differs": 1, "missing": 1} and "the two test promises fail" in page


def _cards_command(start: list[str], sources: tuple[str, str, str], skill_dirs: tuple[str, ...] = ()) -> list[str]:
    """The command docs/real-cards.md shows that begins with ``start``, its placeholders the local copies
    (``SKILL_DIR...``: each of ``skill_dirs``)."""
    repo, catalog, lm = sources
    shown = [argv for block in blocks(ROOT / "docs" / "real-cards.md") for argv in _commands(block.text)]
    argv = next(a for a in shown if a[: len(start)] == start)
    names = {"SKILLS_CATALOG": catalog, "MEGATRON_BRIDGE": repo, "MEGATRON_LM": lm}
    out: list[str] = []
    for word in argv:
        if word in ("SKILL_DIR...", "SKILL_DIR"):
            out += list(skill_dirs)
            continue
        for name, value in names.items():
            word = word.replace(name, value)
        out.append(word)
    return out


def _cards_sources() -> tuple[str, str, str]:
    """(Megatron-Bridge, the catalog, Megatron-LM): local copies the real cards' figures are read from."""
    repo, catalog = _megatron_bridge(), os.environ.get("ANCHOR_AUDIT_SKILLS_CATALOG")
    lm = os.environ.get("ANCHOR_AUDIT_MEGATRON_LM")
    if not catalog or not lm:
        pytest.skip("needs ANCHOR_AUDIT_SKILLS_CATALOG and ANCHOR_AUDIT_MEGATRON_LM: local copies of the catalog "
                    "and of NVIDIA/Megatron-LM")  # fmt: skip
    return repo, catalog, lm


def test_the_real_cards_page_gives_the_figures_of_the_megatron_bridge_cards(capsys, tmp_path, monkeypatch) -> None:
    """docs/real-cards.md's totals, from the command it gives, where the catalog and both repositories are here."""
    sources = _cards_sources()
    monkeypatch.chdir(tmp_path)  # no anchors.yaml here: the cards judged with no registry
    main(_cards_command(["check", "--catalog"], sources))
    cards = [s for s in json.loads(capsys.readouterr().out)["skills"] if s["name"].startswith("nemo-mbridge-")]
    verdicts = [c["verdict"] for s in cards for c in s["claims"] if "code_verified" in c["declared"]]
    constraints = [p["status"] for s in cards for p in s["promises"] if p["kind"] == "constraint"]
    count = {v: verdicts.count(v) for v in ("code_verified", "broken", "unverifiable", "unlinked")}
    page = " ".join((ROOT / "docs" / "real-cards.md").read_text(encoding="utf-8").split())
    assert (f"| **all 18** | | **{len(verdicts)}** | **{count['code_verified']}** | **{count['broken']}** | "
            f"**{count['unverifiable']}** | **{count['unlinked']}** |") in page
    assert f"{count['code_verified'] + count['broken']} of the {len(verdicts)} claims get a verdict" in page
    assert (f"{len(constraints)} sentences on {sum(1 for s in cards if any(p['kind'] == 'constraint' for p in s['promises']))} "
            f"cards: {constraints.count('holds')} are decided by a gate and hold") in page
    broken = sum(constraints.count(status) for status in ("differs", "missing"))
    said = {0: "none is broken", 1: "one is broken"}.get(broken, f"{broken} are broken")
    assert f"; {said}; {constraints.count('unverifiable')} are unverifiable" in page


def test_the_real_cards_page_gives_the_figures_at_each_cards_validation_day(capsys, tmp_path, monkeypatch) -> None:
    """docs/real-cards.md's figures at ``--ref validated``, from the command it gives."""
    sources = _cards_sources()
    monkeypatch.chdir(tmp_path)  # no anchors.yaml here
    cards = sorted(str(p.parent) for p in Path(sources[1]).glob("skills/nemo-mbridge-*/card.yaml"))
    main(_cards_command(["check", "SKILL_DIR..."], sources, tuple(cards)))
    skills = json.loads(capsys.readouterr().out)["skills"]
    verdicts = [c["verdict"] for s in skills for c in s["claims"] if "code_verified" in c["declared"]]
    constraints = [p["status"] for s in skills for p in s["promises"] if p["kind"] == "constraint"]
    page = " ".join((ROOT / "docs" / "real-cards.md").read_text(encoding="utf-8").split())
    assert "broken" not in verdicts and not {"differs", "missing"} & set(constraints)
    assert (f"There {verdicts.count('code_verified')} of the {len(verdicts)} `code_verified` claims hold, "
            f"{verdicts.count('unverifiable')} are unverifiable and {verdicts.count('unlinked')} unlinked; "
            f"{constraints.count('holds')} of the {len(constraints)} constraint sentences hold, "
            f"{constraints.count('unverifiable')} are unverifiable; none is broken.") in page


def test_the_real_cards_page_shows_init_drafts_that_agree_with_no_registry(capsys, tmp_path, monkeypatch) -> None:
    """For every card, ``init`` ends with exit 0, and ``check`` on its draft gives each claim the verdict
    ``check`` with no registry gives (the page's three commands)."""
    sources = _cards_sources()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANCHOR_AUDIT_CACHE", str(tmp_path / "cache"))
    for card in sorted(Path(sources[1]).glob("skills/nemo-mbridge-*/card.yaml")):
        skill = (str(card.parent),)
        assert main(_cards_command(["init"], sources, skill)) == 0, card.parent.name
        (tmp_path / "draft.yaml").write_text(capsys.readouterr().out, encoding="utf-8")
        verdicts = []
        for start in (["check", "--spec"], ["check", "SKILL_DIR"]):
            main(_cards_command(start, sources, skill))
            report = json.loads(capsys.readouterr().out)
            verdicts.append({c["id"]: c["verdict"] for s in report["skills"] for c in s["claims"]})
        assert verdicts[0] == verdicts[1], card.parent.name


def test_the_commands_page_shows_the_tp_dp_skills_release_matrix(capsys, monkeypatch) -> None:
    from .conftest import SHARED_SKILL

    repo = _megatron_bridge()
    if not SHARED_SKILL.is_dir():
        pytest.skip(f"needs the published skill at {SHARED_SKILL}")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "100")
    (block,) = shown_by("mb-matrix")
    argv = _commands(block.text.split("\n", 1)[0])[0]
    assert main([a.replace("MEGATRON_BRIDGE", repo) for a in argv]) == 0
    out = capsys.readouterr().out.replace(repo, "MEGATRON_BRIDGE")
    _compare("mb-matrix", "$ anchor-audit " + shlex.join(argv) + "\n" + out)


def test_the_release_matrix_picture_is_what_matrix_draws(capsys, monkeypatch) -> None:
    """docs/matrix-tp-dp.svg (in getting-started.md and commands.md): the tp-dp skill's heat map, as --format svg draws
    it from a local Megatron-Bridge copy (its path written as the repository's name)."""
    from .conftest import SHARED_SKILL

    repo = _megatron_bridge()
    if not SHARED_SKILL.is_dir():
        pytest.skip(f"needs the published skill at {SHARED_SKILL}")
    monkeypatch.chdir(ROOT)
    assert main(["matrix", os.path.relpath(SHARED_SKILL), "--repo", repo, "--format", "svg"]) == 0
    drawn = capsys.readouterr().out.replace(repo, "NVIDIA-NeMo/Megatron-Bridge")
    assert drawn == (ROOT / "docs" / "matrix-tp-dp.svg").read_text(encoding="utf-8")


def test_the_pages_picture_is_self_contained_and_shows_the_break() -> None:
    """What any checkout can check of the committed picture: XML, nothing fetched or run, v0.6.0's B."""
    import xml.etree.ElementTree as ElementTree

    svg = "{http://www.w3.org/2000/svg}"
    text = (ROOT / "docs" / "matrix-tp-dp.svg").read_text(encoding="utf-8")
    root = ElementTree.fromstring(text.encode())
    assert not {e.tag.removeprefix(svg) for e in root.iter()} & {"script", "image", "a", "style", "foreignObject"}
    cells = {c.findtext(f"{svg}title"): c.get("data-verdict") for c in root.iter(f"{svg}g") if c.get("class") == "cell"}
    assert cells["launch_env_wiring at v0.6.0: broken"] == "B"
    assert cells["launch_env_wiring at v0.5.1: code_verified"] == "V"
    assert "](matrix-tp-dp.svg)" in (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")


def test_the_settings_and_registries_the_pages_show_load(tmp_path, capsys, monkeypatch) -> None:
    """The catalog page's fail-on-codes line is a setting that works; anchors-yaml.md's catalog registry loads."""
    from anchor_audit.spec.registry import load_spec

    (toml,) = [b for b in blocks(ROOT / "docs" / "catalog.md") if b.language == "toml"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "anchor-audit.toml").write_text(toml.text)
    skill = tmp_path / "s"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n\nSee `pkg/gone.py`.\n")
    from .hostile.conftest import make_code_repo

    repo = make_code_repo(tmp_path / "code").path
    assert main(["check", "s", "--repo", str(repo), "--ref", "HEAD"]) == 0  # AA406 is AA4: never fails
    assert capsys.readouterr().out.rstrip().endswith("exit 0 (no drift that fail-on-codes fails on)")
    (catalog_registry,) = [b for b in blocks(ROOT / "docs" / "anchors-yaml.md")
                           if b.language == "yaml" and "catalog:" in b.text]  # fmt: skip
    (tmp_path / "anchors.yaml").write_text(catalog_registry.text)
    spec = load_spec(tmp_path / "anchors.yaml")
    assert spec.source.catalog == tmp_path / "../skills-catalog" and spec.skills[0].name == "plan-skill"
