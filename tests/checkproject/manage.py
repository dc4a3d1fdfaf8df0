"""A project registering its sitemaps in urls.py, as docs/migrating.md shows (tests/test_check_command.py)."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "checkproject_settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
