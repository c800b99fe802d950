// A participant known only by name (addressed or mentioned before they spoke): found by
// name key or created without any voice, and marked as taking part in the session.
// Params: $space, $session, $key, $name, $pid
MERGE (p:Participant {space: $space, key: $key})
  ON CREATE SET p.id = $pid, p.name = $name, p.names_text = $name, p.aliases = [], p.name_evidence = [],
                p.name_source = 'mention', p.created_at = datetime()
WITH p
MATCH (s:Session {space: $space, id: $session})
MERGE (p)-[:PARTICIPATED_IN]->(s)
RETURN p.id AS id;
