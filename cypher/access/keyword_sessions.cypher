// @access.keyword_sessions(): the ids of the sessions whose BM25 statistics are the asker's, or null for all
// the sessions of the space: open = null (the space); participant = the sessions the asker
// PARTICIPATED_IN (exactly the messages they may read); private = those and the sessions of turns
// addressed to the asker in sessions they never joined (the sessions @access.message_lucene_sessions
// requires of the candidates). Private's residual: the statistics count every turn of those sessions,
// also the turns of others there the asker may not read (the rule keeps only their own and the
// turns addressed to them); what they hold is never returned, but their words' frequency weighs the
// asker's ranking. An unknown asker outside open gets [] (no statistics; the tool returns nothing).
// An asker who took part in every session of the space (@access.asker_in_every_session) gets null
// too, participant or private: their sessions are all the space's, so the statistics are the same
// numbers, read without testing each session against a list of them (and, private, without
// reading every turn ever addressed to them): the 100k benchmark's asker, in all 500 sessions,
// BM25 query p50 22 -> 19 ms participant, 42 -> 26 ms private (this change alone, load ~10, rows
// identical; docs/retrieval.md "BM25 from the asker's scope: the latency won back").
// Needs `asker` and `asker_sessions` from @access.asker().
// Params: $access_policy, $space
CASE WHEN $access_policy = 'open' THEN null
     WHEN asker IS NULL OR NOT $access_policy IN ['participant', 'private'] THEN []
     WHEN @access.asker_in_every_session() THEN null
     WHEN $access_policy = 'participant' THEN asker_sessions
     ELSE asker_sessions + [(m2:Message)-[:ADDRESSES]->(asker)
                            WHERE NOT m2.session IN asker_sessions | m2.session]
     END
