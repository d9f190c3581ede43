"""Skills x a source tree -> :class:`~anchor_audit.model.SkillReport`.

:mod:`.skills` audits each skill (its quotes, claims and promises, through the checks of :mod:`anchor_audit.checks`);
:mod:`.judge` judges quotes and conditions by content; :mod:`.kept` keeps a skill's whole audit by its commit;
:mod:`.budget` bounds one skill's checks; :mod:`.parallel` spreads a run's skills over worker processes.
"""
