// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit: NEXT edges must link idx n to idx n+1 of the same session, and no message may
// have two successors or two predecessors. Must be zero.
// Params: $space
MATCH (m:Message {space: $space})
OPTIONAL MATCH (m)-[:NEXT]->(n:Message)
WITH m, collect(n) AS nexts
WHERE size(nexts) > 1
   OR any(n IN nexts WHERE n.session <> m.session OR n.idx <> m.idx + 1)
   OR COUNT { ()-[:NEXT]->(m) } > 1
RETURN count(m) AS violations, collect(m.id)[..10] AS sample;
