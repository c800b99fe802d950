// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Browser: who addresses whom most; one row per speaker and addressee, weighted by turns
// (an ADDRESSES edge carries a confidence; 'weight' sums them).
// Params: $space
MATCH (p:Participant {space: $space})-[:SPEAKS]->(m:Message)-[a:ADDRESSES]->(q:Participant)
RETURN coalesce(p.display, p.name, p.id) AS speaker, coalesce(q.display, q.name, q.id) AS addressee,
       count(m) AS turns, round(sum(coalesce(a.confidence, 1.0)), 2) AS weight
ORDER BY turns DESC, speaker, addressee;
