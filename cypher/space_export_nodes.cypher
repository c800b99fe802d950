// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param voiceprints => null
// Every node of a space for export (voxmem.portability): its labels and properties. Keys, jobs and
// the Space node itself stay behind; voiceprints (and Speaker centroids, dropped in Python) only on request.
// Params: $space, $voiceprints (bool)
MATCH (n {space: $space})
WHERE NOT (n:Space OR n:ApiKey OR n:Job)
  AND ($voiceprints OR NOT (n:Voiceprint OR n:FusedVoiceprint))
RETURN elementId(n) AS eid, labels(n) AS labels, properties(n) AS props
ORDER BY labels(n)[0], n.id;
