"""The reports of svmlab: what ``svmlab report``, ``svmlab run`` and ``svmlab reproduce`` print
and write.

* :mod:`~svmlab.report.summary` -- the sections of a run's report: the summary table per
  metric, the failed tasks, and the published tables beside each run (one set per job of a
  sweep).
* :mod:`~svmlab.report.builder` -- the report of a run or sweep (sections, statistics,
  figures, notes; :func:`~svmlab.report.builder.run_report`) and of a document (one Markdown
  and one HTML page for the experiments of a paper; :func:`~svmlab.report.builder.document`).
* :mod:`~svmlab.report.rank_tests` -- the rank tests of a run's report: once, or per run of
  a sweep (its methods against each other), each block under its own heading.
* :mod:`~svmlab.report.render` -- the one renderer: report sections as Markdown, CSV, LaTeX or
  HTML, the HTML page around them, and the check of a written page.

The sections themselves are :class:`svmlab.stats.sections.Section` objects, the type the
statistics library returns its tables as.
"""
