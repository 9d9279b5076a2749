package oauth

// NewMemoryLimiter exposes the in-process RegisterLimiter to the tests, which set budgets
// of their own.
var NewMemoryLimiter = newMemoryLimiter
