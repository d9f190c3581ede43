"""Shared types: every stage speaks in these frozen values.

The data flow is spec -> source tree at a ref -> matches -> verdicts -> report:

* :class:`Quote`, :class:`Condition`, :class:`ClaimSpec`, :class:`Skill`,
  :class:`Spec` describe what a skill promises (``spec/``);
* :class:`QuoteMatch` and :class:`ConditionResult` say what the code at the
  ref shows (``match/``);
* :class:`ClaimVerdict`, :class:`SkillReport` and :class:`AuditReport` are the
  verdicts a renderer turns into text (``audit.py``, ``report/``).

Results are a closed set of values (a status enum per result), never
exceptions.
"""

from .results import (
    AuditReport,
    ClaimVerdict,
    ConditionResult,
    Evidence,
    PromiseResult,
    QuoteMatch,
    SkillReport,
    SourceInfo,
)
from .spec import (
    Card,
    CardAnchor,
    CardClaim,
    ClaimSpec,
    Condition,
    LineRange,
    Quote,
    ReleaseSpec,
    Skill,
    SkillSpec,
    SourceSpec,
    Spec,
    TestPromise,
    UnreadableSkill,
)
from .status import (
    KNOWN_TAGS,
    AnchorStatus,
    ChangeKind,
    ConditionStatus,
    EvidenceKind,
    ExitCode,
    Mismatch,
    PromiseKind,
    PromiseStatus,
    QuoteColumn,
    RegistryStatus,
    SourceKind,
    TextEnum,
    Verdict,
    assert_never,
    quote_column,
)

__all__ = [
    "assert_never",
    "quote_column",
    "QuoteColumn",
    "AnchorStatus",
    "AuditReport",
    "ChangeKind",
    "Card",
    "CardAnchor",
    "CardClaim",
    "ClaimSpec",
    "ClaimVerdict",
    "Condition",
    "ConditionResult",
    "ConditionStatus",
    "Evidence",
    "EvidenceKind",
    "ExitCode",
    "KNOWN_TAGS",
    "LineRange",
    "Mismatch",
    "PromiseKind",
    "PromiseResult",
    "PromiseStatus",
    "Quote",
    "QuoteMatch",
    "RegistryStatus",
    "ReleaseSpec",
    "Skill",
    "SkillReport",
    "SkillSpec",
    "SourceInfo",
    "SourceKind",
    "SourceSpec",
    "Spec",
    "TestPromise",
    "UnreadableSkill",
    "TextEnum",
    "Verdict",
]
