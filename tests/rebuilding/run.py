"""``python -m tests.rebuilding.run save COUNT SECONDS`` or ``... report``, under its settings.

``save`` creates COUNT tags spread evenly over SECONDS, each in its own
transaction (autocommit), as a busy site would; ``report`` prints the tasks
backend's rows as JSON.
"""

from __future__ import annotations

import json
import sys
import time

import django


def save(count: int, seconds: float) -> None:
    # inner import: models load only after django.setup()
    from tests.testapp.models import Tag

    start = time.monotonic()
    for number in range(count):
        Tag.objects.create(slug=f"tag-{number}")
        pause = start + seconds * (number + 1) / count - time.monotonic()
        if pause > 0:
            time.sleep(pause)
    print(json.dumps({"saved": count, "seconds": time.monotonic() - start}))


def report() -> None:
    # inner import: models load only after django.setup()
    from django_tasks_db.models import DBTaskResult

    rows = DBTaskResult.objects.order_by("enqueued_at")
    print(
        json.dumps(
            [
                {
                    "task_path": row.task_path,
                    "status": row.status,
                    "args_kwargs": row.args_kwargs,
                    "run_after": row.run_after.isoformat(),
                    "enqueued_at": row.enqueued_at.isoformat(),
                    "return_value": row.return_value,
                }
                for row in rows
            ]
        )
    )


if __name__ == "__main__":
    django.setup()
    if sys.argv[1] == "save":
        save(int(sys.argv[2]), float(sys.argv[3]))
    else:
        report()
