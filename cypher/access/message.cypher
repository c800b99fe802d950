// @access.message(m): true when the asker may read message `m` (a boolean expression).
// open = every message; participant = messages of sessions the asker PARTICIPATED_IN;
// private = messages the asker SPEAKS or that ADDRESS the asker; an unknown asker (asker null)
// reads nothing unless the policy is open; any other $access_policy value reads nothing (fail closed).
// Needs `asker` and `asker_sessions` from @access.asker().
// Params: $access_policy
($access_policy = 'open'
 OR ($access_policy = 'participant' AND asker IS NOT NULL AND m.session IN asker_sessions)
 OR ($access_policy = 'private' AND asker IS NOT NULL
     AND (EXISTS { (asker)-[:SPEAKS]->(m) } OR EXISTS { (m)-[:ADDRESSES]->(asker) })))
