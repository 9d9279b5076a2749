package main

import (
	"context"
	"encoding/json"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
)

// demo returns the zero-config demo workspace, seeding it on the first start. It is kept in
// the private database's settings (which only exist on the operator's own machine) so a
// restart prints the same credentials.
func (srv *server) demo(ctx context.Context) (store.Demo, error) {
	var d store.Demo
	var seedErr error
	raw, err := srv.store.Setting(ctx, "demo", func() string { return "" })
	if err != nil {
		return d, err
	}
	if raw != "" {
		return d, json.Unmarshal([]byte(raw), &d)
	}
	d, seedErr = srv.store.SeedDemo(ctx, oauth.HashPassword)
	if seedErr != nil {
		return d, seedErr
	}
	b, _ := json.Marshal(d)
	return d, srv.store.PutSetting(ctx, "demo", string(b))
}
