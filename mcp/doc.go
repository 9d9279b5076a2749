// Package mcp serves the REST API's operations as Model Context Protocol tools over
// Streamable HTTP at /mcp (decisions.md 8). Tools are generated from restapi.Catalog() and
// every call runs through REST's operation layer (restapi.Ops) with REST's operation enum
// (restapi.Op), so the two transports share their gates, validation, row-level security,
// activity, credits and rate limits.
package mcp
