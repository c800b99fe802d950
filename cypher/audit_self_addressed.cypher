// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit: turns that ADDRESS their own speaker. The turn pipeline never writes one (a given
// addressee equal to the speaker is dropped, a vocative naming the speaker is not an address), so
// one means a wrong SPEAKS or a wrong ADDRESSES link. Must be zero.
// Params: $space
MATCH (p:Participant)-[:SPEAKS]->(m:Message {space: $space})-[:ADDRESSES]->(p)
RETURN count(DISTINCT m) AS violations, collect(DISTINCT m.id)[..10] AS sample;
