// Package ratelimit holds the service's request budgets (docs/decisions.md 5): 60
// requests a minute per credential and 600 per workspace on REST calls and MCP tool calls
// alike, and per-IP budgets for failed authentication and dynamic client registration
// (docs/contract.md section 8: 20 registrations per hour per IP), and the password sign-in budgets
// (signin.go). Counts live in memory for one
// process, or in Redis when a URL is configured so that several processes share them.
package ratelimit
