#!/usr/bin/env bash
# Set up and run the django-sitemapkit example project in one command:
#
#     scripts/example.sh
#
# Needs only Python 3 (with venv/pip).  Creates .venv in the repository root if
# missing, installs the package with its "example" extra and the drivers that
# DATABASE_URL / CACHE_URL need, creates the database on its server if it does not
# exist yet, migrates it, seeds it once, runs the system checks, builds the
# sitemap files, lists the sections of both apps (demo, and the multilingual
# guides) and starts the dev server.
# Re-running it is safe: each app's tables are only seeded while they are empty.
#
# Environment variables:
#   PYTHON        interpreter used to create the virtualenv (default: python3)
#   VENV_DIR      virtualenv to use/create (default: <repo>/.venv)
#   SKIP_INSTALL  set to 1 to skip the "pip install" step
#   SEED_COUNT    number of articles to seed into an empty DB (default: 10000)
#   SEED_GUIDES   number of guides (the multilingual app) to seed (default: 300)
#   RESET_DB      set to 1 to drop and recreate the database first (its data is lost)
#   ADDR          address:port for runserver (default: 127.0.0.1:8000)
#   SITEMAPKIT_BASE_URL  base of the sitemaps' absolute URLs (default: http://$ADDR)
#   DATABASE_URL  django-environ URL (default: SQLite in example_project/), e.g.
#                 postgres://postgres@127.0.0.1:5432/example or
#                 mysql://root@127.0.0.1:3306/example (MariaDB/MySQL, through PyMySQL)
#   CACHE_URL     e.g. redis://127.0.0.1:6379/0 (default: local memory)
#   DEBUG, ALLOWED_HOSTS, SITEMAPKIT_BUILD_DIR, SITEMAPKIT_ROBOTS_TXT
#                 passed through to example_project/example_project/settings.py
#                 (which also reads example_project/.env)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

PYTHON="${PYTHON:-python3}"
VENV_DIR="${VENV_DIR:-$REPO_ROOT/.venv}"
SEED_COUNT="${SEED_COUNT:-10000}"
SEED_GUIDES="${SEED_GUIDES:-300}"
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

# A setting from the environment, else from example_project/.env (the settings read both).
setting() {
    if [ -n "${!1:-}" ]; then
        printf '%s' "${!1}"
    elif [ -f example_project/.env ]; then
        sed -nE "s/^[[:space:]]*(export[[:space:]]+)?$1[[:space:]]*=[[:space:]]*['\"]?([^'\"]*).*/\2/p" \
            example_project/.env | tail -n 1
    fi
}

# The extras of pyproject.toml holding the drivers of the database and cache URLs.
extras() {
    local extras="example"
    case "$(setting DATABASE_URL)" in
        postgres:* | postgresql:* | pgsql:* | psql:*) extras+=",postgres" ;;
        mysql:* | mysql2:* | mariadb:*) extras+=",mysql" ;;
    esac
    case "$(setting CACHE_URL)" in
        redis:* | rediss:* | rediscache:* | valkey:* | valkeys:*) extras+=",redis" ;;
    esac
    printf '%s' "$extras"
}

if [ "${SKIP_INSTALL:-0}" != "1" ]; then
    EXTRAS="$(extras)"
    say "Installing django-sitemapkit (editable) with the extras: $EXTRAS"
    run "$PY" -m pip install --disable-pip-version-check -e ".[$EXTRAS]"
fi

if [ "${RESET_DB:-0}" = "1" ]; then
    say "Dropping and recreating the database (RESET_DB=1)"
    run "$PY" "${MANAGE[@]}" ensure_database --recreate
else
    say "Creating the database if its server does not have it yet"
    run "$PY" "${MANAGE[@]}" ensure_database
fi

say "Applying migrations"
run "$PY" "${MANAGE[@]}" migrate --no-input --skip-checks

say "Seeding demo data ($SEED_COUNT articles, $SEED_GUIDES guides) into the apps whose tables are empty"
run "$PY" "${MANAGE[@]}" seed_demo --count "$SEED_COUNT" --guides "$SEED_GUIDES" --if-empty --skip-checks

say "Running system checks (sitemapkit.W001 for demo.Author is expected)"
run "$PY" "${MANAGE[@]}" check

BUILD_DIR="$(setting SITEMAPKIT_BUILD_DIR)"
say "Building the sitemap files into ${BUILD_DIR:-example_project/sitemaps/} (the views serve them)"
run "$PY" "${MANAGE[@]}" sitemapkit_build --skip-checks

say "The sections of both apps: demo (sitemapkit classes) and guides (django.contrib.sitemaps classes, en/fr/de)"
run "$PY" "${MANAGE[@]}" show_sitemaps

say "Starting the development server on http://$ADDR/ (sitemap: http://$ADDR/sitemap.xml)"
printf '+ %s\n' "$PY ${MANAGE[*]} runserver $ADDR"
exec "$PY" "${MANAGE[@]}" runserver "$ADDR"
