// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param speaker_id => null
// :param pid => null
// :param label => 'browser'
// :param source => 'voice'
// A new voice's person: an unnamed Participant (name and key null, so identity mapping can
// name it later; `label` is only a display handle) that the new Speaker is IDENTIFIED_AS.
// Runs in the transaction that created the Speaker (speaker_create, speaker_split).
// Params: $space, $speaker_id, $pid, $label, $source ('voice' when routed, 'split' when split)
MATCH (sk:Speaker {space: $space, id: $speaker_id})
CREATE (p:Participant {space: $space, id: $pid, label: $label, names_text: '', aliases: [],
                       name_evidence: [], created_at: datetime()})
CREATE (sk)-[:IDENTIFIED_AS {confidence: 1.0, source: $source}]->(p)
RETURN p.id AS id;
