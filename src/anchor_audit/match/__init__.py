"""Matchers: given the text of one file at the ref, does a quote or condition still hold?

Matchers take content, never paths or git objects: :class:`SourceFile` is
the text of one blob; reading it at a ref is :mod:`anchor_audit.source`'s job.
"""
