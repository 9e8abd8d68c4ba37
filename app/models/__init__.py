"""The model library: what models are on this machine (Hearth's own folder, other apps'
caches, remote endpoints), their facts read from metadata, and per-model settings."""
