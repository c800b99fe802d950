// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param pid => null
// :param into => null
// What a fold of participant $pid into $into can bring into one slot: the (subject, slot) of
// every fact whose subject is $pid (its subject is $into after the fold; slot null for facts
// without one, which can repeat the person's own) or, with a slot, that $pid stated (its
// speaker is $into after the fold, and "whoever stated the old value restates it" may now
// hold), and the kinds of $pid's attributes. memory.fold re-decides those slots
// and kinds after the fold (voxmem.memory.rules.replay_facts / replay_attributes).
// Params: $space, $pid (the participant about to be folded), $into (the one it is folded into)
MATCH (p:Participant {space: $space, id: $pid})
RETURN COLLECT {
         MATCH (f:Fact {space: $space, subject_key: $pid})
         RETURN {subject: $into, slot: f.slot} AS key
         UNION
         MATCH (p)<-[:STATED_BY]-(f:Fact) WHERE f.slot IS NOT NULL
         RETURN {subject: CASE f.subject_key WHEN $pid THEN $into ELSE f.subject_key END, slot: f.slot} AS key
       } AS slots,
       COLLECT { MATCH (p)-[:HAS_ATTRIBUTE]->(a:Attribute) RETURN DISTINCT a.kind } AS kinds;
