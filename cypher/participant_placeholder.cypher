// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param key => 'maya'
// :param pid => null
// :param name => 'Maya'
// :param present => true
// :param session => 'kitchen-monday'
// A participant known only by name (addressed or mentioned before they spoke): found by
// name key or created without any voice. Someone *addressed* is present, so they take part
// in the session ($present true); someone only *mentioned* ("my sister Anna") does not, so
// they gain no access to it.
// Params: $space, $session, $key, $name, $pid, $present (bool)
MERGE (p:Participant {space: $space, key: $key})
  ON CREATE SET p.id = $pid, p.name = $name, p.names_text = $name, p.aliases = [], p.name_evidence = [],
                p.name_source = 'mention', p.created_at = datetime()
WITH p
CALL (p) {
  WITH p WHERE $present
  MATCH (s:Session {space: $space, id: $session})
  MERGE (p)-[:PARTICIPATED_IN]->(s)
}
RETURN p.id AS id;
