package main

import (
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/imports"
)

// imports builds file imports (docs/rest.md, "Imports"). Their jobs run on webhook
// delivery's River client (webhooks.Config.MoreWork), started and stopped with it; serve
// hands the service the client and the operation layer once they exist.
func (srv *server) imports() *imports.Service {
	return imports.New(imports.Config{Store: srv.store, Status: httpx.Status})
}
