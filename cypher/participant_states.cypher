// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param ids => []
// :param space => 'demo-household'
// Identity state of participants: name, aliases, accumulated name evidence, and whether a
// voice or a spoken message belongs to them (a participant with neither is a placeholder
// created because someone was addressed or mentioned by name).
// Params: $space, $ids (list of participant ids)
UNWIND $ids AS pid
MATCH (p:Participant {space: $space, id: pid})
RETURN p.id AS id, p.name AS name, p.key AS key, coalesce(p.aliases, []) AS aliases,
       coalesce(p.name_evidence, []) AS evidence, p.name_source AS name_source,
       EXISTS { (p)-[:SPEAKS]->(:Message) } OR EXISTS { (:Speaker)-[:IDENTIFIED_AS]->(p) } AS has_voice;
