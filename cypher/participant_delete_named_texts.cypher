// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param messages => []
// Before a participant is deleted: the facts and attributes that stay (supported by a message
// not among $messages, the deleted person's) and whose text holds the person's name, an alias
// or their '{p_…}' placeholder (listed with the caption an unnamed person's placeholder reads
// as, memory_display_refresh), with the texts of those supporting messages and their images'
// captions. The caller (voxmem.memory.pipeline.text_without_name) tells the name the speaker said ("Maya, your
// room is 412." -> "Maya's room is 412.": their memory, kept) from a name the system wrote for
// "you" or an addressee ("Your room is 412." said to Dave -> "Dave's room is 412."). A scan of
// the space's facts and attributes, like memory_check's: deletion is rare.
// Params: $space, $id, $messages (the deleted person's message ids)
MATCH (p:Participant {space: $space, id: $id})
WITH [n IN [p.name] + coalesce(p.aliases, []) WHERE n IS NOT NULL AND n <> '']
     + ['{' + p.id + '}', 'unnamed voice ' + substring(p.id, 2, 6)] AS names
CALL () {
  MATCH (f:Fact {space: $space}) RETURN f AS n, f.content AS text
  UNION
  MATCH (a:Attribute {space: $space}) RETURN a AS n, a.text AS text
}
WITH n, text, names WHERE any(name IN names WHERE text CONTAINS name)
WITH n, text, names,
     [(n)-[:DERIVED_FROM]->(m:Message) WHERE NOT m.id IN $messages |
        reduce(said = m.text, c IN [(m)-[:HAS_IMAGE]->(i:Image) | i.caption] | said + '\n' + c)] AS sources
WHERE size(sources) > 0
RETURN n.id AS id, text, n.display AS display, names, sources;
