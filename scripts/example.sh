#!/usr/bin/env bash
# Set up and run the django-sitemapkit example project in one command:
#
#     scripts/example.sh
#
# Needs only Python 3 (with venv/pip).  Creates .venv in the repository root if
# missing, installs the package with its "example" extra, migrates the demo
# database, seeds it once, runs the system checks and starts the dev server.
# Re-running it is safe: the database is only seeded while it is empty.
#
# Environment variables:
#   PYTHON        interpreter used to create the virtualenv (default: python3)
#   VENV_DIR      virtualenv to use/create (default: <repo>/.venv)
#   SKIP_INSTALL  set to 1 to skip the "pip install" step
#   SEED_COUNT    number of articles to seed into an empty DB (default: 10000)
#   ADDR          address:port for runserver (default: 127.0.0.1:8000)
#   SITEMAPKIT_BASE_URL  base of the sitemaps' absolute URLs (default: http://$ADDR)
#   DATABASE_URL, CACHE_URL, DEBUG, ALLOWED_HOSTS
#                 passed through to example_project/example_project/settings.py
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

PYTHON="${PYTHON:-python3}"
VENV_DIR="${VENV_DIR:-$REPO_ROOT/.venv}"
SEED_COUNT="${SEED_COUNT:-10000}"
ADDR="${ADDR:-127.0.0.1:8000}"
# Absolute <loc> URLs in the sitemaps should point at the server started below.
export SITEMAPKIT_BASE_URL="${SITEMAPKIT_BASE_URL:-http://$ADDR}"

say() { printf '\n==> %s\n' "$*"; }
run() {
    printf '+ %s\n' "$*"
    "$@"
}

if [ ! -x "$VENV_DIR/bin/python" ]; then
    say "Creating virtualenv $VENV_DIR (with $PYTHON)"
    run "$PYTHON" -m venv "$VENV_DIR"
else
    say "Using existing virtualenv $VENV_DIR"
fi
PY="$VENV_DIR/bin/python"
MANAGE=(example_project/manage.py)

if [ "${SKIP_INSTALL:-0}" != "1" ]; then
    say "Installing django-sitemapkit (editable) with the example extra"
    run "$PY" -m pip install --disable-pip-version-check -e ".[example]"
fi

say "Applying migrations"
run "$PY" "${MANAGE[@]}" migrate --no-input --skip-checks

say "Seeding demo data ($SEED_COUNT articles) if the database is empty"
run "$PY" "${MANAGE[@]}" seed_demo --count "$SEED_COUNT" --if-empty --skip-checks

say "Running system checks (sitemapkit.W001 for demo.Author is expected)"
run "$PY" "${MANAGE[@]}" check

say "Building the sitemap files into example_project/sitemaps/ (the views serve them)"
run "$PY" "${MANAGE[@]}" sitemapkit_build --skip-checks

say "Starting the development server on http://$ADDR/ (sitemap: http://$ADDR/sitemap.xml)"
printf '+ %s\n' "$PY ${MANAGE[*]} runserver $ADDR"
exec "$PY" "${MANAGE[@]}" runserver "$ADDR"
