"""The files' names: in a build's folder, and (by urls.py) in URLs."""

INDEX_NAME = "sitemap.xml"


def page_filename(section: str, number: int) -> str:
    return f"sitemap-{section}-{number}.xml"
