"""The language server (``anchor-audit lsp``): findings in the editor as a skill is written, fixes one keystroke away.

:mod:`.session` checks one skill from the editor's text (no protocol); :mod:`.features` turns a check into
diagnostics, hovers and code actions; :mod:`.edits` counts text as the protocol does; :mod:`.server` is the
pygls wiring and the worker thread.
"""
