"""Which pages the change log's keys send a build to (engine/touched.py)."""

from __future__ import annotations

from django_sitemapkit.engine.pages import Page
from django_sitemapkit.engine.touched import PagesHolding

# Page 3 was split off page 1 at key 50; page 2 is the open last page.
PAGES = [Page(1, None, "50"), Page(2, "100", None), Page(3, "50", "100")]


def choose(keys: list[str], known: list[int]) -> tuple[set[int], dict[int, list[str]]]:
    holding = PagesHolding(keys, known, int)
    return set(holding(PAGES)), holding.by_page


def test_each_key_sends_to_the_page_whose_range_holds_it() -> None:
    chosen, by_page = choose(["1", "49", "50", "99", "100", "100000", "-5"], [1, 2, 3])
    assert chosen == {1, 2, 3}
    assert by_page == {1: ["1", "49", "-5"], 3: ["50", "99"], 2: ["100", "100000"]}
    assert choose(["60"], [1, 2, 3]) == ({3}, {3: ["60"]})
    assert choose([], [1, 2, 3]) == (set(), {})


def test_a_page_split_off_since_is_chosen_with_the_page_it_came_from() -> None:
    # The last build knew pages 1 and 2: page 3 starts where page 1 now ends.
    assert choose([], [1, 2]) == ({1, 3}, {})


def test_pages_recorded_anew_choose_every_page() -> None:
    # The last build knew a page 4 that is no longer recorded.
    assert choose(["1"], [1, 2, 3, 4]) == ({1, 2, 3}, {})


def test_a_page_emptied_before_the_last_build_is_chosen_only_for_its_keys() -> None:
    # The last build published pages 1 and 3: page 2 was empty then.
    assert choose([], [1, 3]) == (set(), {})
    assert choose(["100"], [1, 3]) == ({2}, {2: ["100"]})
