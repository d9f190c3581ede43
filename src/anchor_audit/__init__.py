"""anchor-audit: check that the code quotes and gating conditions of agent skills still hold.

The pipeline, one module each: :mod:`.spec` (anchors.yaml, SKILL.md,
card.yaml -> :mod:`.model`) -> :mod:`.source` (the tree at a ref) ->
:mod:`.match` (quotes and conditions) -> :mod:`.audit` (verdicts) ->
:mod:`.report` (text on a stream).
"""

__version__ = "0.1.0"
