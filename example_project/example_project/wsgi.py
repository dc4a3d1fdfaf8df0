"""WSGI entry point for the example project (e.g. ``gunicorn example_project.wsgi``)."""

import os
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent.parent  # example_project/
for _path in (str(_HERE.parent), str(_HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from django.core.wsgi import get_wsgi_application  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_project.settings")

application = get_wsgi_application()
