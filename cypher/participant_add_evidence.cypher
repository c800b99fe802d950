// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param message_id => null
// :param entry => null
// Remember one piece of name evidence ("key|name|weight|kind|message_id") on a participant,
// once per message, so weak evidence can accumulate into a name over several turns.
// Params: $space, $id, $entry, $message_id
MATCH (p:Participant {space: $space, id: $id})
WHERE none(e IN coalesce(p.name_evidence, []) WHERE e ENDS WITH '|' + $message_id AND e STARTS WITH split($entry, '|')[0] + '|')
SET p.name_evidence = coalesce(p.name_evidence, []) + [$entry]
RETURN p.id AS id;
