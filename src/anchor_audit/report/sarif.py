"""SARIF 2.1.0: results on the skill's own lines, so code scanning annotates SKILL.md and card.yaml."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TextIO

from .. import __version__
from ..findings import RULES, findings
from ..findings.rules import Family
from ..model import AuditReport
from ..text.escape import uri_path
from .jsontext import dumps_indented

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"  # the root of the repository the run is in: code scanning resolves artifact URIs against it


def sarif_dict(report: AuditReport, root: Path | None = None) -> dict[str, Any]:
    """The SARIF log; artifact URIs are relative to ``root`` (the repository the skills are in, default: here)."""
    audit_rules = [rule for rule in RULES.values() if rule.family is not Family.IMPACT]  # impact has its own log
    codes = [rule.code for rule in audit_rules]
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": f"{rule.summary} {rule.why}"},
            "help": {"text": rule.act, "markdown": rule.act},
            "defaultConfiguration": {"level": rule.level},
        }
        for rule in audit_rules
    ]
    results = []
    for f in findings(report):
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": codes.index(f.code),
            "level": f.rule.level,
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.file, root), "uriBaseId": SRCROOT},
                        "region": {"startLine": f.line},
                    }
                }
            ],
            "partialFingerprints": {"anchorAuditKey/v1": f.key},
        }
        if f.owners:
            result["properties"] = {"owners": f.owners}
        if f.key in report.accepted:
            result["suppressions"] = [{"kind": "external", "justification": "accepted in the anchor-audit baseline"}]
        results.append(result)
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "anchor-audit", "version": __version__, "rules": rules}},
        "results": results,
        "properties": {"audited": {"repo": report.source.repo, "ref": report.source.ref,
                                   "commit": report.source.commit, "kind": report.source.kind}},
    }  # fmt: skip
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(report: AuditReport, stream: TextIO) -> None:
    stream.write(dumps_indented(sarif_dict(report, repository_root())) + "\n")


def repository_root() -> Path:
    """The work tree of the git repository the current folder is in (the folder itself outside one)."""
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def _uri(file: str, root: Path | None) -> str:
    """``file`` as a URI relative to ``root``: forward slashes, percent-encoded, no ``./``."""
    path = Path(file)
    if root is not None:
        absolute = (Path.cwd() / path).resolve() if not path.is_absolute() else path
        try:
            path = absolute.relative_to(root.resolve())
        except ValueError:
            path = Path(os.path.relpath(absolute, root))
    return uri_path(path.as_posix())
