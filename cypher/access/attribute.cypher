// @access.attribute(at): true when the asker may read profile attribute `at`.
// open = every attribute; participant = attributes whose provenance the asker may read
// (@access.provenance); private = the asker's own attributes (HAS_ATTRIBUTE from the asker);
// an unknown asker reads nothing unless the policy is open.
// Needs `asker` and `asker_sessions` from @access.asker().
// Params: $space, $access_policy
($access_policy = 'open'
 OR ($access_policy = 'private' AND asker IS NOT NULL AND EXISTS { (asker)-[:HAS_ATTRIBUTE]->(at) })
 OR ($access_policy = 'participant' AND asker IS NOT NULL
     AND @access.provenance(at)))
