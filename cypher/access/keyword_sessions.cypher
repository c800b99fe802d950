// @access.keyword_sessions(): the ids of the sessions whose BM25 statistics are the asker's, or null for all
// the sessions of the space: open = null (the space); participant = the sessions the asker
// PARTICIPATED_IN (exactly the messages they may read); private = those and the sessions of turns
// addressed to the asker in sessions they never joined (the sessions @access.message_lucene_sessions
// requires of the candidates). Private's residual: the statistics count every turn of those sessions,
// also the turns of others there the asker may not read (the rule keeps only their own and the
// turns addressed to them); what they hold is never returned, but their words' frequency weighs the
// asker's ranking. An unknown asker outside open gets [] (no statistics; the tool returns nothing).
// Needs `asker` and `asker_sessions` from @access.asker().
// Params: $access_policy
CASE WHEN $access_policy = 'open' THEN null
     WHEN asker IS NULL OR NOT $access_policy IN ['participant', 'private'] THEN []
     WHEN $access_policy = 'participant' THEN asker_sessions
     ELSE asker_sessions + [(m2:Message)-[:ADDRESSES]->(asker)
                            WHERE NOT m2.session IN asker_sessions | m2.session]
     END
