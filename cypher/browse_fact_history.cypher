// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Browser: how facts changed: each current fact or attribute with the chain of older values it
// SUPERSEDES (no longer current) and the turns each came from. A space where nothing has been
// superseded yet gets one row saying so (with its count of current facts), not an empty result
// that reads like a query that did not run; an unknown space says that instead.
// Params: $space
MATCH path = (f:Fact|Attribute {space: $space, current: true})-[:SUPERSEDES*1..10]->(old)
WHERE (f:Fact AND old:Fact) OR (f:Attribute AND old:Attribute)
UNWIND nodes(path) AS g
OPTIONAL MATCH (g)-[d:DERIVED_FROM]->(m:Message)
RETURN path, d, m, null AS note
LIMIT 200
UNION
OPTIONAL MATCH (s:Space {id: $space})
WITH s
WHERE s IS NULL OR NOT EXISTS { MATCH (:Fact|Attribute {space: $space})-[:SUPERSEDES]->() }
OPTIONAL MATCH (f:Fact {space: $space, current: true})
WITH s, count(f) AS facts
RETURN null AS path, null AS d, null AS m,
       CASE WHEN s IS NULL THEN 'no space ' + $space + ' (check :param space)'
            ELSE 'nothing in ' + $space + ' has been superseded yet: its ' + toString(facts) +
                 ' current facts each still hold (a later turn restating the same thing of the same' +
                 ' person replaces the earlier one)' END AS note;
