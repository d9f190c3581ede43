"""A small skills catalog with every kind of drift, built with git in a temporary directory.

Three components: ``acme/alpha`` (six skills: clean, a moved quote, a changed quote with a broken claim, a copy
behind upstream, a copy changed in the catalog, broken citations), ``acme/beta`` (four: clean, a folder the
repository does not have, a command and a Python floor that no longer hold, an unreadable SKILL.md), and
``acme/gamma``, whose repository cannot be reached (two skills skipped).  Two folders no component names: one
listed in ``catalog-exceptions.yml`` with a reason, one listed nowhere.  The catalog is a git checkout whose last
change (2026-03-01) is newer than beta's newest commit (2026-01-01): a mirror older than the catalog.
"""

from __future__ import annotations

from pathlib import Path

from .conftest import GitRepo, git

PLAN = "class Planner:\n    def plan(self, cfg):\n        if cfg.tp > 1:\n            cfg.overlap = True\n        return cfg\n"
QUOTE = "```3:4:pkg/plan.py\nif cfg.tp > 1:\n    cfg.overlap = True\n```\n"
CLI = (
    "import argparse\n\ndef main():\n    p = argparse.ArgumentParser()\n    p.add_argument('config')\n"
    "    p.add_argument('--dry-run', action='store_true')\n    p.parse_args()\n"
)


def skill_md(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: a catalog fixture skill\n---\n\n# {name}\n\n{body}"


ALPHA_SKILLS = {
    "a-clean": skill_md("a-clean", "The planner lives in `pkg/plan.py`.\n"),
    "a-moved": skill_md("a-moved", "The gate:\n\n" + QUOTE),
    "a-changed": skill_md("a-changed", "The gate:\n\n```3:4:pkg/plan.py\nif cfg.pp > 1:\n    cfg.overlap = True\n```\n"),
    "a-behind": skill_md("a-behind", "Version two of this text.\n"),
    "a-ahead": skill_md("a-ahead", "Upstream's text.\n"),
    "a-citations": skill_md(
        "a-citations",
        "Edit `pkg/launcher.py` and read [the notes](references/notes.md).\n\n"
        "```python\nfrom pkg.plan import Scheduler\n```\n",
    ),
}
ALPHA_CARDS = {"a-changed": "validation_status:\n  gate:\n    - file_exists\nevidence:\n  - pkg/gate.py\n"}
BETA_SKILLS = {
    "b-clean": skill_md("b-clean", "Run `python -m tool.cli cfg.yaml --dry-run`.\n"),
    "b-cli": skill_md("b-cli", "```bash\npython -m tool.cli cfg.yaml --wet-run\n```\n\nNeeds Python 3.10+.\n"),
    "b-unreadable": skill_md("b-unreadable", "```3:4:pkg/plan.py\nif cfg.tp > 1:\n"),  # the fence never closes
}


def build_catalog(root: Path) -> tuple[Path, list[str]]:
    """The catalog at ``root/catalog`` and the ``--mirror`` arguments that read its components."""
    alpha = _repo(root / "alpha")
    for name, text in ALPHA_SKILLS.items():
        alpha.write(f"skills/{name}/SKILL.md", text.replace("Version two", "Version one"))
    for name, text in ALPHA_CARDS.items():
        alpha.write(f"skills/{name}/card.yaml", text)
    alpha.write("pkg/plan.py", PLAN)
    alpha.commit("alpha: the planner and its skills", date="2026-01-10T00:00:00")
    alpha.write("skills/a-behind/SKILL.md", ALPHA_SKILLS["a-behind"])
    alpha.commit("a-behind: version two", date="2026-02-01T00:00:00")
    alpha.write("skills/a-behind/SKILL.md", ALPHA_SKILLS["a-behind"].replace("Version two", "Version three"))
    alpha.write("pkg/plan.py", "import os\n" + PLAN)  # every quote of plan.py one line lower
    alpha.commit("plan: import os; a-behind: version three", date="2026-04-01T00:00:00")

    beta = _repo(root / "beta")
    beta.write("pyproject.toml", '[project]\nname = "tool"\nrequires-python = ">=3.11"\n')
    beta.write("tool/__init__.py", "")
    beta.write("tool/cli.py", CLI)
    for name, text in BETA_SKILLS.items():
        beta.write(f"skills/{name}/SKILL.md", text)
    beta.commit("beta: the tool and its skills", date="2026-01-01T00:00:00")

    catalog = root / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog, "alpha", "acme/alpha", list(ALPHA_SKILLS))
    _component(catalog, "beta", "acme/beta", [*BETA_SKILLS, "b-absent"])
    _component(catalog, "gamma", "acme/gamma", ["g-one", "g-two"])
    for name, text in ALPHA_SKILLS.items():  # as synced, but a-behind one version late and a-ahead edited here
        _write(catalog / "skills" / name / "SKILL.md", text.replace("Upstream's text", "The catalog's own text"))
    for name, text in ALPHA_CARDS.items():
        _write(catalog / "skills" / name / "card.yaml", text)
    for name, text in BETA_SKILLS.items():
        _write(catalog / "skills" / name / "SKILL.md", text)
    _write(catalog / "skills" / "b-absent" / "SKILL.md", skill_md("b-absent", "A skill beta no longer has.\n"))
    for name in ("g-one", "g-two", "local-notes", "stray"):
        _write(catalog / "skills" / name / "SKILL.md", skill_md(name, "Text.\n"))
    _write(catalog / "catalog-exceptions.yml",
           "exceptions:\n  - dir: local-notes\n    reason: kept here on purpose, no upstream\n")  # fmt: skip
    git(catalog, "init", "-q", "-b", "main")
    GitRepo(catalog).commit("the catalog, synced", date="2026-03-01T00:00:00")
    mirrors = ["--mirror", f"acme/alpha={alpha.path}", "--mirror", f"acme/beta={beta.path}",
               "--mirror", f"acme/gamma={root / 'gamma-is-gone'}"]  # fmt: skip
    return catalog, mirrors


def release_alpha(root: Path) -> None:
    """Tag alpha twice: v1.0.0 before plan.py moved its quotes, v1.1.0 after (the matrix's releases)."""
    git(root / "alpha", "tag", "v1.0.0", "HEAD~1")
    git(root / "alpha", "tag", "v1.1.0", "HEAD")


def _repo(path: Path) -> GitRepo:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    return GitRepo(path)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _component(catalog: Path, name: str, repo: str, dirs: list[str]) -> None:
    lines = [f"name: {name}", f"repo: {repo}", "skills:"] + [f"  - path: skills/{d}\n    catalog_dir: {d}" for d in dirs]
    (catalog / "components.d" / f"{name}.yml").write_text("\n".join(lines) + "\n")
