// @access.provenance(x): true when node `x` (a Fact or an Attribute) is derived only from
// messages the asker may read: it has at least one DERIVED_FROM message (memory without
// provenance is invisible: fail closed), and every one of them is in the space and passes
// @access.message. This is how the message rule carries over to derived memory.
// Needs `asker` and `asker_sessions` from @access.asker().
// Params: $space, $access_policy
(EXISTS { (x)-[:DERIVED_FROM]->(:Message) }
 AND NOT EXISTS {
   MATCH (x)-[:DERIVED_FROM]->(source_message:Message)
   WHERE source_message.space <> $space
      OR NOT @access.message(source_message)
 })
