"""The tool servers (MCP) dialog."""
