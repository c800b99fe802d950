// @access.message_lucene_filter(): the required clauses, filtered INSIDE the full-text index,
// of a Lucene query over the `message_scoped_text` index (migration 0007): the space, and for
// participant the asker's sessions, for private those plus the sessions of turns addressed to
// the asker elsewhere (inferred addressees; the asker SPEAKS only in sessions they
// PARTICIPATED_IN). Boosted ^0, so they never change a BM25 score. Ends with a space; the query
// appends its own `+text:(…)`. Ids are quoted (they hold no quote or space). More than 512
// sessions fall back to the space alone (Lucene's clause limit). A shortcut, never the gate:
// the query still applies @access.message to every hit.
// Needs `asker` and `asker_sessions` from @access.asker().
// Params: $space, $access_policy
'+space:"' + $space + '"^0 '
+ CASE WHEN $access_policy = 'participant' AND 0 < size(asker_sessions) <= 512
         THEN '+session:(' + reduce(s = '', sid IN asker_sessions | s + ' "' + sid + '"') + ')^0 '
       WHEN $access_policy = 'private' AND asker IS NOT NULL
         THEN CASE WHEN 0 < size(asker_sessions) <= 512
                   THEN '+session:(' + reduce(s = '', sid IN asker_sessions
                                                 + [(m2:Message)-[:ADDRESSES]->(asker)
                                                    WHERE NOT m2.session IN asker_sessions | m2.session]
                                              | s + ' "' + sid + '"') + ')^0 '
                   ELSE '' END
       ELSE '' END
