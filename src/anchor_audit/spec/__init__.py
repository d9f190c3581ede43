"""The inputs as written: the registry (anchors.yaml), SKILL.md, card.yaml, a catalog's files."""

# The registry a command reads when --spec names none.
DEFAULT_SPEC = "anchors.yaml"
