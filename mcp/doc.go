// Package mcp serves the workspace's operations as Model Context Protocol tools over
// Streamable HTTP at /mcp (docs/decisions.md 8): the MCP adapter over package workspace, a
// sibling of package restapi. Tools are generated from workspace.Catalog() and every call
// runs through the operation layer (workspace.Ops) with its operation enum (workspace.Op),
// so the two transports share their gates, validation, row-level security, activity,
// credits and rate limits.
package mcp
