"""The files' names: in a build's folder, and (by urls.py) in URLs."""

INDEX_NAME = "sitemap.xml"
# A page number in URLs: canonical (no 0, no leading zeros), so one file has one URL.
PAGE_NUMBER = "[1-9][0-9]{0,8}"


def page_filename(section: str, number: int) -> str:
    return f"sitemap-{section}-{number}.xml"
