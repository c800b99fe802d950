// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit: each session's messages, in idx order, form ONE chain: every message has a NEXT edge
// to the session's next stored message and to nothing else (the last one has none), and no
// message has two predecessors. idx may skip numbers where a deleted person's turns were
// (the deletion re-links NEXT over the gap), so "next" means the next stored idx, not idx+1.
// Flags the message whose outgoing link is missing, wrong or forked. Must be zero.
// Params: $space
MATCH (m:Message {space: $space})
WITH m ORDER BY m.idx
WITH m.session AS session, collect(m) AS chain
UNWIND range(0, size(chain) - 1) AS i
WITH chain[i] AS m, chain[i + 1] AS expected
OPTIONAL MATCH (m)-[:NEXT]->(n:Message)
WITH m, expected, collect(n) AS nexts
WHERE size(nexts) > 1
   OR (expected IS NULL AND size(nexts) > 0)
   OR (expected IS NOT NULL AND NOT expected IN nexts)
   OR COUNT { ()-[:NEXT]->(m) } > 1
RETURN count(m) AS violations, collect(m.id)[..10] AS sample;
