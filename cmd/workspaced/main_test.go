package main

import (
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }
