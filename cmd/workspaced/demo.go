package main

import (
	"context"

	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
)

// demo returns the zero-config demo workspace of the data folder (store.LoadDemo).
func (srv *server) demo(ctx context.Context) (store.Demo, error) {
	return srv.store.LoadDemo(ctx, srv.cfg.DataDir, oauth.HashPassword)
}

// forgetStoredDemo removes the demo credentials earlier versions kept in service_settings
// (store.ForgetStoredDemo), moving them to the data folder on a zero-config start.
func (srv *server) forgetStoredDemo(ctx context.Context) error {
	dir := ""
	if srv.cfg.DatabaseURL == "" {
		dir = srv.cfg.DataDir
	}
	removed, err := srv.store.ForgetStoredDemo(ctx, dir)
	if removed {
		srv.log.Warn("removed the demo credentials kept in plaintext in service_settings", "moved_to_data_dir", dir != "")
	}
	return err
}
