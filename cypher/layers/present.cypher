// @layers.present(): which derived memory layers hold anything in the space, as two boolean
// columns, `fact` (any Fact) and `profile` (any Attribute): two index lookups. The fused round
// (/retrieve) and the agent run a derived layer's tools only when it holds anything. Read with the
// access scope (retrieve_scope: the query every request already makes before retrieving, so the
// round needs no check of its own; docs/retrieval.md "Latency, twelfth pass") and on its own
// (retrieve_layers: a scope built without it, the agent). Holds no evidence.
// Params: $space
EXISTS { MATCH (:Fact {space: $space}) } AS fact,
EXISTS { MATCH (:Attribute {space: $space}) } AS profile
