package httpx_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
)

// TestEnvelopeSchemaDescribesWhatIsWritten: the bodies WriteError writes (with and without
// field errors) are instances of EnvelopeSchema, the schema the OpenAPI document
// publishes; a body with another member, or without request_id, is not.
func TestEnvelopeSchemaDescribesWhatIsWritten(t *testing.T) {
	rs, err := httpx.EnvelopeSchema().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []*apierr.Error{
		apierr.NotFound("no deals record 1"),
		{Code: apierr.CodeValidation, Message: "fix the fields", Fields: []apierr.FieldError{{Field: "name", Problem: "is required"}}},
	} {
		w := httptest.NewRecorder()
		httpx.WriteError(w, httptest.NewRequest("GET", "/v1/deals", nil), nil, e)
		var body map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(body); err != nil {
			t.Errorf("%s: the written body %s is not an instance of the schema: %v", e.Code, w.Body, err)
		}
	}
	for name, body := range map[string]map[string]any{
		"another member":     {"error": "not_found", "message": "m", "request_id": "r", "code": 404},
		"without request_id": {"error": "not_found", "message": "m"},
		"fields null":        {"error": "not_found", "message": "m", "request_id": "r", "fields": nil},
	} {
		if rs.Validate(body) == nil {
			t.Errorf("%s: the schema accepts %v", name, body)
		}
	}
}
