"""A small project for background rebuilds run as real processes: writer, worker, reports.

``tests/test_rebuilds_worker.py`` runs it; ``settings.py`` is its settings
module, ``sitemaps.py`` registers its one section, ``run.py`` its commands.
"""
