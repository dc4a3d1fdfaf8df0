"""Telling search engines what a build changed (IndexNow)."""
