"""The one turn pipeline (``turns.TurnPipeline``): text turns, spoken turns and the turns of a
whole recording (``recording``, a background job of ``jobs``) → identity → message →
extraction → memory → index."""
