"""Small, guarded fixes to the vendored llama.cpp so that it builds with the toolchain of
an older stable distribution (the CI machines run Debian 12).

Each fix leaves the code unchanged where the newer headers exist, and is applied only if
its exact target text is found, so a newer llama.cpp that no longer needs it builds as is.

    python packaging/llama/compat.py SOURCE_DIR   # the unpacked llama-cpp-python sdist
"""

from __future__ import annotations

import sys
from pathlib import Path

# ggml-vulkan uses VK_EXT_layer_settings (validation-layer options) unconditionally; the
# Vulkan headers of Debian 12 (1.3.239) predate it.  Guarded by the extension's own macro.
VULKAN = "vendor/llama.cpp/ggml/src/ggml-vulkan/ggml-vulkan.cpp"
LAYER_SETTINGS_START = "    VkBool32 enable_best_practice = layer_settings;\n"
LAYER_SETTINGS_END = (
    "    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, "
    "layers, extensions, &layer_setting_info);\n"
)
WITHOUT_LAYER_SETTINGS = (
    "    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, "
    "layers, extensions);\n"
)


def guard_layer_settings(source: Path) -> bool:
    path = source / VULKAN
    text = path.read_text(encoding="utf-8")
    start = text.find(LAYER_SETTINGS_START)
    end = text.find(LAYER_SETTINGS_END, start)
    if start < 0 or end < 0 or "#ifdef VK_EXT_layer_settings\n" + LAYER_SETTINGS_START in text:
        return False
    end += len(LAYER_SETTINGS_END)
    guarded = (
        "#ifdef VK_EXT_layer_settings\n"
        + text[start:end]
        + "#else\n"
        + WITHOUT_LAYER_SETTINGS
        + "#endif\n"
    )
    path.write_text(text[:start] + guarded + text[end:], encoding="utf-8")
    return True


def main(argv: list[str]) -> int:
    source = Path(argv[0])
    if guard_layer_settings(source):
        print("compat: VK_EXT_layer_settings guarded (older Vulkan headers)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
