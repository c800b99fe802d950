// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param person => 'maya'
// Browser: everything one person said and to whom, in time order. $person: a participant id or
// a name as spoken in any case ('Maya', 'maya'; the name key is lower-case, so 'Maya' alone
// once showed nothing).
// Params: $space, $person
MATCH (p:Participant {space: $space})-[s:SPEAKS]->(m:Message)
WHERE p.id = $person OR p.key = toLower(trim($person)) OR toLower(p.name) = toLower(trim($person))
OPTIONAL MATCH (m)-[a:ADDRESSES]->(q:Participant)
RETURN p, s, m, a, q
ORDER BY m.ts, m.session, m.idx
LIMIT 300;
