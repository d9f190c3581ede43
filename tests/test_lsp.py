"""``anchor-audit lsp`` over its real stdio: a client speaks JSON-RPC to the server started as a subprocess."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import DEMO, GitRepo, empty_repo, git
from .lspclient import LspClient, apply_edits

OVERLAP = "src/demo/overlap.py"
SKILL = DEMO / "skills" / "demo-overlap"
TWO_IMPORTS = ("from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n")
HEADER_LINE = 9  # 0-based: the fence header ```32:38:src/demo/overlap.py is SKILL.md's line 10


@pytest.fixture
def workspace(make_repo, tmp_path) -> tuple[Path, GitRepo]:
    """A skills folder beside the code: the registry pins the code's main, where a commit moved every quote."""
    repo = make_repo()
    repo.edit(OVERLAP, *TWO_IMPORTS)
    repo.commit("two imports on top")
    root = tmp_path / "skills-repo"
    shutil.copytree(SKILL, root / "skills" / "demo-overlap")
    registry = (DEMO / "anchors.yaml").read_text()
    registry = registry.replace("https://git.example.invalid/demo-trainer.git", str(repo.path)).replace("ref: v1", "ref: main")
    (root / "anchors.yaml").write_text(registry)
    return root, repo


@pytest.fixture
def client(tmp_path):
    started: list[LspClient] = []

    def start(cwd: Path, command: list[str] | None = None) -> LspClient:
        started.append(LspClient(cwd, env={"ANCHOR_AUDIT_CACHE": str(tmp_path / "cache")}, command=command))
        return started[-1]

    yield start
    for one in started:
        one.stop()
        assert one.garbage == []  # stdout carried protocol messages only


def opened(client, root: Path, options=None, command=None) -> tuple[LspClient, Path, str, list[dict]]:
    """A server on ``root`` with the demo skill open: (the client, SKILL.md, its text, its first diagnostics)."""
    lsp = client(root, command)
    lsp.initialize(root, options)
    skill_md = root / "skills" / "demo-overlap" / "SKILL.md"
    text = lsp.open(skill_md)
    return lsp, skill_md, text, lsp.diagnostics(skill_md, lambda d: len(d) > 0)


def moved(diagnostics: list[dict]) -> list[dict]:
    return [d for d in diagnostics if d["code"] == "AA101"]


def test_a_moved_quote_is_a_diagnostic_on_its_fence_and_its_code_action_heals_it(workspace, client) -> None:
    root, _ = workspace
    lsp, skill_md, text, found = opened(client, root)
    first = moved(found)[0]
    header = text.split("\n")[HEADER_LINE]
    assert header == "```32:38:src/demo/overlap.py"
    assert first["range"] == {"start": {"line": HEADER_LINE, "character": 3}, "end": {"line": HEADER_LINE, "character": 28}}
    assert first["message"] == "quote src/demo/overlap.py 32:38 moved: the code is at lines 34-39; use 34:40"
    assert (first["severity"], first["source"]) == (2, "anchor-audit")  # a warning, as check's level for AA101
    assert len(moved(found)) == 3

    actions = lsp.request("textDocument/codeAction", {
        "textDocument": {"uri": skill_md.as_uri()}, "range": first["range"], "context": {"diagnostics": [first]}})
    heal = next(a for a in actions if a["title"] == "Heal the quote: src/demo/overlap.py:34:40")
    assert heal["kind"] == "quickfix" and heal["isPreferred"] is True
    changes = heal["edit"]["changes"]
    assert set(changes) == {skill_md.as_uri(), (root / "anchors.yaml").as_uri()}  # the fence and the registry key
    healed = apply_edits(text, changes[skill_md.as_uri()])
    assert healed.split("\n")[HEADER_LINE] == "```34:40:src/demo/overlap.py"
    assert healed.replace("```34:40:", "```32:38:", 1) == text  # nothing else touched
    registry = apply_edits((root / "anchors.yaml").read_text(), changes[(root / "anchors.yaml").as_uri()])
    assert "- src/demo/overlap.py:34-40\n" in registry and "- src/demo/overlap.py:32-38\n" not in registry

    lsp.change(skill_md, healed, version=2)
    after = lsp.diagnostics(skill_md, lambda d: len(moved(d)) == 2)
    assert HEADER_LINE not in [d["range"]["start"]["line"] for d in moved(after)]


def test_hover_on_a_fence_shows_the_code_it_points_at(workspace, client) -> None:
    root, _ = workspace
    lsp, skill_md, _, _ = opened(client, root)
    answer = lsp.request("textDocument/hover", {"textDocument": {"uri": skill_md.as_uri()},
                                                "position": {"line": HEADER_LINE, "character": 5}})  # fmt: skip
    value = answer["contents"]["value"]
    assert value.startswith("**moved**: `src/demo/overlap.py` 32:38, found at `src/demo/overlap.py` 34-40")
    assert "```python\nif self.user.tp_overlap is True:\n    if model.tp_size < 2:" in value
    nothing = lsp.request("textDocument/hover", {"textDocument": {"uri": skill_md.as_uri()},
                                                 "position": {"line": 0, "character": 0}})  # fmt: skip
    assert nothing is None


def test_the_latest_edit_wins_and_a_broken_fence_is_said_on_its_line(workspace, client) -> None:
    root, _ = workspace
    lsp, skill_md, text, _ = opened(client, root)
    gone = text.replace("```32:38:src/demo/overlap.py", "```32:38:src/demo/gone.py")
    for version in range(2, 12):  # edits faster than checks: the last one is what the editor ends with
        lsp.change(skill_md, gone if version % 2 else text, version)
    lsp.change(skill_md, gone, 12)
    final = lsp.diagnostics(skill_md, lambda d: any(x["code"] == "AA107" for x in d))
    relocated = [d for d in final if d["code"] == "AA107"]  # the code is found in overlap.py, not in gone.py
    assert relocated[0]["range"]["start"]["line"] == HEADER_LINE
    assert relocated[0]["message"].startswith("quote src/demo/gone.py 32:38: the code is now in src/demo/overlap.py")


def test_a_saved_code_file_rechecks_the_skills_that_quote_it_in_the_working_tree(make_repo, client) -> None:
    repo = make_repo()
    shutil.copytree(SKILL, repo.path / "skills" / "demo-overlap")
    repo.commit("the skill beside the code")
    lsp = client(repo.path)
    lsp.initialize(repo.path, {"source": "worktree"})
    skill_md = repo.path / "skills" / "demo-overlap" / "SKILL.md"
    lsp.open(skill_md)
    assert moved(lsp.diagnostics(skill_md)) == []
    code = repo.path / OVERLAP
    lsp.open(code, language="python")
    repo.edit(OVERLAP, *TWO_IMPORTS)  # the editor saved it
    lsp.save(code)
    again = lsp.diagnostics(skill_md, lambda d: len(moved(d)) == 3)
    assert moved(again)[0]["message"].endswith("use 34:40")
    assert "M src/demo/overlap.py" in git(repo.path, "status", "--porcelain")  # nothing written in the repository
    assert any(r["method"] == "client/registerCapability" for r in lsp.server_requests)  # it asked to watch files
    git(repo.path, "checkout", "-q", OVERLAP)  # changed outside the editor: the client's watcher says so
    lsp.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": code.as_uri(), "type": 2}]})
    assert moved(lsp.diagnostics(skill_md, lambda d: moved(d) == [])) == []


def test_bad_settings_are_said_and_ignored_and_the_server_exits_when_asked(workspace, client) -> None:
    root, _ = workspace
    lsp = client(root)
    lsp.initialize(root, {"source": "somewhere", "colour": 1})
    said = [lsp.wait_for("window/logMessage")["message"] for _ in range(2)]
    assert "anchor-audit: settings: source 'somewhere' ignored (one of auto, registry, worktree)" in said
    assert "anchor-audit: settings: unknown key 'colour' ignored" in said
    skill_md = root / "skills" / "demo-overlap" / "SKILL.md"
    lsp.open(skill_md)
    assert len(moved(lsp.diagnostics(skill_md, lambda d: len(d) > 0))) == 3  # the default source: the registry
    lsp.stop()
    assert lsp.process.returncode == 0


def test_a_registry_that_does_not_parse_is_said_on_the_skill(workspace, client) -> None:
    root, _ = workspace
    (root / "anchors.yaml").write_text("version: 1\nsource: [\n")
    _, _, _, found = opened(client, root)
    assert found[0]["message"].startswith("anchor-audit could not check this skill: ")
    assert "anchors.yaml" in found[0]["message"]


def action(lsp: LspClient, path: Path, line: int, title: str) -> dict:
    actions = lsp.request("textDocument/codeAction", {
        "textDocument": {"uri": path.as_uri()},
        "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
        "context": {"diagnostics": []}}) or []  # fmt: skip
    titles = [a["title"] for a in actions]
    assert title in titles, titles
    return next(a for a in actions if a["title"] == title)


def test_a_moved_path_is_renamed_by_its_code_action(tmp_path, client) -> None:
    code = empty_repo(tmp_path / "code")
    code.write("src/demo/plan.py", "x = 1\n")
    code.write("pyproject.toml", '[project]\nname = "demo"\n')
    code.write("src/demo/__init__.py", "")
    code.write("src/demo/data.py", "def _make_batch(cfg):\n    return cfg\n")
    code.commit("plan")
    (code.path / "src/demo/planning").mkdir()
    git(code.path, "mv", "src/demo/plan.py", "src/demo/planning/plan.py")
    code.commit("plan in its own package")
    root = tmp_path / "skills-repo"
    skill_md = root / "skills" / "planner" / "SKILL.md"
    skill_md.parent.mkdir(parents=True)
    skill_md.write_text("---\nname: planner\ndescription: plans\n---\n# Planner\n\nThe plan lives in `src/demo/plan.py`.\n"
                        "Batches come from `demo.data.make_batch`.\n")
    (root / "anchors.yaml").write_text(f"version: 1\nsource:\n  repo: {code.path}\n  ref: main\nskills:\n  planner:\n    path: skills/planner\n")
    lsp = client(root)
    lsp.initialize(root)
    text = lsp.open(skill_md)
    found = lsp.diagnostics(skill_md, lambda d: len(d) > 0)
    assert [(d["code"], d["range"]["start"]["line"]) for d in found] == [("AA406", 6), ("AA405", 7)]
    assert found[0]["range"]["start"]["character"] == text.split("\n")[6].index("src/demo/plan.py")
    rename = action(lsp, skill_md, 6, "Rename the path to src/demo/planning/plan.py")
    healed = apply_edits(text, rename["edit"]["changes"][skill_md.as_uri()])
    assert healed == text.replace("`src/demo/plan.py`", "`src/demo/planning/plan.py`")
    private = action(lsp, skill_md, 7, "Rename demo.data.make_batch to demo.data._make_batch (the name became private)")
    healed = apply_edits(healed, private["edit"]["changes"][skill_md.as_uri()])
    assert healed.endswith("Batches come from `demo.data._make_batch`.\n")
    lsp.change(skill_md, healed, 2)
    assert lsp.diagnostics(skill_md, lambda d: d == []) == []


def test_a_card_tag_is_updated_and_a_finding_accepted_in_the_baseline_once_its_reason_is_written(workspace, client) -> None:
    root, _ = workspace
    card = root / "skills" / "demo-overlap" / "card.yaml"
    card.write_text(card.read_text().replace("  tp_gate:\n    - code_verified", "  tp_gate:\n    - doc_only"))
    lsp = client(root)
    lsp.initialize(root, {"baseline": "baseline.yaml"})
    text = lsp.open(card, language="yaml")
    found = lsp.diagnostics(card, lambda d: len(d) > 0)
    assert [(d["code"], d["range"]["start"]["line"]) for d in found] == [("AA203", 4)]
    assert text.split("\n")[4][found[0]["range"]["start"]["character"]:found[0]["range"]["end"]["character"]] == "tp_gate"
    update = action(lsp, card, 4, "Update card.yaml's tags to the verdicts")
    updated = apply_edits(text, update["edit"]["changes"][card.as_uri()])
    assert "  tp_gate:\n    - code_verified\n" in updated

    accept = action(lsp, card, 4, "Accept AA203 in the baseline (then write why)")
    create, insert = accept["edit"]["documentChanges"]
    baseline = root / "baseline.yaml"
    assert create == {"kind": "create", "uri": baseline.as_uri(), "options": {"ignoreIfExists": True}}
    written = apply_edits("", insert["edits"])
    assert "  - key: demo-overlap:AA203:tp_gate\n" in written and "reason: 'TODO: say why" in written
    baseline.write_text(written)  # the editor applied it; the reason is still a TODO: nothing is accepted yet
    lsp.notify("textDocument/didSave", {"textDocument": {"uri": baseline.as_uri()}})
    lsp.change(card, text, 2)
    assert [d["code"] for d in lsp.diagnostics(card, lambda d: len(d) > 0)] == ["AA203"]
    baseline.write_text(written.replace("'TODO: say why this finding is acceptable", "'the card is kept doc_only on purpose"))
    lsp.open(baseline, language="yaml")
    lsp.notify("textDocument/didSave", {"textDocument": {"uri": baseline.as_uri()}})
    assert lsp.diagnostics(card, lambda d: d == []) == []


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from anchor_audit.lsp.edits import text_edits, utf16  # noqa: E402
from anchor_audit.lsp.session import Settings  # noqa: E402

LINES = st.lists(st.sampled_from(["a\n", "b\n", "```1:2:x.py\n", "\n", "c"]), max_size=8).map("".join)


@given(LINES, LINES)
def test_the_edits_between_two_texts_turn_one_into_the_other(before: str, after: str) -> None:
    assert apply_edits(before, [{"range": _plain(e.range), "newText": e.new_text} for e in text_edits(before, after)]) == after


def _plain(r) -> dict:
    return {"start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}


def test_columns_are_counted_in_utf16_units() -> None:
    assert utf16("a😀b", 2) == 3 and utf16("aéb", 2) == 2 and utf16("", 0) == 0


def test_settings_from_a_client_keep_what_is_right_and_say_what_is_not() -> None:
    settings, said = Settings.read({"anchor-audit": {"source": "worktree", "spec": 3, "baseline": "b.yaml"}})
    assert (settings.source, settings.spec, settings.baseline) == ("worktree", None, "b.yaml")
    assert said == ["settings: spec '3' ignored (a path)"]
    assert Settings.read(None) == (Settings(), []) and Settings.read([1])[1] == ["settings: not a mapping; ignored"]


def test_settings_never_point_code_actions_at_a_file_outside_the_workspace(tmp_path: Path) -> None:
    """What a workspace's settings file says reaches the server as the client's: a baseline or registry outside
    the workspace (absolute, climbing, or through a link) is ignored and said."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "out").symlink_to(tmp_path)
    settings, said = Settings.read({"baseline": "/etc/passwd", "spec": "../elsewhere.yaml"}, root)
    assert (settings.baseline, settings.spec) == (None, None)
    assert said == ["settings: spec '../elsewhere.yaml' is outside the workspace; ignored (code actions edit it)",
                    "settings: baseline '/etc/passwd' is outside the workspace; ignored (code actions edit it)"]
    assert Settings.read({"baseline": "out/x.yaml"}, root)[0].baseline is None  # a link out of it
    assert Settings.read({"baseline": "ci/baseline.yaml", "spec": str(root / "anchors.yaml")}, root)[1] == []


def test_the_editors_page_shows_a_diagnostic_as_the_server_sends_it(workspace, client) -> None:
    import json

    from .docpages import shown_by

    root, _ = workspace
    first = moved(opened(client, root)[3])[0]
    for block in shown_by("tests/test_lsp.py::test_the_editors_page_shows_a_diagnostic_as_the_server_sends_it"):
        assert block.text == json.dumps(first, indent=2, sort_keys=True) + "\n", block.where


def _editor_snippets() -> list[tuple[str, list[str], object]]:
    """(editor, the server's command, its initialization options) as docs/editors.md gives them."""
    import json
    import re
    import tomllib

    from .conftest import ROOT
    from .docpages import blocks

    page = {b.language: b.text for b in blocks(ROOT / "docs" / "editors.md")}
    vscode = json.loads(re.sub(r"//[^\n]*", "", page["jsonc"]))
    lua = page["lua"]
    cmd = re.search(r"cmd = \{([^}]*)\}", lua)
    options = re.search(r"init_options = \{([^}]*)\}", lua)
    assert cmd and options
    helix = tomllib.loads(page["toml"])["language-server"]["anchor-audit"]
    return [
        ("VS Code", [vscode["glspc.server.command"], *vscode["glspc.server.commandArguments"]],
         vscode["glspc.server.initializationOptions"]),
        ("Neovim", re.findall(r'"([^"]*)"', cmd.group(1)), dict(re.findall(r'(\w+) = "([^"]*)"', options.group(1)))),
        ("Helix", [helix["command"], *helix["args"]], helix["config"]),
    ]  # fmt: skip


@pytest.mark.parametrize("editor", ["VS Code", "Neovim", "Helix"])
def test_each_editors_snippet_starts_the_server_and_gets_diagnostics(editor, workspace, client) -> None:
    command, options = next((c, o) for name, c, o in _editor_snippets() if name == editor)
    assert command == ["anchor-audit", "lsp"]
    found = shutil.which(command[0])
    if found is None:
        pytest.skip("anchor-audit is not on PATH (pip install . puts it there)")
    root, _ = workspace
    lsp, _, _, diagnostics = opened(client, root, options, [found, *command[1:]])
    assert len(moved(diagnostics)) == 3
    assert not [m for m in lsp.seen if m["method"] == "window/logMessage" and "ignored" in m["params"]["message"]]


def test_a_uri_no_file_can_have_spoils_nothing_and_a_huge_buffer_is_refused_as_check_refuses_it(
    workspace, client
) -> None:
    """A document at ``file:///x%00/SKILL.md`` is not a file: it is passed over, and the skill still checks and
    hovers; a SKILL.md buffer over 2 MiB is said on its first line, as ``check`` refuses the file."""
    root, _ = workspace
    lsp = client(root)
    lsp.initialize(root)
    lsp.notify("textDocument/didOpen", {"textDocument": {
        "uri": "file:///tmp/x%00y/SKILL.md", "languageId": "markdown", "version": 1, "text": "# x\n"}})  # fmt: skip
    skill_md = root / "skills" / "demo-overlap" / "SKILL.md"
    text = lsp.open(skill_md)
    assert moved(lsp.diagnostics(skill_md, lambda d: len(d) > 0))
    answer = lsp.request("textDocument/hover", {"textDocument": {"uri": skill_md.as_uri()},
                                                "position": {"line": HEADER_LINE, "character": 5}})  # fmt: skip
    assert answer["contents"]["value"].startswith("**moved**")
    lsp.change(skill_md, text + "x" * (2 * 1024 * 1024 + 1), version=2)
    (said,) = lsp.diagnostics(skill_md, lambda d: len(d) == 1 and "MiB" in d[0]["message"])
    assert said["message"].endswith("SKILL.md: larger than 2 MiB; not a skill file")
    assert "Traceback" not in lsp.stderr_so_far()


def test_a_hover_writes_a_hostile_name_as_one_visible_line() -> None:
    from anchor_audit.lsp.features import _code, _text, path_of

    assert _code("pkg/pl\ran`x\x1b[31m.py") == "pkg/pl\\x0dan'x\\x1b[31m.py"
    assert "\r" not in _text("a\rb") and "\u202e" not in _text("a\u202eb")
    assert path_of("file:///tmp/a%00b") is None and path_of("file:///tmp/a%0db") is None
    assert path_of("file:///tmp/a%20b.md") == Path("/tmp/a b.md")


def test_a_malformed_frame_is_one_line_on_stderr_never_a_traceback(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    frames = b"Content-Length: 5\r\n\r\n{bad}" + b'Content-Length: 12\r\n\r\n{"\x1b[31m": 1}'
    env = {**os.environ, "ANCHOR_AUDIT_CACHE": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "anchor_audit", "lsp"], input=frames, capture_output=True,
                          timeout=60, cwd=tmp_path, env=env)  # fmt: skip
    err = done.stderr.decode()
    assert "Traceback" not in err and "\x1b" not in err
    assert err.splitlines()[0].startswith("anchor-audit lsp: error: Unable to handle message: JSONDecodeError")


def test_a_cards_thousands_of_findings_split_its_text_once(tmp_path: Path, monkeypatch) -> None:
    """Diagnostics for a card of many claims: the card's text is split into lines once, not once per finding
    (a 2 MB card of 60,000 claims took minutes to its first diagnostics)."""
    from anchor_audit.commands.context import run_context
    from anchor_audit.lsp import features
    from anchor_audit.lsp.session import Session, Settings
    from anchor_audit.report.reporter import Reporter

    from .hostile.conftest import make_code_repo, make_skill

    repo = make_code_repo(tmp_path / "code")
    card = 'validation_status:\n' + "".join(f"  claim_{i}:\n    - code_verified\n" for i in range(300))
    skill = make_skill(tmp_path / "skill", "Nothing.\n", card=card)
    (tmp_path / "anchors.yaml").write_text(f"version: 1\nsource: {{repo: {repo.path}, ref: v1}}\nskills: {{}}\n")
    splits: list[int] = []
    real = features.split_lines_keepends
    monkeypatch.setattr(features, "split_lines_keepends", lambda text: splits.append(len(text)) or real(text))
    with run_context(Reporter(quiet=True), str(tmp_path / "cache"), True) as ctx:
        check = Session(tmp_path, Settings(), ctx).check(skill, {})
        found = features.diagnostics(check, {})
    assert len(found[skill / "card.yaml"]) == 300 and len(splits) == 1


def test_an_open_registry_that_check_refuses_is_said_on_its_own_line(workspace, client) -> None:
    """anchors.yaml open in the editor: what check would refuse is an error on the line it names; mended, cleared."""
    root, _ = workspace
    lsp = client(root)
    lsp.initialize(root)
    registry = root / "anchors.yaml"
    good = registry.read_text()
    bad = good.replace("version: 1", "version: 7", 1)
    lsp.open(registry, bad, language="yaml")
    (said,) = lsp.diagnostics(registry, lambda d: len(d) == 1)
    assert said["severity"] == 1 and "version" in said["message"] and said["source"] == "anchor-audit"
    lsp.change(registry, good, version=2)
    assert lsp.diagnostics(registry, lambda d: d == []) == []


def test_in_a_catalog_checkout_without_a_registry_the_skill_is_not_checked_against_the_catalog(tmp_path, client
                                                                                               ) -> None:  # fmt: skip
    root = tmp_path / "catalog"
    (root / "components.d").mkdir(parents=True)
    (root / "components.d" / "demo.yml").write_text("repo: acme/demo\nskills:\n  - path: skills/demo-overlap\n"
                                                    "    catalog_dir: demo-overlap\n")  # fmt: skip
    shutil.copytree(SKILL, root / "skills" / "demo-overlap")
    git(root, "init", "-q", "-b", "main")
    GitRepo(root).commit("the catalog")
    _, _, _, found = opened(client, root)
    assert [d for d in found if d.get("code") in ("AA103", "AA406")] == []  # not every quote "missing"
    assert "a skills catalog (components.d), not the code its skills quote" in found[0]["message"]
    assert "anchor-audit check --catalog" in found[0]["message"]
