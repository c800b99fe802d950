// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param contains => 'Sunday'
// Browser: facts whose text contains a word, with the turns they were derived from, who spoke
// those turns, and who the facts are stated by and about.
// Params: $space, $contains
MATCH (f:Fact {space: $space})-[d:DERIVED_FROM]->(m:Message)
WHERE toLower(coalesce(f.display, f.content)) CONTAINS toLower($contains)
OPTIONAL MATCH (sp:Participant)-[s:SPEAKS]->(m)
OPTIONAL MATCH (f)-[r:STATED_BY|ABOUT]->(x:Participant)
RETURN f, d, m, s, sp, r, x
LIMIT 200;
