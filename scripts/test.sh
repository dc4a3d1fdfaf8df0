#!/usr/bin/env bash
# Run the django-sitemapkit test suite:   bash scripts/test.sh [pytest args...]
#
# Works on a machine with only Python and pip: creates .venv/ in the repo on first
# use and (re)installs the package with its test+lint extras whenever pyproject.toml
# changes.  Environment:
#   PYTHON        interpreter used to create .venv (default: python3)
#   DATABASE_URL  e.g. postgres://postgres@127.0.0.1:5432/test  (default: SQLite in memory)
#   CACHE_URL     e.g. redis://127.0.0.1:6379/1                 (default: locmem)
#   SITEMAPKIT_XSD_DIR  the official XSDs, validated against in addition to tests/schemas/
#                 (default: ../shared/xsd when present; set but empty: none)
# Delete .venv/ to start over (or after changing PYTHON).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PYTHON="${PYTHON:-python3}"
VENV="$ROOT/.venv"
STAMP="$VENV/.sitemapkit-install-stamp"

if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating $VENV with $PYTHON ($("$PYTHON" -c 'import sys; print(sys.version.split()[0])'))" >&2
    "$PYTHON" -m venv "$VENV"
fi

# Reinstall only when pyproject.toml (or the interpreter) changed since the last install.
want="$( (cat pyproject.toml; "$VENV/bin/python" -c 'import sys; print(sys.version)') | cksum)"
have="$(cat "$STAMP" 2>/dev/null || true)"
if [ "$want" != "$have" ]; then
    echo "==> installing django-sitemapkit[test,lint] into .venv" >&2
    log="$VENV/.sitemapkit-install.log"
    if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[test,lint]" >"$log" 2>&1; then
        grep -v 'is ignored: it is neither a file nor a directory' "$log" >&2 || true
        echo "==> ERROR: pip install failed (full log: $log)" >&2
        exit 1
    fi
    printf '%s\n' "$want" > "$STAMP"
fi

exec "$VENV/bin/python" -m pytest "$@"
