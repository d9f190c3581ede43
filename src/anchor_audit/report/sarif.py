"""SARIF 2.1.0: results on the skill's own lines, so code scanning annotates SKILL.md and card.yaml."""

from __future__ import annotations

import json
from typing import Any, TextIO

from .. import __version__
from ..findings import RULES, findings
from ..model import AuditReport

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/anchor-audit/anchor-audit"


def sarif_dict(report: AuditReport) -> dict[str, Any]:
    codes = list(RULES)
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "defaultConfiguration": {"level": rule.level},
        }
        for rule in RULES.values()
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
                        "artifactLocation": {"uri": f.file},
                        "region": {"startLine": f.line},
                    }
                }
            ],
            "partialFingerprints": {"anchorAuditKey/v1": f.key},
        }
        if f.key in report.accepted:
            result["suppressions"] = [{"kind": "external", "justification": "accepted in the anchor-audit baseline"}]
        results.append(result)
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "anchor-audit", "version": __version__, "informationUri": INFORMATION_URI,
                            "rules": rules}},
        "results": results,
        "properties": {"audited": {"repo": report.source.repo, "ref": report.source.ref,
                                   "commit": report.source.commit, "kind": report.source.kind}},
    }  # fmt: skip
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(report: AuditReport, stream: TextIO) -> None:
    stream.write(json.dumps(sarif_dict(report), indent=2, sort_keys=True, ensure_ascii=False) + "\n")
