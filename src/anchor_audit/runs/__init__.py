"""Runs made of many audits: a catalog, a history, an impact, a release matrix, two refs compared, a kept
run replayed."""
