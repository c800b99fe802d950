// @access.message_lucene_sessions(): the session part of @access.message_lucene_filter, alone: ''
// or a required clause `+session:(…)^0 ` (ends with a space). On its own in the SPLADE head query
// (retrieve_messages_sparse_head), whose space-qualified head terms (@sparse.head, migration 0012)
// already select the space: a required `+space:"…"` clause there stopped Lucene's top-k pruning
// (docs/retrieval.md "Latency, tenth pass"). When it is '' and why: see @access.message_lucene_filter.
// A shortcut, never the gate: the query still applies @access.message to every hit.
// Needs `asker` and `asker_sessions` from @access.asker().
// Params: $space, $access_policy
CASE WHEN NOT $access_policy IN ['participant', 'private'] OR asker IS NULL
       OR NOT 0 < size(asker_sessions) <= 512
       OR @access.asker_in_every_session()
       THEN ''
     WHEN $access_policy = 'participant'
       THEN '+session:(' + reduce(s = '', sid IN asker_sessions | s + ' "' + sid + '"') + ')^0 '
     ELSE '+session:(' + reduce(s = '', sid IN asker_sessions
                                   + [(m2:Message)-[:ADDRESSES]->(asker)
                                      WHERE NOT m2.session IN asker_sessions | m2.session]
                                | s + ' "' + sid + '"') + ')^0 '
     END
