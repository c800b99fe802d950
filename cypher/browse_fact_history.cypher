// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Browser: how facts changed: each current fact with the chain of facts it SUPERSEDES
// (older values, no longer current) and the turns each came from.
// Params: $space
MATCH path = (f:Fact {space: $space, current: true})-[:SUPERSEDES*1..10]->(:Fact)
UNWIND nodes(path) AS g
OPTIONAL MATCH (g)-[d:DERIVED_FROM]->(m:Message)
RETURN path, d, m
LIMIT 200;
