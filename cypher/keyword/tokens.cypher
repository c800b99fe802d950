// @keyword.tokens(text): the BM25 tokens of `text`, a list of strings in order, repeats kept: lower
// case, runs of letters, digits and '_' (Unicode classes), an apostrophe (’ read as ') kept inside
// a word and dropped at its end ("Caroline's" -> caroline's, "dogs'" -> dogs), every other
// character a break. Close to the standard analyzer of the `message_scoped_text` full-text index
// that finds the candidates (StandardTokenizer + lower case; it also keeps "3.5" and "u.s" whole,
// which this splits), so a candidate Lucene found for a query word holds that word here too.
// Written once: every writer of a message's BM25 terms (@keyword.count) and the query's own words
// (retrieve_messages_fulltext) go through it; migration 0013 repeats the expression for
// messages stored before it (tests/retrieval/test_bm25_space.py checks both give the same terms).
// Why in Cypher and not Python: a message is counted in the statement that writes it, and the
// backfill of existing databases is a migration, with one tokenizer for both.
[t IN split(reduce(s = '', c IN split(replace(toLower(text), '’', "'"), '') |
                   s + CASE WHEN c =~ '[\\p{L}\\p{N}_]' THEN c
                            WHEN c = "'" AND right(s, 1) =~ '[\\p{L}\\p{N}_]' THEN c
                            ELSE ' ' END), ' ')
 WHERE t <> '' | CASE WHEN t ENDS WITH "'" THEN left(t, size(t) - 1) ELSE t END]
