// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// What deleting a participant touches: the messages they spoke and the voices (Speaker
// nodes) identified only as them. Params: $space, $id
MATCH (p:Participant {space: $space, id: $id})
RETURN p.id AS id, p.name AS name,
       [(p)-[:SPEAKS]->(m:Message) | m.id] AS messages,
       [(sk:Speaker)-[:IDENTIFIED_AS]->(p) WHERE NOT EXISTS {
          MATCH (sk)-[:IDENTIFIED_AS]->(o:Participant) WHERE o <> p } | sk.id] AS speakers;
