"""Continuous batching for llama.cpp: one context, one KV stream per slot, every active
reply's next token decoded in one ``llama_decode`` (``scheduler``), and the KV state of
conversations that left their slot kept for when they come back (``prompt_cache``)."""
