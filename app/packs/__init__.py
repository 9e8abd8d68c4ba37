"""Parts of Hearth added after install: ``fetch`` (one verified, resumable download, the
same for every part) and ``runtime_packs`` (llama.cpp's CUDA runtimes as packs with a
manifest, chosen by the driver and the GPUs, installed, probed, rolled back and removed).
"""
