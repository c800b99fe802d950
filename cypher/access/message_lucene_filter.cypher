// @access.message_lucene_filter(): the required clauses, filtered INSIDE the full-text index,
// of a Lucene query over the `message_scoped_text` index (migration 0007): the space, and for
// participant the asker's sessions, for private those plus the sessions of turns addressed to
// the asker elsewhere (inferred addressees; the asker SPEAKS only in sessions they
// PARTICIPATED_IN). Boosted ^0, so they never change a BM25 score. Ends with a space; the query
// appends its own `+text:(…)`. Ids are quoted (they hold no quote or space). More than 512
// sessions fall back to the space alone (Lucene's clause limit). No session clause either when
// the asker took part in every session of the space: it would filter nothing (the hits, and so
// the ranking, are the same), and it is the costly part of the query — a disjunction of one
// clause per session, each a phrase under the standard analyzer of `message_scoped_text`
// (ids split at '-'), 10 × the open query at 500 sessions (docs/retrieval.md "Latency,
// third pass"). A shortcut, never the gate: the query still applies @access.message to every hit.
// Needs `asker` and `asker_sessions` from @access.asker().
// Params: $space, $access_policy
@access.space_lucene_filter() + @access.message_lucene_sessions()
