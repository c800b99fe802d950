// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param message_id => null
// :param id => null
// :param caption => 'a photo'
// :param uri => null
// :param embedding => [x IN range(1, 384) | 0.05]
// Attach an image to a message: caption (full-text indexed), optional uri, and an
// open_clip embedding only when one was computed (null otherwise).
// Params: $space, $message_id, $id, $caption, $uri, $embedding (list of floats or null)
MATCH (m:Message {space: $space, id: $message_id})
CREATE (i:Image {space: $space, id: $id, caption: $caption, uri: $uri, created_at: datetime()})
CREATE (m)-[:HAS_IMAGE]->(i)
WITH i
CALL (i) {
  WITH i WHERE $embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(i, 'embedding', $embedding)
}
RETURN i.id AS id, i.caption AS caption, i.uri AS uri;
