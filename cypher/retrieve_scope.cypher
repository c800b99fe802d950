// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// The access policy of a space and the asker as a participant of it (null when unknown), read
// before any retrieval so the policy always comes from the Space node, never from the client;
// and which derived layers hold anything (@layers.present), so the fused round (/retrieve) runs
// no check of its own beside its channels (docs/retrieval.md "Latency, twelfth pass").
// Params: $space, $asker (participant id or null)
MATCH (s:Space {id: $space})
OPTIONAL MATCH (p:Participant {space: $space, id: $asker})
RETURN s.policy AS policy, p {.id, .name} AS asker, @layers.present();
