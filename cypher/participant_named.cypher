// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param people => [{key: 'maya', id: 'p_browser', name: 'Maya'}]
// :param space => 'demo-household'
// :param source => null
// :param lock => false
// People known by name (a text turn's speaker and addressees, a voice linked by hand): each
// found by its normalised name key or created with that name. The only query that creates a
// named participant outright; placeholders for people only mentioned are participant_placeholder.
// A placeholder found by key ('mention': heard before) is now named by the client, and a name
// linked by hand ('manual') is the user's, whatever learned it first: the name_source says so,
// as if the node had been created here (a batch import, which stores every speaker before any
// turn is derived, creates it here; a reprocess never undoes a name given by hand).
// Params: $space, $people [{key, id, name}] ($id used only if the participant is created),
//         $source (name_source of a created participant: 'manual' for a link by hand, null otherwise),
//         $lock (true: also lock them, in id order, as participant_lock does: a turn's message
//         write finds and locks its people in one statement)
UNWIND $people AS person
MERGE (p:Participant {space: $space, key: person.key})
  ON CREATE SET p.id = person.id, p.name = person.name, p.names_text = person.name, p.aliases = [],
                p.name_source = $source, p.created_at = datetime()
  ON MATCH SET p.name_source = CASE WHEN $source = 'manual' OR p.name_source = 'mention' THEN $source
                                    ELSE p.name_source END
WITH person, p
ORDER BY p.id
FOREACH (_ IN CASE WHEN $lock THEN [1] ELSE [] END | SET p.locked_at = datetime())
RETURN person.key AS key, p.id AS id;
