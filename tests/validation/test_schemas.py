from __future__ import annotations

from pathlib import Path

import pytest

from django_sitemapkit.validation.schemas import SchemaError, load_schemas, schema_folder
from tests.xsd import xsd_dirs


def test_the_folder_comes_from_the_option_else_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SITEMAPKIT_XSD_DIR", raising=False)
    assert schema_folder(None) is None
    assert schema_folder("/x") == Path("/x")
    monkeypatch.setenv("SITEMAPKIT_XSD_DIR", "/y")
    assert schema_folder(None) == Path("/y")
    assert schema_folder("/x") == Path("/x")


def test_an_unusable_folder(tmp_path: Path) -> None:
    assert load_schemas(None) is None
    with pytest.raises(SchemaError, match=r"has no sitemap\.xsd"):
        load_schemas(tmp_path)
    (tmp_path / "sitemap.xsd").write_text("<not a schema")
    (tmp_path / "siteindex.xsd").write_text("<not a schema")
    with pytest.raises(SchemaError, match="cannot read the schemas"):
        load_schemas(tmp_path)


def test_the_schemas_at_hand() -> None:
    # The project's own (tests/schemas/), and the official ones wherever present.
    for folder in xsd_dirs():
        schemas = load_schemas(folder)
        assert schemas is not None
        assert schemas.for_root("urlset") is schemas.urlset
        assert schemas.for_root("sitemapindex") is schemas.sitemapindex
