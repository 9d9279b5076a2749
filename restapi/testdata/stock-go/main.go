// Command list is an integration written against the Go client that the released
// oapi-codegen generates from the served OpenAPI document (package wsapi, every operation):
// it lists the deals matching Q and prints their names as a JSON array.
// restapi/stock_tools_test.go builds it in a fresh module that requires only what the
// generated code needs, and runs it against a served instance.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"

	"example.com/wsclient/wsapi"
)

func main() {
	c, err := wsapi.NewClientWithResponses(os.Getenv("BASE_URL"), wsapi.WithRequestEditorFn(
		func(_ context.Context, req *http.Request) error {
			req.Header.Set("apikey", os.Getenv("APIKEY"))
			req.Header.Set("Authorization", "Bearer "+os.Getenv("TOKEN"))
			return nil
		}))
	if err != nil {
		fail(err)
	}
	q := os.Getenv("Q")
	res, err := c.ListDealsWithResponse(context.Background(), &wsapi.ListDealsParams{Q: &q})
	if err != nil {
		fail(err)
	}
	if res.JSON200 == nil {
		fail(fmt.Errorf("GET /deals?q=%s: %d %s", q, res.StatusCode(), res.Body))
	}
	names := []string{}
	for _, d := range res.JSON200.Data {
		if d.Name != nil {
			names = append(names, *d.Name)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(names); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
