"""Text at the edges: escaping per medium, credential redaction, lines as git counts them, YAML scalars written by
hand, and the user's files read and written the safe way."""
