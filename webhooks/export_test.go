package webhooks

// SetHook makes s call f at the start of each round of dispatch, delivery and upkeep
// (where names which), inside their recovery; call it before Start.
func SetHook(s *Service, f func(where string)) { s.hook = f }
