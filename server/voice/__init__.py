"""Voice identity: speaker encoders, the online speaker router, reconciliation, asker
identification, identity management and identity metrics (see docs/voice.md)."""
