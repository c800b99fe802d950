// @access.fact(f): true when the asker may read fact `f`.
// open = every fact; participant = facts whose provenance the asker may read
// (@access.provenance); private = the same, and the fact is STATED_BY, ADDRESSED_TO or ABOUT
// the asker; an unknown asker reads nothing unless the policy is open.
// Needs `asker` and `asker_sessions` from @access.asker().
// Params: $space, $access_policy
($access_policy = 'open'
 OR ($access_policy IN ['participant', 'private'] AND asker IS NOT NULL
     AND ($access_policy = 'participant' OR EXISTS { (f)-[:STATED_BY|ADDRESSED_TO|ABOUT]->(asker) })
     AND @access.provenance(f)))
