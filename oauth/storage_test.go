package oauth_test

import (
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
)

// The store implements every interface the provider declares.
var _ oauth.Storage = (*store.Store)(nil)
